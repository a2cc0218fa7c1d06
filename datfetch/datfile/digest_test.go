//go:build !js

package datfile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
)

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
