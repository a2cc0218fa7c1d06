package session

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// outage is a portal source behind a network that is down for the ids in
// down until restored, telling its health as datfetch.HTTP does.
type outage struct {
	source.Source
	mu      sync.Mutex
	down    bool
	hits    map[uint32]int
	answers uint64
	since   time.Time
}

func (o *outage) Get(ctx context.Context, id uint32) ([]byte, error) {
	o.mu.Lock()
	o.hits[id]++
	down := o.down && id>>24 == 0x0A
	if !down {
		o.answers++
	} else if o.since.IsZero() {
		o.since = time.Now()
	}
	o.mu.Unlock()
	if down {
		return nil, fmt.Errorf("http://x/files/0x%08X: status 503: %w", id, datfetch.ErrNetwork)
	}
	return o.Source.Get(ctx, id)
}

func (o *outage) Trouble() datfetch.Trouble {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.down {
		return datfetch.Trouble{Answers: o.answers}
	}
	return datfetch.Trouble{Failing: true, Reason: "status", Status: 503, Since: o.since, Answers: o.answers,
		Err: fmt.Errorf("status 503")}
}

// answer is an answer for another record (a map tile, say): the server
// works again.
func (o *outage) restore(withAnswer bool) {
	o.mu.Lock()
	o.down = false
	if withAnswer {
		o.answers++
	}
	o.mu.Unlock()
}

func (o *outage) count(id uint32) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hits[id]
}

// TestHealsWhenTheWayIsClear: the wave of the fixture's table fails while
// the network is down; the host asks again with backoff (at 1, 2, 4, 8, 16 s
// of its clock: after 20 s the next ask is at 32 s) and says why
// (Stats.Trouble).
// When the server answers again — an answer for another record, or the
// page's RetryNow when the browser is back online — the host asks at its
// next tick, not at 32 s, and the trouble is gone.
func TestHealsWhenTheWayIsClear(t *testing.T) {
	for _, how := range []string{"an answer", "RetryNow", "backoff only"} {
		portal, cell := fixture(t)
		o := &outage{Source: portal, down: true, hits: map[uint32]int{}}
		h, _ := newHost(t, o, cell, true)
		h.Move(world.Position{ObjCellID: 0x80800024, X: 100, Y: 100, Z: 10})
		k := 0
		tick := func(until float64) {
			for ; float64(k)/30 <= until; k++ {
				h.Tick(float64(k) / 30)
			}
		}
		tick(20)
		if n := o.count(waveID); n != 6 {
			t.Errorf("%s: in 20 s of outage the wave was asked for %d times; want 6 (at 0, 1, 2, 4, 8, 16 s)", how, n)
		}
		tr := h.Stats().Trouble
		if tr == nil || tr.Reason != "status" || tr.Status != 503 || tr.RetryIn != 12 {
			t.Fatalf("%s: trouble during the outage %+v; want status 503, the next ask in 12 s", how, tr)
		}
		switch how {
		case "an answer":
			o.restore(true)
		case "RetryNow":
			o.restore(false)
			h.RetryNow()
		default:
			o.restore(false)
		}
		tick(20 + 2.0/30)
		healed := h.complete()
		if want := how != "backoff only"; healed != want {
			t.Errorf("%s: two ticks after the way cleared: complete %v; want %v", how, healed, want)
		}
		tick(32.1)
		if !h.complete() || h.Stats().Trouble != nil {
			t.Errorf("%s: by the backoff's next ask: complete %v, trouble %+v; want healed", how, h.complete(), h.Stats().Trouble)
		}
	}
}

// TestSlowWatch: fetches in flight for slowAfter while fewer than slowRate
// bytes a second arrive are a slow link; a fast one, or a pause with
// nothing in flight, is not, and the window starts over after the pause.
func TestSlowWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var w slowWatch
	// 2.5 KB/s (20 kbit/s), sampled every 100 ms.
	var rate float64
	var slow bool
	for k := 0; k <= 60; k++ {
		rate, slow = w.observe(at(float64(k)/10), true, int64(k)*250)
		if k < 50 && slow {
			t.Fatalf("slow after %.1f s; want not before %v", float64(k)/10, slowAfter)
		}
	}
	if !slow || rate < 2490 || rate > 2510 {
		t.Errorf("a 2.5 KB/s trickle for 6 s: slow %v at %.0f B/s; want slow at 2500", slow, rate)
	}
	// Nothing in flight: not slow, and the next fetch starts a new window.
	if _, slow := w.observe(at(6.1), false, 15000); slow {
		t.Error("slow with nothing in flight")
	}
	if _, slow := w.observe(at(6.2), true, 15000); slow {
		t.Error("slow at once after a pause")
	}
	// 1 MB/s is not slow.
	w = slowWatch{}
	for k := 0; k <= 60; k++ {
		rate, slow = w.observe(at(float64(k)/10), true, int64(k)*100_000)
	}
	if slow || rate < 999_000 {
		t.Errorf("1 MB/s for 6 s: slow %v at %.0f B/s; want not slow", slow, rate)
	}
	if len(w.at) > 52 {
		t.Errorf("%d samples kept; want those of the last %v only", len(w.at), slowAfter)
	}
}
