package mix

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/samples"
)

// fakeHost plays a script: Tick(now) returns the events with T ≤ now not
// yet returned (a sub-slice: no allocation), and records the tick times.
type fakeHost struct {
	script  []ambient.Event // sorted by T
	next    int
	pcm     map[uint32]*audio.PCM
	dropped map[uint32]bool // waves the host no longer retains
	ticks   []float64
	record  bool
}

func newFake(pcm map[uint32]*audio.PCM, script ...ambient.Event) *fakeHost {
	return &fakeHost{script: script, pcm: pcm, dropped: map[uint32]bool{}}
}

func (h *fakeHost) Tick(now float64) []ambient.Event {
	if h.record {
		h.ticks = append(h.ticks, now)
	}
	i := h.next
	for h.next < len(h.script) && h.script[h.next].T <= now {
		h.next++
	}
	return h.script[i:h.next]
}

func (h *fakeHost) PCM(w uint32) *audio.PCM { return h.pcm[w] }
func (h *fakeHost) Retained(w uint32) bool  { return !h.dropped[w] }
func play(t float64, slot int, wave uint32, db, pan int) ambient.Event {
	return ambient.Event{T: t, Kind: ambient.KindPlay, Slot: slot, Wave: wave, DB: db, Pan: pan}
}

// dc is a mono wave of n frames at rate, every sample v.
func dc(rate, n int, v float32) *audio.PCM {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return audio.NewPCM(rate, 1, s)
}

// watched is a Host whose mixer is checked against the engine's slots at
// every tick: a play on a slot whose voice still sounds is a cut, and a
// voice still sounding at or after its play's start + duration (when the
// engine counts its slot free) is late.
type watched struct {
	Host
	m          *Mixer
	ends       [numVoices]float64
	cuts, late int
}

// watch makes a mixer over h, watched.
func watch(t testing.TB, h Host, opt Options) (*Mixer, *watched) {
	t.Helper()
	w := &watched{Host: h}
	w.m = newMixer(t, w, opt)
	return w.m, w
}

func (w *watched) Tick(now float64) []ambient.Event {
	for s := range w.m.voices {
		if w.m.voices[s].active && now >= w.ends[s] {
			w.late++
		}
	}
	evs := w.Host.Tick(now)
	for _, ev := range evs {
		if ev.Kind != ambient.KindPlay || ev.Slot < 0 || ev.Slot >= numVoices {
			continue
		}
		if w.m.voices[ev.Slot].active {
			w.cuts++
		}
		if p := w.Host.PCM(ev.Wave); p != nil {
			w.ends[ev.Slot] = ev.T + p.Duration()
		}
	}
	return evs
}

func newMixer(t testing.TB, h Host, opt Options) *Mixer {
	t.Helper()
	m, err := New(h, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// render mixes frames frames in blocks of block frames.
func render(m *Mixer, frames, block int) []float32 {
	out := make([]float32, 2*frames)
	for done := 0; done < frames; {
		n := min(block, frames-done)
		m.ReadFloat(out[2*done : 2*(done+n)])
		done += n
	}
	return out
}

func TestGains(t *testing.T) {
	for _, c := range []struct {
		db, pan     int
		left, right float64 // dB
	}{
		{0, 0, 0, 0},
		{0, 15, -15, 0}, // a sound on the right: the left channel 15 dB down
		{0, -7, 0, -7},
		{-12, 0, -12, -12},
		{-12, 14, -26, -12},
		{-50, -15, -50, -65},
		{0, 40, -15, 0}, // SoundBuf::Play clamps pan to ±15
	} {
		l, r := Gains(c.db, c.pan)
		if math.Abs(db(float64(l))-c.left) > 1e-5 || math.Abs(db(float64(r))-c.right) > 1e-5 {
			t.Errorf("Gains(%d, %d) = %.3f dB, %.3f dB; want %v, %v", c.db, c.pan, db(float64(l)), db(float64(r)), c.left, c.right)
		}
	}
	// Hand-computed: 10^(−15/20) = 0.17782794, 10^(−7/20) = 0.44668359.
	if l, r := Gains(0, 15); l != float32(0.17782794) || r != 1 {
		t.Errorf("Gains(0, 15) = %v, %v; want 0.17782794, 1", l, r)
	}
	if l, r := Gains(0, -7); l != 1 || r != float32(0.44668359) {
		t.Errorf("Gains(0, -7) = %v, %v; want 1, 0.44668359", l, r)
	}
}

// TestPlayLandsOnItsFrame: a play at T sounds first on frame round(T·rate),
// and the ticks come at k·tick, whatever the block size, the rate and the
// tick; a mono wave at full level is in both channels, panned per the law.
func TestPlayLandsOnItsFrame(t *testing.T) {
	for _, c := range []struct {
		rate, waveRate int
		tick           float64
		k              int
	}{
		{48000, 48000, 1.0 / 30, 3},
		{44100, 22050, 1.0 / 30, 7},
		{48000, 22050, 0.0123, 11},
		{22050, 44100, 0.05, 2},
	} {
		T := float64(c.k) * c.tick
		h := newFake(map[uint32]*audio.PCM{1: dc(c.waveRate, c.waveRate, 0.5)}, play(T, 4, 1, -6, 3))
		h.record = true
		m := newMixer(t, h, Options{Rate: c.rate, Tick: c.tick})
		out := render(m, c.rate, 333)
		first := -1
		for j := 0; j < len(out)/2; j++ {
			if out[2*j] != 0 || out[2*j+1] != 0 {
				first = j
				break
			}
		}
		if want := int(math.Round(T * float64(c.rate))); first != want {
			t.Errorf("rate %d, wave %d Hz, tick %v: first sound on frame %d, want %d", c.rate, c.waveRate, c.tick, first, want)
		}
		for i, now := range h.ticks {
			if now != float64(i)*c.tick {
				t.Fatalf("tick %d at %v, want %v", i, now, float64(i)*c.tick)
			}
		}
		if n := len(h.ticks); n != int(math.Floor((float64(c.rate)-0.5)/(c.tick*float64(c.rate))))+1 {
			t.Errorf("%d ticks in one second of tick %v", n, c.tick)
		}
		// −6 dB, pan +3: right 0.5·10^(−6/20), left 3 dB further down.
		mid := 2 * (first + c.rate/4)
		if l, r := out[mid], out[mid+1]; math.Abs(float64(r)-0.5*math.Pow(10, -6.0/20)) > 1e-5 ||
			math.Abs(float64(l)-0.5*math.Pow(10, -9.0/20)) > 1e-5 {
			t.Errorf("mid-wave frame = %v, %v", l, r)
		}
	}
}

// TestVoiceEndsWithItsWave: a 22050 Hz wave of 10001 frames played at T
// sounds for floor(10001·48000/22050) = 21770 frames, ending before the
// frame of the first tick at which the engine counts its slot free
// (now ≥ T + 10001/22050), and a stereo wave keeps its channels.
func TestVoiceEndsWithItsWave(t *testing.T) {
	s := make([]float32, 2*10001)
	for i := 0; i < 10001; i++ {
		s[2*i], s[2*i+1] = 0.5, -0.25
	}
	st := audio.NewPCM(22050, 2, s)
	T := 5 * DefaultTick
	h := newFake(map[uint32]*audio.PCM{1: st}, play(T, 0, 1, 0, 0))
	m := newMixer(t, h, Options{})
	out := render(m, 48000, 1000)
	start := int(math.Round(T * 48000))
	last := -1
	for j := 0; j < len(out)/2; j++ {
		if out[2*j] != 0 || out[2*j+1] != 0 {
			last = j
		}
	}
	if want := start + 10001*48000/22050 - 1; last != want {
		t.Errorf("last sounding frame %d, want %d", last, want)
	}
	end := T + st.Duration()
	freeTick := math.Ceil(end / DefaultTick)
	if f := int(math.Round(freeTick * DefaultTick * 48000)); last >= f {
		t.Errorf("voice sounds on frame %d, at or after the tick (frame %d) the engine frees it", last, f)
	}
	if l, r := out[2*(start+5000)], out[2*(start+5000)+1]; math.Abs(float64(l)-0.5) > 1e-5 || math.Abs(float64(r)+0.25) > 1e-5 {
		t.Errorf("stereo frame = %v, %v; want 0.5, -0.25", l, r)
	}
}

// TestStealFades: a play on a slot still sounding cuts the old voice over
// 5 ms instead of stepping; the output never moves more than the ramp.
func TestStealFades(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: dc(48000, 48000, 0.5), 2: dc(48000, 48000, 0)}
	h := newFake(pcm, play(0, 3, 1, 0, 0), play(10*DefaultTick, 3, 2, 0, 0))
	m, w := watch(t, h, Options{})
	out := render(m, 24000, 512)
	cut := int(math.Round(10 * DefaultTick * 48000))
	maxStep := 0.0
	for j := cut - 10; j < len(out)/2; j++ {
		maxStep = max(maxStep, math.Abs(float64(out[2*j]-out[2*j-2])))
	}
	if bound := 0.5/240 + 1e-6; maxStep > bound {
		t.Errorf("largest step after the steal %v, want ≤ %v (0.5 over 240 frames)", maxStep, bound)
	}
	if out[2*(cut+240)] != 0 || out[2*cut] == 0 {
		t.Errorf("frame %d = %v (still fading), frame %d = %v (want silent)", cut, out[2*cut], cut+240, out[2*(cut+240)])
	}
	if w.cuts != 1 {
		t.Errorf("%d steals counted, want 1", w.cuts)
	}
}

// TestFadeAll: every voice falls silent within 5 ms of FadeAll, smoothly.
func TestFadeAll(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: dc(48000, 96000, 0.25)}
	h := newFake(pcm, play(0, 0, 1, 0, 0), play(0, 9, 1, 0, 0))
	m := newMixer(t, h, Options{})
	render(m, 4800, 480)
	m.FadeAll()
	out := render(m, 480, 480)
	if out[0] < 0.49 || out[2*240] != 0 || out[len(out)-1] != 0 {
		t.Errorf("fade: first %v, frame 240 %v, last %v", out[0], out[2*240], out[len(out)-1])
	}
	for j := 1; j < 480; j++ {
		if d := math.Abs(float64(out[2*j] - out[2*j-2])); d > 0.5/240+1e-6 {
			t.Fatalf("step %v at frame %d", d, j)
		}
	}
}

// TestLimiter: a −3 dBFS sine passes bit for bit; two full-scale sines in
// phase (+6 dBFS) come out never above 0 dBFS and, past the attack, held
// at −1 dBFS (within 0.1 dB).
func TestLimiter(t *testing.T) {
	sine := tone(48000, 997, math.Pow(10, -3.0/20), 48000)
	m := newMixer(t, newFake(map[uint32]*audio.PCM{1: sine}, play(0, 0, 1, 0, 0)), Options{})
	out := render(m, 48000, 1024)
	for j, s := range sine.Samples.Flat() {
		if out[2*j] != s || out[2*j+1] != s {
			t.Fatalf("frame %d = %v, %v; want %v exactly", j, out[2*j], out[2*j+1], s)
		}
	}

	full := tone(48000, 997, 1, 48000)
	m = newMixer(t, newFake(map[uint32]*audio.PCM{1: full}, play(0, 0, 1, 0, 0), play(0, 1, 1, 0, 0)), Options{})
	out = render(m, 48000, 1024)
	peak, late := 0.0, 0.0
	for j, s := range out {
		peak = max(peak, math.Abs(float64(s)))
		if j > 2*4800 {
			late = max(late, math.Abs(float64(s)))
		}
	}
	if peak > 1 {
		t.Errorf("+6 dBFS sum peaks at %v (want ≤ 1)", peak)
	}
	if math.Abs(db(late)+1) > 0.1 {
		t.Errorf("after 100 ms the peak is %.2f dBFS, want −1 ± 0.1", db(late))
	}
	// Once the loud part has passed the gain comes back to exactly 1.
	lim := newLimiter(48000)
	lim.process([]float32{2, 2})
	quiet := make([]float32, 2*48000)
	for i := range quiet {
		quiet[i] = 0.5
	}
	lim.process(quiet)
	if lim.g != 1 || quiet[len(quiet)-1] != 0.5 {
		t.Errorf("gain %v a second after a peak, last sample %v; want 1, 0.5", lim.g, quiet[len(quiet)-1])
	}
}

// TestNoNaNLeaves: NaN and ±Inf in a wave give finite output within
// [-1, 1].
func TestNoNaNLeaves(t *testing.T) {
	bad := dc(22050, 22050, 0.5)
	for i := 0; i < bad.Samples.Len(); i += 7 {
		bad.Samples.Set(i, float32(math.NaN()))
	}
	bad.Samples.Set(100, float32(math.Inf(1)))
	bad.Samples.Set(200, float32(math.Inf(-1)))
	same := dc(48000, 48000, float32(math.NaN()))
	h := newFake(map[uint32]*audio.PCM{1: bad, 2: same}, play(0, 0, 1, 0, 0), play(0, 1, 2, 0, 0))
	m := newMixer(t, h, Options{})
	for j, s := range render(m, 48000, 4096) {
		if !(s >= -1 && s <= 1) {
			t.Fatalf("sample %d = %v", j, s)
		}
	}
}

// TestDeterministic: the same events give the same samples, whatever the
// block sizes the reader asks for.
func TestDeterministic(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 300, 0.7, 30000), 2: tone(11025, 1000, 0.9, 7000), 3: dc(44100, 5000, -0.3)}
	script := func() []ambient.Event {
		var evs []ambient.Event
		for k := 0; k < 90; k += 3 {
			evs = append(evs, play(float64(k)*DefaultTick, k%16, uint32(1+k%3), -(k%20), k%31-15))
		}
		return evs
	}
	a := render(newMixer(t, newFake(pcm, script()...), Options{}), 3*48000, 4096)
	b := render(newMixer(t, newFake(pcm, script()...), Options{}), 3*48000, 777)
	if !equal(a, b) {
		t.Fatal("same events, different samples")
	}
}

// TestReadBytes: Read gives ReadFloat's samples as float32 little-endian
// stereo, whatever the sizes of p, odd ones included.
func TestReadBytes(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 440, 0.5, 22050)}
	want := render(newMixer(t, newFake(pcm, play(0, 0, 1, -3, 5)), Options{}), 9000, 9000)
	m := newMixer(t, newFake(pcm, play(0, 0, 1, -3, 5)), Options{})
	var got bytes.Buffer
	for _, n := range []int{1, 7, 8, 13, 4096, 3, 50000, 5, 8 * 9000} {
		p := make([]byte, n)
		if k, err := m.Read(p); k != n || err != nil {
			t.Fatalf("Read(%d) = %d, %v", n, k, err)
		}
		got.Write(p)
	}
	b := got.Bytes()[:8*9000]
	for i := range want {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])); v != want[i] {
			t.Fatalf("sample %d = %v, want %v", i, v, want[i])
		}
	}
}

// TestCache: a wave is resampled once while the host retains it, dropped
// from the cache (within a second of audio) once the host lets it go, and
// the budget evicts the least recently used. A clip counts the blocks it
// holds (48000 samples: 6 blocks of 8 Ki samples, 192 KiB).
func TestCache(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: dc(22050, 22050, 0.1), 2: dc(22050, 22050, 0.1), 3: dc(22050, 22050, 0.1)}
	h := newFake(pcm, play(0, 0, 1, 0, 0), play(DefaultTick, 1, 1, 0, 0), play(2*DefaultTick, 2, 2, 0, 0))
	const clipBytes = (48000 + samples.BlockLen - 1) / samples.BlockLen * samples.BlockBytes
	m := newMixer(t, h, Options{CacheBytes: 2 * clipBytes})
	render(m, 4800, 480)
	c1 := m.cache.m[1]
	if c1 == nil || m.cache.m[2] == nil || len(m.cache.m) != 2 || m.cache.used != 2*clipBytes {
		t.Fatalf("cache holds %d clips, %d bytes", len(m.cache.m), m.cache.used)
	}
	if m.voices[0].c != m.voices[1].c {
		t.Error("the second play of wave 1 was resampled again")
	}
	// A third wave: wave 1 was used less recently than 2 and goes.
	h.script = append(h.script, play(10*DefaultTick, 3, 3, 0, 0))
	render(m, 19200, 480)
	if m.cache.m[1] != nil || m.cache.m[2] == nil || m.cache.m[3] == nil {
		t.Errorf("after wave 3: cache has 1:%v 2:%v 3:%v", m.cache.m[1] != nil, m.cache.m[2] != nil, m.cache.m[3] != nil)
	}
	h.dropped[2] = true
	render(m, 48000, 4800)
	if m.cache.m[2] != nil || m.cache.m[3] == nil {
		t.Errorf("the host released wave 2 but the cache still holds it")
	}
	// The host decodes wave 3 again (it let it go and came back): the clip
	// of the old PCM can never play again, and it goes within a second
	// even though wave 3 does not play, with the old PCM it holds.
	h.pcm[3] = dc(22050, 22050, 0.1)
	render(m, 48000, 4800)
	if e := m.cache.m[3]; e != nil {
		t.Errorf("the host holds a new PCM for wave 3 but the cache still holds the old one's clip")
	}
	if b, n := m.Cached(); b != 0 || n != 0 {
		t.Errorf("Cached() = %d bytes, %d clips; want none", b, n)
	}
}

// TestNoAllocSteadyState: once its waves are resampled, a block allocates
// nothing, plays and ticks included.
func TestNoAllocSteadyState(t *testing.T) {
	pcm := map[uint32]*audio.PCM{1: tone(22050, 440, 0.5, 2205), 2: tone(44100, 440, 0.5, 4410)}
	var script []ambient.Event
	for k := 0; k < 100000; k++ {
		script = append(script, play(float64(k)*DefaultTick, k%16, uint32(1+k%2), -3, k%31-15))
	}
	m := newMixer(t, newFake(pcm, script...), Options{})
	buf := make([]float32, 2*1024)
	p := make([]byte, 8*1000+3)
	m.ReadFloat(buf) // resample both waves
	m.ReadFloat(buf)
	if a := testing.AllocsPerRun(200, func() { m.ReadFloat(buf); m.Read(p) }); a != 0 {
		t.Errorf("%v allocations per block", a)
	}
}

func TestNewRejects(t *testing.T) {
	h := newFake(nil)
	for _, o := range []Options{{Rate: 100}, {Tick: -1}, {Tick: math.NaN()}, {Tick: math.Inf(1)}, {CacheBytes: -1}} {
		if _, err := New(h, o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil host) accepted")
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestFadeAllFromAnotherGoroutine: FadeAll from one goroutine while
// another reads (run with -race); once it has been seen, the voices that
// were sounding fall silent.
func TestFadeAllFromAnotherGoroutine(t *testing.T) {
	var script []ambient.Event
	for k := 0; k < 16; k++ {
		script = append(script, play(0, k, 1, -6, 0))
	}
	m := newMixer(t, newFake(map[uint32]*audio.PCM{1: tone(22050, 440, 0.5, 10*22050)}, script...), Options{})
	buf := make([]float32, 2*512)
	// The voices sound before the first FadeAll: else the other goroutine
	// may be done before they start, and nothing was sounding to fade.
	m.ReadFloat(buf)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			m.FadeAll()
		}
	}()
	for i := 0; i < 200; i++ {
		m.ReadFloat(buf)
	}
	<-done
	m.ReadFloat(buf) // sees the last FadeAll: 5 ms of fade
	m.ReadFloat(buf)
	for _, s := range buf {
		if s != 0 {
			t.Fatalf("after FadeAll the output is %v", s)
		}
	}
}

// TestClipsAcrossBlockEdges: a clip's samples lie in blocks of
// samples.BlockLen (core/samples). A mono or stereo wave at the output rate
// whose length falls before, on and past a block edge, or spans several
// blocks, plays exactly its samples, read in blocks of 777 frames (so
// reads straddle the edges at every offset); one cut mid-play fades across
// a block edge by the same gains a flat slice gives.
func TestClipsAcrossBlockEdges(t *testing.T) {
	for _, ch := range []int{1, 2} {
		bf := samples.BlockLen / ch // frames a block holds
		for _, n := range []int{0, 1, bf - 1, bf, bf + 1, 3*bf + 5} {
			s := edgeRamp(n * ch)
			m := newMixer(t, newFake(map[uint32]*audio.PCM{1: audio.NewPCM(48000, ch, s)}, play(0, 0, 1, 0, 0)), Options{})
			out := render(m, n+100, 777)
			for j := 0; j < n+100; j++ {
				l, r := float32(0), float32(0)
				if j < n {
					l, r = s[j*ch], s[j*ch+ch-1]
				}
				if out[2*j] != l || out[2*j+1] != r {
					t.Fatalf("%d ch, %d frames: frame %d = %v, %v; want %v, %v", ch, n, j, out[2*j], out[2*j+1], l, r)
				}
			}
		}
		// A cut 100 frames before the first block edge: the fade's frames
		// straddle it.
		n, cut := 2*bf, bf-100
		s := edgeRamp(n * ch)
		m := newMixer(t, newFake(map[uint32]*audio.PCM{1: audio.NewPCM(48000, ch, s)}, play(0, 0, 1, 0, 0)), Options{})
		out := render(m, cut, 777)
		m.FadeAll()
		out = append(out, render(m, n-cut, 777)...)
		g, step := float32(1), 1/float32(m.fadeLen)
		for j := 0; j < n; j++ {
			l, r := s[j*ch], s[j*ch+ch-1]
			switch k := j - cut; {
			case k >= m.fadeLen:
				l, r = 0, 0
			case k >= 0:
				g = max(g-step, 0)
				l, r = l*1*g, r*1*g
			}
			if out[2*j] != l || out[2*j+1] != r {
				t.Fatalf("%d ch, cut at %d: frame %d = %v, %v; want %v, %v", ch, cut, j, out[2*j], out[2*j+1], l, r)
			}
		}
	}
}

// TestResampledClipAcrossBlockEdges: a resampled clip, its frames computed
// a block's run at a time, equals the same filter run over one flat slice
// of the whole output, for inputs whose output ends before, on and past
// block edges and spans several blocks.
func TestResampledClipAcrossBlockEdges(t *testing.T) {
	r := newResampler(22050, 48000)
	for _, ch := range []int{1, 2} {
		bf := samples.BlockLen / ch
		for _, out := range []int{1, bf - 1, bf, bf + 1, 3*bf + 5} {
			in := (out*r.in + r.out - 1) / r.out // the fewest input frames giving out
			p := audio.NewPCM(22050, ch, edgeRamp(in*ch))
			c := convertAll(p, r)
			if c.frames < out || c.data.Len() != c.frames*ch {
				t.Fatalf("%d ch, %d input frames: %d frames, %d samples; want %d frames at least", ch, in, c.frames, c.data.Len(), out)
			}
			want := flatResample(p, r)
			got := c.data.Flat()
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%d ch, %d frames: sample %d = %v, the flat run %v", ch, c.frames, i, got[i], want[i])
				}
			}
		}
	}
}

// flatResample is a wave's clip by one run of the filter per channel into
// one flat slice: the reference for the block-wise fill.
func flatResample(p *audio.PCM, r *resampler) []float32 {
	frames, ch, in := r.frames(p.Frames()), min(p.Channels, 2), p.Samples.Flat()
	dst := make([]float32, frames*ch)
	lo, hi := r.window(0, frames)
	for k := range ch {
		pad := make([]float32, hi-lo)
		for i := range pad {
			if x := lo + i; x >= 0 && x < p.Frames() {
				pad[i] = sanitize(in[x*p.Channels+k])
			}
		}
		r.run(dst[k:], ch, pad, lo, 0, frames)
	}
	return dst
}

// edgeRamp is a ramp within ±0.5 (the limiter passes it bit for bit) of
// period 1999, prime to the block length, so a sample read from the wrong
// place shows.
func edgeRamp(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(i%1999-999) / 2000
	}
	return s
}
