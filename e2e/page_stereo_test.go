package e2e

// Stereo and the camera in the page (issue 22.4): a one-shot placed to the
// listener's right is louder in the right channel by the pan law's dB, and
// turning the camera — with Q/E in the page, or setCamera — swaps it; the
// README's on("play") fires with the fields the d.ts gives.

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"acambient/core/dat"
)

// The forest's thrushes in the calls world (pageCallsWorld).
const (
	thrushVolume           = 0.85 // as authored (core/demo sounds.go)
	thrushMin, thrushMax   = 2.6, 3.4
	strongPan              = 8 // a pan of at least this many dB: a placement well to one side
	panTolerance           = 0.05
	singleVoiceSpreadDB    = 0.05
	singleVoiceMinSamples  = 1000
	retailDegree           = 0.017453292 // PlaySoundInternal's degree constant (retail.md §R5.4, §R11)
	placementJitterDegrees = 11.25       // GetSoundPos: ±π/16 around the band (retail.md §R4)
)

// dirDegrees is each direction band's compass heading (LandDefs::heading,
// retail.md §R4; the enum N=1, S=2, E=3, W=4, NW=5, SW=6, NE=7, SE=8).
var dirDegrees = [9]float64{0, 0, 180, 90, 270, 315, 225, 45, 135}

// callsWorld is the demo world with every sound silent but the forest's
// thrushes, which call at every chance (base chance 1, probability gates
// 1) every 2.6–3.4 s: at the forest landmark, where the forest is the only
// set (share 1), one thrush at a time, each call alone between silences
// (the waves last 2.0–2.2 s). It reports the thrushes' set and sound index.
func callsWorld(t *testing.T, stb, sound *int) worldEdit {
	return func(sd *dat.SoundDesc, table func(uint32) *dat.SoundTable) {
		a := forestSlot(t, sd, table, stypeThrush)
		silence(sd)
		a.Volume, a.BaseChance, a.MinRate, a.MaxRate = thrushVolume, 1, thrushMin, thrushMax
		for i := range sd.STBDescs {
			for k := range sd.STBDescs[i].AmbientSounds {
				if &sd.STBDescs[i].AmbientSounds[k] == a {
					*stb, *sound = i, k
				}
			}
		}
	}
}

// TestPageStereo: in the page, each thrush call reaches the destination
// with its right channel louder than its left by exactly the event's pan
// in dB (DirectSound's law, core/mix Gains: the far channel attenuated by
// |pan| dB), measured on the call alone, sample by sample; the pan is the
// one retail's placement gives for the call's direction band and the
// camera's heading. Calls come from all eight bands; with the camera facing
// north, east bands are right-louder; Q/E turning the page's camera to face
// south swaps every band's side, and setCamera back to north swaps it back.
func TestPageStereo(t *testing.T) { pageTest(t, pageStereo) }

func pageStereo(t *testing.T, spec browserSpec) {
	var stb, sound int
	url := pageServer(t, callsWorld(t, &stb, &sound))
	pos, _ := landmark(t, "forest")
	b := pageOpen(t, spec, url, pos, true)

	type phase struct {
		name    string
		heading float64
		from    float64 // engine seconds: the phase's plays come after
	}
	var right, left int // strongly panned calls heard louder on that side, in the phases done
	// listen collects the paired calls of a phase until one is strongly
	// panned (and, with both, until calls louder on each side have been
	// heard over all phases), then checks each against the law.
	listen := func(ph *phase, both bool) {
		t.Helper()
		var last []ptPair
		var r, l int
		until(t, 90*time.Second, func() string {
			return fmt.Sprintf("%s: %d paired calls, %d louder right and %d left by %d dB or more", ph.name, len(last), r, l, strongPan)
		}, func() bool {
			a := ptTake(b)
			last, r, l = last[:0], 0, 0
			for _, p := range pairs(a) {
				if p.P.T <= ph.from {
					continue
				}
				last = append(last, p)
				// Sides as heard: checkPan holds each to its pan.
				if m, _ := p.B.rightOverLeft(); abs(p.P.Pan) >= strongPan && m > 0 {
					r++
				} else if abs(p.P.Pan) >= strongPan && m < 0 {
					l++
				}
			}
			return r+l > 0 && (!both || (right+r > 0 && left+l > 0))
		})
		right, left = right+r, left+l
		for _, p := range last {
			if err := checkPan(p, ph.heading); err != nil {
				t.Errorf("%s: %v", ph.name, err)
			}
			m, _ := p.B.rightOverLeft()
			t.Logf("%s: band %d at %.1f m, pan %+d: right − left %+.4f dB", ph.name, p.P.Dir, p.P.Dist, p.P.Pan, m)
		}
	}

	// The page's camera faces north until turned.
	north := phase{name: "facing north", heading: 0, from: 0}
	listen(&north, false)

	// Q/E: hold E until the page has turned the camera to face south.
	held0 := heldSeconds(b, "KeyE")
	b.do("keyDown", "key", "KeyE")
	b.waitFor(`window.__pt.camera.last && window.__pt.camera.last.heading >= 180`, 20*time.Second)
	b.do("keyUp", "key", "KeyE")
	b.eval(nil, `window.__pt.settled()`)
	var turned struct {
		Heading float64 `json:"heading"`
		Slider  string  `json:"slider"`
		Out     string  `json:"out"`
		Time    float64 `json:"time"`
	}
	b.eval(&turned, `({ heading: window.__pt.camera.last.heading, slider: document.getElementById("heading").value,
		out: document.getElementById("headingOut").textContent, time: window.ambient.state().time })`)
	held := heldSeconds(b, "KeyE") - held0
	if want := 90 * held; math.Abs(turned.Heading-want) > 0.01 {
		t.Errorf("E held for %.3f s of the page's frames turned the camera to %.3f°; want 90°/s: %.3f°", held, turned.Heading, want)
	}
	checkHeadingShown(t, turned.Heading, turned.Slider, turned.Out)
	t.Logf("E held %.3f s (the page's frames): heading %.3f° (%.2f°/s)", held, turned.Heading, turned.Heading/held)
	south := phase{name: fmt.Sprintf("turned by E to %.1f°", turned.Heading), heading: turned.Heading, from: turned.Time}
	listen(&south, false)

	// setCamera with the opposite heading.
	var back float64
	b.eval(&back, `(async () => { const w = window.ambient.state().where;
		await window.ambient.setCamera({ objcellId: w.objcellId, x: w.x, y: w.y, z: w.z }, 0);
		return window.ambient.state().time; })()`)
	again := phase{name: "setCamera(…, 0)", heading: 0, from: back}
	listen(&again, true)

	// Both sides heard: calls to the listener's right louder on the right,
	// to the left louder on the left.
	if right == 0 || left == 0 {
		t.Errorf("strongly panned calls louder on the right: %d, on the left: %d; want some of each", right, left)
	}

	// Every play event as the d.ts types it, and as retail computes it.
	var raw []map[string]any
	b.eval(&raw, `window.__pt.plays`)
	checkPlayFields(t, raw)
	var plays []ptPlay
	b.eval(&plays, `window.__pt.plays`)
	for _, p := range plays {
		if p.STBIndex != stb || p.SoundIndex != sound || p.SType != stypeThrush || p.Continuous {
			t.Errorf("play %+v: want the forest's thrush (set %d, sound %d, sType 0x%X, not continuous)", p, stb, sound, stypeThrush)
		}
		if p.Wave != "0x0A000112" && p.Wave != "0x0A000113" || p.Variant < 0 || p.Variant > 1 {
			t.Errorf("play %+v: want thrush A or B (0x0A000112, 0x0A000113) as variant 0 or 1 (retail never picks the last of three)", p)
		}
		if p.Dir < 1 || p.Dir > 8 || p.Dist < 4 || p.Dist > 130 {
			t.Errorf("play %+v: want a placed call (band 1..8, 4..130 m)", p)
		}
		checkGain(t, p, placedGain(thrushVolume, p.Dist, 1))
	}
	lfNoErrors(t, b)
}

// checkPan: the pair's call alone (one gain ratio over all its samples),
// right over left by its pan (core/mix Gains: the far channel |pan| dB
// down), and the pan retail's placement gives its band with the camera at
// heading (retail.md §R5.4: trunc(15·sin β), β the placement's bearing
// from the camera's facing, within ±11.25° of the band; 0 closer than 5 m).
func checkPan(p ptPair, heading float64) error {
	m, spread := p.B.rightOverLeft()
	if p.B.N < singleVoiceMinSamples || spread > singleVoiceSpreadDB {
		return fmt.Errorf("call at %.3f s: right−left spread %.4f dB over %d samples: not one voice alone", p.P.T, spread, p.B.N)
	}
	if want := float64(max(-15, min(15, p.P.Pan))); math.Abs(m-want) > panTolerance {
		return fmt.Errorf("call at %.3f s with pan %d: right−left %.4f dB; want %.0f dB (the pan law)", p.P.T, p.P.Pan, m, want)
	}
	lo, hi := panRange(p.P.Dir, p.P.Dist, heading)
	if p.P.Pan < lo || p.P.Pan > hi {
		return fmt.Errorf("call at %.3f s, band %d at %.1f m, camera at %.2f°: pan %d; retail's placement gives %d..%d", p.P.T, p.P.Dir, p.P.Dist, heading, p.P.Pan, lo, hi)
	}
	return nil
}

// panRange is the pans retail's placement can give a call in band dir at
// dist metres with the camera at heading (°).
func panRange(dir int, dist, heading float64) (lo, hi int) {
	if dir == 0 || math.Trunc(dist) < 5 {
		return 0, 0
	}
	lo, hi = 15, -15
	for d := -placementJitterDegrees - 0.01; d <= placementJitterDegrees+0.01; d += 0.005 {
		p := int(math.Trunc(15 * math.Sin((dirDegrees[dir]+d-heading)*retailDegree)))
		lo, hi = min(lo, p), max(hi, p)
	}
	return lo, hi
}

// placedGain is retail's gain for an intermittent sound of authored volume v
// placed r metres off with the ambient slider at a (retail.md §R6: the
// slider applied twice).
func placedGain(v, r, a float64) float64 {
	g := v * a
	if r >= 5 {
		g = 25 * v * a / (r * r)
	}
	return math.Min(1, g) * a
}

// checkGain: the play's linear gain is want (the event prints a float) and
// its whole dB the ceiling of 20·log10 of it (retail.md §R5.5).
func checkGain(t *testing.T, p ptPlay, want float64) {
	t.Helper()
	if math.Abs(p.Gain-want) > 1e-5*want {
		t.Errorf("play at %.3f s: gain %v; retail's law gives %v", p.T, p.Gain, want)
	}
	x := math.Log2(p.Gain) * 6.0206
	if math.Abs(x-math.Round(x)) > 1e-4 && p.DB != int(math.Ceil(x)) {
		t.Errorf("play at %.3f s: %d dB for gain %v; want %d", p.T, p.DB, p.Gain, int(math.Ceil(x)))
	}
}

// heldSeconds is how long the page's frames have seen key held, in total.
func heldSeconds(b *lfBrowser, key string) float64 {
	var s float64
	b.eval(&s, `window.__pt.held[`+lfJS(key)+`] || 0`)
	return s
}

// checkHeadingShown: the heading slider and its readout show heading.
func checkHeadingShown(t *testing.T, heading float64, slider, out string) {
	t.Helper()
	compass := []string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}
	r := int(math.Round(heading))
	if want := fmt.Sprintf("%d° %s", r, compass[int(math.Round(heading/45))%8]); slider != fmt.Sprint(r) || out != want {
		t.Errorf("heading %.3f° shown as slider %q, %q; want %q, %q", heading, slider, out, fmt.Sprint(r), want)
	}
}

// checkPlayFields: every play event the page's on("play") gave has the
// fields of PlayEvent in www/ambient.d.ts, of their types, and no others.
func checkPlayFields(t *testing.T, plays []map[string]any) {
	t.Helper()
	fields := dtsFields(t, "PlayEvent")
	if len(plays) == 0 {
		t.Errorf("no play events")
	}
	hex := regexp.MustCompile(`^0x[0-9A-F]{8}$`)
	for _, ev := range plays {
		for name, typ := range fields {
			v, ok := ev[name]
			if !ok {
				t.Errorf("play event %v lacks %s (%s)", ev, name, typ)
				continue
			}
			var good bool
			switch typ {
			case "number":
				f, isNum := v.(float64)
				good = isNum && !math.IsNaN(f) && !math.IsInf(f, 0)
			case "boolean":
				_, good = v.(bool)
			case "Hex":
				s, isStr := v.(string)
				good = isStr && hex.MatchString(s)
			default:
				good = fmt.Sprint(v) == strings.Trim(typ, `"`)
			}
			if !good {
				t.Errorf("play event field %s = %v (%T); the d.ts says %s", name, v, v, typ)
			}
		}
		for name := range ev {
			if _, ok := fields[name]; !ok {
				t.Errorf("play event has %s, which the d.ts's PlayEvent does not list (%v)", name, sortedKeys(fields))
			}
		}
		// The integers the d.ts documents as whole: dB, pan, bands, indices.
		for _, name := range []string{"stbIndex", "soundIndex", "sType", "variant", "db", "pan", "dir"} {
			if f, _ := ev[name].(float64); f != math.Trunc(f) {
				t.Errorf("play event %s = %v: want a whole number", name, f)
			}
		}
		if p, _ := ev["pan"].(float64); p < -15 || p > 15 {
			t.Errorf("play event pan %v: the d.ts says −15..15", p)
		}
		if d, _ := ev["dir"].(float64); d < 0 || d > 8 {
			t.Errorf("play event dir %v: the d.ts says 1..8, 0 = centred", d)
		}
	}
}

// dtsFields reads interface name of www/ambient.d.ts: its fields and their
// types as written.
func dtsFields(t *testing.T, name string) map[string]string {
	t.Helper()
	src, err := os.ReadFile("../www/ambient.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)export interface ` + name + ` \{(.*?)\n\}`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("ambient.d.ts has no interface %s", name)
	}
	out := map[string]string{}
	for _, f := range regexp.MustCompile(`(?m)^\s*(\w+): ([^;]+);`).FindAllSubmatch(m[1], -1) {
		out[string(f[1])] = string(f[2])
	}
	if len(out) == 0 {
		t.Fatalf("ambient.d.ts: %s has no fields", name)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
