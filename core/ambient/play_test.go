package ambient

import (
	"bytes"
	"flag"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"acambient/core/dat"
	"acambient/core/world"
)

func TestSoundPosPlacement(t *testing.T) {
	e := New(nil, nil, nil, DefaultConfig())
	cam := posIn(0xA9B4001F, 96, 96, 12)
	in := &instance{numDir: 2, dirs: [8]int8{dirE, dirSW}, minDist: [8]float32{30, 4}, maxDist: [8]float32{50, 10}}
	var sumFrac [2]float64
	var count [2]int
	const n = 20000
	for i := 0; i < n; i++ {
		before := e.rand
		pos := cam
		dir := e.soundPos(in, &pos)
		// Exactly three Random::rand draws: direction, jitter, distance.
		want := before
		want.next()
		want.next()
		want.next()
		if e.rand != want {
			t.Fatalf("GetSoundPos made other than 3 draws")
		}
		off := world.Offset(cam, pos)
		r := float64(off.Len())
		bearing := math.Mod(math.Atan2(float64(off.X), float64(off.Y))*180/math.Pi+360, 360)
		var k int
		var lo, hi, centre float64
		switch dir {
		case dirE:
			k, lo, hi, centre = 0, 30, 50, 90
		case dirSW:
			k, lo, hi, centre = 1, 4, 10, 225
		default:
			t.Fatalf("placed in direction %d, not a registered one", dir)
		}
		if off.Z != 0 || pos.ObjCellID != cam.ObjCellID {
			t.Fatalf("placement left the listener's height or cell: %+v", pos)
		}
		if r < lo-1e-3 || r > hi+1e-3 {
			t.Fatalf("dir %d: distance %v outside the band [%v, %v]", dir, r, lo, hi)
		}
		if math.Abs(bearing-centre) > 11.25+1e-3 {
			t.Fatalf("dir %d: bearing %v°, more than π/16 from %v°", dir, bearing, centre)
		}
		sumFrac[k] += (r - lo) / (hi - lo)
		count[k]++
	}
	// Directions are chosen uniformly, whatever their weight.
	if count[0] < n*45/100 || count[1] < n*45/100 {
		t.Errorf("direction counts %v, want about even", count)
	}
	// r = min + (max − min)·u²: the mean fraction of the band is E[u²] = 1/3.
	for k := range sumFrac {
		if m := sumFrac[k] / float64(count[k]); math.Abs(m-1.0/3) > 0.01 {
			t.Errorf("band %d: mean position %.4f across the band, want 1/3", k, m)
		}
	}
}

// eastOnly is an intermittent sound heard only from vertex (2,0), 48 m east
// of the player at (0,0): band E [38, 58].
func eastOnly(cfg Config, chance, volume float32) (*Engine, *testLib) {
	r := testRegion(stb(0x20000001, intermit(volume, chance, 1, 1)))
	lib := newLib(table(0x20000001, 0x0A000001))
	land := newLand(sparseBlock(10, 10, [3]int{2, 0, int(word(0))}))
	return New(r, land, lib, cfg), lib
}

func TestPlayEventsPlacedAndPanned(t *testing.T) {
	for _, tt := range []struct {
		name           string
		heading        float64
		minPan, maxPan int
	}{
		{"camera north: sounds east pan right", 0, 14, 14}, // 15·sin(78.75°..101.25°) ≥ 14.7
		{"camera east: sounds ahead", 90, -2, 2},           // 15·sin(±11.25°) = ±2.9
		{"camera south: sounds east pan left", 180, -14, -14},
		{"camera west: sounds behind", 270, -2, 2},
	} {
		e, _ := eastOnly(DefaultConfig(), 1, 1)
		player := at(10, 10, 0, 0, 0)
		e.SetCamera(player, tt.heading)
		e.ChangePosition(0, player, false)
		var plays int
		for tick := 1; tick <= 200; tick++ {
			for _, ev := range e.UseTime(float64(tick) * 1.01) {
				if ev.Kind != KindPlay {
					continue
				}
				plays++
				if ev.Dir != dirE || ev.Dist < 38-1e-3 || ev.Dist > 58+1e-3 {
					t.Fatalf("%s: play %+v outside band E [38, 58]", tt.name, ev)
				}
				if ev.Pan < tt.minPan || ev.Pan > tt.maxPan {
					t.Fatalf("%s: pan %d, want %d..%d", tt.name, ev.Pan, tt.minPan, tt.maxPan)
				}
				// Intermittent gain: min(1, 25·V·A/r²)·A with V = A = 1.
				if want := 25 / (ev.Dist * ev.Dist); math.Abs(ev.Gain-want) > 1e-6*want {
					t.Fatalf("%s: gain %v at %v m, want %v", tt.name, ev.Gain, ev.Dist, want)
				}
				if want := int(math.Ceil(math.Log2(ev.Gain) * 6.0206)); ev.DB != want {
					t.Fatalf("%s: %v dB, want %d", tt.name, ev.DB, want)
				}
			}
		}
		if plays < 150 {
			t.Errorf("%s: %d plays in 200 fires with chance 1", tt.name, plays)
		}
	}
}

func TestSliderAppliesTwice(t *testing.T) {
	// A constant sound of volume .8 alone on the map: share 1, centred, so
	// gain = min(1, A·.8)·A: .8 at A = 1, .2 at A = .5.
	for _, tt := range []struct{ a, gain float32 }{{1, 0.8}, {0.5, 0.2}} {
		cfg := DefaultConfig()
		cfg.Volume = tt.a
		r := testRegion(stb(0x20000001, constant(0.8, 5)))
		e := New(r, newLand(flatBlock(10, 10, word(0))), newLib(table(0x20000001, 0x0A000001)), cfg)
		e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
		evs := decisions(e)
		if len(evs) != 1 || evs[0].Kind != KindPlay || !near(evs[0].Gain, float64(tt.gain), 1e-6) || evs[0].Pan != 0 || evs[0].Dist != 0 || evs[0].Dir != 0 {
			t.Errorf("A=%v: events %+v, want one centred play at gain %v", tt.a, evs, tt.gain)
		}
	}
}

func TestSkipReasons(t *testing.T) {
	rebuildKinds := func(e *Engine) map[string]int {
		e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
		return kinds(decisions(e))
	}
	t.Run("chance", func(t *testing.T) {
		e, _ := eastOnly(DefaultConfig(), 1e-6, 1)
		if k := rebuildKinds(e); k["skip:chance"] != 1 {
			t.Errorf("events %v, want skip:chance", k)
		}
	})
	t.Run("probability", func(t *testing.T) {
		e, lib := eastOnly(DefaultConfig(), 1, 1)
		lib.tables[0x20000001].Root.Children[0].Records[0].Probability = 0
		if k := rebuildKinds(e); k["skip:probability"] != 1 {
			t.Errorf("events %v, want skip:probability", k)
		}
	})
	t.Run("no child for the stype", func(t *testing.T) {
		e, lib := eastOnly(DefaultConfig(), 1, 1)
		lib.tables[0x20000001].Root.Children[0].HashKey = 0x47
		if k := rebuildKinds(e); k["skip:noWave"] != 1 {
			t.Errorf("events %v, want skip:noWave", k)
		}
	})
	t.Run("wave missing", func(t *testing.T) {
		e, lib := eastOnly(DefaultConfig(), 1, 1)
		delete(lib.waves, 0x0A000001)
		if k := rebuildKinds(e); k["skip:noWave"] != 1 {
			t.Errorf("events %v, want skip:noWave", k)
		}
	})
	t.Run("cull: slider at 0", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Volume = 0
		e, _ := eastOnly(cfg, 1, 1)
		if k := rebuildKinds(e); k["skip:cull"] != 1 {
			t.Errorf("events %v, want skip:cull", k)
		}
	})
	t.Run("cull: below -50 dB", func(t *testing.T) {
		e, _ := eastOnly(DefaultConfig(), 1, 0.01) // 25·.01/38² is −53 dB at best
		if k := rebuildKinds(e); k["skip:cull"] != 1 {
			t.Errorf("events %v, want skip:cull", k)
		}
	})
	t.Run("noTable", func(t *testing.T) {
		e, _ := eastOnly(DefaultConfig(), 1, 1)
		rebuildKinds(e)
		e.stbs[0].table = nil // unreachable through retail's own flow
		if k := kinds(e.UseTime(10)); k["skip:noTable"] != 1 {
			t.Errorf("events %v, want skip:noTable", k)
		}
	})
	t.Run("dequeue: constant below 0.03", func(t *testing.T) {
		// 0.02 · share 1 < ambient_sound_min_vol.
		r := testRegion(stb(0x20000001, constant(0.02, 5)))
		e := New(r, newLand(flatBlock(10, 10, word(0))), newLib(table(0x20000001, 1)), DefaultConfig())
		if k := rebuildKinds(e); k[string(KindDequeue)] != 1 || len(decisions(e)) != 1 {
			t.Errorf("events %v, want one dequeue", k)
		}
	})
}

func TestNegativeIntervalClamped(t *testing.T) {
	// min_rate −1 would key the sound before now; retail would then pop it
	// forever inside one UseTime. Clamped to 0 it fires once per tick.
	r := testRegion(stb(0x20000001, constant(1, -1)), stb(0x20000002, intermit(1, 1, -3, -2)))
	lib := newLib(table(0x20000001, 1), table(0x20000002, 2))
	land := newLand(sparseBlock(10, 10, [3]int{0, 0, int(word(0))}, [3]int{2, 0, int(word(1))}))
	e := New(r, land, lib, DefaultConfig())
	e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
	for tick := 1; tick <= 10; tick++ {
		evs := e.UseTime(float64(tick) / 30)
		if len(evs) < 2 || len(evs) > 3 {
			t.Fatalf("tick %d: %d events, want each sound once", tick, len(evs))
		}
	}
	if got := finiteKey(math.NaN()); got != 0 {
		t.Errorf("finiteKey(NaN) = %v, want 0", got)
	}
}

func determinismRun(seed uint32) []Event {
	r := testRegion(
		stb(0x20000001, intermit(0.7, 0.6, 2, 6), intermit(1, 0.4, 3, 9)),
		stb(0x20000002, constant(0.5, 4)),
		stb(0x20000003, intermit(1, 0.9, 1, 3)),
	)
	lib := newLib(table(0x20000001, 1, 2, 3), table(0x20000002, 4, 5), table(0x20000003, 6))
	lib.tables[0x20000002].Root.Children[0].Records[0].Probability = 0.5 // [1] is never picked
	land := newLand()
	for bx := 9; bx <= 11; bx++ {
		for by := 9; by <= 11; by++ {
			b := flatBlock(bx, by, word((bx+2*by)%3))
			b.Terrain[9*3+3] = word(2)
			land.blocks[[2]int{bx, by}] = b
		}
	}
	cfg := DefaultConfig()
	cfg.Seed = seed
	e := New(r, land, lib, cfg)
	var out []Event
	e.ChangePosition(0, at(10, 10, 90, 90, 0), false)
	out = append(out, e.Events()...)
	for tick := 1; tick <= 1800; tick++ { // 60 s at 30 Hz
		now := float64(tick) / 30
		if tick == 900 {
			e.ChangePosition(now, at(10, 10, 130, 60, 0), false)
			out = append(out, e.Events()...)
		}
		out = append(out, e.UseTime(now)...)
	}
	return out
}

func TestDeterminism(t *testing.T) {
	a, b, c := determinismRun(7), determinismRun(7), determinismRun(8)
	if len(a) < 50 {
		t.Fatalf("only %d events in 60 s", len(a))
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different event sequences")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds gave the same event sequence")
	}
	k := kinds(a)
	if k[string(KindPlay)] == 0 || k["skip:chance"] == 0 || k["skip:probability"] == 0 {
		t.Errorf("event mix %v lacks plays, chance skips or probability skips", k)
	}
}

func TestStateJSONShape(t *testing.T) {
	r := testRegion(stb(0x20000012, constant(0.4, 8)), stb(0x20000013, intermit(1, 0.5, 10, 20)))
	e := New(r, threeCells(0, 1), newLib(table(0x20000012, 1), table(0x20000013, 2)), DefaultConfig())
	e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
	s := e.State()
	if len(s.Sounds) != 2 || s.Sounds[0].STBID != dat.DID(0x20000012) || s.Sounds[0].Dirs == nil || len(s.Sounds[0].Dirs) != 0 {
		t.Fatalf("state %+v", s)
	}
	if got := s.Sounds[1].Dirs; len(got) != 2 || got[0].Dir != dirN || got[1].Dir != dirE {
		t.Errorf("intermittent bands %v, want N then E", got)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestDeterminismAcrossPlatforms pins the seed-7 run's JSON lines to a
// golden file written natively (linux/amd64, `go test -update`); the js/wasm
// build must give the same lines, so a trace or render is byte-identical in
// the browser and on the command line.
func TestDeterminismAcrossPlatforms(t *testing.T) {
	var got bytes.Buffer
	for _, ev := range determinismRun(7) {
		b, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got.Write(append(b, '\n'))
	}
	const golden = "testdata/determinism-seed7.jsonl"
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(g) && i < len(w); i++ {
			if g[i] != w[i] {
				t.Fatalf("seed-7 run differs from %s at line %d:\n got %s\nwant %s", golden, i+1, g[i], w[i])
			}
		}
		t.Fatalf("seed-7 run has %d lines, %s has %d", len(g), golden, len(w))
	}
}
