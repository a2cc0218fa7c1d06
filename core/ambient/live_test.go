package ambient

import (
	"encoding/json"
	"testing"

	"acambient/core/world"
)

// State lists what a fresh engine's gather reports at the position, in its
// order, though the engine keeps every instance it ever made (retail's
// GetSound): here spot P reaches STB 0, 1 and 2 in that order, spot Q
// reaches STB 1 before 0 and never 2. After P, at Q the engine holds three
// instances but lists two, STB 1 first, with the values a fresh engine
// computes there; back at P it lists P's three again in P's order.
func TestStateListsWhatTheGatherReached(t *testing.T) {
	r := testRegion(stb(0x20000001, constant(1, 5)), stb(0x20000002, intermit(1, 0.5, 10, 20)),
		stb(0x20000003, constant(0.5, 5)))
	lib := newLib(table(0x20000001, 0x0A000001), table(0x20000002, 0x0A000002), table(0x20000003, 0x0A000003))
	land := newLand(
		// P's block: its own vertex STB 0, 48 m east STB 1, 96 m north STB 2.
		sparseBlock(10, 10, [3]int{0, 0, int(word(0))}, [3]int{2, 0, int(word(1))}, [3]int{0, 4, int(word(2))}),
		// Q's block, far away: its own vertex STB 1, 48 m east STB 0.
		sparseBlock(40, 40, [3]int{0, 0, int(word(1))}, [3]int{2, 0, int(word(0))}),
	)
	land.quiet = true
	P, Q := at(10, 10, 0, 0, 0), at(40, 40, 0, 0, 0)
	fresh := func(p world.Position) string {
		t.Helper()
		f := New(r, land, lib, DefaultConfig())
		f.ChangePosition(0, p, false)
		return stateJSON(t, f)
	}
	e := New(r, land, lib, DefaultConfig())
	e.ChangePosition(0, P, false)
	e.UseTime(1)
	e.ChangePosition(2, Q, false)
	if got, want := stateJSON(t, e), fresh(Q); got != want {
		t.Errorf("at Q after P the state is\n%s\nwant a fresh engine's gather at Q\n%s", got, want)
	}
	s := e.State()
	if len(s.Sounds) != 2 || s.Sounds[0].STBIndex != 1 || s.Sounds[1].STBIndex != 0 || e.Instances() != 3 {
		t.Errorf("at Q: sounds %+v, %d held; want STB 1 then 0, 3 held", s.Sounds, e.Instances())
	}
	if n := len(e.NextPlays()); n != len(s.Sounds) {
		t.Errorf("%d next plays for %d sounds", n, len(s.Sounds))
	}
	// The queue's keys follow the listed order: STB 1's sound first
	// (intermittent, queued at P's rebuild at 0 within its rates 10..20 s,
	// which Q's rebuild keeps), STB 0's second (constant, re-fired
	// min_rate = 5 s after it played at 0).
	if next := e.NextPlays(); !(next[0] >= 10 && next[0] <= 20) || next[1] != 5 {
		t.Errorf("next plays %v; want [10..20, 5]", next)
	}
	e.ChangePosition(3, P, false)
	if got, want := stateJSON(t, e), fresh(P); got != want {
		t.Errorf("back at P the state is\n%s\nwant a fresh engine's gather at P\n%s", got, want)
	}
	e.Reset()
	if s := e.State(); len(s.Sounds) != 0 || len(e.NextPlays()) != 0 {
		t.Errorf("after Reset: %d sounds, %d next plays; want none", len(s.Sounds), len(e.NextPlays()))
	}
}

func stateJSON(t *testing.T, e *Engine) string {
	t.Helper()
	b, err := json.Marshal(e.State())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
