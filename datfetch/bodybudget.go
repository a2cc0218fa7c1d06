package datfetch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// BodyBudget bounds the bytes that the HTTP sources sharing it hold for
// answers under way: bodies being read, joined and inflated, across every
// concurrent request. A read takes its memory from it before allocating,
// chunk by chunk as a body of unknown length grows, and waits (for as long
// as its context allows) when the budget is spent. Safe for concurrent use.
//
// Reads that grow while holding memory could each wait for what another
// holds, forever. Each read therefore declares a claim, the most it may
// hold at once (twice the cap for a body of unknown length: the chunks
// read, then the record they are joined into), and a grant is made only
// if the budget can still see every read through to its end, one after
// another, each given its whole claim (the banker's algorithm). The read
// holding the most can then always go on; the others wait for it only
// when the budget is that tight.
type BodyBudget struct {
	max int64

	mu      sync.Mutex
	used    int64
	peak    int64
	grants  map[*bodyGrant]struct{}
	waiting []*bodyWait
}

// bodyGrant is one answer's holding: held bytes now, at most claim ever.
type bodyGrant struct {
	b     *BodyBudget
	claim int64
	held  int64
}

type bodyWait struct {
	g     *bodyGrant
	n     int64
	ready chan struct{} // closed once granted
}

// NewBodyBudget returns a budget of max bytes (max > 0).
func NewBodyBudget(max int64) *BodyBudget {
	return &BodyBudget{max: max, grants: map[*bodyGrant]struct{}{}}
}

// defaultBodyBudget is the one the process's HTTP sources share when their
// options name none: the page's portal and cell sources together.
var defaultBodyBudget = sync.OnceValue(func() *BodyBudget { return NewBodyBudget(DefaultInFlightBytes) })

// Max is the budget's size in bytes.
func (b *BodyBudget) Max() int64 { return b.max }

// Bytes reports the bytes held now.
func (b *BodyBudget) Bytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Peak reports the most bytes held at once since the budget was made.
func (b *BodyBudget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// open starts a holding that will never exceed claim bytes (claim ≤ Max).
func (b *BodyBudget) open(claim int64) *bodyGrant {
	g := &bodyGrant{b: b, claim: min(claim, b.max)}
	b.mu.Lock()
	b.grants[g] = struct{}{}
	b.mu.Unlock()
	return g
}

// grow takes n more bytes for g, waiting while granting them could leave
// some read unable to finish. held+n must stay within the claim.
func (g *bodyGrant) grow(ctx context.Context, n int64) error {
	b := g.b
	b.mu.Lock()
	if g.held+n > g.claim {
		b.mu.Unlock()
		return fmt.Errorf("reading needs %d bytes at once, more than its claim of %d on the %d-byte in-flight budget", g.held+n, g.claim, b.max)
	}
	w := &bodyWait{g: g, n: n, ready: make(chan struct{})}
	b.waiting = append(b.waiting, w)
	b.admitLocked()
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		if i := slices.Index(b.waiting, w); i >= 0 {
			b.waiting = slices.Delete(b.waiting, i, i+1)
			return ctx.Err()
		}
		// Granted as the context ended: keep it, as a grant; the caller
		// releases it with the rest.
		return nil
	}
}

// lower reduces g's claim to what it may still need beyond what it holds:
// a body's length became known, or it turned out not to be compressed.
func (g *bodyGrant) lower(claim int64) {
	b := g.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if claim = max(claim, g.held); claim < g.claim {
		g.claim = claim
		b.admitLocked()
	}
}

// release gives back n of g's bytes.
func (g *bodyGrant) release(n int64) {
	b := g.b
	b.mu.Lock()
	defer b.mu.Unlock()
	n = min(n, g.held)
	g.held -= n
	b.used -= n
	b.admitLocked()
}

// reset gives back everything g holds (a failed attempt), keeping its claim.
func (g *bodyGrant) reset() { g.release(g.held) }

// close ends g's holding, giving back all it holds. A nil g has none.
func (g *bodyGrant) close() {
	if g == nil {
		return
	}
	b := g.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= g.held
	g.held = 0
	delete(b.grants, g)
	b.admitLocked()
}

// admitLocked grants every waiting request that leaves the budget safe,
// the largest holders first: they are the ones the others may be waiting
// for.
func (b *BodyBudget) admitLocked() {
	slices.SortStableFunc(b.waiting, func(x, y *bodyWait) int { return cmp.Compare(y.g.held, x.g.held) })
	kept := b.waiting[:0]
	for _, w := range b.waiting {
		if b.used+w.n <= b.max {
			w.g.held += w.n
			b.used += w.n
			if b.safeLocked() {
				b.peak = max(b.peak, b.used)
				close(w.ready)
				continue
			}
			w.g.held -= w.n
			b.used -= w.n
		}
		kept = append(kept, w)
	}
	clear(b.waiting[len(kept):])
	b.waiting = kept
}

// safeLocked reports whether every holding can still reach its claim in
// some order, each finishing (and giving back all it holds) before the
// next: taken in order of what they still need, least first, each must
// fit in what is free plus what the ones before it gave back.
func (b *BodyBudget) safeLocked() bool {
	needs := make([]*bodyGrant, 0, len(b.grants))
	for g := range b.grants {
		needs = append(needs, g)
	}
	slices.SortFunc(needs, func(x, y *bodyGrant) int { return cmp.Compare(x.claim-x.held, y.claim-y.held) })
	avail := b.max - b.used
	for _, g := range needs {
		if g.claim-g.held > avail {
			return false
		}
		avail += g.held
	}
	return true
}
