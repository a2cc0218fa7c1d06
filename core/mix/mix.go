// Package mix turns the engine's decisions into sound: the one audio clock
// that ticks the host, the sixteen voices of retail's SoundManager pool, the
// band-limited resampling of every wave to the output rate, DirectSound's
// gain and pan law, and a master limiter. `render` and the page run the same
// Mixer; only where its samples go differs (a WAV file, oto).
//
// The clock is the output frame counter n at Rate. Tick k fires at frame
// round(k·Tick·Rate), before that frame is mixed, and calls Host.Tick at
// k·Tick seconds (from k, not summed, exactly as `trace` does, so a render
// and a trace of a seed see the same events). A play at time T starts on
// frame round(T·Rate) in the voice the engine gave it (Event.Slot), and
// lasts floor(frames·Rate/waveRate) frames, which never outlasts the
// engine's start+duration, so no voice the engine counts as free is still
// sounding (docs/retail.md §R5.7: a 17th concurrent sound is dropped
// by the engine and never reaches the mixer). The mixer keeps no record of
// the voices but their samples: which slot plays what, and until when, is
// the engine's (ambient.Engine.Voices), and a play names its slot.
//
// A sample goes one way: the engine's play event (from Host.Tick, on this
// clock) → the voice in its slot (gain and pan by DirectSound's law, the
// wave resampled to the output rate) → the sum of the sixteen → the
// limiter → ReadFloat, or Read for oto (the page) or a WAV writer (render).
package mix

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"acambient/core/ambient"
	"acambient/core/audio"
)

// Host is what the mixer drives (core/session's host satisfies it).
type Host interface {
	// Tick runs one frame at absolute time now (seconds) and returns its events
	// (plays carry Slot). The mixer calls Tick(k*tick) for k = 0, 1, 2, … .
	Tick(now float64) []ambient.Event
	// PCM is the decoded wave, nil when missing.
	PCM(wave uint32) *audio.PCM
	// Retained reports whether the host still holds the wave (false after the
	// engine released its table and the host evicted it): the mixer drops its
	// resampled copy then.
	Retained(wave uint32) bool
}

// Cutter is a Host that hears of FadeAll's cut, on the goroutine that
// reads the mixer, with the mixer's time of the cut: its engine frees the
// slots and has the cut sounds play again when it next runs
// (session.Host.Cut, ambient.Engine.Cut).
type Cutter interface {
	Cut(now float64)
}

// Options configure a Mixer; the zero value of a field means its default.
type Options struct {
	Rate int     // output frames per second; default 48000
	Tick float64 // seconds between host ticks; default 1/30, as `trace`
	// CacheBytes bounds the resampled waves kept for reuse (least recently
	// used go first); default 64 MiB.
	CacheBytes int64
	// OnEvents, if set, receives the events of every tick that had any, on
	// the goroutine that reads the mixer, right after the tick. The slice is
	// the host's and valid only during the call.
	OnEvents func(now float64, evs []ambient.Event)
}

// Defaults of Options.
const (
	DefaultRate       = 48000
	DefaultTick       = 1.0 / 30
	DefaultCacheBytes = 64 << 20
)

// numVoices is SoundManager's pool (docs/retail.md §R1): the engine's slots 0..15.
const numVoices = 16

// fadeSeconds is how long a voice cut early (a play on a slot still
// sounding, FadeAll) takes to fall silent: short enough to read as a cut,
// long enough not to click.
const fadeSeconds = 0.005

// retainCheckSeconds: how often (audio time) the cache asks the host which
// waves it still holds.
const retainCheckSeconds = 1.0

// Mixer is the audio clock and the voices. ReadFloat and Read must be
// called from one goroutine at a time (the audio thread, or render's loop);
// FadeAll may be called from any goroutine at any time and never waits on
// the audio thread.
type Mixer struct {
	host     Host
	rate     int
	tick     float64
	onEvents func(float64, []ambient.Event)
	fadeLen  int

	n        int64 // frames mixed so far
	k        int64 // index of the next tick
	nextTick int64 // its frame
	nextKeep int64 // frame of the next Retained sweep

	voices [numVoices]voice // by the engine's slot
	tails  [numVoices]voice // voices cut early, fading out
	cache  *cache
	lim    limiter

	fadeReq  atomic.Uint64 // FadeAll calls so far
	fadeSeen uint64

	scratch [2 * 1024]float32 // Read's float block
	pend    [8]byte           // a frame Read has encoded but not handed out
	npend   int               // its bytes still owed (at its end)
}

// New makes a mixer over host.
func New(host Host, opt Options) (*Mixer, error) {
	if host == nil {
		return nil, errors.New("mix: nil host")
	}
	if opt.Rate == 0 {
		opt.Rate = DefaultRate
	}
	if opt.Tick == 0 {
		opt.Tick = DefaultTick
	}
	if opt.CacheBytes == 0 {
		opt.CacheBytes = DefaultCacheBytes
	}
	switch {
	case opt.Rate < 8000 || opt.Rate > 384000:
		return nil, fmt.Errorf("mix: output rate %d Hz (want 8000..384000)", opt.Rate)
	case !(opt.Tick > 0) || math.IsInf(opt.Tick, 0) || opt.Tick*float64(opt.Rate) > 1<<30:
		return nil, fmt.Errorf("mix: tick %v s (want a positive number of seconds)", opt.Tick)
	case opt.CacheBytes < 0:
		return nil, fmt.Errorf("mix: cache budget %d bytes", opt.CacheBytes)
	}
	m := &Mixer{
		host:     host,
		rate:     opt.Rate,
		tick:     opt.Tick,
		onEvents: opt.OnEvents,
		fadeLen:  max(1, int(math.Round(fadeSeconds*float64(opt.Rate)))),
		cache:    newCache(opt.CacheBytes),
		lim:      newLimiter(opt.Rate),
	}
	return m, nil
}

// Cached reports the resampled waves the mixer keeps for reuse: their
// bytes (what Options.CacheBytes bounds) and how many. Safe to call from
// any goroutine.
func (m *Mixer) Cached() (bytes int64, clips int) {
	return m.cache.held.Load(), int(m.cache.clips.Load())
}

// Rate is the output rate in frames per second.
func (m *Mixer) Rate() int { return m.rate }

// Frames is how many frames have been mixed: the clock.
func (m *Mixer) Frames() int64 { return m.n }

// FadeAll fades every sounding voice out over a few milliseconds, from the
// next block on. It is for a listener who goes where there is nothing to
// hear mid-sound: off the data (a landblock the source lacks, where the
// listener is nowhere and its sound fades: docs/interfaces.md §4, the map
// binding), or a teleport. A host that is a Cutter hears of it: its
// engine's slots are freed and the cut sounds play again when it next runs.
func (m *Mixer) FadeAll() { m.fadeReq.Add(1) }

// ReadFloat mixes len(dst)/2 interleaved stereo frames into dst and returns
// that count. Every sample is finite and within [-1, 1].
func (m *Mixer) ReadFloat(dst []float32) int {
	frames := len(dst) / 2
	if r := m.fadeReq.Load(); r != m.fadeSeen {
		m.fadeSeen = r
		for s := range m.voices {
			m.cut(s)
		}
		if c, ok := m.host.(Cutter); ok {
			c.Cut(float64(m.n) / float64(m.rate))
		}
	}
	for done := 0; done < frames; {
		if m.n == m.nextTick {
			m.runTick()
		}
		chunk := int(min(int64(frames-done), m.nextTick-m.n))
		buf := dst[2*done : 2*(done+chunk)]
		clear(buf)
		for s := range m.voices {
			m.voices[s].mix(buf)
			m.tails[s].mix(buf)
		}
		m.lim.process(buf)
		done += chunk
		m.n += int64(chunk)
	}
	return frames
}

// Read is ReadFloat as an io.Reader of float32 little-endian stereo (what
// oto/v2's FormatFloat32LE plays). It fills p entirely and never ends; a
// frame split across calls is carried over.
func (m *Mixer) Read(p []byte) (int, error) {
	total := len(p)
	if m.npend > 0 {
		k := copy(p, m.pend[8-m.npend:])
		m.npend -= k
		p = p[k:]
	}
	for len(p) >= 8 {
		f := min(len(p)/8, len(m.scratch)/2)
		buf := m.scratch[:2*f]
		m.ReadFloat(buf)
		for i, v := range buf {
			putFloat(p[4*i:], v)
		}
		p = p[8*f:]
	}
	if len(p) > 0 {
		buf := m.scratch[:2]
		m.ReadFloat(buf)
		putFloat(m.pend[0:], buf[0])
		putFloat(m.pend[4:], buf[1])
		k := copy(p, m.pend[:])
		m.npend = 8 - k
	}
	return total, nil
}

// runTick ticks the host at tick k and starts the plays it returns.
func (m *Mixer) runTick() {
	now := float64(m.k) * m.tick // from k, not summed: no drift, as trace
	m.k++
	m.nextTick = int64(math.Round(float64(m.k) * m.tick * float64(m.rate)))
	evs := m.host.Tick(now)
	for i := range evs {
		if ev := &evs[i]; ev.Kind == ambient.KindPlay && ev.Slot >= 0 && ev.Slot < numVoices {
			m.start(ev)
		}
	}
	if m.onEvents != nil && len(evs) > 0 {
		m.onEvents(now, evs)
	}
	if m.n >= m.nextKeep {
		m.nextKeep = m.n + int64(retainCheckSeconds*float64(m.rate))
		m.cache.sweep(m.host.Retained, m.host.PCM)
	}
}

// start puts a play in its slot: gain from its whole dB, pan by
// DirectSound's law, first frame at round(T·rate).
func (m *Mixer) start(ev *ambient.Event) {
	p := m.host.PCM(ev.Wave)
	if p.Frames() == 0 || p.Rate <= 0 {
		return // nothing to hear (the engine skips a missing wave as noWave)
	}
	c := m.clip(ev.Wave, p)
	m.cut(ev.Slot) // a steal; the engine's ambient path never makes one (its voices end first)
	gl, gr := Gains(ev.DB, ev.Pan)
	first := int64(math.Round(ev.T * float64(m.rate)))
	m.voices[ev.Slot] = voice{
		c:      c,
		pos:    m.n - first, // 0 for a play of this tick; < 0 waits
		gl:     gl,
		gr:     gr,
		active: true,
	}
}

// cut moves a sounding voice to its slot's tail, fading out; one that has
// not started yet just goes.
func (m *Mixer) cut(slot int) {
	v := &m.voices[slot]
	if !v.active {
		return
	}
	v.active = false
	if v.pos < 0 {
		return
	}
	t := &m.tails[slot]
	*t = *v
	t.active = true
	t.fade = m.fadeLen
	t.fadeStep = 1 / float32(m.fadeLen)
	t.fadeGain = 1
}

// clip is the wave at the output rate, from the cache or resampled now.
func (m *Mixer) clip(id uint32, p *audio.PCM) *clip {
	if c := m.cache.get(id, p); c != nil {
		return c
	}
	var r *resampler
	if p.Rate != m.rate {
		r = resamplerFor(p.Rate, m.rate)
	}
	c := convert(p, r)
	m.cache.put(id, p, c)
	return c
}

// Gains is DirectSound's volume and pan for a voice (docs/retail.md §R5.6,
// SoundBuf::Play): SetVolume(100·dB) scales both channels by 10^(dB/20);
// SetPan(100·pan) attenuates the opposite channel by |pan| dB (positive pan
// = right, so the left channel drops), the near channel staying at 0 dB.
// The engine's whole dB, not its linear gain, is what retail sends.
func Gains(db, pan int) (left, right float32) {
	pan = max(-15, min(15, pan)) // SoundBuf::Play's clamp
	g := math.Pow(10, float64(db)/20)
	left, right = float32(g), float32(g)
	if pan > 0 {
		left = float32(g * math.Pow(10, float64(-pan)/20))
	} else if pan < 0 {
		right = float32(g * math.Pow(10, float64(pan)/20))
	}
	return left, right
}

func putFloat(b []byte, v float32) {
	u := math.Float32bits(v)
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}
