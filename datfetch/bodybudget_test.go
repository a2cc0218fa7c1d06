package datfetch

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// waitingNow reports how many grows wait on b.
func (b *BodyBudget) waitingNow() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiting)
}

// Three reads that may each grow to 60 of a 100-byte budget: two hold 30
// each; a third asking 30 would leave 10 free with each needing 30 more,
// none able to finish. It waits, and goes once the first has finished.
func TestBodyBudgetWaitsRatherThanDeadlock(t *testing.T) {
	ctx := context.Background()
	b := NewBodyBudget(100)
	g1, g2, g3 := b.open(60), b.open(60), b.open(60)
	if err := g1.grow(ctx, 30); err != nil {
		t.Fatal(err)
	}
	if err := g2.grow(ctx, 30); err != nil {
		t.Fatal(err)
	}
	third := make(chan error, 1)
	go func() { third <- g3.grow(ctx, 30) }()
	waitFor(t, func() bool { return b.waitingNow() == 1 })
	if got := b.Bytes(); got != 60 {
		t.Fatalf("holds %d bytes with the third waiting, want 60", got)
	}
	// The first can still reach its claim, and does, while the third waits.
	if err := g1.grow(ctx, 30); err != nil {
		t.Fatal(err)
	}
	if b.waitingNow() != 1 || b.Bytes() != 90 {
		t.Fatalf("after the first grew: %d waiting, %d bytes; want 1 and 90", b.waitingNow(), b.Bytes())
	}
	g1.close()
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	if got, peak := b.Bytes(), b.Peak(); got != 60 || peak != 90 {
		t.Fatalf("after the first finished: %d bytes held, peak %d; want 60 and 90", got, peak)
	}
	g2.close()
	g3.close()
	if b.Bytes() != 0 || len(b.grants) != 0 {
		t.Fatalf("all closed: %d bytes, %d grants", b.Bytes(), len(b.grants))
	}
}

// A wait ends with its context, holding nothing more.
func TestBodyBudgetWaitEndsWithContext(t *testing.T) {
	b := NewBodyBudget(100)
	g1, g2 := b.open(100), b.open(100)
	if err := g1.grow(context.Background(), 50); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g2.grow(ctx, 1) }()
	waitFor(t, func() bool { return b.waitingNow() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	if b.Bytes() != 50 || b.waitingNow() != 0 {
		t.Fatalf("%d bytes, %d waiting; want 50 and 0", b.Bytes(), b.waitingNow())
	}
}

func TestBodyBudgetClaim(t *testing.T) {
	ctx := context.Background()
	b := NewBodyBudget(100)
	g := b.open(40)
	if err := g.grow(ctx, 41); err == nil {
		t.Fatal("grew past its claim")
	}
	// A lowered claim (the body's length became known) lets a waiting
	// read go: the budget no longer keeps room for g to grow.
	g.grow(ctx, 20)
	h := b.open(100)
	done := make(chan error, 1)
	go func() { done <- h.grow(ctx, 70) }() // 90 held, g may need 20 more: unsafe
	waitFor(t, func() bool { return b.waitingNow() == 1 })
	g.lower(0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b.Bytes() != 90 {
		t.Fatalf("%d bytes, want 90", b.Bytes())
	}
	// A claim larger than the budget is the budget.
	if c := b.open(1 << 40).claim; c != 100 {
		t.Fatalf("claim %d, want 100", c)
	}
}

// Many reads growing at random towards random claims, as bodies of unknown
// length do, then finishing: every one finishes, and the budget never holds
// more than its size. A deadlock is seen as it happens: every open read
// waiting, so that none can give anything back.
func TestBodyBudgetNeverDeadlocks(t *testing.T) {
	const (
		size    = 1000
		readers = 16
		rounds  = 300
	)
	b := NewBodyBudget(size)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 1))
			for range rounds {
				claim := 100 + rng.Int64N(size-100)
				g := b.open(claim)
				for g.held < claim && rng.IntN(8) != 0 {
					if err := g.grow(ctx, 1+rng.Int64N(claim-g.held)); err != nil {
						g.close()
						return
					}
				}
				g.close()
			}
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	for {
		select {
		case <-finished:
			if p := b.Peak(); p > size || b.Bytes() != 0 {
				t.Fatalf("peak %d of a %d-byte budget, %d still held", p, size, b.Bytes())
			}
			return
		case <-time.After(time.Millisecond):
			b.mu.Lock()
			stuck := len(b.grants) > 0 && len(b.waiting) == len(b.grants)
			n := len(b.grants)
			b.mu.Unlock()
			if stuck {
				cancel()
				<-finished
				t.Fatalf("deadlock: all %d open reads wait on the budget", n)
			}
		}
	}
}
