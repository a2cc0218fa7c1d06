package caption_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"acambient/core/ambient"
	"acambient/core/caption"
	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch/source"
)

const tick = 1.0 / 30 // the trace's default tick

var (
	worldOnce sync.Once
	demoW     *demo.World
	worldErr  error
)

func demoWorld(t *testing.T) *demo.World {
	t.Helper()
	worldOnce.Do(func() { demoW, worldErr = demo.Build() })
	if worldErr != nil {
		t.Fatal(worldErr)
	}
	return demoW
}

// newHost is the page's host made deterministic: Sync loads, the events
// and captions kept for Drain; portal may replace the demo's records.
func newHost(t *testing.T, seed uint32, portal map[uint32][]byte) *session.Host {
	t.Helper()
	w := demoWorld(t)
	if portal == nil {
		portal = w.Portal
	}
	cfg := ambient.DefaultConfig()
	cfg.Seed = seed
	h, err := session.New(context.Background(), source.NewMemory(portal), source.NewMemory(w.Cell),
		session.Options{Config: cfg, Sync: true, EventLog: 1 << 16, Captions: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func landmark(t *testing.T, name string) world.Position {
	t.Helper()
	for _, l := range demo.Landmarks {
		if l.Name == name {
			return world.Position{ObjCellID: l.ObjCellID, X: l.X, Y: l.Y, Z: l.Z}
		}
	}
	t.Fatalf("no landmark %q", name)
	return world.Position{}
}

// said is a caption and the tick it came out at.
type said struct {
	at float64
	caption.Caption
}

// run ticks h from tick k0 for n ticks (each at k·tick, as trace does) and
// returns the captions that came out and every event.
func run(h *session.Host, k0, n int) (out []said, evs []ambient.Event) {
	for k := k0; k < k0+n; k++ {
		now := float64(k) * tick
		evs = append(evs, h.Tick(now)...)
		for _, c := range h.Drain().Captions {
			out = append(out, said{now, c})
		}
	}
	return out, evs
}

// playOf finds the one-shot play a call caption tells of.
func playOf(t *testing.T, c said, evs []ambient.Event) ambient.Event {
	t.Helper()
	for _, ev := range evs {
		if ev.Kind == ambient.KindPlay && !ev.Continuous && ev.T == c.T && ev.Wave == c.Wave && ev.STBIndex == c.STBIndex {
			return ev
		}
	}
	t.Fatalf("no play for caption %+v", c)
	return ambient.Event{}
}

// TestRiverBed: standing in the river, the first caption is the bed's: it
// names running water, all around, loudest first, near.
func TestRiverBed(t *testing.T) {
	h := newHost(t, 1, nil)
	h.Move(landmark(t, "river"))
	got, _ := run(h, 0, 90)
	if len(got) == 0 {
		t.Fatal("no caption at the river in 3 s")
	}
	c := got[0]
	if c.Kind != caption.KindBed || !strings.HasPrefix(c.Text, "running water, all around") || c.Direction != "all around" || !c.Near {
		t.Errorf("first caption at the river: %+v; want the bed, \"running water, all around…\", near", c)
	}
	if c.Table != 0x20000103 || c.T != 0 || c.at != 1 {
		t.Errorf("river bed: table 0x%08X, t %v, said at %v; want the river's 0x20000103, the rebuild at 0, said when its window closes at 1", c.Table, c.T, c.at)
	}
	b, err := json.Marshal(c.Caption)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"text", "kind", "direction", "near", "stbIndex", "table", "wave", "t", "db"} {
		if _, ok := m[k]; !ok {
			t.Errorf("caption JSON %s lacks %q", b, k)
		}
	}
	if m["wave"] != nil || m["kind"] != "bed" || m["table"] != "0x20000103" {
		t.Errorf("bed caption JSON %s: want wave null, kind bed, table \"0x20000103\"", b)
	}
}

// TestCallDirection: every call caption's direction is the word of the band
// the engine placed its play in, relative to the camera: over the same
// seeded minute at the meadow, the one-shots placed in the east band are
// "east" with no camera, "right" with a camera facing north (and pan
// right), "ahead" facing east and "left" facing south.
func TestCallDirection(t *testing.T) {
	for _, c := range []struct {
		camera  bool
		heading float64
		east    string
	}{{false, 0, "east"}, {true, 0, "right"}, {true, 90, "ahead"}, {true, 180, "left"}} {
		h := newHost(t, 7, nil)
		p := landmark(t, "meadow")
		h.Move(p)
		if c.camera {
			h.SetCamera(p, c.heading)
		}
		got, evs := run(h, 0, 60*30)
		east := 0
		for _, s := range got {
			if s.Kind != caption.KindCall {
				continue
			}
			ev := playOf(t, s, evs)
			want := wantWord(ev.Dir, c.camera, c.heading)
			if s.Direction != want || !strings.Contains(s.Text, ", "+want+", ") {
				t.Errorf("camera %v heading %v: play in band %d captioned %q (%q); want %q", c.camera, c.heading, ev.Dir, s.Direction, s.Text, want)
			}
			if ev.Dir == 3 { // east
				east++
				if s.Direction != c.east {
					t.Errorf("camera %v heading %v: a one-shot placed east is %q, want %q", c.camera, c.heading, s.Direction, c.east)
				}
				if c.camera && c.heading == 0 && ev.Pan <= 0 {
					t.Errorf("a one-shot placed east of a camera facing north pans %d; the caption says right", ev.Pan)
				}
			}
		}
		t.Logf("camera %v heading %v: %d captions, %d of calls placed east", c.camera, c.heading, len(got), east)
		if east == 0 {
			t.Errorf("camera %v heading %v: no call placed east was captioned in the minute (seed 7 has one at 5.9 s)", c.camera, c.heading)
		}
	}
}

// wantWord is the table of docs/interfaces.md §3.3, written out: a band's
// compass word, or the word of its bearing from the camera's facing.
func wantWord(band int, camera bool, heading float64) string {
	deg := map[int]float64{1: 0, 2: 180, 3: 90, 4: 270, 5: 315, 6: 225, 7: 45, 8: 135}[band]
	if !camera {
		return map[float64]string{0: "north", 45: "north-east", 90: "east", 135: "south-east", 180: "south", 225: "south-west", 270: "west", 315: "north-west"}[deg]
	}
	rel := math.Mod(deg-heading+360, 360)
	return map[float64]string{0: "ahead", 45: "ahead-right", 90: "right", 135: "behind-right", 180: "behind", 225: "behind-left", 270: "left", 315: "ahead-left"}[rel]
}

func TestDirectionWords(t *testing.T) {
	for band := 0; band <= 8; band++ {
		for _, l := range []caption.Listener{{}, {Camera: true}, {Camera: true, Heading: 90}, {Camera: true, Heading: 225}, {Camera: true, Heading: -45}} {
			want := "all around"
			if band != 0 {
				want = wantWord(band, l.Camera, math.Mod(l.Heading+360, 360))
			}
			if got := caption.Direction(band, l); got != want {
				t.Errorf("band %d, %+v: %q, want %q", band, l, got, want)
			}
		}
	}
	// Each word's sector is [−22.5°, 22.5°) about it: a north band is ahead
	// of a camera facing 22.5° and ahead-left of one facing 22.6°.
	if a, b := caption.Direction(1, caption.Listener{Camera: true, Heading: 22.6}), caption.Direction(1, caption.Listener{Camera: true, Heading: 22.5}); a != "ahead-left" || b != "ahead" {
		t.Errorf("north band, camera at 22.6° / 22.5°: %q / %q; want ahead-left / ahead", a, b)
	}
}

// TestNothingUnheard: no caption in the cellar (it sees no outside), from
// the start or down from the river; none at the river with ambient sound
// disabled or the slider at 0; the bed is said once the slider comes up
// again, and once ambient sound is enabled again.
func TestNothingUnheard(t *testing.T) {
	h := newHost(t, 3, nil)
	h.Move(landmark(t, "cellar"))
	if got, _ := run(h, 0, 60*30); len(got) != 0 {
		t.Errorf("cellar: %d captions in a minute, the first %+v; want none", len(got), got[0])
	}
	h = newHost(t, 3, nil)
	h.Move(landmark(t, "river"))
	if got, _ := run(h, 0, 3*30); count(got, caption.KindBed) != 1 {
		t.Fatalf("river: %+v, want its bed said", got)
	}
	h.Move(landmark(t, "cellar"))
	got, evs := run(h, 3*30, 60*30)
	if !hasRebuild(evs) {
		t.Fatal("no rebuild in the cellar")
	}
	if len(got) != 0 {
		t.Errorf("down from the river into the cellar: %d captions in a minute, the first %+v; want none", len(got), got[0])
	}

	h = newHost(t, 3, nil)
	h.Move(landmark(t, "river"))
	if got, _ := run(h, 0, 3*30); count(got, caption.KindBed) != 1 {
		t.Fatalf("river: %+v, want its bed said", got)
	}
	h.SetEnabled(false)
	if got, _ := run(h, 3*30, 30*30); len(got) != 0 {
		t.Errorf("river, ambient sound disabled after its bed: %d captions, the first %+v; want none", len(got), got[0])
	}
	h.SetEnabled(true)
	if got, _ := run(h, 33*30, 2*30); len(got) != 1 || got[0].Kind != caption.KindBed || !strings.HasPrefix(got[0].Text, "running water") {
		t.Errorf("river, ambient sound enabled again: %+v; want the bed said once", got)
	}
	h = newHost(t, 3, nil)
	h.SetEnabled(false)
	h.Move(landmark(t, "river"))
	if got, _ := run(h, 0, 30*30); len(got) != 0 {
		t.Errorf("river, ambient sound disabled: %d captions, the first %+v; want none", len(got), got[0])
	}
	h = newHost(t, 3, nil)
	h.SetVolume(0)
	h.Move(landmark(t, "river"))
	got, evs = run(h, 0, 30*30)
	if len(got) != 0 {
		t.Errorf("river, slider at 0: %d captions, the first %+v; want none", len(got), got[0])
	}
	if !hasRebuild(evs) {
		t.Fatal("river, slider at 0: no rebuild ran")
	}
	h.SetVolume(1)
	got, _ = run(h, 30*30, 2*30)
	if len(got) != 1 || got[0].Kind != caption.KindBed || !strings.HasPrefix(got[0].Text, "running water") {
		t.Errorf("river, slider back at 1: %+v; want the bed said once", got)
	}
}

func hasRebuild(evs []ambient.Event) bool {
	for _, ev := range evs {
		if ev.Kind == ambient.KindRebuild {
			return true
		}
	}
	return false
}

// denseForest is the demo's portal with the forest's one-shots made to fire
// about every 0.4 s, each roll a sure one (base chance 1), so that each
// second offers several calls to choose from: the demo forest alone fires a
// handful a minute.
func denseForest(t *testing.T) map[uint32][]byte {
	t.Helper()
	w := demoWorld(t)
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[uint32(dat.RegionID)])
	if err != nil {
		t.Fatal(err)
	}
	const forest = 2 // core/demo's stbForest
	for i := range r.SoundInfo.STBDescs[forest].AmbientSounds {
		s := &r.SoundInfo.STBDescs[forest].AmbientSounds[i]
		if s.BaseChance > 0 {
			s.BaseChance, s.MinRate, s.MaxRate = 1, 0.2, 0.6
		}
	}
	portal := map[uint32][]byte{}
	for id, b := range w.Portal {
		portal[id] = b
	}
	portal[uint32(dat.RegionID)] = r.Encode()
	return portal
}

// TestRateLimit: a minute in a forest of frequent calls, seeded: two
// captions are never less than a second apart; each call caption is the
// loudest call of its window (the first offer after the last caption, and
// a second on), the earlier on a tie; every call is followed within the
// window by a caption (none goes unsaid for want of a tick), and the first
// window, with the bed in it, says the bed.
func TestRateLimit(t *testing.T) {
	h := newHost(t, 11, denseForest(t))
	h.Move(landmark(t, "forest"))
	got, evs := run(h, 0, 60*30+1)
	var calls []ambient.Event
	for _, ev := range evs {
		if ev.Kind == ambient.KindPlay && !ev.Continuous {
			calls = append(calls, ev)
		}
	}
	if caption.Window != 1 {
		t.Errorf("the window is %v s; at most one caption a second wants 1", caption.Window)
	}
	if len(got) < 40 || len(calls) < 2*len(got) {
		t.Fatalf("%d captions for %d calls in the minute; want ≥ 40, and the calls at least twice as many (else nothing is limited)", len(got), len(calls))
	}
	if got[0].Kind != caption.KindBed || got[0].Text != "forest, all around" {
		t.Errorf("first caption %+v; want the bed, \"forest, all around\"", got[0])
	}
	prev := math.Inf(-1)
	contested := 0
	for i, s := range got {
		if s.at-prev < 1 { // the number, not the package's constant
			t.Errorf("captions %d and %d came out %.3f s apart", i-1, i, s.at-prev)
		}
		// The window: from the first offer at or after the last caption's
		// tick to one second on; this caption came at the first tick past.
		var in []ambient.Event
		w0 := math.Inf(1)
		for _, ev := range calls {
			if ev.T >= prev && ev.T < s.at {
				w0 = math.Min(w0, ev.T)
				in = append(in, ev)
			}
		}
		if s.Kind == caption.KindCall {
			if len(in) == 0 {
				t.Fatalf("caption %d %+v: no call in its window", i, s)
			}
			best := in[0]
			for _, ev := range in[1:] {
				if ev.DB > best.DB {
					best = ev
				}
			}
			if s.T != best.T || s.Wave != best.Wave || s.DB != best.DB {
				t.Errorf("caption %d at %.3f: %q (%d dB, t %.3f); the loudest of its %d calls is %d dB at %.3f", i, s.at, s.Text, s.DB, s.T, len(in), best.DB, best.T)
			}
			if s.at < w0+caption.Window || s.at >= w0+caption.Window+tick+1e-9 {
				t.Errorf("caption %d came at %.3f for a window opened at %.3f", i, s.at, w0)
			}
			if len(in) > 1 {
				contested++
			}
		}
		prev = s.at
	}
	t.Logf("%d captions for %d calls; %d windows with more than one call", len(got), len(calls), contested)
	if contested < 20 {
		t.Errorf("only %d windows had more than one call; want ≥ 20 (the loudest wins among several)", contested)
	}
	for _, ev := range calls {
		ok := false
		for _, s := range got {
			if s.at > ev.T && s.at <= ev.T+caption.Window+tick+1e-9 {
				ok = true
				break
			}
		}
		if !ok && ev.T < 59 {
			t.Errorf("the call at %.3f (%d dB) was followed by no caption within its window", ev.T, ev.DB)
		}
	}
}

// TestBedChange: from the meadow to the river, one bed caption, naming
// running water; a rebuild that leaves the beds as they were (one forest
// cell to the next, forest all around in both) says nothing of beds.
func TestBedChange(t *testing.T) {
	h := newHost(t, 5, nil)
	h.Move(landmark(t, "meadow"))
	first, _ := run(h, 0, 3*30)
	if n := count(first, caption.KindBed); n != 1 {
		t.Fatalf("meadow: %d bed captions, want 1: %+v", n, first)
	}
	h.Move(landmark(t, "river"))
	got, evs := run(h, 3*30, 5*30)
	if !hasRebuild(evs) {
		t.Fatal("no rebuild at the river")
	}
	var beds []said
	for _, s := range got {
		if s.Kind == caption.KindBed {
			beds = append(beds, s)
		}
	}
	if len(beds) != 1 || !strings.HasPrefix(beds[0].Text, "running water") {
		t.Errorf("meadow → river: bed captions %+v; want one, naming running water first", beds)
	}

	h = newHost(t, 5, nil)
	p := landmark(t, "forest")
	h.Move(p)
	if first, _ := run(h, 0, 3*30); count(first, caption.KindBed) != 1 {
		t.Fatalf("forest: bed captions %+v, want 1", first)
	}
	p.ObjCellID++ // the next cell north (cy + 1)
	p.Y += world.CellLength
	h.Move(p)
	got, evs = run(h, 3*30, 5*30)
	if !hasRebuild(evs) {
		t.Fatal("no rebuild in the next forest cell")
	}
	if n := count(got, caption.KindBed); n != 0 {
		t.Errorf("one forest cell on: %d bed captions %+v; want none (the beds are the same)", n, got)
	}
}

func count(ss []said, k caption.Kind) int {
	n := 0
	for _, s := range ss {
		if s.Kind == k {
			n++
		}
	}
	return n
}

// TestRecaption: once the bed was said, Recaption (the page's audio begins
// to be heard) has it said again, once.
func TestRecaption(t *testing.T) {
	h := newHost(t, 2, nil)
	h.Move(landmark(t, "river"))
	if got, _ := run(h, 0, 3*30); count(got, caption.KindBed) != 1 {
		t.Fatalf("river: %+v, want one bed caption", got)
	}
	h.Recaption()
	got, _ := run(h, 3*30, 3*30)
	if count(got, caption.KindBed) != 1 || !strings.HasPrefix(got[0].Text, "running water") {
		t.Errorf("after Recaption: %+v; want the river's bed said again, once", got)
	}
}

// TestTickAllocs: a tick that offers plays to an open window allocates
// nothing (the host's tick runs on the audio callback); only a caption's
// words, at most once a second, do.
func TestTickAllocs(t *testing.T) {
	w := demoWorld(t)
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[uint32(dat.RegionID)])
	if err != nil {
		t.Fatal(err)
	}
	c := caption.New(r)
	evs := []ambient.Event{
		{Kind: ambient.KindPlay, STBIndex: 2, Dir: 3, DB: -12, Wave: 0x0A000112},
		{Kind: ambient.KindSkip, STBIndex: 2, Reason: ambient.ReasonChance},
		{Kind: ambient.KindPlay, STBIndex: 2, Dir: 7, DB: -9, Wave: 0x0A000113},
		{Kind: ambient.KindPlay, STBIndex: 2, Continuous: true, DB: -4, Wave: 0x0A000110},
	}
	l := caption.Listener{Camera: true}
	c.Tick(0, evs, false, nil, l) // opens the window
	now := 0.0
	if n := testing.AllocsPerRun(200, func() {
		now += 1e-3 // within the window
		c.Tick(now, evs, false, nil, l)
	}); n != 0 {
		t.Errorf("a tick within the window allocates %v times", n)
	}
	got, ok := c.Tick(1, nil, false, nil, l)
	if !ok || got.Text != "a call from the forest, ahead-right, near" || got.DB != -9 {
		t.Errorf("the window's caption: %+v %v; want the −9 dB call, ahead-right of a camera facing north", got, ok)
	}
}
