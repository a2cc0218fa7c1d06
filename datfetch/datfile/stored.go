package datfile

import (
	"context"
	"fmt"

	"acambient/datfetch/source"
)

// ReadStored returns e's record as the dat stores it: for a compressed entry
// the u32 uncompressed size and the zlib stream (docs/dat-format.md §1.5), not inflated.
// This is the form acdatservice serves (its DatFileReader reads file_size
// bytes of the chain and stops), which a drop-in for it must serve too. The
// chain is read and checked as Get reads it; nothing else is checked.
// The bytes go into dst's array (from dst[:0]) when it has room: the server
// reads small records into reused buffers.
func (d *Dat) ReadStored(ctx context.Context, e Entry, dst []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.Size == 0 {
		return nil, fmt.Errorf("%w (entry of size 0: no data)", source.NotFound(e.ID))
	}
	b, err := d.readChain(e.Offset, e.Size, dst)
	if err != nil {
		return nil, fmt.Errorf("record 0x%08X: %w", e.ID, err)
	}
	return b, nil
}
