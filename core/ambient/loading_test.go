package ambient

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// loadingLib is a testLib whose waves in loading are on their way.
type loadingLib struct {
	*testLib
	loading map[uint32]bool
}

func (l *loadingLib) Wave(id uint32) (float64, bool) {
	if l.loading[id] {
		return 0, false
	}
	return l.testLib.Wave(id)
}

func (l *loadingLib) WaveLoading(id uint32) bool { return l.loading[id] }

const (
	bedWave  = 0x0A000001
	callWave = 0x0A000002
)

// bedAndCall: a bed (ConstantSound, volume 0.5, re-fired every 8 s) and a
// call (IntermitSound, chance 1) over block (10,10), both waves loading.
func bedAndCall() (*Engine, *loadingLib) {
	r := testRegion(stb(t0, constant(0.5, 8)), stb(t1, intermit(1, 1, 10, 20)))
	lib := &loadingLib{newLib(table(t0, bedWave), table(t1, callWave)), map[uint32]bool{bedWave: true, callWave: true}}
	land := newLand(sparseBlock(10, 10, [3]int{3, 3, int(word(0))}, [3]int{4, 3, int(word(1))}))
	return New(r, land, lib, DefaultConfig()), lib
}

// TestLateBedStartsWhenItsWaveArrives: with the waves on their way, the
// rebuild's fires are "loading" skips, not noWave; the bed plays on the
// first tick its wave is there (not 8 s after its skip) and is re-keyed
// from then; the call, a one-shot, simply waits for its next fire.
func TestLateBedStartsWhenItsWaveArrives(t *testing.T) {
	e, lib := bedAndCall()
	e.ChangePosition(0, at(10, 10, 80, 70, 0), false)
	got := map[bool]Reason{}
	for _, ev := range decisions(e) {
		if ev.Kind != KindSkip {
			t.Fatalf("rebuild: %+v; want only skips", ev)
		}
		got[ev.Continuous] = ev.Reason
	}
	if got[true] != ReasonLoading || got[false] != ReasonLoading {
		t.Fatalf("rebuild skips: bed %q, call %q; want both %q", got[true], got[false], ReasonLoading)
	}
	for _, now := range []float64{0.5, 1.0} {
		if evs := e.UseTime(now); len(evs) != 0 {
			t.Fatalf("t=%v, waves still loading: %+v; want nothing", now, evs)
		}
	}
	delete(lib.loading, bedWave)
	evs := e.UseTime(1.5)
	if len(evs) != 1 || evs[0].Kind != KindPlay || !evs[0].Continuous || evs[0].T != 1.5 || evs[0].Wave != bedWave {
		t.Fatalf("the tick after the bed's wave arrived: %+v; want the bed's play at 1.5", evs)
	}
	if next := e.NextPlays()[bedIndex(e)]; next != 9.5 {
		t.Errorf("the bed's next fire at %v; want 1.5 + min_rate 8 = 9.5", next)
	}
	if evs := e.UseTime(8.5); len(evs) != 0 {
		t.Errorf("t=8.5 (the skip's own re-fire time, 0 + 8): %+v; want nothing, the bed was re-keyed", evs)
	}
	// Nothing waits any more: a later arrival of the call's wave starts
	// nothing by itself.
	delete(lib.loading, callWave)
	if evs := e.UseTime(9); len(evs) != 0 {
		t.Errorf("t=9, the call's wave there: %+v; want nothing before its fire", evs)
	}
}

// TestLoadingIsNotNoWave: a plain Library (trace, render, gather) never
// says "loading": a wave it lacks is noWave, and nothing replays later.
func TestLoadingIsNotNoWave(t *testing.T) {
	e, lib := bedAndCall()
	plain := lib.testLib
	delete(plain.waves, bedWave)
	e.lib = plain
	e.ChangePosition(0, at(10, 10, 80, 70, 0), false)
	for _, ev := range decisions(e) {
		if ev.Kind == KindSkip && ev.Reason == ReasonLoading {
			t.Fatalf("a plain library gave a loading skip: %+v", ev)
		}
	}
	plain.waves[bedWave] = 2
	if evs := e.UseTime(1); len(evs) != 0 || e.waiting != 0 {
		t.Errorf("a plain library's wave appearing replayed %+v (waiting %d); want nothing", evs, e.waiting)
	}
}

func bedIndex(e *Engine) int {
	for i, s := range e.State().Sounds {
		if s.Continuous {
			return i
		}
	}
	return -1
}

// TestHearingOrder: the beds' pickable waves, loudest first; then the
// calls', likeliest first and nearer first among equals; then every other
// wave of the held tables (a last variant, which GetSound never picks).
func TestHearingOrder(t *testing.T) {
	const loud, quiet, near, far, likely = 0x20000001, 0x20000002, 0x20000003, 0x20000004, 0x20000005
	r := testRegion(
		stb(quiet, constant(0.5, 5)), // STB 0
		stb(loud, constant(0.9, 5)),  // STB 1
		stb(far, intermit(1, 0.5, 5, 9)),
		stb(near, intermit(1, 0.5, 5, 9)),
		stb(likely, intermit(1, 0.5, 5, 9)),
	)
	lib := newLib(
		table(quiet, 0xA10, 0xA11, 0xA12), // three variants: 0xA12 never picked
		table(loud, 0xA20),
		table(far, 0xA30),
		table(near, 0xA40),
		table(likely, 0xA50, 0xA51),
	)
	// The player at (87, 96) in block (10,10). The near call's vertex (4,4)
	// is 9 m east (within 14.14 m: all eight directions, from 4 m); the far
	// call's (3,4) 15 m west (one band, from 5 m): both weigh 1. The likely
	// call has two vertices, 28.3 and 25.6 m away (0.50 + 0.61). The beds'
	// vertices are 39 m (quiet, 0.26) and 33 m (loud, 0.37) away:
	// current_volume 0.5·0.26/T against 0.9·0.37/T. Each sound's instance
	// comes in the gather's order (x-major), unlike the order wanted.
	land := newLand(sparseBlock(10, 10,
		[3]int{2, 4, int(word(0))}, [3]int{5, 4, int(word(1))},
		[3]int{3, 4, int(word(2))}, [3]int{4, 4, int(word(3))},
		[3]int{3, 5, int(word(4))}, [3]int{4, 5, int(word(4))},
	))
	e := New(r, land, lib, DefaultConfig())
	e.ChangePosition(0, at(10, 10, 87, 96, 0), false)
	want := []uint32{0xA20, 0xA10, 0xA11, 0xA50, 0xA40, 0xA30, 0xA12, 0xA51}
	if got := e.HearingOrder(); !slices.Equal(got, want) {
		t.Errorf("hearing order %x; want %x", got, want)
	}
}

// TestQueueRemove: taking any node out keeps the heap a heap: what is left
// comes out in key order.
func TestQueueRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var q playQueue
		n := 1 + rng.IntN(40)
		keys := map[int32]float64{}
		for i := range n {
			k := float64(rng.IntN(20))
			keys[int32(i)] = k
			q.insert(k, int32(i))
		}
		gone := int32(rng.IntN(n))
		if !q.remove(gone) || q.remove(int32(n)) {
			t.Fatal("remove found a missing node or missed a present one")
		}
		last := -1.0
		for q.len() > 0 {
			nd := q.removeMin()
			if nd.inst == gone || nd.key < last || nd.key != keys[nd.inst] {
				t.Fatalf("round %d: %+v out after key %v (removed %d)", round, nd, last, gone)
			}
			last = nd.key
		}
	}
}
