package webapi

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/demo"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch"
)

var (
	demoOnce  sync.Once
	demoWorld *demo.World
	demoErr   error
)

func demoSources(t *testing.T) (*datfetch.Memory, *datfetch.Memory) {
	t.Helper()
	demoOnce.Do(func() { demoWorld, demoErr = demo.Build() })
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return datfetch.NewMemory(demoWorld.Portal), datfetch.NewMemory(demoWorld.Cell)
}

// settle ticks b until its background loads have landed and the last
// rebuild had everything (the page's steady state at a spot).
func settle(t *testing.T, b *Bridge, now *float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		*now += 1.0 / 30
		b.Tick(*now)
		if b.Host().Idle() && b.Host().Complete() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the host did not settle in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// gatherJSON is what `gather -player pos` prints for the demo world.
func gatherJSON(t *testing.T, pos string) string {
	portal, cell := demoSources(t)
	h, err := session.New(context.Background(), portal, cell, session.Options{Config: ambient.DefaultConfig(), Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := h.Resolve(pos)
	if err != nil {
		t.Fatal(err)
	}
	h.Move(sp.Pos)
	h.Tick(0)
	out, err := json.Marshal(h.State().State)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestPageStateEqualsGather(t *testing.T) {
	portal, cell := demoSources(t)
	b, err := New(context.Background(), portal, cell, 7)
	if err != nil {
		t.Fatal(err)
	}
	now := 0.0
	for _, pos := range []string{"0xA9B5002D/120,96,22.8522", "0xA5B00037/144,144,24.778126"} { // river, desert
		if _, err := b.SetPlayer(pos); err != nil {
			t.Fatal(err)
		}
		settle(t, b, &now)
		st := b.State()
		// The engine keeps its instances for its life (retail's GetSound),
		// so after the first spot the page also lists silent ones from
		// earlier spots; gather's fresh engine has only the live ones.
		live := st.State.State
		live.Sounds = nil
		for _, s := range st.Sounds {
			if s.SoundCount != 0 {
				live.Sounds = append(live.Sounds, s)
			}
		}
		got, err := json.Marshal(live)
		if err != nil {
			t.Fatal(err)
		}
		if want := gatherJSON(t, pos); string(got) != want {
			t.Errorf("at %s the page's state\n%s\nwant gather's\n%s", pos, got, want)
		}
		if len(st.Cells) != st.ContributingCells || st.ContributingCells == 0 {
			t.Errorf("at %s: %d cells listed, %d contributing", pos, len(st.Cells), st.ContributingCells)
		}
		var sum float64
		for _, c := range st.Cells {
			sum += float64(c.Weight)
		}
		if d := sum - float64(st.TotalSoundCount); d > 1e-3 || d < -1e-3 {
			t.Errorf("at %s: cell weights sum to %v, total %v", pos, sum, st.TotalSoundCount)
		}
	}
	// The buffered events start with the first rebuild and hold plays.
	p := b.Poll()
	if len(p.Events) == 0 || p.Events[0].Kind != ambient.KindRebuild {
		t.Fatalf("polled %d events, first %v; want a rebuild first", len(p.Events), p.Events)
	}
	plays := 0
	for _, ev := range p.Events {
		if ev.Kind == ambient.KindPlay {
			plays++
		}
	}
	if plays == 0 {
		t.Error("no play events polled")
	}
	if again := b.Poll(); len(again.Events) != 0 {
		t.Errorf("a second poll returned %d events, want 0", len(again.Events))
	}
}

func TestWhereForms(t *testing.T) {
	portal, cell := demoSources(t)
	b, err := New(context.Background(), portal, cell, 1)
	if err != nil {
		t.Fatal(err)
	}
	// River landmark: X = 0xA9·192 + 120 = 32568, Y = 0xB5·192 + 96 = 34848;
	// EW = (32568/24 − 1019.5)/10 = 33.75, NS = (34848/24 − 1019.5)/10 = 43.25.
	w, err := b.SetPlayer("0xA9B5002D/120,96,22.8522")
	if err != nil {
		t.Fatal(err)
	}
	if w.X != 32568 || w.Y != 34848 || w.EW != 33.75 || w.NS != 43.25 || !w.Outdoor {
		t.Errorf("where %+v", w)
	}
	js, _ := json.Marshal(w)
	if want := `{"objcellId":"0xA9B5002D","x":120,"y":96,"z":22.8522,"outdoor":true,"X":32568,"Y":34848,"ns":43.25,"ew":33.75}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
	// Map coordinates resolve to the same cell, with the terrain's height.
	m, err := b.SetPlayer("43.25N,33.75E")
	if err != nil {
		t.Fatal(err)
	}
	if m.ObjCellID != 0xA9B5002D || m.X != 32568 || m.Position.X != 120 || m.Z != 22.8522 {
		t.Errorf("map form gave %+v, want the river landmark (z 22.8522)", m.Position)
	}
	// A pasted /loc line.
	l, err := b.SetPlayer("Your location is: 0xA9B5002D [120.000000 96.000000 22.852200] 1.000000 0.000000 0.000000 0.000000")
	if err != nil || l.ObjCellID != 0xA9B5002D || l.Position.X != 120 {
		t.Errorf("/loc form gave %+v, %v", l.Position, err)
	}
	if _, err := b.SetPlayer("north of here"); err == nil {
		t.Error("a POS that does not parse was accepted")
	}
}

func TestInfoAndTiles(t *testing.T) {
	portal, cell := demoSources(t)
	b, err := New(context.Background(), portal, cell, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := b.Info()
	if len(in.Landmarks) != len(demo.Landmarks) || len(in.Terrains) != 32 {
		t.Fatalf("%d landmarks, %d terrains; want %d and 32", len(in.Landmarks), len(in.Terrains), len(demo.Landmarks))
	}
	if in.Bounds != (Bounds{0xA4, 0xAF, 0xAF, 0xBA}) || !in.Demo {
		t.Errorf("bounds %+v demo %v; want 0xA4..0xAF × 0xAF..0xBA", in.Bounds, in.Demo)
	}
	if in.Landmarks[4].Name != "river" || in.Landmarks[4].Where.NS != 43.25 {
		t.Errorf("landmark 4 = %+v", in.Landmarks[4])
	}
	tile, err := b.Tile(0xA9, 0xB5)
	if err != nil {
		t.Fatal(err)
	}
	if tile.ID != 0xA9B5FFFF || len(tile.Colors) != 64 {
		t.Errorf("tile %08X with %d colours", tile.ID, len(tile.Colors))
	}
	// Outside the demo's 12×12 blocks: not found, and the error says which.
	_, err = b.Tile(0x10, 0x10)
	if !errors.Is(err, datfetch.ErrNotFound) || !strings.Contains(err.Error(), "0x1010FFFF") {
		t.Errorf("tile outside the demo: %v", err)
	}
	if _, err := b.Tile(255, 3); err == nil {
		t.Error("a block beyond the world's edge was accepted")
	}
}

// failing fails every cell record while down is set.
type failing struct {
	datfetch.Source
	mu   sync.Mutex
	down bool
}

func (f *failing) Get(ctx context.Context, id uint32) ([]byte, error) {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down {
		return nil, errors.New("connection refused")
	}
	return f.Source.Get(ctx, id)
}

func TestLoadErrorsArePolled(t *testing.T) {
	portal, cell := demoSources(t)
	fc := &failing{Source: cell, down: true}
	b, err := New(context.Background(), portal, fc, 1)
	if err != nil {
		t.Fatal(err)
	}
	b.Host().Move(demoPos(t, "river"))
	now := 0.0
	deadline := time.Now().Add(5 * time.Second)
	var errs []string
	for len(errs) == 0 && time.Now().Before(deadline) {
		now += 0.1
		b.Tick(now)
		errs = append(errs, b.Poll().Errors...)
		time.Sleep(time.Millisecond)
	}
	if len(errs) == 0 || !strings.Contains(errs[0], "connection refused") {
		t.Fatalf("errors %q, want the failed fetch", errs)
	}
	// The server returns: the retry loads the ring and the page recovers.
	fc.mu.Lock()
	fc.down = false
	fc.mu.Unlock()
	settle(t, b, &now)
	if st := b.State(); len(st.Sounds) == 0 {
		t.Error("no instances after the server came back")
	}
}

func demoPos(t *testing.T, name string) (p world.Position) {
	t.Helper()
	for _, l := range demo.Landmarks {
		if l.Name == name {
			p.ObjCellID, p.X, p.Y, p.Z = l.ObjCellID, l.X, l.Y, l.Z
			return p
		}
	}
	t.Fatalf("no landmark %q", name)
	return p
}

func TestVoicesCarryTheirEnd(t *testing.T) {
	portal, cell := demoSources(t)
	b, err := New(context.Background(), portal, cell, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetPlayer("0xA9B5002D/120,96,22.8522"); err != nil {
		t.Fatal(err)
	}
	now := 0.0
	settle(t, b, &now)
	b.Tick(now + 0.1)
	st := b.State()
	if len(st.Voices) == 0 {
		t.Fatal("no voices sounding in the river")
	}
	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Voices []struct {
			Event string  `json:"event"`
			Wave  string  `json:"wave"`
			End   float64 `json:"end"`
		} `json:"voices"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	for i, v := range back.Voices {
		if v.Event != "play" || !strings.HasPrefix(v.Wave, "0x") || !(v.End > st.Time) {
			t.Errorf("voice %d = %+v at time %v: want a play with an end after now", i, v, st.Time)
		}
	}
}
