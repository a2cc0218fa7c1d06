package ambient

import "testing"

// The three cells of threeCells: the player's own vertex (weight 1, centred),
// 96 m north (400/96² = 0.0434028, band N) and 48 m east (400/48² =
// 0.1736111, band E), in AddSound's order (x-major: (0,0), (0,4), (2,0)).
func TestCellsListsEachContributingCell(t *testing.T) {
	r := testRegion(stb(0x20000001, intermit(1, 0.5, 10, 20)), stb(0x20000002, constant(0.6, 5)))
	lib := newLib(table(0x20000001, 0x0A000001), table(0x20000002, 0x0A000002))
	e := New(r, threeCells(0, 1), lib, DefaultConfig())
	e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
	got := e.Cells()
	want := []struct {
		cell   uint32
		stb    int
		weight float64
		dir    int
		dist   float64
	}{
		{0x0A0A0001, 0, 1, 0, 0},
		{0x0A0A0005, 1, 0.0434028, dirN, 96},
		{0x0A0A0011, 1, 0.1736111, dirE, 48},
	}
	if len(got) != len(want) {
		t.Fatalf("%d cells, want %d: %+v", len(got), len(want), got)
	}
	var sum float64
	for i, w := range want {
		g := got[i]
		if g.ObjCellID != w.cell || g.STBIndex != w.stb || !near(float64(g.Weight), w.weight, 1e-6) ||
			g.Dir != w.dir || !near(float64(g.Dist), w.dist, 1e-4) {
			t.Errorf("cell %d = {0x%08X stb %d w %v dir %d dist %v}, want %+v", i, g.ObjCellID, g.STBIndex, g.Weight, g.Dir, g.Dist, w)
		}
		sum += float64(g.Weight)
	}
	if s := e.State(); s.ContributingCells != len(got) || !near(sum, float64(s.TotalSoundCount), 1e-6) {
		t.Errorf("sum %v over %d cells; state says %v over %d", sum, len(got), s.TotalSoundCount, s.ContributingCells)
	}
	// Indoors without seen_outside the next rebuild lists none.
	in := at(10, 10, 0, 0, 0)
	in.ObjCellID = in.ObjCellID&0xFFFF0000 | 0x0100
	e.ChangePosition(1, in, false)
	if n := len(e.Cells()); n != 0 {
		t.Errorf("after an indoor rebuild %d cells, want 0", n)
	}
}

// After a rebuild every instance that played is queued for its next fire:
// a constant sound min_rate after now (5 s here), within the authored rates.
func TestNextPlays(t *testing.T) {
	r := testRegion(stb(0x20000001, intermit(1, 0.5, 10, 20)), stb(0x20000002, constant(0.6, 5)))
	lib := newLib(table(0x20000001, 0x0A000001), table(0x20000002, 0x0A000002))
	e := New(r, threeCells(0, 1), lib, DefaultConfig())
	if n := len(e.NextPlays()); n != 0 {
		t.Fatalf("%d next plays before any rebuild", n)
	}
	e.ChangePosition(100, at(10, 10, 0, 0, 0), false)
	next := e.NextPlays()
	s := e.State().Sounds
	if len(next) != len(s) || len(s) != 2 {
		t.Fatalf("%d next plays for %d instances, want 2", len(next), len(s))
	}
	for i, in := range s {
		lo, hi := 100+float64(in.Authored.MinRate), 100+float64(in.Authored.MaxRate)
		if next[i] < lo || next[i] > hi {
			t.Errorf("instance %d (continuous %v) next at %v, want in [%v, %v]", i, in.Continuous, next[i], lo, hi)
		}
	}
}
