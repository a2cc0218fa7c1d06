package datfile

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"
)

// Caps on what one record may cost to read. A size field is 32 bits and
// nothing in the container bounds it, so a flipped bit would otherwise have
// the reader allocate up to 4 GiB per request (issue 8). Each cap is what a
// record of that kind can be, with a wide margin where the spec gives no
// figure; docs/divergences.md lists them (retail trusts the sizes).
const (
	// landBlockSize is every LandBlock's size: 0xXXYYFFFF in a cell dat is
	// exactly 252 bytes (docs/dat-format.md §6.1).
	landBlockSize = 252
	// maxCellRecord bounds the other cell-dat records, EnvCells and
	// LandBlockInfos: lists of surfaces, portals, visible cells and statics
	// (32 bytes each) for one cell or one 192 m landblock. A megabyte would
	// be some 30 000 statics in one landblock; real ones are a few KiB.
	maxCellRecord = 1 << 20
	// maxPortalRecord bounds portal, local and highres records: the largest
	// EoR record (a Wave) is under 2 MiB, and 32 MiB would still hold a
	// 2048×2048 32-bit texture twice. It is also the HTTP source's
	// DefaultMaxRecordBytes, so every source refuses the same records.
	maxPortalRecord = 32 << 20
	// MaxCellRecordBytes and MaxPortalRecordBytes are the caps for an HTTP
	// source's MaxRecordBytes: every reader of records refuses the same ones.
	MaxCellRecordBytes   = maxCellRecord
	MaxPortalRecordBytes = maxPortalRecord
	// maxRecordSize is the largest of the caps.
	maxRecordSize = maxPortalRecord

	// ZlibMaxRatio is deflate's largest expansion: a length/distance pair
	// costs at least 2 bits and copies at most 258 bytes, so output is at
	// most 1032 times the stream (zlib technical details, "Maximum
	// compression factor"). A declared size beyond it is a lie.
	ZlibMaxRatio = 1032
)

// storedCap is the most bytes any record may occupy in a dat of set,
// compressed or not (zlib adds a few bytes to incompressible data, far
// inside the margins).
func storedCap(set DataSet) uint32 {
	if set == Cell {
		return maxCellRecord
	}
	return maxPortalRecord
}

// checkDeclared vets the uncompressed size a compressed record of stored
// bytes declares, before anything is allocated for it.
func checkDeclared(set DataSet, id, stored, want uint32) error {
	limit, what := storedCap(set), "portal-dat record"
	switch {
	case set == Cell && id&0xFFFF == 0xFFFF:
		limit, what = landBlockSize, "LandBlock (docs/dat-format.md §6.1)"
	case set == Cell:
		what = "cell-dat record"
	}
	if want > limit {
		return fmt.Errorf("declared uncompressed size %d exceeds %d, the most a %s can be", want, limit, what)
	}
	if most := uint64(stored-4) * ZlibMaxRatio; uint64(want) > most {
		return fmt.Errorf("declared uncompressed size %d is more than a %d-byte zlib stream can give (%d at 1032:1)", want, stored-4, most)
	}
	return nil
}

// Budget bounds the bytes that record reads hold at once, across every Dat
// given it: a read takes the record's stored size, plus its declared
// uncompressed size when compressed, before allocating either, and gives
// them back when Get returns. Readers beyond the budget wait their turn (or
// their context's end). A server shares one between its dats so that many
// concurrent cold reads of large or hostile records cannot add up.
type Budget struct {
	max int64
	sem *semaphore.Weighted
}

// NewBudget returns a budget of max bytes (max > 0).
func NewBudget(max int64) *Budget {
	return &Budget{max: max, sem: semaphore.NewWeighted(max)}
}

// acquire takes n bytes, waiting while others hold them. More than the whole
// budget is an error rather than a wait that would never end. A nil Budget
// grants everything.
func (b *Budget) acquire(ctx context.Context, n int64) error {
	if b == nil {
		return nil
	}
	if n > b.max {
		return fmt.Errorf("reading needs %d bytes at once, more than the %d-byte budget", n, b.max)
	}
	return b.sem.Acquire(ctx, n)
}

func (b *Budget) release(n int64) {
	if b != nil {
		b.sem.Release(n)
	}
}

// SetBudget makes the dat's record reads take their memory from b (nil:
// unbounded). Call it before the dat is shared.
func (d *Dat) SetBudget(b *Budget) { d.budget = b }

// Budget is the budget SetBudget gave d (nil: none).
func (d *Dat) Budget() *Budget { return d.budget }

// Max is the most bytes b lets reads hold at once.
func (b *Budget) Max() int64 { return b.max }
