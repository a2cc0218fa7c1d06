package datfile

// The in-memory index: the whole B-tree flattened into sorted columns, so a
// lookup is a binary search in memory and a Get one read of the record's
// chain. Retail keeps a small node cache and descends the tree on disk every
// time (docs/dat-format.md §1.4); that costs ~2 reads a random lookup on a cell dat of
// 800k entries, whose 17k nodes no reasonable node cache holds. The index
// gives the same answers as the descent for every tree whose in-order walk
// is ascending, the only trees it is built from.
//
// It is built once per Dat, in the background, started by the indexAfter-th
// lookup (or the first listing, which waits for it), so opening stays a
// header and a root read, and a tool that wants a few records never pays
// for it. Until it is ready, and forever if the tree cannot be walked,
// lookups descend the tree as before.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"unsafe"

	"acambient/datfetch/source"
)

// topStride is how many ids one entry of index.top stands for: a lookup
// first searches top (800k/64 = 12.5k ids, 50 KB, which stays in the CPU
// cache), then one stride of 64 ids (256 bytes, four cache lines), instead
// of probing a 3 MB column at ~20 scattered places.
const topStride = 64

// indexAfter is the lookup that starts the index build. A descent costs
// ~10 µs on a large dat, the build ~100 ms of one core (800k entries), so
// a caller that makes only a few dozen lookups is better off without it.
const indexAfter = 64

// index is every entry of the tree by ascending id, in columns; read-only
// once built. ids and locs are 16 bytes an entry; the entry dates and
// iterations, which only Lookup reports, are dictionary-coded in stamps.
// Each column is held in chunks of chunkLen entries, as it was filled: a
// build copies nothing, and no stride of topStride ids crosses a chunk.
type index struct {
	n      int
	ids    [][]uint32 // ascending
	locs   [][]indexLoc
	top    []uint32 // ids[k*topStride]
	stamps stampColumn
	empty  int // entries of size 0, which the listing leaves out
}

// chunkLen is the entries of a column chunk: 64 KiB of ids.
const (
	chunkShift = 14
	chunkLen   = 1 << chunkShift
	chunkMask  = chunkLen - 1
)

// indexLoc is what Get needs of an entry besides its id.
type indexLoc struct {
	Offset, Size, Flags uint32
}

// stamp is an entry's Date and Iteration. A dat holds few distinct pairs
// (one per build or patch of a record), so each entry stores a 16-bit code
// into dict; past 65,536 distinct pairs the codes widen to 32 bits.
type stamp struct{ date, iteration int32 }

type stampColumn struct {
	dict    []stamp
	codes16 [][]uint16
	codes32 [][]uint32 // used instead of codes16 once dict outgrows 16 bits
}

// Index builds the in-memory index if it is not built yet and waits for it,
// or for ctx to end. After it returns nil, Lookup and IDs read nothing from
// the file and Get reads only the record. The build reads every node once
// (about 30 MB of nodes on an 800k-entry cell dat) and keeps about 18 bytes
// an entry; it goes on when ctx ends and the caller stops waiting.
func (d *Dat) Index(ctx context.Context) error {
	done := d.startIndex()
	select {
	case <-done:
		return d.ix.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// IndexBytes reports the memory the built index holds, 0 before it is built.
func (d *Dat) IndexBytes() int64 {
	x := d.ix.ready.Load()
	if x == nil {
		return 0
	}
	return x.bytes()
}

// indexState is the Dat's part in building its index.
type indexState struct {
	ctx      context.Context // ends at Close
	cancel   context.CancelFunc
	once     chan struct{}         // holds one token: who takes it starts the build
	done     chan struct{}         // closed when the build has ended
	err      error                 // the build's error, set before done closes
	ready    atomic.Pointer[index] // set once the build has succeeded
	descents atomic.Int64          // lookups made before the index was ready
}

func (s *indexState) init() {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.once = make(chan struct{}, 1)
	s.once <- struct{}{}
	s.done = make(chan struct{})
}

// startIndex starts the build unless it has started, and returns the
// channel closed when it ends.
func (d *Dat) startIndex() <-chan struct{} {
	select {
	case <-d.ix.once: // the one token: this caller starts it
		go func() {
			x, err := d.buildIndex(d.ix.ctx)
			if err == nil {
				d.ix.ready.Store(x)
				d.cache.Clear() // the descent is done with; free its nodes
			} else {
				d.ix.err = fmt.Errorf("index: %w", err)
			}
			close(d.ix.done)
		}()
	default:
	}
	return d.ix.done
}

// stopIndex cancels a running build and waits for it, so nothing reads the
// file after Close.
func (d *Dat) stopIndex() {
	d.ix.cancel()
	select {
	case <-d.ix.once: // never started: take the token so nobody starts it now
		d.ix.err = errors.New("index: dat closed")
		close(d.ix.done)
	default:
		<-d.ix.done
	}
}

// buildIndex walks the whole tree into an index.
func (d *Dat) buildIndex(ctx context.Context) (*index, error) {
	var (
		ids    chunked[uint32]
		locs   chunked[indexLoc]
		sb     stampBuilder
		empty  int
		last   stamp
		lastOK bool
		code   uint32
	)
	err := d.walk(ctx, func(e Entry) error {
		ids.add(e.ID)
		locs.add(indexLoc{e.Offset, e.Size, e.Flags})
		if e.Size == 0 {
			empty++
		}
		// Neighbouring entries mostly share a stamp; skip the lookup for them.
		if s := (stamp{e.Date, e.Iteration}); !lastOK || s != last {
			code, last, lastOK = sb.code(s), s, true
		}
		sb.push(code)
		return nil
	})
	if err != nil {
		return nil, err
	}
	x := &index{n: ids.n, ids: ids.chunks(), locs: locs.chunks(), stamps: sb.column(), empty: empty}
	x.top = make([]uint32, 0, (x.n+topStride-1)/topStride)
	for i := 0; i < x.n; i += topStride {
		x.top = append(x.top, x.ids[i>>chunkShift][i&chunkMask])
	}
	return x, nil
}

// chunked is a column under construction.
type chunked[T any] struct {
	full [][]T
	cur  []T
	n    int
}

func (c *chunked[T]) add(v T) {
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.full = append(c.full, c.cur)
		}
		c.cur = make([]T, 0, chunkLen)
	}
	c.cur = append(c.cur, v)
	c.n++
}

// chunks returns the finished column, the last chunk cut to its length.
func (c *chunked[T]) chunks() [][]T {
	out := make([][]T, 0, len(c.full)+1)
	out = append(out, c.full...)
	if len(c.cur) > 0 {
		out = append(out, append(make([]T, 0, len(c.cur)), c.cur...))
	}
	return out
}

// stampBuilder assigns dictionary codes while the index is built. A small
// direct-mapped table in front of the map answers the few stamps a dat
// mostly holds without hashing into the map for each of 800k entries.
type stampBuilder struct {
	dict    []stamp
	byVal   map[stamp]uint32
	codes16 chunked[uint16]
	codes32 chunked[uint32] // once a code needs more than 16 bits
	recent  [64]struct {
		s    stamp
		code uint32
		ok   bool
	}
}

func (b *stampBuilder) code(s stamp) uint32 {
	r := &b.recent[(uint32(s.date)*0x9E3779B1^uint32(s.iteration))>>26]
	if r.ok && r.s == s {
		return r.code
	}
	c, ok := b.byVal[s]
	if !ok {
		c = b.add(s)
	}
	r.s, r.code, r.ok = s, c, true
	return c
}

func (b *stampBuilder) add(s stamp) uint32 {
	if b.byVal == nil {
		b.byVal = map[stamp]uint32{}
	}
	c := uint32(len(b.dict))
	b.dict = append(b.dict, s)
	b.byVal[s] = c
	return c
}

// push appends the next entry's code, widening the codes to 32 bits at the
// first that needs it.
func (b *stampBuilder) push(c uint32) {
	if b.codes32.n == 0 && c < 1<<16 {
		b.codes16.add(uint16(c))
		return
	}
	if b.codes32.n == 0 {
		for _, ch := range append(b.codes16.full, b.codes16.cur) {
			for _, c := range ch {
				b.codes32.add(uint32(c))
			}
		}
		b.codes16 = chunked[uint16]{}
	}
	b.codes32.add(c)
}

func (b *stampBuilder) column() stampColumn {
	col := stampColumn{dict: slices.Clip(b.dict)}
	if b.codes32.n > 0 {
		col.codes32 = b.codes32.chunks()
	} else {
		col.codes16 = b.codes16.chunks()
	}
	return col
}

func (c *stampColumn) at(i int) stamp {
	if c.codes32 != nil {
		return c.dict[c.codes32[i>>chunkShift][i&chunkMask]]
	}
	return c.dict[c.codes16[i>>chunkShift][i&chunkMask]]
}

// find returns the position of id in the ids column and whether it is there.
func (x *index) find(id uint32) (int, bool) {
	// The last top entry ≤ id starts the only stride that can hold id.
	lo, hi := 0, len(x.top)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.top[m] <= id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0, false // below the first id
	}
	start := (lo - 1) * topStride
	ch, off := x.ids[start>>chunkShift], start&chunkMask
	i, found := slices.BinarySearch(ch[off:min(off+topStride, len(ch))], id)
	return start + i, found
}

// lookup is Lookup answered from the index.
func (x *index) lookup(id uint32) (Entry, error) {
	i, ok := x.find(id)
	if !ok {
		return Entry{}, source.NotFound(id)
	}
	l, s := x.locs[i>>chunkShift][i&chunkMask], x.stamps.at(i)
	return Entry{Flags: l.Flags, ID: id, Offset: l.Offset, Size: l.Size, Date: s.date, Iteration: s.iteration}, nil
}

// listing is IDs answered from the index: a fresh slice the caller may keep.
func (x *index) listing() []uint32 {
	ids := make([]uint32, 0, x.n-x.empty)
	for j, ch := range x.ids {
		if x.empty == 0 {
			ids = append(ids, ch...)
			continue
		}
		for k, id := range ch {
			if x.locs[j][k].Size != 0 {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// bytes is the memory the index holds: its columns' chunks and their lists.
func (x *index) bytes() int64 {
	n := int64(unsafe.Sizeof(*x)) + 4*int64(cap(x.top)) + int64(unsafe.Sizeof(stamp{}))*int64(cap(x.stamps.dict))
	n += chunkBytes(x.ids) + chunkBytes(x.locs) + chunkBytes(x.stamps.codes16) + chunkBytes(x.stamps.codes32)
	return n
}

func chunkBytes[T any](chunks [][]T) int64 {
	var t T
	n := int64(unsafe.Sizeof(chunks[:0])) * int64(cap(chunks)) // the slice headers
	for _, ch := range chunks {
		n += int64(unsafe.Sizeof(t)) * int64(cap(ch))
	}
	return n
}
