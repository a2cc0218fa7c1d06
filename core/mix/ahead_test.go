package mix

import (
	"bytes"
	"testing"

	"acambient/core/audio"
)

// TestAheadContinuesTheStream: a mixer run ahead of a clock (Advance in
// pump-sized and odd steps), then read as oto reads it (blocks of any
// length, split frames included), gives exactly the stream a mixer read
// straight through gives from the clock's position on: what the clock
// moved past is dropped, nothing is repeated or lost at the hand-over, and
// Lead frames are ready before the first Read.
func TestAheadContinuesTheStream(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 440, 0.3, 22050), 2: tone(44100, 300, 0.2, 30000)}
	script := func() *fakeHost {
		return newFake(pcm, play(0, 0, 1, 0, 0), play(0.05, 1, 2, -3, 5), play(0.4, 2, 1, -6, -7), play(0.9, 0, 2, 0, 0))
	}
	ref, err := New(script(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const lead = 16384
	m, _ := New(script(), Options{})
	a, err := NewAhead(m, lead)
	if err != nil {
		t.Fatal(err)
	}
	steps := []int{960, 961, 0, 12000, 48000, 7} // frames the clock moved
	moved := 0
	for _, f := range steps {
		a.Advance(f)
		moved += f
		if a.Ahead() != lead || m.Frames() != int64(moved+lead) {
			t.Fatalf("after the clock moved %d frames: %d frames ahead, mixer at %d; want %d and %d",
				moved, a.Ahead(), m.Frames(), lead, moved+lead)
		}
	}
	want := make([]byte, 8*(moved+lead+20000))
	ref.Read(want)
	want = want[8*moved:]

	var got bytes.Buffer
	for _, n := range []int{5, 8*lead - 5 - 3, 11, 8 * 9000} { // oto's reads: a split frame across the hand-over
		p := make([]byte, n)
		if k, err := a.Read(p); k != n || err != nil {
			t.Fatalf("Read(%d) = %d, %v", n, k, err)
		}
		got.Write(p)
	}
	if !bytes.Equal(got.Bytes(), want[:got.Len()]) {
		i := 0
		for i < got.Len() && got.Bytes()[i] == want[i] {
			i++
		}
		t.Fatalf("the stream after the hand-over differs from the straight one at byte %d (frame %d; the lead is %d frames)", i, i/8, lead)
	}
	if bytes.Count(got.Bytes(), make([]byte, 8)) == got.Len()/8 {
		t.Fatal("the stream is silent: the test proves nothing")
	}
}

// TestAheadAdvanceBeyondLead: a clock that jumps past everything mixed
// ahead (a throttled tab) drops the lead and mixes the rest into nothing.
func TestAheadAdvanceBeyondLead(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 440, 0.3, 44100)}
	ref, _ := New(newFake(pcm, play(0, 0, 1, 0, 0)), Options{})
	m, _ := New(newFake(pcm, play(0, 0, 1, 0, 0)), Options{})
	a, _ := NewAhead(m, 100)
	a.Advance(0)
	a.Advance(5000)
	want := make([]byte, 8*5300)
	ref.Read(want)
	got := make([]byte, 8*300)
	a.Read(got)
	if !bytes.Equal(got, want[8*5000:]) {
		t.Fatal("after a jump past the lead the stream does not resume where the clock is")
	}
}

// TestAheadKeepsNothingWhileSilent: while the stream is silence the mixer
// stays on the clock, so that a voice starting later starts on time; once
// it has sounded, Lead frames are kept ahead, and the stream is unbroken.
func TestAheadKeepsNothingWhileSilent(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 440, 0.3, 22050)}
	script := func() *fakeHost { return newFake(pcm, play(1.0, 0, 1, 0, 0)) } // a voice at 1 s
	ref, _ := New(script(), Options{})
	m, _ := New(script(), Options{})
	const lead = 4096
	a, _ := NewAhead(m, lead)
	moved := 0
	for moved < 48000-960 { // to just before the voice
		a.Advance(960)
		moved += 960
		if a.Ahead() != 0 || m.Frames() != int64(moved) {
			t.Fatalf("silent, at frame %d: %d frames ahead, mixer at %d; want none ahead, the mixer on the clock", moved, a.Ahead(), m.Frames())
		}
	}
	for a.Ahead() == 0 && moved < 2*48000 {
		a.Advance(960)
		moved += 960
	}
	if a.Ahead() != lead || moved > 48000+960 {
		t.Fatalf("after the voice began (frame 48000): %d frames ahead at frame %d; want %d from the step that mixed it", a.Ahead(), moved, lead)
	}
	want := make([]byte, 8*(moved+lead))
	ref.Read(want)
	got := make([]byte, 8*lead)
	a.Read(got)
	if !bytes.Equal(got, want[8*moved:]) {
		t.Fatal("the frames kept ahead are not the stream's next")
	}
}

// TestAheadStepsTheLead: with a Step, the Advance in which the stream
// first sounds mixes at most that much ahead, each later one at most that
// much more, until Lead frames lie ahead; a Read while the lead is still
// filling (a click that comes early) carries the stream on unbroken, and
// so does one after it has filled.
func TestAheadStepsTheLead(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 440, 0.3, 3*22050), 2: tone(44100, 300, 0.2, 50000)}
	script := func() *fakeHost { return newFake(pcm, play(0.1, 0, 1, 0, 0), play(0.3, 1, 2, -3, 5)) }
	const lead, step, pump = 32768, 4096, 960
	for _, readAt := range []int{1, 3, 100} { // Advances after the first sound before the Read
		ref, _ := New(script(), Options{})
		m, _ := New(script(), Options{})
		a, _ := NewAhead(m, lead)
		a.SetStep(step)
		moved, sounded, steps := 0, 0, 0
		for sounded < readAt {
			before := a.Ahead()
			a.Advance(pump)
			moved += pump
			if a.Ahead() == 0 {
				continue
			}
			sounded++
			if grown := a.Ahead() - max(before-pump, 0); grown > step {
				t.Fatalf("an Advance mixed %d frames ahead, the step is %d", grown, step)
			}
			if a.Ahead() == lead && a.Filling() || a.Ahead() < lead && !a.Filling() {
				t.Fatalf("%d frames ahead of %d, Filling %v", a.Ahead(), lead, a.Filling())
			}
			if a.Ahead() < lead {
				steps++
			}
		}
		if readAt == 100 && (a.Ahead() != lead || steps < lead/step) {
			t.Fatalf("after 100 Advances: %d frames ahead (want %d), filled in %d steps", a.Ahead(), lead, steps)
		}
		want := make([]byte, 8*(moved+2*lead))
		ref.Read(want)
		got := make([]byte, 8*2*lead)
		a.Read(got[:8*1000+3])
		a.Read(got[8*1000+3:])
		if !bytes.Equal(got, want[8*moved:]) {
			t.Fatalf("read after %d sounding Advances: the stream differs from the straight one", readAt)
		}
	}
}
