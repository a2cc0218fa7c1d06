package ambient

import (
	"encoding/json"
	"testing"
)

func TestVoicePoolDropsThe17thAtEqualPriority(t *testing.T) {
	var p voicePool
	for i := 0; i < 16; i++ {
		if slot, _, stole := p.take(0, uint32(0x0A000100+i), 10, 0); slot != i || stole {
			t.Fatalf("voice %d: slot=%d stole=%v in a pool of 16, want slot %d", i+1, slot, stole, i)
		}
	}
	// All 16 play and none has a priority below 0: the 17th is dropped and
	// nothing is cut (0x0054FEC0's second loop returns).
	if slot, _, stole := p.take(1, 0x0A000200, 10, 0); slot != -1 || stole {
		t.Errorf("17th voice at equal priority: slot=%d stole=%v, want dropped (-1)", slot, stole)
	}
	if p.cursor != 0 || p.slots[0].wave != 0x0A000100 {
		t.Errorf("a dropped sound moved the cursor (%d) or a slot (0x%08X)", p.cursor, p.slots[0].wave)
	}
	// A higher priority cuts the first lower slot from the cursor.
	slot, stolen, stole := p.take(2, 0x0A000201, 10, 0.5)
	if slot != 0 || !stole || stolen != 0x0A000100 || p.cursor != 1 {
		t.Errorf("higher priority: slot=%d stole=%v wave=0x%08X cursor=%d; want the slot-0 voice cut", slot, stole, stolen, p.cursor)
	}
	// At t = 10 the voices started at 0 have finished (busy until now ≥ end).
	if slot, _, stole := p.take(10, 0x0A000300, 1, 0); slot != 1 || stole {
		t.Errorf("at t=10: slot=%d stole=%v, want free slot 1 (the cursor's)", slot, stole)
	}
}

func TestVoicePoolTakesFirstFreeFromCursor(t *testing.T) {
	var p voicePool
	p.take(0, 1, 100, 0) // slot 0, long
	p.take(0, 2, 1, 0)   // slot 1, short
	p.cursor = 0
	// From the cursor: slot 0 still plays, slot 1 has finished → slot 1.
	if slot, _, stole := p.take(5, 3, 1, 0); slot != 1 || stole || p.slots[1].wave != 3 || p.slots[0].wave != 1 || p.cursor != 2 {
		t.Errorf("took slot with cursor %d, slots %v", p.cursor, p.slots[:2])
	}
}

func TestEngineDropsThe17thVoice(t *testing.T) {
	// 17 constant sounds (one STB) all fire in the rebuild at t=0 with
	// 30-second waves: 16 play, the 17th is skipped for want of a voice.
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
	evs := decisions(e)
	if k := kinds(evs); k[string(KindPlay)] != 16 || k[string(KindSteal)] != 0 || k["skip:voices"] != 1 {
		t.Fatalf("events %v, want 16 plays, 1 skip, no steal", k)
	}
	for i, ev := range evs[:16] {
		if ev.Kind != KindPlay || ev.Slot != i {
			t.Errorf("play %d: kind %s slot %d, want play on slot %d (round-robin from 0)", i, ev.Kind, ev.Slot, i)
		}
	}
	if last := evs[len(evs)-1]; last.Kind != KindSkip || last.Reason != ReasonVoices || last.SoundIndex != 16 || last.Slot != -1 {
		t.Errorf("last event %+v, want the 17th sound skipped for voices", last)
	}
	// By t = 61 the first 16 have ended (30 s waves) and all 17 re-fire in
	// one tick (min_rate 60): again 16 voices, and again one sound goes
	// without — whichever the heap pops last.
	if k := kinds(e.UseTime(61)); k[string(KindPlay)] != 16 || k["skip:voices"] != 1 {
		t.Errorf("t=61: events %v, want 16 plays and 1 voices skip", k)
	}
}

// Voices reports each sounding slot as the play that took it and its end,
// start + the wave's duration (2 s in newLib), and nothing once it ended.
// Its JSON is the play's keys, then end and slot, the end written exactly
// however late in the run (34 h here; not 123459).
func TestVoicesCarryTheirPlay(t *testing.T) {
	r := testRegion(stb(0x20000001, constant(1, 5)))
	lib := newLib(table(0x20000001, 0x0A000001))
	e := New(r, newLand(flatBlock(10, 10, word(0))), lib, DefaultConfig())
	const start = 123456.789
	e.ChangePosition(start, at(10, 10, 96, 96, 0), false)
	var play Event
	for _, ev := range e.Events() {
		if ev.Kind == KindPlay {
			play = ev
		}
	}
	vs := e.Voices(start + 1)
	if len(vs) != 1 || vs[0].Play != play || vs[0].End != start+2 || play.Slot != 0 {
		t.Fatalf("voices %+v; want the play %+v ending at %v", vs, play, start+2)
	}
	b, err := json.Marshal(vs[0])
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := json.Marshal(play)
	if want := string(pb[:len(pb)-1]) + `,"end":123458.789,"slot":0}`; string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
	if vs := e.Voices(start + 2); len(vs) != 0 {
		t.Errorf("at its end the voice is still listed: %+v", vs)
	}
}
