package session

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// countingSource counts the Gets that reach it, per id.
type countingSource struct {
	source.Source
	mu     sync.Mutex
	gets   map[uint32]int
	gate   chan struct{} // when set, every Get waits for it to close
	asking chan uint32   // when set, receives each id as its Get starts
}

func (c *countingSource) Get(ctx context.Context, id uint32) ([]byte, error) {
	c.mu.Lock()
	c.gets[id]++
	gate, asking := c.gate, c.asking
	c.mu.Unlock()
	if asking != nil {
		asking <- id
	}
	if gate != nil {
		<-gate
	}
	return c.Source.Get(ctx, id)
}

func (c *countingSource) count(id uint32) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gets[id]
}

func newCounting(ids ...uint32) *countingSource {
	recs := map[uint32][]byte{}
	for _, id := range ids {
		recs[id] = binary.LittleEndian.AppendUint32(nil, id)
	}
	return &countingSource{Source: source.NewMemory(recs), gets: map[uint32]int{}}
}

// A missing landblock is asked for once, however many ask, at once or
// later; one that exists, and every other id, goes to the source each time
// (its own cache is what saves those).
func TestLandblocksAskEachMissingOnce(t *testing.T) {
	const have, missing, cell = 0xA9B4FFFF, 0xA3AEFFFF, 0xA9B40100
	src := newCounting(have, cell)
	l := NewLandblocks(src)
	ctx := context.Background()
	if p := l.Presence(0xA3, 0xAE); p != Unknown {
		t.Errorf("before asking: %v", p)
	}
	src.gate, src.asking = make(chan struct{}), make(chan uint32, 8)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = l.Get(ctx, missing) }()
	}
	// The first asks; the others wait for its answer.
	<-src.asking
	close(src.gate)
	wg.Wait()
	src.gate, src.asking = nil, nil
	for i := 0; i < 3; i++ {
		if _, err := l.Get(ctx, missing); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}
	}
	for i, err := range errs {
		var nf *source.NotFoundError
		if !errors.As(err, &nf) || nf.ID != missing {
			t.Errorf("concurrent Get %d: %v", i, err)
		}
	}
	if n := src.count(missing); n != 1 {
		t.Errorf("the missing landblock was asked for %d times, want 1", n)
	}
	for i := 0; i < 2; i++ {
		if _, err := l.Get(ctx, have); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Get(ctx, cell); err != nil {
			t.Fatal(err)
		}
	}
	if src.count(have) != 2 || src.count(cell) != 2 {
		t.Errorf("present landblock asked %d times, EnvCell %d; want 2 and 2", src.count(have), src.count(cell))
	}
	if l.Presence(0xA3, 0xAE) != Absent || l.Presence(0xA9, 0xB4) != Present || l.Presence(0x10, 0x10) != Unknown || l.Presence(255, 0) != Absent {
		t.Errorf("presence %v %v %v %v; want absent present unknown absent",
			l.Presence(0xA3, 0xAE), l.Presence(0xA9, 0xB4), l.Presence(0x10, 0x10), l.Presence(255, 0))
	}
}

// With a listing in, a landblock it does not name is never asked for, and
// those it names are asked as before.
func TestLandblocksListingSparesRequests(t *testing.T) {
	const a, b, c = 0xA9B4FFFF, 0xA9B5FFFF, 0x1010FFFF
	src := newCounting(a, b)
	l := NewLandblocks(src)
	l.SetListing([]uint32{a, b, 0xA9B40100}) // an EnvCell in a listing is ignored
	if !l.Listed() || l.Presence(0xA9, 0xB5) != Present || l.Presence(0x10, 0x10) != Absent {
		t.Fatalf("after the listing: %v %v", l.Presence(0xA9, 0xB5), l.Presence(0x10, 0x10))
	}
	if _, err := l.Get(context.Background(), c); !errors.Is(err, source.ErrNotFound) || src.count(c) != 0 {
		t.Errorf("unlisted: %v, asked %d times; want not found, never asked", err, src.count(c))
	}
	if _, err := l.Get(context.Background(), b); err != nil || src.count(b) != 1 {
		t.Errorf("listed: %v, asked %d times", err, src.count(b))
	}
}

// PresenceAll writes every landblock's presence as Presence does, and only
// when something changed since the last call that wrote.
func TestLandblocksPresenceAll(t *testing.T) {
	const a, b, missing = 0xA9B4FFFF, 0xA9B5FFFF, 0xA3AEFFFF
	l := NewLandblocks(newCounting(a, b))
	all := make([]byte, world.BlocksPerSide*world.BlocksPerSide)
	at := func(id uint32) byte { return all[int(id>>24)*world.BlocksPerSide+int(id>>16&0xFF)] }
	gen, wrote := l.PresenceAll(all, 0)
	if !wrote || at(a) != byte(Unknown) {
		t.Fatalf("first call: wrote %v, 0xA9B4 %d; want written, unknown", wrote, at(a))
	}
	if _, wrote := l.PresenceAll(all, gen); wrote {
		t.Errorf("nothing changed, and it wrote again")
	}
	steps := []struct {
		name string
		do   func()
		id   uint32
		want Presence
	}{
		{"a landblock fetched", func() { l.Get(context.Background(), a) }, a, Present},
		{"a landblock the source lacks", func() { l.Get(context.Background(), missing) }, missing, Absent},
		{"a listing", func() { l.SetListing([]uint32{a, b}) }, 0x1010FFFF, Absent},
	}
	for _, s := range steps {
		s.do()
		var wrote bool
		if gen, wrote = l.PresenceAll(all, gen); !wrote || at(s.id) != byte(s.want) || Presence(at(s.id)) != l.Presence(int(s.id>>24), int(s.id>>16&0xFF)) {
			t.Errorf("after %s: wrote %v, 0x%08X %d; want written, %d", s.name, wrote, s.id, at(s.id), s.want)
		}
	}
}

// failingSource fails its Gets with a network error, announcing each.
type failingSource struct {
	asked chan uint32
	gate  chan struct{}
}

func (f *failingSource) Get(ctx context.Context, id uint32) ([]byte, error) {
	f.asked <- id
	<-f.gate
	return nil, fmt.Errorf("0x%08X: connection refused: %w", id, datfetch.ErrNetwork)
}

// Callers that wait on a landblock being asked for share its answer, a
// network failure too: the source is asked once, and nobody waits twice
// as long for it; the block stays unknown, to be asked again later.
func TestLandblocksShareAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &failingSource{asked: make(chan uint32, 8), gate: make(chan struct{})}
		l := NewLandblocks(src)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() { defer wg.Done(); _, errs[i] = l.Get(context.Background(), 0xA9B4FFFF) }()
		}
		synctest.Wait() // one asking, three waiting for its answer
		close(src.gate)
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, datfetch.ErrNetwork) {
				t.Errorf("Get %d: %v; want the network failure", i, err)
			}
		}
		if n := len(src.asked); n != 1 {
			t.Errorf("the source was asked %d times, want once", n)
		}
		if p := l.Presence(0xA9, 0xB4); p != Unknown {
			t.Errorf("after a network failure the block is %v, want unknown", p)
		}
	})
}

// While a listing is on its way (ExpectListing), a landblock waits for it:
// one the listing does not name is then never asked for (in the browser, a
// 404 in the console for each block of the ring past the world's edge). A
// listing that fails (NoListing) or is slower than ListingWait lets the
// landblocks be asked for one by one.
func TestLandblocksWaitForTheListing(t *testing.T) {
	const a, c = 0xA9B4FFFF, 0x1010FFFF
	synctest.Test(t, func(t *testing.T) {
		src := newCounting(a)
		l := NewLandblocks(src)
		l.ExpectListing()
		got := make(chan error, 1)
		go func() { _, err := l.Get(context.Background(), c); got <- err }()
		synctest.Wait()
		select {
		case err := <-got:
			t.Fatalf("answered %v before the listing came", err)
		default:
		}
		l.SetListing([]uint32{a})
		if err := <-got; !errors.Is(err, source.ErrNotFound) || src.count(c) != 0 {
			t.Errorf("after the listing: %v, asked %d times; want not found, never asked", err, src.count(c))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		src := newCounting(a)
		l := NewLandblocks(src)
		l.ExpectListing()
		l.NoListing()
		if _, err := l.Get(context.Background(), a); err != nil || src.count(a) != 1 {
			t.Errorf("no listing: %v, asked %d times; want the record, asked once", err, src.count(a))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		src := newCounting(a)
		l := NewLandblocks(src)
		l.ExpectListing()
		start := time.Now()
		if _, err := l.Get(context.Background(), a); err != nil || src.count(a) != 1 {
			t.Errorf("listing never came: %v, asked %d times; want the record", err, src.count(a))
		}
		if waited := time.Since(start); waited != ListingWait {
			t.Errorf("waited %v (the bubble's clock); want ListingWait, %v", waited, ListingWait)
		}
		// A listing that comes late still counts.
		l.SetListing([]uint32{a})
		if _, err := l.Get(context.Background(), c); !errors.Is(err, source.ErrNotFound) || src.count(c) != 0 {
			t.Errorf("late listing: %v, asked %d times", err, src.count(c))
		}
	})
}
