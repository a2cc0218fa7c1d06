package acceptance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// event is one trace line (docs/interfaces.md §1.3); unused keys stay zero.
type event struct {
	T               float64 `json:"t"`
	Event           string  `json:"event"`
	ObjCellID       string  `json:"objcellId"`
	Outdoorish      bool    `json:"outdoorish"`
	TotalSoundCount float64 `json:"totalSoundCount"`
	Instances       int     `json:"instances"`
	STBIndex        int     `json:"stbIndex"`
	SoundIndex      int     `json:"soundIndex"`
	SType           uint32  `json:"sType"`
	Continuous      bool    `json:"continuous"`
	Wave            string  `json:"wave"`
	Variant         int     `json:"variant"`
	Gain            float64 `json:"gain"`
	DB              float64 `json:"db"`
	Pan             float64 `json:"pan"`
	Dir             int     `json:"dir"`
	Dist            float64 `json:"dist"`
	Reason          string  `json:"reason"`
}

// eventKeys are the exact keys of each kind (docs/interfaces.md §1.3).
var eventKeys = map[string][]string{
	"rebuild": {"t", "event", "objcellId", "outdoorish", "totalSoundCount", "instances"},
	"play": {"t", "event", "stbIndex", "soundIndex", "sType", "continuous", "wave", "variant",
		"gain", "db", "pan", "dir", "dist"},
	"skip":    {"t", "event", "stbIndex", "soundIndex", "reason"},
	"dequeue": {"t", "event", "stbIndex", "soundIndex"},
	"steal":   {"t", "event", "wave"},
}

var skipReasons = map[string]bool{"chance": true, "probability": true, "cull": true, "noWave": true, "noTable": true}

// runTrace runs `trace` and checks every line's shape (docs/interfaces.md §1.3, §0).
func runTrace(t *testing.T, args ...string) ([]event, []byte) {
	t.Helper()
	out := runCmd(t, "trace", args...)
	var evs []event
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		n++
		if len(bytes.TrimSpace(line)) == 0 {
			t.Errorf("line %d is empty", n)
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatalf("line %d is not a JSON object: %v: %s", n, err, line)
		}
		checkNumbers(t, fmt.Sprintf("trace line %d", n), line)
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %d: %v: %s", n, err, line)
		}
		want, ok := eventKeys[e.Event]
		if !ok {
			t.Errorf("line %d: unknown event %q", n, e.Event)
			continue
		}
		if same, msg := sameKeys(raw, want...); !same {
			t.Errorf("line %d (%s): %s", n, e.Event, msg)
		}
		for _, k := range []string{"objcellId", "wave"} {
			if v, ok := raw[k]; ok {
				var s string
				if json.Unmarshal(v, &s) != nil || !idRe.MatchString(s) {
					t.Errorf("line %d: %s = %s, want a \"0x%%08X\" string", n, k, v)
				}
			}
		}
		if e.Event == "skip" && !skipReasons[e.Reason] {
			t.Errorf("line %d: skip reason %q not in docs/interfaces.md §1.3", n, e.Reason)
		}
		if e.Event == "play" && (e.Pan < -15 || e.Pan > 15 || e.Pan != math.Trunc(e.Pan)) {
			t.Errorf("line %d: pan %v outside the integers −15..15", n, e.Pan)
		}
		evs = append(evs, e)
	}
	if len(evs) == 0 {
		t.Fatalf("trace printed nothing")
	}
	if evs[0].Event != "rebuild" || evs[0].T != 0 {
		t.Errorf("first line = %+v, want the t=0 rebuild", evs[0])
	}
	return evs, out
}

// fires are the play/skip events of one instance (each is one Ambient::Play
// that passed CanHear).
func fires(evs []event, stb, k int) []event {
	var out []event
	for _, e := range evs {
		if (e.Event == "play" || e.Event == "skip") && e.STBIndex == stb && e.SoundIndex == k {
			out = append(out, e)
		}
	}
	return out
}

// wantDB is GetAttenuation's whole-dB value: ceil(20·log10 g).
func wantDB(g float64) float64 { return math.Ceil(20 * math.Log10(g)) }

// checkPlayGain checks an intermittent play's gain and dB against docs/retail.md §R6:
// gain = min(1, 25·V·A/d²)·A for d ≥ 5, min(1, V·A)·A below; dB = ceil(20·log10 gain) ≥ −50.
func checkPlayGain(t *testing.T, e event, V, A float64) {
	t.Helper()
	g := math.Min(1, V*A) * A
	if e.Dist >= 5 {
		g = math.Min(1, 25*V*A/(e.Dist*e.Dist)) * A
	}
	if !close(e.Gain, g) {
		t.Errorf("t=%v (%d,%d) dist %v: gain %v, want min(1, 25·%v·%v/d²)·%v = %v", e.T, e.STBIndex, e.SoundIndex, e.Dist, e.Gain, V, A, A, g)
	}
	if e.DB != wantDB(e.Gain) {
		t.Errorf("t=%v (%d,%d): db %v, want ceil(20·log10 %v) = %v", e.T, e.STBIndex, e.SoundIndex, e.DB, e.Gain, wantDB(e.Gain))
	}
	if e.DB < -50 {
		t.Errorf("t=%v (%d,%d): db %v below the −50 dB cull", e.T, e.STBIndex, e.SoundIndex, e.DB)
	}
}

// World 2 (trace world), player 0x06060015/60,96,20: STB T only, share 1 (see
// TestGatherWorld2ByHand). T[0] constant V 0.5 rate 2; T[1] intermittent V 1, chance 1,
// rate 0.5..1.5, band E [26, 118], 2-variant child (0x0A000011, 0x0A000012).
const w2Player = "0x06060015/60,96,20"

func TestTraceConstantTiming(t *testing.T) {
	for _, tc := range []struct {
		A        string
		gain, db float64
	}{
		// A = 1: gain = min(1, 1·0.5·1)·1 = 0.5; db = ceil(20·log10 0.5) = ceil(−6.0206) = −6.
		{"1", 0.5, -6},
		// A = 0.5: gain = min(1, 0.5·0.5·1)·0.5 = 0.125 (4× lower); db = ceil(−18.0618) = −18.
		{"0.5", 0.125, -18},
	} {
		t.Run("volume="+tc.A, func(t *testing.T) {
			evs, _ := runTrace(t, "-player", w2Player, "-seconds", "30", "-seed", "7", "-tick", "0.25", "-volume", tc.A)
			r := evs[0]
			if r.ObjCellID != "0x06060015" || !r.Outdoorish || !close(r.TotalSoundCount, 0.45404664) || r.Instances != 2 {
				t.Errorf("rebuild = %+v; want 0x06060015, outdoorish, total 0.45404664, 2 instances", r)
			}
			// Keys are popped when strictly less than now and re-keyed at now + min_rate:
			// fire at 0 → key 2 → not at tick 2.0 (2 < 2 is false) → fires at 2.25 → key 4.25 → 4.5 …
			// so the period is min_rate + tick = 2.25 s: t_k = 2.25·k.
			f := fires(evs, 4, 0)
			var want []float64
			for k := 0; 2.25*float64(k) <= 30-0.25; k++ {
				want = append(want, 2.25*float64(k))
			}
			if len(f) < len(want) {
				t.Fatalf("constant fired %d times, want ≥ %d (every 2.25 s): %+v", len(f), len(want), f)
			}
			for i, w := range want {
				e := f[i]
				if math.Abs(e.T-w) > 1e-9 {
					t.Errorf("constant fire %d at t=%v, want %v", i, e.T, w)
				}
				if e.Event == "skip" {
					if e.Reason != "probability" { // entry probability 1.0: rand()/32767 < 1 fails only for rand() = 32767
						t.Errorf("constant skipped at t=%v with reason %q", e.T, e.Reason)
					}
					continue
				}
				if !e.Continuous || e.SType != 70 || e.Wave != "0x0A000010" || e.Variant != 0 {
					t.Errorf("constant play %+v: want continuous sType 70 wave 0x0A000010 variant 0", e)
				}
				if e.Pan != 0 || e.Dist != 0 || e.Dir != 0 {
					t.Errorf("constant play at t=%v: pan %v dist %v dir %v, want centred 0/0/0", e.T, e.Pan, e.Dist, e.Dir)
				}
				if !close(e.Gain, tc.gain) || e.DB != tc.db {
					t.Errorf("constant play at t=%v: gain %v db %v, want %v %v", e.T, e.Gain, e.DB, tc.gain, tc.db)
				}
			}
		})
	}
}

func TestTraceIntermittentPlacement(t *testing.T) {
	for _, tc := range []struct {
		A float64
	}{{1}, {0.5}} {
		t.Run(fmt.Sprint("volume=", tc.A), func(t *testing.T) {
			evs, _ := runTrace(t, "-player", w2Player, "-seconds", "120", "-seed", "7", "-tick", "0.25", "-volume", fmt.Sprint(tc.A))
			f := fires(evs, 4, 1)
			if len(f) < 60 {
				t.Fatalf("intermittent fired %d times in 120 s, want ≥ 60 (interval < 1.75 s)", len(f))
			}
			plays, culls := 0, 0
			for i, e := range f {
				if i > 0 {
					// Next key = now + RollDice(0.5, 1.5) ∈ [0.5, 1.5); fires at the first tick strictly after it.
					if dt := e.T - f[i-1].T; dt <= 0.5 || dt > 1.75+1e-9 {
						t.Errorf("interval %v between fires at %v and %v, want in (0.5, 1.75]", dt, f[i-1].T, e.T)
					}
				}
				if e.Event == "skip" {
					switch e.Reason {
					case "cull":
						culls++
					case "probability":
					default: // play_chance = 1: RollDice(0,1) ≤ 1 always, so never "chance"
						t.Errorf("t=%v: skip reason %q", e.T, e.Reason)
					}
					continue
				}
				plays++
				if e.Continuous || e.SType != 71 || e.Dir != 3 {
					t.Errorf("t=%v: play %+v, want sType 71, dir E(3)", e.T, e)
				}
				// N = 2 variants: trunc((2−1)·u) = 0 always — never the last variant.
				if e.Variant != 0 || e.Wave != "0x0A000011" {
					t.Errorf("t=%v: variant %d wave %s, want 0 / 0x0A000011 (the last variant is never picked)", e.T, e.Variant, e.Wave)
				}
				if e.Dist < 26-1e-3 || e.Dist > 118+1e-3 {
					t.Errorf("t=%v: dist %v outside the E band [26, 118]", e.T, e.Dist)
				}
				checkPlayGain(t, e, 1, tc.A)
				// Camera = player facing north; bearing of an E placement is 90° ± 11.25°:
				// pan = trunc(15·sin β) ∈ trunc([15·0.98079, 15]) = {14, 15}.
				if e.Pan < 14 || e.Pan > 15 {
					t.Errorf("t=%v: pan %v for a sound due east of a north-facing camera, want 14 or 15", e.T, e.Pan)
				}
			}
			// With A = 1 the cull is at d > 94.18 m (25/d² < 10^(−50.x/20)); P(r > 94.18) = 1 − √((94.18−26)/92) ≈ 0.14.
			// With A = 0.5: gain = 6.25/d², culled when 20·log10(6.25/d²) ≤ −51 → d > 66.6 m: ≈ 0.45 of fires.
			if culls == 0 || plays == 0 {
				t.Errorf("plays %d culls %d; want both > 0", plays, culls)
			}
		})
	}
}

// TestTraceDistanceRoll: r = min + (max−min)·u² (docs/retail.md §R4) puts
// P(r < midpoint) = P(u² < ½) = 0.7071, not ½ as a linear roll would.
// Culled fires all have r > 94 (A = 1) so they count as "not below".
func TestTraceDistanceRoll(t *testing.T) {
	evs, _ := runTrace(t, "-player", w2Player, "-seconds", "600", "-seed", "3", "-tick", "0.25")
	f := fires(evs, 4, 1)
	below, n := 0, 0
	for _, e := range f {
		if e.Event == "skip" && e.Reason != "cull" {
			continue
		}
		n++
		if e.Event == "play" && e.Dist < 72 {
			below++
		}
	}
	frac := float64(below) / float64(n)
	if n < 300 || math.Abs(frac-0.7071) > 0.07 {
		t.Errorf("fraction of placements in the near half of [26,118]: %v of %d, want ≈ 0.707 (u² roll)", frac, n)
	}
}

func TestTracePan(t *testing.T) {
	for _, tc := range []struct {
		heading string
		lo, hi  float64
	}{
		{"0", 14, 15},     // β = 90° ± 11.25°: 15·sin ∈ [14.71, 15]
		{"90", -2, 2},     // β = 0 ± 11.25°: 15·sin ∈ [−2.93, 2.93]
		{"180", -15, -14}, // β = −90° ± 11.25°
		{"270", -2, 2},    // β = −180° ± 11.25°
	} {
		t.Run("heading="+tc.heading, func(t *testing.T) {
			evs, _ := runTrace(t, "-player", w2Player, "-camera", w2Player+"/"+tc.heading,
				"-seconds", "40", "-seed", "11", "-tick", "0.25")
			n := 0
			for _, e := range evs {
				if e.Event != "play" || e.Continuous {
					continue
				}
				n++
				if e.Pan < tc.lo || e.Pan > tc.hi {
					t.Errorf("t=%v: pan %v, want in [%v, %v] for a sound due east, camera heading %s", e.T, e.Pan, tc.lo, tc.hi, tc.heading)
				}
			}
			if n == 0 {
				t.Errorf("no intermittent plays")
			}
		})
	}
}

func TestTraceDeterminism(t *testing.T) {
	args := []string{"-player", "0x0101001D/84,108,10", "-seconds", "60", "-tick", "0.25"}
	_, a := runTrace(t, append(args, "-seed", "42")...)
	_, b := runTrace(t, append(args, "-seed", "42")...)
	_, c := runTrace(t, append(args, "-seed", "43")...)
	if !bytes.Equal(a, b) {
		t.Errorf("same seed gave different output")
	}
	if bytes.Equal(a, c) {
		t.Errorf("seeds 42 and 43 gave identical output")
	}
	// Default tick too.
	_, d := runTrace(t, "-player", w2Player, "-seconds", "10", "-seed", "5")
	_, e := runTrace(t, "-player", w2Player, "-seconds", "10", "-seed", "5")
	if !bytes.Equal(d, e) {
		t.Errorf("same seed (default tick) gave different output")
	}
}

// TestTraceWorld1 runs the cell-centre listener of world 1 and checks every
// play against the oracle's gather (share, bands) and docs/retail.md §R5–§R6.
func TestTraceWorld1(t *testing.T) {
	exp := oracleGather(1, 1, 84, 108, 10, oracleOpts{})
	waves := map[[2]int][]string{
		{0, 0}: {"0x0A000001"}, {0, 1}: {"0x0A000002", "0x0A000003"},
		{0, 2}: {"0x0A000004", "0x0A000005", "0x0A000006"},
		{1, 0}: {"0x0A000007"}, {1, 1}: {"0x0A000008", "0x0A000009"},
	}
	for _, A := range []float64{1, 0.5} {
		t.Run(fmt.Sprint("volume=", A), func(t *testing.T) {
			evs, _ := runTrace(t, "-player", "0x0101001D/84,108,10", "-seconds", "600", "-seed", "9",
				"-tick", "0.25", "-volume", fmt.Sprint(A))
			r := evs[0]
			if r.ObjCellID != "0x0101001D" || !r.Outdoorish || !close(r.TotalSoundCount, exp.total) || r.Instances != len(exp.sounds) {
				t.Errorf("rebuild = %+v; want total %v, %d instances", r, exp.total, len(exp.sounds))
			}
			rebuilds := 0
			for _, e := range evs {
				if e.Event == "rebuild" {
					rebuilds++
				}
			}
			if rebuilds != 1 {
				t.Errorf("%d rebuilds, want 1 (the listener never moves)", rebuilds)
			}
			variants := map[[2]int]map[int]int{}
			for _, s := range exp.sounds {
				key := [2]int{s.stbIndex, s.soundIndex}
				f := fires(evs, s.stbIndex, s.soundIndex)
				if len(f) == 0 || f[0].T != 0 {
					t.Errorf("(%d,%d): first fire %v, want one at t=0 (UpdatePlayQueue plays every off-queue instance)", s.stbIndex, s.soundIndex, f)
					continue
				}
				share := s.count / exp.total
				for i, e := range f {
					if i > 0 {
						dt := e.T - f[i-1].T
						if s.continuous && math.Abs(dt-(s.minRate+0.25)) > 1e-9 {
							t.Errorf("(%d,%d): constant re-fired after %v s, want min_rate + tick = %v", s.stbIndex, s.soundIndex, dt, s.minRate+0.25)
						}
						if !s.continuous && (dt <= s.minRate || dt > s.maxRate+0.25+1e-9) {
							t.Errorf("(%d,%d): interval %v, want in (%v, %v]", s.stbIndex, s.soundIndex, dt, s.minRate, s.maxRate+0.25)
						}
					}
					if e.Event == "skip" {
						ok := e.Reason == "probability" || (!s.continuous && (e.Reason == "chance" || e.Reason == "cull"))
						if !ok {
							t.Errorf("(%d,%d) t=%v: skip %q", s.stbIndex, s.soundIndex, e.T, e.Reason)
						}
						continue
					}
					if e.SType != s.sType || e.Continuous != s.continuous {
						t.Errorf("(%d,%d) t=%v: play %+v", s.stbIndex, s.soundIndex, e.T, e)
					}
					if variants[key] == nil {
						variants[key] = map[int]int{}
					}
					variants[key][e.Variant]++
					ws := waves[key]
					if e.Variant < 0 || e.Variant >= len(ws) || e.Wave != ws[e.Variant] {
						t.Errorf("(%d,%d) t=%v: variant %d wave %s, want a wave of %v", s.stbIndex, s.soundIndex, e.T, e.Variant, e.Wave, ws)
					} else if len(ws) >= 2 && e.Variant == len(ws)-1 {
						t.Errorf("(%d,%d) t=%v: picked the last variant %d of %d (trunc((N−1)·u) never does)", s.stbIndex, s.soundIndex, e.T, e.Variant, len(ws))
					}
					if s.continuous {
						// gain = min(1, A·V·share)·A, centred.
						g := math.Min(1, A*s.volume*share) * A
						if !close(e.Gain, g) || e.DB != wantDB(g) || e.Pan != 0 || e.Dist != 0 || e.Dir != 0 {
							t.Errorf("(%d,%d) t=%v: gain %v db %v pan %v dist %v dir %v; want gain min(1, %v·%v·%v)·%v = %v, db %v, centred",
								s.stbIndex, s.soundIndex, e.T, e.Gain, e.DB, e.Pan, e.Dist, e.Dir, A, s.volume, share, A, g, wantDB(g))
						}
						continue
					}
					var band *expDir
					for i := range s.dirs {
						if s.dirs[i].dir == e.Dir {
							band = &s.dirs[i]
						}
					}
					if band == nil {
						t.Errorf("(%d,%d) t=%v: dir %d not among the registered dirs %v", s.stbIndex, s.soundIndex, e.T, e.Dir, s.dirs)
					} else if e.Dist < band.min-1e-3 || e.Dist > band.max+1e-3 {
						t.Errorf("(%d,%d) t=%v: dist %v outside dir %d band [%v, %v]", s.stbIndex, s.soundIndex, e.T, e.Dist, e.Dir, band.min, band.max)
					}
					checkPlayGain(t, e, s.volume, A)
				}
			}
			// Hand checks at t = 0 (A = 1): share(A) = 6.776245/8.990523 = 0.753710,
			// A[0] gain = 0.4·0.753710 = 0.301484 → db ceil(−10.414) = −10;
			// share(B) = 1.954537/8.990523 = 0.217400, B[0] gain = 0.7·0.217400 = 0.152180 → db ceil(−16.353) = −16.
			// With A = 0.5 both gains are 4× lower: 0.075371 (−22 dB), 0.038045 (−28 dB).
			hand := map[[2]int][2]float64{{0, 0}: {0.301484, -10}, {1, 0}: {0.152180, -16}}
			if A == 0.5 {
				hand = map[[2]int][2]float64{{0, 0}: {0.075371, -22}, {1, 0}: {0.038045, -28}}
			}
			for k, v := range hand {
				f := fires(evs, k[0], k[1])
				if len(f) > 0 && f[0].Event == "play" && (!close(f[0].Gain, v[0]) || f[0].DB != v[1]) {
					t.Errorf("(%d,%d) at t=0: gain %v db %v, want %v %v", k[0], k[1], f[0].Gain, f[0].DB, v[0], v[1])
				}
			}
			if variants[[2]int{0, 1}][0] == 0 {
				t.Errorf("A[1] (2 variants) never played in 600 s")
			}
		})
	}
}

// TestTraceDequeue: at the cell-corner listener STB B's constant has
// V·share = 0.7·0.248824/9.057427 = 0.7·0.027472 = 0.019230 < 0.03, so CanHear is
// false: Play drops it from the queue (dequeue at t=0) and it never fires again.
func TestTraceDequeue(t *testing.T) {
	evs, _ := runTrace(t, "-player", "0x02020024/96,72,0", "-seconds", "30", "-seed", "1", "-tick", "0.25")
	var got []event
	for _, e := range evs {
		if e.STBIndex == 1 && e.SoundIndex == 0 && e.Event != "rebuild" {
			got = append(got, e)
		}
	}
	if len(got) != 1 || got[0].Event != "dequeue" || got[0].T != 0 {
		t.Errorf("B[0] events = %+v, want exactly one dequeue at t=0", got)
	}
	// A[0] is audible: 0.4·8.808603/9.057427 = 0.389011 ≥ 0.03.
	if f := fires(evs, 0, 0); len(f) == 0 || f[0].T != 0 {
		t.Errorf("A[0] did not fire at t=0")
	}
}

// TestTraceIndoorsClosed: no sounds, so only the rebuild line.
func TestTraceIndoorsClosed(t *testing.T) {
	evs, _ := runTrace(t, "-player", "0x01010101/84,108,10", "-seconds", "10", "-seed", "1")
	if len(evs) != 1 || evs[0].Outdoorish || evs[0].TotalSoundCount != 0 || evs[0].Instances != 0 {
		t.Errorf("events = %+v, want only a rebuild with outdoorish false, total 0, 0 instances", evs)
	}
}
