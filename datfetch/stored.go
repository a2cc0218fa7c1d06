package datfetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// ReadStored returns e's record as the dat stores it: for a compressed entry
// the u32 uncompressed size and the zlib stream (spec §1.5), not inflated.
// This is the form acdatservice serves (its DatFileReader reads file_size
// bytes of the chain and stops), which a drop-in for it must serve too. The
// chain is read and checked as Get reads it; nothing else is checked.
func (d *Dat) ReadStored(ctx context.Context, e Entry) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.Size == 0 {
		return nil, fmt.Errorf("%w (entry of size 0: no data)", NotFound(e.ID))
	}
	b, err := d.readChain(e.Offset, e.Size)
	if err != nil {
		return nil, fmt.Errorf("record 0x%08X: %w", e.ID, err)
	}
	return b, nil
}

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
