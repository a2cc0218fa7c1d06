package session

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"acambient/core/audio"
	"acambient/datfetch/source"
)

// counting counts the Gets of a source by id.
type counting struct {
	source.Source
	mu   sync.Mutex
	hits map[uint32]int
}

func (c *counting) Get(ctx context.Context, id uint32) ([]byte, error) {
	c.mu.Lock()
	c.hits[id]++
	c.mu.Unlock()
	return c.Source.Get(ctx, id)
}

func (c *counting) waveGets() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for id, k := range c.hits {
		if id>>24 == 0x0A {
			n += k
		}
	}
	return n
}

// TestKeptWavesServeAReturn: the page's host, at the river, then the
// desert (the river's waves are let go: its tables are no longer near),
// then the river again. With KeepWaveBytes the return asks the source for
// no wave and plays the very PCM it decoded the first time, and the
// instances are gather's; the kept waves stay within their bound. Without
// it, the return fetches and decodes the waves again.
func TestKeptWavesServeAReturn(t *testing.T) {
	w := demoWorld(t)
	river, desert := landmark(t, "river"), landmark(t, "desert")
	for _, c := range []struct {
		name  string
		keep  int64
		fetch bool // the return fetches waves
	}{{"kept", 16 << 20, false}, {"none", 0, true}, {"too small", 64 << 10, true}} {
		portal := &counting{Source: source.NewMemory(w.Portal), hits: map[uint32]int{}}
		h := pageHost(t, portal, source.NewMemory(w.Cell), Options{KeepWaveBytes: c.keep})
		now := 0.0
		h.Move(river)
		h.Tick(now)
		settle(t, h, &now)
		first := map[uint32]*audio.PCM{}
		h.ld.mu.Lock()
		for id, e := range h.ld.waves {
			first[id] = e.pcm
		}
		h.ld.mu.Unlock()
		// At the desert, and a cell on when a load still ran at the rebuild
		// (the host lets go only after a rebuild with no load under way).
		gone := 0
		for step := float32(0); gone == 0 && step < 5*24; step += 24 {
			p := desert
			p.Y -= step
			h.Move(p)
			settle(t, h, &now)
			for id := range first {
				if !h.Retained(id) {
					gone++
				}
			}
		}
		if gone == 0 {
			t.Fatalf("%s: the desert let none of the river's %d waves go", c.name, len(first))
		}
		held := h.Held()
		if held.KeptBytes > c.keep || (c.keep > 1<<20 && held.Kept < gone) {
			t.Errorf("%s: %d waves kept, %d bytes, after %d were let go; want all kept, within %d bytes", c.name, held.Kept, held.KeptBytes, gone, c.keep)
		}
		before := portal.waveGets()
		h.Move(river)
		settle(t, h, &now)
		fetched := portal.waveGets() - before
		if c.fetch != (fetched > 0) {
			t.Errorf("%s: the return to the river fetched %d waves; want fetches: %v", c.name, fetched, c.fetch)
		}
		if !c.fetch {
			for id, p := range first {
				if h.PCM(id) != p {
					t.Errorf("%s: wave 0x%08X was decoded again on the return", c.name, id)
				}
			}
			for id := range first {
				if _, ok := h.ld.kept.Get(id); ok && h.Retained(id) {
					t.Errorf("%s: wave 0x%08X is both in use and kept (counted twice)", c.name, id)
				}
			}
		}
		got, _ := json.Marshal(h.Snapshot().State)
		want, _ := gatherJSON(t, river)
		if string(got) != want {
			t.Errorf("%s: after the return the instances are not gather's:\n%s\nwant\n%s", c.name, got, want)
		}
	}
}

// TestLoadEndLetsGo: a move's load that has brought every record before
// the move's tick (a move asks at once; a ring already near is quick) is
// still running when that tick rebuilds, so the rebuild lets nothing go,
// and no rebuild follows the load: its end lets go of the place left, or
// the river's waves stay held at the desert until the next move
// (TestKeptWavesServeAReturn, under load, saw none let go). The load is
// stood in for here, so the order is the one that race takes.
func TestLoadEndLetsGo(t *testing.T) {
	w := demoWorld(t)
	river, desert := landmark(t, "river"), landmark(t, "desert")
	h := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{})
	now := 0.0
	h.Move(river)
	settle(t, h, &now)
	var rivers []uint32
	h.ld.mu.Lock()
	for id := range h.ld.waves {
		rivers = append(rivers, id)
	}
	h.ld.mu.Unlock()
	// The desert's records, all in, with its load still to end.
	n := needAt(desert)
	h.ld.load(context.Background(), n)
	h.mu.Lock()
	h.load, h.loadingFor = loadRunning, h.needsAt(desert)
	h.mu.Unlock()
	h.Move(desert) // the same records: no second load
	now += 1.0 / 30
	h.Tick(now)
	gone := func() int {
		k := 0
		for _, id := range rivers {
			if !h.Retained(id) {
				k++
			}
		}
		return k
	}
	if k := gone(); k != 0 || h.complete() != true {
		t.Fatalf("the desert's tick, its load running: %d of the river's %d waves let go, complete %v; want none let go by a whole rebuild", k, len(rivers), h.complete())
	}
	h.loadEnded(h.needsAt(desert))
	if k := gone(); k == 0 {
		t.Errorf("the desert's load ended: none of the river's %d waves let go; want them let go", len(rivers))
	}
}
