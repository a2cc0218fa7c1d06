package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// Presence is what is known of whether a cell source holds a landblock.
type Presence uint8

const (
	// Unknown: not asked for yet, and no listing says.
	Unknown Presence = iota
	// Present: fetched, or named by the listing.
	Present
	// Absent: the source answered not found, or the listing does not name it.
	Absent
)

func (p Presence) String() string {
	switch p {
	case Present:
		return "present"
	case Absent:
		return "absent"
	}
	return "unknown"
}

// Landblocks is a cell source.Source that remembers, for its life, which landblocks
// (records 0xXXYYFFFF) the source lacks, in one bit a landblock of the
// 255×255 world, so that each missing one is asked for at most once however
// often a listener comes back to it and whoever asks (a host's loader, a
// map's tiles: share one Landblocks). Once SetListing has said which
// landblocks the source holds, one it does not name is never asked for. It
// forgets nothing: the sources are immutable while read. Other ids pass
// through. Safe for concurrent use.
type Landblocks struct {
	src source.Source

	mu     sync.Mutex
	listed bool
	// listing, while a listing is on its way (ExpectListing), is closed
	// when it has come or failed: a landblock is not asked for before.
	listing chan struct{}
	present blockBits
	absent  blockBits
	gen     uint64             // counts changes of listed, present and absent (PresenceAll)
	asking  map[uint32]*asking // landblocks being fetched now
}

// asking is one fetch of a landblock that other callers wait for.
type asking struct {
	done chan struct{} // closed once b and err are set
	b    []byte
	err  error
}

// blockBits is one bit per landblock (bx, by), at bx·255 + by.
type blockBits [(world.BlocksPerSide*world.BlocksPerSide + 63) / 64]uint64

func (b *blockBits) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b *blockBits) set(i int)      { b[i>>6] |= 1 << (i & 63) }

// NewLandblocks wraps the cell source src.
func NewLandblocks(src source.Source) *Landblocks {
	return &Landblocks{src: src, asking: map[uint32]*asking{}}
}

// blockIndex is the bit of a landblock record id, or −1 for any other id.
func blockIndex(id uint32) int {
	bx, by := world.BlockX(id), world.BlockY(id)
	if id&0xFFFF != 0xFFFF || !world.ValidBlock(bx, by) {
		return -1
	}
	return bx*world.BlocksPerSide + by
}

// Get is the source's Get, except that a landblock known to be absent is
// source.ErrNotFound at once, and a landblock already being asked for waits for
// that answer and shares it (asking again only if that caller's context
// ended first).
func (l *Landblocks) Get(ctx context.Context, id uint32) ([]byte, error) {
	i := blockIndex(id)
	if i < 0 {
		return l.src.Get(ctx, id)
	}
	for {
		l.mu.Lock()
		if wait := l.listing; wait != nil {
			l.mu.Unlock()
			t := time.NewTimer(ListingWait)
			select {
			case <-wait:
			case <-t.C:
				l.NoListing() // too slow: ask one by one (SetListing still counts when it comes)
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
			t.Stop()
			l.mu.Lock()
		}
		if l.presenceLocked(i) == Absent {
			l.mu.Unlock()
			return nil, source.NotFound(id)
		}
		if a := l.asking[id]; a != nil {
			l.mu.Unlock()
			select {
			case <-a.done:
				if isContextEnd(a.err) && ctx.Err() == nil {
					continue // its caller gave up, not the source: ask again
				}
				return a.b, a.err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		a := &asking{done: make(chan struct{})}
		l.asking[id] = a
		l.mu.Unlock()

		a.b, a.err = l.src.Get(ctx, id)
		l.mu.Lock()
		switch {
		case a.err == nil:
			l.present.set(i)
			l.gen++
		case errors.Is(a.err, source.ErrNotFound):
			l.absent.set(i)
			l.gen++
		}
		delete(l.asking, id)
		close(a.done)
		l.mu.Unlock()
		return a.b, a.err
	}
}

func isContextEnd(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// ListingWait bounds how long a landblock's Get waits for a listing
// expected (ExpectListing) before it asks the source anyway.
const ListingWait = 5 * time.Second

// ExpectListing says a listing is on its way: until SetListing or
// NoListing (or ListingWait), a landblock's Get waits for it rather than asking the source
// for one the listing would call absent (a 404 in the browser's console,
// for each block of the ring past the world's edge).
func (l *Landblocks) ExpectListing() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.listed && l.listing == nil {
		l.listing = make(chan struct{})
	}
}

// NoListing says the listing expected will not come (the source keeps none,
// or it failed): landblocks are asked for one by one.
func (l *Landblocks) NoListing() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endListingLocked()
}

func (l *Landblocks) endListingLocked() {
	if l.listing != nil {
		close(l.listing)
		l.listing = nil
	}
}

// SetListing takes the ids of the landblock records the source holds (other
// ids are ignored): from now on a landblock it does not name is absent.
func (l *Landblocks) SetListing(ids []uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.endListingLocked()
	for _, id := range ids {
		if i := blockIndex(id); i >= 0 {
			l.present.set(i)
		}
	}
	l.listed = true
	l.gen++
}

// Listed reports whether a listing has been given.
func (l *Landblocks) Listed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.listed
}

// Presence reports what is known of landblock (bx, by); a block outside the
// world is Absent.
func (l *Landblocks) Presence(bx, by int) Presence {
	if !world.ValidBlock(bx, by) {
		return Absent
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.presenceLocked(bx*world.BlocksPerSide + by)
}

// PresenceAll writes what is known of every landblock into dst (one
// Presence a byte, at bx·255 + by; len(dst) ≥ 255²) under one lock, unless
// nothing changed since the call that returned since. It returns the change
// count to pass next time, and whether it wrote. The page asks every 100 ms:
// 65 025 calls of Presence, each taking the lock, held the worker ~5 ms a
// time while the first sound loaded.
func (l *Landblocks) PresenceAll(dst []byte, since uint64) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if since == l.gen+1 {
		return since, false
	}
	for i := range world.BlocksPerSide * world.BlocksPerSide {
		dst[i] = byte(l.presenceLocked(i))
	}
	return l.gen + 1, true
}

func (l *Landblocks) presenceLocked(i int) Presence {
	switch {
	case l.absent.has(i):
		return Absent
	case l.present.has(i):
		return Present
	case l.listed:
		return Absent
	}
	return Unknown
}

// Trouble reports the health of the source l wraps, if it tells.
func (l *Landblocks) Trouble() datfetch.Trouble {
	if t, ok := l.src.(datfetch.Troubled); ok {
		return t.Trouble()
	}
	return datfetch.Trouble{}
}
