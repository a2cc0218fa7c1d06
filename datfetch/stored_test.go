package datfetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadStored: a compressed record comes back as the dat stores it, the
// u32 uncompressed size then the zlib stream, where Get inflates it.
func TestReadStored(t *testing.T) {
	f, want := compressedCell(t)
	d := f.open(t)
	small := want[0x01010100] // 16 bytes: DID + "ABCDEFGHIJKL"
	wantStored := append([]byte{16, 0, 0, 0}, storedZlib(small)...)
	e, err := d.Lookup(0x01010100)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadStored(context.Background(), e)
	if err != nil || !bytes.Equal(got, wantStored) {
		t.Fatalf("ReadStored = % X, %v; want % X", got, err, wantStored)
	}
	if len(got) != 31 || got[4] != 0x78 || got[5] != 0x01 {
		t.Errorf("stored record of %d bytes starting % X", len(got), got[:6])
	}
	// The big record spans blocks; its stored bytes are the entry's Size.
	e, _ = d.Lookup(0x01010101)
	got, err = d.ReadStored(context.Background(), e)
	if err != nil || len(got) != int(e.Size) || binary.LittleEndian.Uint32(got) != uint32(len(want[0x01010101])) {
		t.Errorf("big stored record: %d bytes, %v; want %d with size prefix %d", len(got), err, e.Size, len(want[0x01010101]))
	}

	if _, err := d.ReadStored(context.Background(), Entry{ID: 7}); !errors.Is(err, ErrNotFound) {
		t.Errorf("size-0 entry: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.ReadStored(ctx, e); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A chain through a block past the file's end is the read error Get gives.
	bad := e
	bad.Offset = uint32(len(f.b))
	if _, err := d.ReadStored(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "record 0x01010101") {
		t.Errorf("bad chain: %v", err)
	}
}

// TestDigest hashes the whole file, whatever the header says of its size.
func TestDigest(t *testing.T) {
	f, _ := compressedCell(t)
	d := f.open(t)
	n, sum, err := d.Digest(context.Background())
	want := sha256.Sum256(f.b)
	if err != nil || n != int64(len(f.b)) || sum != hex.EncodeToString(want[:]) {
		t.Errorf("Digest = %d, %s, %v; want %d, %x", n, sum, err, len(f.b), want)
	}
	d2 := &Dat{r: failAt{bytes.NewReader(f.b), 2048}}
	if _, _, err := d2.Digest(context.Background()); err == nil || !strings.Contains(err.Error(), "digest at byte") {
		t.Errorf("failing reader: %v", err)
	}
}

// failAt fails reads that reach past off.
type failAt struct {
	r   io.ReaderAt
	off int64
}

func (f failAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.off {
		return 0, errors.New("disk on fire")
	}
	return f.r.ReadAt(p, off)
}

// BenchmarkDigest measures the hash of a dat file's bytes (64 MiB here; a
// retail cell dat is ~2 GB, a portal dat ~1 GB).
func BenchmarkDigest(b *testing.B) {
	buf := make([]byte, 64<<20)
	d := &Dat{r: bytes.NewReader(buf)}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, _, err := d.Digest(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
