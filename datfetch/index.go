package datfetch

// The in-memory index: the whole B-tree flattened into sorted columns, so a
// lookup is a binary search in memory and a Get one read of the record's
// chain. Retail keeps a small node cache and descends the tree on disk every
// time (spec §1.4); that costs ~2 reads a random lookup on a cell dat of
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
type index struct {
	ids    []uint32   // ascending
	locs   []indexLoc // locs[i] belongs to ids[i]
	top    []uint32   // ids[k*topStride]
	stamps stampColumn
	empty  int // entries of size 0, which the listing leaves out
}

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
	codes16 []uint16
	codes32 []uint32 // used instead of codes16 once dict outgrows 16 bits
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
				d.cache.reset() // the descent is done with; free its nodes
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

// buildIndex walks the whole tree into an index. The columns grow by
// append and are then copied to their exact size, so the index keeps no
// spare capacity.
func (d *Dat) buildIndex(ctx context.Context) (*index, error) {
	var (
		ids    []uint32
		locs   []indexLoc
		sb     stampBuilder
		empty  int
		last   stamp
		lastOK bool
		code   uint32
	)
	err := d.walk(ctx, func(e Entry) error {
		ids = append(ids, e.ID)
		locs = append(locs, indexLoc{e.Offset, e.Size, e.Flags})
		if e.Size == 0 {
			empty++
		}
		// Neighbouring entries mostly share a stamp; skip the map for them.
		if s := (stamp{e.Date, e.Iteration}); !lastOK || s != last {
			code, last, lastOK = sb.code(s), s, true
		}
		sb.codes = append(sb.codes, code)
		return nil
	})
	if err != nil {
		return nil, err
	}
	x := &index{ids: exact(ids), locs: exact(locs), stamps: sb.column(), empty: empty}
	x.top = make([]uint32, 0, (len(ids)+topStride-1)/topStride)
	for i := 0; i < len(ids); i += topStride {
		x.top = append(x.top, ids[i])
	}
	return x, nil
}

// exact copies s into a slice of its exact length; slices.Clone may round
// the capacity up.
func exact[T any](s []T) []T {
	out := make([]T, len(s))
	copy(out, s)
	return out
}

// stampBuilder assigns dictionary codes while the index is built.
type stampBuilder struct {
	dict  []stamp
	byVal map[stamp]uint32
	codes []uint32
}

func (b *stampBuilder) code(s stamp) uint32 {
	if c, ok := b.byVal[s]; ok {
		return c
	}
	if b.byVal == nil {
		b.byVal = map[stamp]uint32{}
	}
	c := uint32(len(b.dict))
	b.dict = append(b.dict, s)
	b.byVal[s] = c
	return c
}

func (b *stampBuilder) column() stampColumn {
	col := stampColumn{dict: exact(b.dict)}
	if len(b.dict) > 1<<16 {
		col.codes32 = exact(b.codes)
		return col
	}
	col.codes16 = make([]uint16, len(b.codes))
	for i, c := range b.codes {
		col.codes16[i] = uint16(c)
	}
	return col
}

func (c *stampColumn) at(i int) stamp {
	if c.codes32 != nil {
		return c.dict[c.codes32[i]]
	}
	return c.dict[c.codes16[i]]
}

// find returns the position of id in x.ids and whether it is there.
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
	stride := x.ids[start:min(start+topStride, len(x.ids))]
	i, found := slices.BinarySearch(stride, id)
	return start + i, found
}

// lookup is Lookup answered from the index.
func (x *index) lookup(id uint32) (Entry, error) {
	i, ok := x.find(id)
	if !ok {
		return Entry{}, NotFound(id)
	}
	l, s := x.locs[i], x.stamps.at(i)
	return Entry{Flags: l.Flags, ID: id, Offset: l.Offset, Size: l.Size, Date: s.date, Iteration: s.iteration}, nil
}

// listing is IDs answered from the index: a fresh slice the caller may keep.
func (x *index) listing() []uint32 {
	if x.empty == 0 {
		return slices.Clone(x.ids)
	}
	ids := make([]uint32, 0, len(x.ids)-x.empty)
	for i, id := range x.ids {
		if x.locs[i].Size != 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// bytes is the memory the index holds: its columns' backing arrays.
func (x *index) bytes() int64 {
	n := 4*cap(x.ids) + int(unsafe.Sizeof(indexLoc{}))*cap(x.locs) + 4*cap(x.top) +
		int(unsafe.Sizeof(stamp{}))*cap(x.stamps.dict) + 2*cap(x.stamps.codes16) + 4*cap(x.stamps.codes32)
	return int64(n) + int64(unsafe.Sizeof(*x))
}

// reset empties the node cache.
func (c *nodeCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init(c.max)
}
