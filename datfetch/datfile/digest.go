//go:build !js

package datfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// (Not in the js build: only the server hashes dats, and crypto/sha256
// would add ~160 KB to the page's wasm.)

// Digest reads the whole dat file and returns its length in bytes and its
// SHA-256 in lower-case hex: what acdatservice's /dats reports as size_bytes
// and sha256 (its indexer hashes the file it uploads). A retail cell dat is
// about 2 GB, so this takes seconds; callers compute it once.
func (d *Dat) Digest(ctx context.Context) (int64, string, error) {
	h := sha256.New()
	// ReadAt-based, so it does not disturb concurrent Gets; it reads to EOF
	// rather than to the header's file_size, as hashing the file does.
	r := io.NewSectionReader(d.r, 0, 1<<62)
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		k, err := r.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, "", fmt.Errorf("dat digest at byte %d: %w", n, err)
		}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
