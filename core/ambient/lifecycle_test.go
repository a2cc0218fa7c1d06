package ambient

import (
	"math"
	"testing"
)

// twoRegions: STB 0 (table T0) covers block (10,10), STB 1 (table T1) block
// (13,10). From (10,10) the ring is blocks 9..11, from (12,10) it is 11..13.
const (
	t0 = 0x20000010
	t1 = 0x20000011
)

func twoRegions() (*Engine, *testLib) {
	r := testRegion(stb(t0, intermit(1, 0.5, 10, 20)), stb(t1, constant(0.5, 8)))
	lib := newLib(table(t0, 0x0A000001), table(t1, 0x0A000002))
	land := newLand(flatBlock(10, 10, word(0)), flatBlock(13, 10, word(1)))
	return New(r, land, lib, DefaultConfig()), lib
}

func TestRebuildOnlyOnCellChange(t *testing.T) {
	e, lib := twoRegions()
	steps := []struct {
		name    string
		pos     [2]float32
		force   bool
		rebuilt bool
	}{
		{"first call", [2]float32{96, 96}, false, true},
		{"same cell, moved 3 m", [2]float32{99, 98}, false, false},
		{"same cell again", [2]float32{100, 100}, false, false},
		{"forced", [2]float32{100, 100}, true, true},
		{"next cell north", [2]float32{100, 121}, false, true},
	}
	for i, s := range steps {
		got := e.ChangePosition(float64(i), at(10, 10, s.pos[0], s.pos[1], 0), s.force)
		if got != s.rebuilt {
			t.Errorf("%s: rebuilt %v, want %v", s.name, got, s.rebuilt)
		}
	}
	// T0 stayed loaded all along (its sounds were audible at each rebuild).
	if lib.calls[t0] != 1 || lib.calls[t1] != 0 {
		t.Errorf("table fetches T0 %d T1 %d, want 1 and 0", lib.calls[t0], lib.calls[t1])
	}
	if got := e.State().Player; got.X != 100 || got.Y != 121 {
		t.Errorf("player_pos %+v, want the last rebuild's position", got)
	}
}

func TestReleaseAndLazyReload(t *testing.T) {
	e, lib := twoRegions()
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	if e.stbs[0].table == nil || lib.calls[t0] != 1 {
		t.Fatalf("T0 not loaded after the first rebuild")
	}
	// At (12,10) block (10,10) is outside the ring: STB 0's sound gets no
	// weight, play_count stays 0 and ReleaseSoundTables drops T0.
	e.ChangePosition(1, at(12, 10, 96, 96, 0), false)
	if e.stbs[0].table != nil {
		t.Error("T0 still held although none of its sounds could play")
	}
	if e.stbs[1].table == nil || lib.calls[t1] != 1 {
		t.Errorf("T1 held %v after %d fetches, want held after 1", e.stbs[1].table != nil, lib.calls[t1])
	}
	// Back at (10,10): T0 is fetched again lazily; T1 is released.
	e.ChangePosition(2, at(10, 10, 96, 96, 0), false)
	if lib.calls[t0] != 2 || e.stbs[0].table == nil || e.stbs[1].table != nil {
		t.Errorf("after returning: T0 fetches %d held %v, T1 held %v; want 2, true, false",
			lib.calls[t0], e.stbs[0].table != nil, e.stbs[1].table != nil)
	}
	// Reset is FlushSoundTables: every table goes, counts are zero, and the
	// next ChangePosition rebuilds even in the same cell.
	e.Reset()
	if e.stbs[0].table != nil || e.State().TotalSoundCount != 0 || e.sounds[0].soundCount != 0 {
		t.Error("Reset kept a table or a count")
	}
	if !e.ChangePosition(3, at(10, 10, 96, 96, 0), false) || lib.calls[t0] != 3 {
		t.Errorf("after Reset: no rebuild, or T0 fetched %d times (want 3)", lib.calls[t0])
	}
	// An objcell of 0 is CellManager::Reset.
	if e.ChangePosition(4, posIn(0, 0, 0, 0), false) || e.stbs[0].table != nil {
		t.Error("objcell 0 did not reset")
	}
}

func TestNotFoundNeverAskedAgain(t *testing.T) {
	r := testRegion(stb(0x20000099, constant(1, 5)))
	lib := newLib() // no tables: NotFound
	e := New(r, newLand(flatBlock(10, 10, word(0))), lib, DefaultConfig())
	for i := 0; i < 4; i++ {
		e.ChangePosition(float64(i), at(10, 10, 96, 96, 0), true)
	}
	e.Reset()
	e.ChangePosition(9, at(10, 10, 96, 96, 0), false)
	if lib.calls[0x20000099] != 1 {
		t.Errorf("a NotFound table was asked for %d times, want 1 (stb_not_found is never reset)", lib.calls[0x20000099])
	}
	// Its cells add nothing: no instance, no weight.
	if s := e.State(); len(s.Sounds) != 0 || s.TotalSoundCount != 0 {
		t.Errorf("state %+v, want no sounds", s)
	}
}

func TestPendingIsNotCached(t *testing.T) {
	r := testRegion(stb(0x20000077, constant(1, 5)))
	lib := newLib(table(0x20000077, 0x0A000001))
	lib.status[0x20000077] = Pending
	e := New(r, newLand(flatBlock(10, 10, word(0))), lib, DefaultConfig())
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	e.ChangePosition(1, at(10, 10, 96, 96, 0), true)
	if lib.calls[0x20000077] != 2 || len(e.State().Sounds) != 0 {
		t.Fatalf("pending: %d fetches, %d sounds; want 2 and 0", lib.calls[0x20000077], len(e.State().Sounds))
	}
	// The table arrives; the host rebuilds at the same position.
	delete(lib.status, 0x20000077)
	e.ChangePosition(2, at(10, 10, 96, 96, 0), true)
	if len(e.State().Sounds) != 1 || kinds(decisions(e))[string(KindPlay)] != 1 {
		t.Errorf("after arrival: %d sounds, events %v; want 1 sound that plays", len(e.State().Sounds), kinds(decisions(e)))
	}
}

func TestDisabled(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Enabled = false
	r := testRegion(stb(t0, constant(1, 5)))
	e := New(r, newLand(flatBlock(10, 10, word(0))), newLib(table(t0, 1)), cfg)
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	if s := e.State(); len(s.Sounds) != 0 || s.TotalSoundCount != 0 || len(decisions(e)) != 0 {
		t.Errorf("disabled rebuild gathered %d sounds, total %v, %d events", len(s.Sounds), s.TotalSoundCount, len(decisions(e)))
	}
	// Enabled, a sound is queued for t = 5; disabling freezes the queue.
	e.SetEnabled(true)
	e.ChangePosition(1, at(10, 10, 96, 96, 0), true)
	e.SetEnabled(false)
	if evs := e.UseTime(100); len(evs) != 0 {
		t.Errorf("UseTime while disabled fired %d events", len(evs))
	}
	e.SetEnabled(true)
	if evs := e.UseTime(100); kinds(evs)[string(KindPlay)] != 1 {
		t.Errorf("after re-enabling: %v, want the queued play", kinds(evs))
	}
}

func TestLeavingStopsSounds(t *testing.T) {
	// Walk from (10,10) to (12,10): the intermittent sound of STB 0 has
	// chance 0 and the next time it fires it leaves the queue.
	e, _ := twoRegions()
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	e.ChangePosition(1, at(12, 10, 96, 96, 0), false)
	evs := e.UseTime(1000)
	var dequeued bool
	for _, ev := range evs {
		if ev.Kind == KindDequeue && ev.STBIndex == 0 {
			dequeued = true
		}
		if ev.Kind == KindPlay && ev.STBIndex == 0 {
			t.Errorf("STB 0 played after the player left: %+v", ev)
		}
	}
	if !dequeued {
		t.Errorf("STB 0 never left the queue; events %v", kinds(evs))
	}
	if e.sounds[0].onQueue {
		t.Error("STB 0's sound is still marked on_queue")
	}
}

func TestNonFiniteInputIgnored(t *testing.T) {
	e, _ := twoRegions()
	nan := float32(math.NaN())
	if e.ChangePosition(0, at(10, 10, 96, 96, 0), false) != true {
		t.Fatal("first rebuild did not happen")
	}
	total := e.State().TotalSoundCount
	if e.ChangePosition(1, posIn(0x0A0A0002, nan, 5, 0), true) {
		t.Error("a NaN player position rebuilt")
	}
	if got := e.State().TotalSoundCount; got != total {
		t.Errorf("total changed to %v after a NaN position", got)
	}
	e.SetCamera(posIn(0x0A0A0002, 5, 5, 0), math.Inf(1))
	e.SetCamera(posIn(0x0A0A0002, 5, nan, 0), 0)
	if e.cameraSet {
		t.Error("a non-finite camera was accepted")
	}
	for _, ev := range e.UseTime(100) {
		if _, err := ev.MarshalJSON(); err != nil {
			t.Errorf("event after bad input does not marshal: %v", err)
		}
	}
}
