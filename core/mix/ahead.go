package mix

import "errors"

// Ahead runs a Mixer ahead of a clock while nothing plays it: the page
// before the user's first gesture lets Web Audio run. Advance mixes into
// nothing what the clock has moved past, as if heard, and keeps Lead frames
// mixed beyond it; Read then hands out those frames first and mixes on, so
// the output that starts on a click finds its first blocks already made
// (and the click does not wait for them), and the timeline carries on
// unbroken: the bytes Read returns are the mixer's stream from where
// Advance stopped.
//
// Until the stream first holds a sound, nothing is kept ahead: silence is
// as quick to mix at the click as before it, and a first sound (a wave
// arriving late, the page's progressive start) then starts on the clock,
// not Lead frames after it.
//
// The lead is made a Step at a time (SetStep): the Advance in which the
// stream first sounds would otherwise mix all of it at once, a first
// play's resampling and a lead's worth of ticks in one task of the page's
// one thread, and the page's started() (which waits on that Advance) with
// it.
//
// Advance and Read must not be called concurrently with each other or with
// other reads of the mixer.
type Ahead struct {
	m       *Mixer
	lead    int    // bytes kept mixed ahead
	step    int    // bytes an Advance mixes ahead at most; 0: the whole lead
	buf     []byte // mixed, not yet handed out (float32 LE stereo, as Mixer.Read)
	sink    []byte
	sounded bool // a non-zero sample has been mixed
}

// NewAhead keeps lead frames of m mixed ahead.
func NewAhead(m *Mixer, lead int) (*Ahead, error) {
	if m == nil || lead < 0 || lead > 1<<22 {
		return nil, errors.New("mix: ahead: want a mixer and 0 ≤ lead ≤ 4 Mi frames")
	}
	return &Ahead{m: m, lead: 8 * lead, buf: make([]byte, 0, 8*lead), sink: make([]byte, 8*1024)}, nil
}

// SetStep makes each Advance mix at most frames ahead of the clock (0, the
// default: as many as the lead lacks), so that the lead fills over several
// Advances. What the stream holds is the same either way; only how much of
// it is ready at a given moment differs, and Read mixes on what is not.
func (a *Ahead) SetStep(frames int) { a.step = 8 * max(frames, 0) }

// Advance moves the clock by frames: that many frames of the stream are
// dropped (those mixed ahead first), and, once the stream has sounded, it
// is mixed on towards Lead frames ahead (a Step at most).
func (a *Ahead) Advance(frames int) {
	want := 8 * max(frames, 0)
	drop := min(want, len(a.buf))
	a.buf = a.buf[:copy(a.buf, a.buf[drop:])]
	for rest := want - drop; rest > 0; { // the rest is mixed into nothing
		n := min(rest, len(a.sink))
		a.m.Read(a.sink[:n])
		a.sounded = a.sounded || !silent(a.sink[:n])
		rest -= n
	}
	if have := len(a.buf); a.sounded && have < a.lead {
		n := a.lead - have
		if a.step > 0 {
			n = min(n, a.step)
		}
		a.buf = a.buf[:have+n]
		a.m.Read(a.buf[have:]) // never fails, fills it all
	}
}

// Filling reports whether the stream has sounded and less than Lead frames
// lie ahead: an Advance now would mix more.
func (a *Ahead) Filling() bool { return a.sounded && len(a.buf) < a.lead }

// silent reports whether b holds only zero samples (+0; a mixer's silence).
func silent(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Ahead is how many frames are mixed ahead of the clock.
func (a *Ahead) Ahead() int { return len(a.buf) / 8 }

// Read hands out the frames mixed ahead, then mixes on: the mixer's stream
// as Mixer.Read gives it. It fills p entirely and never fails.
func (a *Ahead) Read(p []byte) (int, error) {
	n := copy(p, a.buf)
	a.buf = a.buf[:copy(a.buf, a.buf[n:])]
	if n < len(p) {
		a.m.Read(p[n:])
	}
	return len(p), nil
}
