package session

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/demo"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// pageHost is a host as the page makes it: background loads, the next
// ring prefetched, events kept for Drain.
func pageHost(t *testing.T, portal, cell source.Source, opt Options) *Host {
	t.Helper()
	opt.Config, opt.Prefetch = ambient.DefaultConfig(), true
	if opt.EventLog == 0 {
		opt.EventLog = 1024
	}
	h, err := New(context.Background(), portal, cell, opt)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// settle ticks h until its background loads have landed and the last
// rebuild had everything (the page's steady state at a spot).
func settle(t *testing.T, h *Host, now *float64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		*now += 1.0 / 30
		h.Tick(*now)
		if h.idle() && h.complete() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the host did not settle in 20 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// gatherJSON is what `gather -player pos` prints for the demo world (its
// path: a fresh Sync host, one tick).
func gatherJSON(t *testing.T, p world.Position) (string, ambient.State) {
	t.Helper()
	w := demoWorld(t)
	h, _ := newHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), true)
	h.Move(p)
	h.Tick(0)
	st := h.Snapshot().State
	out, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), st
}

// The case: from the meadow (6 instances) to the desert, where
// gather finds 3. The page's state lists exactly gather's there — the same
// identities and values, in gather's order — though the engine holds the
// meadow's too (heldInstances: 9); the cells and next plays agree with it.
func TestSnapshotListsWhatGatherReports(t *testing.T) {
	w := demoWorld(t)
	h := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{})
	now := 0.0
	held := map[[2]int]bool{}
	for _, name := range []string{"meadow", "desert", "river", "meadow"} {
		p := landmark(t, name)
		h.Move(p)
		settle(t, h, &now)
		s := h.Snapshot()
		got, err := json.Marshal(s.State)
		if err != nil {
			t.Fatal(err)
		}
		want, g := gatherJSON(t, p)
		if string(got) != want {
			t.Errorf("at the %s the page's state\n%s\nwant gather's\n%s", name, got, want)
		}
		for _, snd := range g.Sounds {
			held[[2]int{snd.STBIndex, snd.SoundIndex}] = true
		}
		if s.HeldInstances != len(held) {
			t.Errorf("at the %s: %d instances held, want %d (every one made so far)", name, s.HeldInstances, len(held))
		}
		if name == "desert" && (len(s.Sounds) != 3 || s.HeldInstances != 9) {
			t.Errorf("meadow → desert: %d listed, %d held; want 3 and 9", len(s.Sounds), s.HeldInstances)
		}
		if len(s.Next) != len(s.Sounds) || len(s.Cells) != s.ContributingCells || s.ContributingCells == 0 {
			t.Errorf("at the %s: %d next plays for %d sounds, %d cells for %d contributing", name, len(s.Next), len(s.Sounds), len(s.Cells), s.ContributingCells)
		}
		var sum float64
		for _, c := range s.Cells {
			sum += float64(c.Weight)
		}
		if d := sum - float64(s.TotalSoundCount); math.Abs(d) > 1e-3 {
			t.Errorf("at the %s: cell weights sum to %v, total %v", name, sum, s.TotalSoundCount)
		}
		if s.Where.Position != s.Player || s.Time != now {
			t.Errorf("at the %s: where %+v for player %+v, time %v at %v", name, s.Where.Position, s.Player, s.Time, now)
		}
	}
	// The drained events start with the first rebuild and hold plays;
	// a second drain has none.
	d := h.Drain()
	if len(d.Events) == 0 || d.Events[0].Kind != ambient.KindRebuild || d.Dropped != 0 {
		t.Fatalf("drained %d events (%d dropped), first %v; want a rebuild first", len(d.Events), d.Dropped, d.Events)
	}
	plays := 0
	for _, ev := range d.Events {
		if ev.Kind == ambient.KindPlay {
			plays++
		}
	}
	if plays == 0 {
		t.Error("no play events drained")
	}
	if again := h.Drain(); len(again.Events) != 0 || len(again.Errors) != 0 {
		t.Errorf("a second drain returned %d events", len(again.Events))
	}
}

// One snapshot is one instant: taken while another goroutine moves the
// player from spot to spot and ticks, every snapshot's parts agree (as
// many next plays as sounds, cells as contributing cells, voices sounding
// at its time). Run with -race.
func TestSnapshotIsOneInstant(t *testing.T) {
	w := demoWorld(t)
	h := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{})
	var spots []world.Position
	for _, lm := range demo.Landmarks {
		spots = append(spots, landmark(t, lm.Name))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		now := 0.0
		for i := 0; i < 600; i++ {
			h.Move(spots[i/20%len(spots)])
			now += 1.0 / 30
			h.Tick(now)
			if i%50 == 0 {
				time.Sleep(time.Millisecond) // let the loads land now and then
			}
		}
	}()
	n := 0
	for running := true; running; n++ {
		select {
		case <-done:
			running = false
		default:
		}
		s := h.Snapshot()
		if len(s.Next) != len(s.Sounds) || len(s.Cells) != s.ContributingCells || s.HeldInstances < len(s.Sounds) {
			t.Fatalf("snapshot %d: %d next plays, %d sounds, %d cells of %d, %d held", n, len(s.Next), len(s.Sounds), len(s.Cells), s.ContributingCells, s.HeldInstances)
		}
		for _, v := range s.Voices {
			if !(v.End > s.Time) || v.Play.Kind != ambient.KindPlay || v.Play.T > s.Time {
				t.Fatalf("snapshot %d at %v: voice %+v", n, s.Time, v)
			}
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatal(err)
		}
		runtime.Gosched() // GOOS=js runs one goroutine at a time
	}
}

// The state's voices carry their play's keys, their end and their slot.
func TestSnapshotVoicesJSON(t *testing.T) {
	w := demoWorld(t)
	h := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{})
	h.Move(landmark(t, "river"))
	now := 0.0
	settle(t, h, &now)
	h.Tick(now + 0.1)
	s := h.Snapshot()
	if len(s.Voices) == 0 {
		t.Fatal("no voices sounding in the river")
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		HeldInstances *int `json:"heldInstances"`
		Voices        []struct {
			Event string  `json:"event"`
			Wave  string  `json:"wave"`
			End   float64 `json:"end"`
			Slot  *int    `json:"slot"`
		} `json:"voices"`
		Where struct {
			NS float64 `json:"ns"`
		} `json:"where"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.HeldInstances == nil || back.Where.NS != 43.25 || len(back.Voices) != len(s.Voices) {
		t.Errorf("state JSON %s", js)
	}
	for i, v := range back.Voices {
		if v.Event != "play" || !strings.HasPrefix(v.Wave, "0x") || !(v.End > s.Time) || v.Slot == nil || *v.Slot != s.Voices[i].Play.Slot {
			t.Errorf("voice %d = %+v at time %v: want a play with an end after now and its slot", i, v, s.Time)
		}
	}
}

// SetPlayerPOS takes every POS form: map coordinates get the terrain's
// height, a pasted /loc line its cell; a POS that does not parse is
// bad-position, and map coordinates over a landblock the world lacks are
// missing-landblock, naming it.
func TestSetPlayerPOS(t *testing.T) {
	w := demoWorld(t)
	h := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{})
	// The river landmark: 43.25N, 33.75E (world.TestWhereOf).
	m, err := h.SetPlayerPOS("43.25N,33.75E")
	if err != nil {
		t.Fatal(err)
	}
	if m.ObjCellID != 0xA9B5002D || m.X != 32568 || m.Position.X != 120 || m.Z != 22.8522 {
		t.Errorf("map form gave %+v, want the river landmark (z 22.8522)", m.Position)
	}
	l, err := h.SetPlayerPOS("Your location is: 0xA9B5002D [120.000000 96.000000 22.852200] 1.000000 0.000000 0.000000 0.000000")
	if err != nil || l.ObjCellID != 0xA9B5002D || l.Position.X != 120 {
		t.Errorf("/loc form gave %+v, %v", l.Position, err)
	}
	c, err := h.SetCameraPOS("0xA9B5002D/120,96,24/90", 0)
	if err != nil || c.ObjCellID != 0xA9B5002D {
		t.Errorf("camera: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		pos  string
		want Problem
	}{
		{"north of here", Problem{Code: CodeBadPosition}},
		{"300N,0E", Problem{Code: CodeBadPosition}},
		{"10.0N,10.0E", Problem{Code: CodeMissingLandblock, Landblock: 0x8B8BFFFF}},
		{"0xA9B40150/1,1,1", Problem{Code: CodeNotFound, ID: 0xA9B40150}},
	} {
		_, err := h.SetPlayerPOS(tc.pos)
		p := Classify(err)
		if err == nil || p.Code != tc.want.Code || p.ID != tc.want.ID || p.Landblock != tc.want.Landblock || p.Message != err.Error() {
			t.Errorf("SetPlayerPOS(%q): %v → %+v; want %+v", tc.pos, err, p, tc.want)
		}
	}
}

// failing fails every cell record with a network error while down is set.
type failing struct {
	source.Source
	mu   sync.Mutex
	down bool
}

func (f *failing) Get(ctx context.Context, id uint32) ([]byte, error) {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down {
		return nil, fmt.Errorf("0x%08X: connection refused: %w", id, datfetch.ErrNetwork)
	}
	return f.Source.Get(ctx, id)
}

// The load problems reach the page through Drain, coded: a source that is
// down is network, and once it is back the host recovers.
func TestLoadProblemsAreDrained(t *testing.T) {
	w := demoWorld(t)
	fc := &failing{Source: source.NewMemory(w.Cell), down: true}
	h := pageHost(t, source.NewMemory(w.Portal), fc, Options{})
	h.Move(landmark(t, "river"))
	now := 0.0
	var errs []Problem
	for deadline := time.Now().Add(10 * time.Second); len(errs) == 0 && time.Now().Before(deadline); {
		now += 0.1
		h.Tick(now)
		errs = append(errs, h.Drain().Errors...)
		time.Sleep(time.Millisecond)
	}
	if len(errs) == 0 || errs[0].Code != CodeNetwork || !strings.Contains(errs[0].Message, "connection refused") {
		t.Fatalf("problems %+v, want the failed fetch as network", errs)
	}
	fc.mu.Lock()
	fc.down = false
	fc.mu.Unlock()
	settle(t, h, &now)
	if s := h.Snapshot(); len(s.Sounds) == 0 {
		t.Error("no instances after the source came back")
	}
}

// A wave that does not decode is bad-record, naming it.
func TestBadRecordIsDrained(t *testing.T) {
	portal, cell := fixture(t)
	h, err := New(context.Background(), portal, cell, Options{Config: ambient.DefaultConfig(), Sync: true, EventLog: 16})
	if err != nil {
		t.Fatal(err)
	}
	h.Move(world.Position{ObjCellID: 0x80800024, X: 100, Y: 100, Z: 10})
	h.Tick(0)
	d := h.Drain()
	if len(d.Errors) != 1 || d.Errors[0].Code != CodeBadRecord || d.Errors[0].ID != badWave {
		t.Errorf("problems %+v; want wave 0x%08X as bad-record", d.Errors, badWave)
	}
}

// The event log keeps the latest EventLog events and counts the rest.
func TestEventLogIsBounded(t *testing.T) {
	w := demoWorld(t)
	h, err := New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell),
		Options{Config: ambient.DefaultConfig(), Sync: true, EventLog: 8})
	if err != nil {
		t.Fatal(err)
	}
	h.Move(landmark(t, "coast"))
	total := 0
	var last []ambient.Event
	for k := 0; k < 30*60; k++ {
		evs := h.Tick(float64(k) / 30)
		total += len(evs)
		last = append(last, evs...)
	}
	d := h.Drain()
	if len(d.Events) != 8 || d.Dropped != total-8 || total <= 8 {
		t.Fatalf("drained %d, dropped %d of %d; want 8 and the rest", len(d.Events), d.Dropped, total)
	}
	for i, ev := range d.Events {
		if ev != last[len(last)-8+i] {
			t.Errorf("event %d = %+v, want the latest", i, ev)
		}
	}
}

// meeting is a source whose Gets of the ids in want wait until all of them
// are asked for at once: a load that asks them a few at a time never gets
// its answers (and the test's context ends it).
type meeting struct {
	src  source.Source
	want map[uint32]bool

	mu      sync.Mutex
	waiting int
	all     chan struct{} // closed once every id of want is being asked for
}

func newMeeting(src source.Source, ids []uint32) *meeting {
	m := &meeting{src: src, want: map[uint32]bool{}, all: make(chan struct{})}
	for _, id := range ids {
		m.want[id] = true
	}
	return m
}

func (m *meeting) Get(ctx context.Context, id uint32) ([]byte, error) {
	if m.want[id] {
		m.mu.Lock()
		if m.waiting++; m.waiting == len(m.want) {
			close(m.all)
		}
		m.mu.Unlock()
		select {
		case <-m.all:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return m.src.Get(ctx, id)
}

// TestFirstLoadAsksAtOnce: the first load asks for the ring's nine
// landblocks together, then for every SoundTable they name together, none
// waiting for a slot a round trip away (issue 18).
func TestFirstLoadAsksAtOnce(t *testing.T) {
	w := demoWorld(t)
	at := landmark(t, "river")
	n := needAt(at)
	if len(n.blocks) != 9 {
		t.Fatalf("the river's ring has %d landblocks; want 9", len(n.blocks))
	}
	// The tables the ring names, as a host that has it all reads them.
	ref := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{Sync: true})
	ref.ld.load(context.Background(), n)
	ref.ld.mu.Lock()
	tables := ref.ld.tablesOfLocked(n.blocks)
	ref.ld.mu.Unlock()
	if len(tables) == 0 {
		t.Fatal("the river's ring names no table")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cell := newMeeting(source.NewMemory(w.Cell), n.blocks)
	portal := newMeeting(source.NewMemory(w.Portal), tables)
	h, err := New(ctx, portal, cell, Options{Config: ambient.DefaultConfig(), Progressive: true})
	if err != nil {
		t.Fatal(err)
	}
	h.ld.load(ctx, n)
	if ctx.Err() != nil {
		t.Fatalf("the load did not ask for its %d landblocks and then its %d tables all at once", len(n.blocks), len(tables))
	}
	if b, tb := h.ld.unknownBlocks(n.blocks), h.ld.neededTables(n.blocks); len(b) > 0 || len(tb) > 0 {
		t.Errorf("after the load landblocks %x and tables %x are still unknown", b, tb)
	}
}
