package datfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"acambient/datfetch/source"
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
	got, err := d.ReadStored(context.Background(), e, nil)
	if err != nil || !bytes.Equal(got, wantStored) {
		t.Fatalf("ReadStored = % X, %v; want % X", got, err, wantStored)
	}
	if len(got) != 31 || got[4] != 0x78 || got[5] != 0x01 {
		t.Errorf("stored record of %d bytes starting % X", len(got), got[:6])
	}
	// Into a buffer with room: the same bytes in its array, what it held
	// before overwritten.
	buf := bytes.Repeat([]byte{0xEE}, 64)
	if got, err := d.ReadStored(context.Background(), e, buf[:10]); err != nil || !bytes.Equal(got, wantStored) || &got[0] != &buf[0] {
		t.Errorf("ReadStored into a 64-byte buffer = % X, %v; want % X in the buffer", got, err, wantStored)
	}
	// The big record spans blocks; its stored bytes are the entry's Size.
	// A buffer too small for it is outgrown.
	e, _ = d.Lookup(0x01010101)
	got, err = d.ReadStored(context.Background(), e, buf[:0])
	if err != nil || len(got) != int(e.Size) || binary.LittleEndian.Uint32(got) != uint32(len(want[0x01010101])) {
		t.Errorf("big stored record: %d bytes, %v; want %d with size prefix %d", len(got), err, e.Size, len(want[0x01010101]))
	}

	if _, err := d.ReadStored(context.Background(), Entry{ID: 7}, nil); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("size-0 entry: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.ReadStored(ctx, e, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A chain through a block past the file's end is the read error Get gives.
	bad := e
	bad.Offset = uint32(len(f.b))
	if _, err := d.ReadStored(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), "record 0x01010101") {
		t.Errorf("bad chain: %v", err)
	}
}
