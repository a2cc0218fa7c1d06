package e2e

// The volume and the enable switch in the page (issue 22.4 and 22.5):
// setVolume and the Ambient volume slider lower the output by retail's
// slider law, setEnabled and the Ambient sounds checkbox silence it to
// exact zeros and bring it back, all measured at the destination.

import (
	"fmt"
	"math"
	"testing"
	"time"

	"acambient/core/dat"
)

// The forest's woodpecker in the bed world (bedWorld).
const (
	bedVolume   = 0.5
	bedInterval = 2.5
)

// bedWorld is the demo world with every sound silent but the forest's
// woodpecker, made a constant sound (base chance 0) of volume 0.5 that
// fires every 2.5 s (its probability gate 1): at the forest landmark
// (share 1) the same 2.0 s wave, centred, at one level until the slider
// moves; every firing alone between silences.
func bedWorld(t *testing.T) worldEdit {
	return func(sd *dat.SoundDesc, table func(uint32) *dat.SoundTable) {
		a := forestSlot(t, sd, table, stypeWoodpeck)
		silence(sd)
		a.Volume, a.BaseChance, a.MinRate, a.MaxRate = bedVolume, 0, bedInterval, bedInterval
	}
}

// constantGain is retail's gain for a constant sound whose current volume
// (authored volume × share) is cv with the ambient slider at a (retail.md
// §R6: min(1, a·cv)·a, the slider applied twice), and its whole dB.
func constantGain(cv, a float64) (float64, int) {
	g := math.Min(1, a*cv) * a
	return g, int(math.Ceil(math.Log2(g) * 6.0206))
}

// TestPageVolumeAndEnable: the same firing of the same wave, measured at
// the destination, is as much quieter as retail's slider law says
// (setVolume(0.5): 12 dB, not the 6 of a slider applied once); the page's
// volume slider drives the same law; setEnabled(false) and unticking
// "Ambient sounds" let the sounding voice end and then the output is exact
// zeros with no play, and turning it back on brings the sound back.
func TestPageVolumeAndEnable(t *testing.T) { pageTest(t, pageVolumeAndEnable) }

func pageVolumeAndEnable(t *testing.T, spec browserSpec) {
	url := pageServer(t, bedWorld(t))
	pos, _ := landmark(t, "forest")
	b := pageOpen(t, spec, url, pos, true)

	// firings waits for the paired firings played after engine time from,
	// until ok holds for one of them or the third has come; each is checked
	// for its gain and dB against the law at slider a.
	firings := func(what string, from, a float64, ok func(ptPair) bool) {
		t.Helper()
		seen := 0
		until(t, 40*time.Second, func() string { return fmt.Sprintf("%s: %d firings heard", what, seen) }, func() bool {
			var ps []ptPair
			for _, p := range pairs(ptTake(b)) {
				if p.P.T > from {
					ps = append(ps, p)
				}
			}
			for ; seen < len(ps); seen++ {
				p := ps[seen]
				if !p.P.Continuous || p.P.Pan != 0 || p.P.Dir != 0 || p.P.Dist != 0 || p.P.SType != stypeWoodpeck {
					t.Errorf("%s: play %+v; want the woodpecker, constant, centred", what, p.P)
				}
				g, db := constantGain(bedVolume, a)
				checkGain(t, p.P, g)
				if p.P.DB != db {
					t.Errorf("%s: the slider at %v plays at %d dB; retail's law gives %d", what, a, p.P.DB, db)
				}
				if ok(p) || seen == 2 {
					seen++
					return true
				}
			}
			return false
		})
	}
	peak := func(p ptPair) float64 { return max(p.B.PeakL, p.B.PeakR) }
	// The level of the same firing is its peak: a frame the output drops
	// or replays under load (docs/browser-testing.md §5) changes a firing's
	// energy but rarely its loudest sample, and never raises it; the
	// reference is the louder of the first two firings at slider 1.
	var ref float64
	n := 0
	firings("the slider at 1", 0, 1, func(p ptPair) bool { ref = max(ref, peak(p)); n++; return n == 2 })
	_, db1 := constantGain(bedVolume, 1)
	// quieter checks that a firing after from measures the law's drop at
	// slider a against the reference.
	quieter := func(what string, from, a float64) {
		t.Helper()
		_, db := constantGain(bedVolume, a)
		want := float64(db - db1)
		var got []float64
		firings(what, from, a, func(p ptPair) bool {
			got = append(got, 20*math.Log10(peak(p)/ref))
			return math.Abs(got[len(got)-1]-want) <= 0.01
		})
		if last := got[len(got)-1]; math.Abs(last-want) > 0.01 {
			t.Errorf("%s: slider %v: firings measure %.4f dB against the slider at 1; retail's law gives %+.0f dB", what, a, got, want)
		} else {
			t.Logf("%s: slider %v: %d dB, measured %+.4f dB against the slider at 1 (law %+.0f; applied once it would be %+.2f)",
				what, a, db, last, want, 20*math.Log10(a))
		}
	}

	var t1 float64
	b.eval(&t1, `(() => { window.ambient.setVolume(0.5); return window.ambient.state().time; })()`)
	quieter("setVolume(0.5)", t1, 0.5)

	// The page's slider, clicked 30% along: whatever value that gives.
	var r struct{ X, Y, W float64 }
	b.eval(&r, `(() => { const r = document.getElementById("volume").getBoundingClientRect(); return { X: r.x, Y: r.y + r.height / 2, W: r.width }; })()`)
	b.do("click", "x", math.Round(r.X+0.3*r.W), "y", math.Round(r.Y))
	var slid struct {
		Value string  `json:"value"`
		Out   string  `json:"out"`
		Time  float64 `json:"time"`
	}
	b.eval(&slid, `({ value: document.getElementById("volume").value, out: document.getElementById("volumeOut").textContent,
		time: window.ambient.state().time })`)
	var v float64
	fmt.Sscan(slid.Value, &v)
	if v <= 0.05 || v >= 0.95 || slid.Out != fmt.Sprintf("%d%%", int(math.Round(v*100))) {
		t.Fatalf("the volume slider clicked 30%% along reads %q, shown %q", slid.Value, slid.Out)
	}
	quieter("the volume slider", slid.Time, v)

	// Off and on again, by the API and by the checkbox.
	for _, c := range []struct{ name, off, on string }{
		{"setEnabled", `window.ambient.setEnabled(false)`, `window.ambient.setEnabled(true)`},
		{"the Ambient sounds checkbox", `document.getElementById("enabled")`, `document.getElementById("enabled")`},
	} {
		toggle := func(js string, want bool) float64 {
			t.Helper()
			if c.name == "setEnabled" {
				b.eval(nil, js)
			} else {
				lfClickElement(b, "#enabled")
				var checked bool
				b.eval(&checked, js+`.checked`)
				if checked != want {
					t.Fatalf("%s: checked %v after a click; want %v", c.name, checked, want)
				}
			}
			var now float64
			b.eval(&now, `window.ambient.state().time`)
			return now
		}
		off := toggle(c.off, false)
		// The sounding voice plays to its end (retail only gates new
		// sounds), the output drains, then three seconds of the tap's own
		// frames — more than one interval of the bed — hold no sample but 0.
		var q struct {
			Voices  int   `json:"voices"`
			ZeroRun int64 `json:"zeroRun"`
			Rate    int64 `json:"rate"`
		}
		until(t, 30*time.Second, func() string {
			return fmt.Sprintf("%s off: %d voices sounding, the output's last %d frames zeros; want none and half a second", c.name, q.Voices, q.ZeroRun)
		}, func() bool {
			b.eval(&q, `({ voices: window.ambient.state().voices.length, zeroRun: window.__pt.stats ? window.__pt.stats.zeroRun : 0, rate: window.__pt.ctx.sampleRate })`)
			return q.Voices == 0 && q.ZeroRun >= q.Rate/2
		})
		b.eval(nil, `window.__pt.mark()`)
		b.waitFor(`window.__pt.stats && window.__pt.stats.frames >= 3 * window.__pt.ctx.sampleRate`, 30*time.Second)
		var quiet struct {
			Nonzero int64 `json:"nonzero"`
			Frames  int64 `json:"frames"`
			Plays   int   `json:"plays"`
		}
		b.eval(&quiet, `({ nonzero: window.__pt.stats.nonzero, frames: window.__pt.stats.frames,
			plays: window.__pt.plays.filter((p) => p.t > `+fmt.Sprint(off)+`).length })`)
		if quiet.Nonzero != 0 || quiet.Plays != 0 {
			t.Errorf("%s off: %d of %d frames at the destination not exact zeros, %d plays; want silence", c.name, quiet.Nonzero, quiet.Frames, quiet.Plays)
		} else {
			t.Logf("%s off: %d frames of exact zeros, no play", c.name, quiet.Frames)
		}
		on := toggle(c.on, true)
		b.eval(nil, `window.__pt.mark()`)
		firings(c.name+" on", on, v, func(ptPair) bool { return true })
		b.waitFor(`window.__pt.stats && window.__pt.stats.nonzero > 0`, 30*time.Second)
	}

	var raw []map[string]any
	b.eval(&raw, `window.__pt.plays`)
	checkPlayFields(t, raw)
	lfNoErrors(t, b)
}
