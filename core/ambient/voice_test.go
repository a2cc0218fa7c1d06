package ambient

import "testing"

func TestVoicePoolSteal(t *testing.T) {
	var p voicePool
	for i := 0; i < 16; i++ {
		if _, stole := p.take(0, uint32(0x0A000100+i), 10); stole {
			t.Fatalf("voice %d stole a slot from a pool of 16", i+1)
		}
	}
	// The 17th concurrent sound cuts the slot at the cursor: the first one.
	stolen, stole := p.take(1, 0x0A000200, 10)
	if !stole || stolen != 0x0A000100 {
		t.Errorf("17th voice: stole=%v wave=0x%08X, want the first voice 0x0A000100", stole, stolen)
	}
	stolen, stole = p.take(2, 0x0A000201, 10)
	if !stole || stolen != 0x0A000101 {
		t.Errorf("18th voice: stole=%v wave=0x%08X, want 0x0A000101", stole, stolen)
	}
	// At t = 10 the voices started at 0 have finished (busy until now ≥ end).
	if _, stole := p.take(10, 0x0A000300, 1); stole {
		t.Error("a voice at t=10 stole although the t=0 voices had ended")
	}
}

func TestVoicePoolSkipsBusySlots(t *testing.T) {
	var p voicePool
	p.take(0, 1, 100) // slot 0, long
	p.take(0, 2, 1)   // slot 1, short
	p.cursor = 0
	// From the cursor: slot 0 still plays, slot 1 has finished → slot 1.
	if _, stole := p.take(5, 3, 1); stole || p.slots[1].wave != 3 || p.slots[0].wave != 1 || p.cursor != 2 {
		t.Errorf("took slot with cursor %d, slots %v", p.cursor, p.slots[:2])
	}
}

func TestEngineStealsOn17thVoice(t *testing.T) {
	// 17 constant sounds (one STB) all fire in the rebuild at t=0 with
	// 30-second waves: the 17th play is preceded by a steal of the first wave.
	var sounds []uint32
	s := stb(0x20000001)
	for i := 0; i < 17; i++ {
		d := constant(1, 60)
		d.SType = uint32(0x46 + i)
		s.AmbientSounds = append(s.AmbientSounds, d)
		sounds = append(sounds, uint32(0x0A000001+i))
	}
	tab := table(0x20000001)
	tab.Root.Children = nil
	for i, w := range sounds {
		tab.Root.Children = append(tab.Root.Children, childOf(uint32(0x46+i), w))
	}
	lib := newLib(tab)
	for _, w := range sounds {
		lib.waves[w] = 30
	}
	e := New(testRegion(s), newLand(flatBlock(10, 10, word(0))), lib, DefaultConfig())
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	evs := e.Events()
	if k := kinds(evs); k[KindPlay] != 17 || k[KindSteal] != 1 {
		t.Fatalf("events %v, want 17 plays and 1 steal", k)
	}
	if evs[16].Kind != KindSteal || evs[16].Wave != 0x0A000001 || evs[17].Wave != 0x0A000011 {
		t.Errorf("event 16 = %+v, 17 = %+v; want steal of 0x0A000001 before the play of 0x0A000011", evs[16], evs[17])
	}
}
