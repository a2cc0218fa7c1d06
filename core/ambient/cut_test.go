package ambient

import "testing"

// TestCut: a constant sound (re-keyed 5 s after it fires, a 2 s wave)
// plays at the first rebuild; Cut at 1 s frees its slot and makes it due
// at 1 s, so that with the engine held disabled meanwhile (off the data)
// it fires at the first UseTime after re-enabling (1.5 s), not at its old
// key (5 s); a voice that had ended is left alone.
func TestCut(t *testing.T) {
	e := New(testRegion(stb(t0, constant(1, 5))), newLand(flatBlock(10, 10, word(0))), newLib(table(t0, 1)), DefaultConfig())
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	if n := kinds(e.Events())[string(KindPlay)]; n != 1 {
		t.Fatalf("the first rebuild played %d sounds, want the constant one", n)
	}
	if v := e.Voices(1); len(v) != 1 {
		t.Fatalf("%d voices at 1 s, want the 2 s wave's", len(v))
	}
	e.SetEnabled(false)
	e.Cut(1)
	if v := e.Voices(1); len(v) != 0 {
		t.Errorf("after Cut, %d voices still sounding: %+v", len(v), v)
	}
	if evs := e.UseTime(1.2); len(evs) != 0 {
		t.Errorf("UseTime while disabled fired %v", kinds(evs))
	}
	e.SetEnabled(true)
	if evs := e.UseTime(1.5); kinds(evs)[string(KindPlay)] != 1 {
		t.Errorf("back at 1.5 s: %v, want the cut sound played again", kinds(evs))
	}
	// Its next key is 5 s after that play; a Cut once its wave has ended
	// (at 4 s) changes nothing.
	e.Cut(4)
	if evs := e.UseTime(4.5); len(evs) != 0 {
		t.Errorf("after a Cut with no voice sounding, UseTime(4.5) fired %v", kinds(evs))
	}
	if evs := e.UseTime(6.6); kinds(evs)[string(KindPlay)] != 1 {
		t.Errorf("at 6.6 s: %v, want the play keyed at 6.5 s", kinds(evs))
	}
}
