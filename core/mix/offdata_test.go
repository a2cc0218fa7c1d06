package mix

import (
	"testing"

	"acambient/core/ambient"
	"acambient/core/dat"
)

// TestBackOnTheDataSoundsAtOnce: the page's path off the data and back
// (docs/interfaces.md §4: wasm's offData) over the real engine: a
// continuous sound (a river's bed) re-keyed every 6 s with a 6 s wave
// plays; off the data the engine is held disabled and FadeAll cuts it; back
// on the data after `away` seconds the bed must sound again at the first
// tick, not when its old key comes (up to 6 s later: the 3.5 s and 6.3 s
// first sounds seen on Asheron's Atlas, issue 28). Each case is timed
// on the mixer's clock (frames), never the wall's.
func TestBackOnTheDataSoundsAtOnce(t *testing.T) {
	const rate, bed = 48000, 6.0
	for _, away := range []float64{0.5, 2.5, 4, 7} {
		portal, cell := testWorld(t,
			[]dat.AmbientSoundDesc{{SType: 0x46, Volume: 1, MinRate: bed, MaxRate: bed}},
			[]testWave{{id: 0x0A000001, rate: rate, frames: int(bed * rate), value: 1024, stype: 0x46, probabilities: 1}})
		h := testHost(t, portal, cell, 1)
		var plays []float64
		m, w := watch(t, h, Options{Rate: rate, OnEvents: func(now float64, evs []ambient.Event) {
			for _, ev := range evs {
				if ev.Kind == ambient.KindPlay {
					plays = append(plays, now)
				}
			}
		}})
		render(m, rate, 480) // 1 s: the bed fired at the first tick
		if len(plays) != 1 {
			t.Fatalf("away %v s: %d plays in the first second, want the bed's 1", away, len(plays))
		}
		// Off the data, as wasm's offData does it: the engine first, then the fade.
		h.SetEnabled(false)
		m.FadeAll()
		if out := render(m, int(away*rate), 480); out[len(out)-1] != 0 {
			t.Fatalf("away %v s: still sounding off the data", away)
		}
		back := float64(m.Frames()) / rate
		h.SetEnabled(true)
		out := render(m, 2*rate, 480)
		var first float64 = -1
		for _, p := range plays[1:] {
			if p >= back {
				first = p
				break
			}
		}
		// The first tick back is within one tick (1/30 s) of the return,
		// and the bed is heard from there.
		if first < 0 || first-back > DefaultTick+1e-9 {
			t.Errorf("away %v s: back on the data at %.3f s, the bed played again at %.3f s (plays %v); want within a tick", away, back, first, plays)
			continue
		}
		if k := int((first - back + 0.01) * rate); out[2*k] == 0 {
			t.Errorf("away %v s: silent 10 ms after the bed played again", away)
		}
		if w.cuts != 0 || w.late != 0 {
			t.Errorf("away %v s: %d plays on a sounding voice, %d voices sounding past the engine's end", away, w.cuts, w.late)
		}
	}
}

// Cut passes the mixer's cut on to the watched host, when it hears of it.
func (w *watched) Cut(now float64) {
	if c, ok := w.Host.(Cutter); ok {
		c.Cut(now)
	}
}
