package synth

import "math"

// Buf is a mono signal at a sample rate.
type Buf struct {
	Rate int
	S    []float64
}

func NewBuf(rate int, seconds float64) *Buf {
	return &Buf{Rate: rate, S: make([]float64, int(seconds*float64(rate)))}
}

// T is the time in seconds of sample i.
func (b *Buf) T(i int) float64 { return float64(i) / float64(b.Rate) }

// Seconds is the length.
func (b *Buf) Seconds() float64 { return float64(len(b.S)) / float64(b.Rate) }

// Add mixes src into b starting at time at (seconds), scaled by gain.
func (b *Buf) Add(src *Buf, at, gain float64) {
	o := int(at * float64(b.Rate))
	for i, v := range src.S {
		if j := o + i; j >= 0 && j < len(b.S) {
			b.S[j] += gain * v
		}
	}
}

// ---- noise ----

// Pink is pink (1/f) noise by Paul Kellet's refined filter bank: seven
// one-pole filters whose sum is within ±0.05 dB of −3 dB/octave above
// 9 Hz at 44.1 kHz (and close enough at the demo's lower rates).
type Pink struct {
	r                          *Rand
	b0, b1, b2, b3, b4, b5, b6 float64
}

func NewPink(r *Rand) *Pink { return &Pink{r: r} }

func (p *Pink) Next() float64 {
	w := p.r.White()
	p.b0 = 0.99886*p.b0 + w*0.0555179
	p.b1 = 0.99332*p.b1 + w*0.0750759
	p.b2 = 0.96900*p.b2 + w*0.1538520
	p.b3 = 0.86650*p.b3 + w*0.3104856
	p.b4 = 0.55000*p.b4 + w*0.5329522
	p.b5 = -0.7616*p.b5 - w*0.0168980
	out := p.b0 + p.b1 + p.b2 + p.b3 + p.b4 + p.b5 + p.b6 + w*0.5362
	p.b6 = w * 0.115926
	return out * 0.11
}

// Brown is brown (1/f²) noise: leaky integrated white noise. The leak keeps
// it from wandering off to a DC offset.
type Brown struct {
	r *Rand
	y float64
}

func NewBrown(r *Rand) *Brown { return &Brown{r: r} }

func (b *Brown) Next() float64 {
	b.y = (b.y + 0.02*b.r.White()) / 1.02
	return b.y * 3.5
}

// Wander is smooth random motion in [0, 1]: random control points every
// 1/rate seconds joined by cosine interpolation. It drives the slow
// modulations (gust strength, filter sweeps) that keep a bed alive.
type Wander struct {
	r          *Rand
	step, t    float64
	prev, next float64
}

func NewWander(r *Rand, rate float64, sampleRate int) *Wander {
	return &Wander{r: r, step: rate / float64(sampleRate), prev: r.Float(), next: r.Float()}
}

func (w *Wander) Next() float64 {
	w.t += w.step
	for w.t >= 1 {
		w.t--
		w.prev, w.next = w.next, w.r.Float()
	}
	k := w.t * w.t * (3 - 2*w.t)
	return w.prev + (w.next-w.prev)*k
}

// ---- filters ----

// Biquad is a second-order IIR section with coefficients from Robert
// Bristow-Johnson's "Audio EQ Cookbook", direct form I.
type Biquad struct {
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
	rate               float64
}

func NewBiquad(rate int) *Biquad { return &Biquad{rate: float64(rate), b0: 1} }

func (f *Biquad) set(b0, b1, b2, a0, a1, a2 float64) {
	f.b0, f.b1, f.b2, f.a1, f.a2 = b0/a0, b1/a0, b2/a0, a1/a0, a2/a0
}

func (f *Biquad) w0(hz float64) (cos, alphaPerQ float64) {
	hz = math.Min(math.Max(hz, 10), 0.45*f.rate)
	w := 2 * math.Pi * hz / f.rate
	return math.Cos(w), math.Sin(w) / 2
}

// Lowpass, Highpass and Bandpass (constant 0 dB peak gain) set the response.
func (f *Biquad) Lowpass(hz, q float64) *Biquad {
	c, s := f.w0(hz)
	a := s / q
	f.set((1-c)/2, 1-c, (1-c)/2, 1+a, -2*c, 1-a)
	return f
}

func (f *Biquad) Highpass(hz, q float64) *Biquad {
	c, s := f.w0(hz)
	a := s / q
	f.set((1+c)/2, -(1 + c), (1+c)/2, 1+a, -2*c, 1-a)
	return f
}

func (f *Biquad) Bandpass(hz, q float64) *Biquad {
	c, s := f.w0(hz)
	a := s / q
	f.set(a, 0, -a, 1+a, -2*c, 1-a)
	return f
}

func (f *Biquad) Next(x float64) float64 {
	y := f.b0*x + f.b1*f.x1 + f.b2*f.x2 - f.a1*f.y1 - f.a2*f.y2
	f.x2, f.x1 = f.x1, x
	f.y2, f.y1 = f.y1, y
	return y
}

// ---- envelopes and levels ----

// Smooth is the cubic smoothstep of x clamped to [0, 1].
func Smooth(x float64) float64 {
	x = math.Min(math.Max(x, 0), 1)
	return x * x * (3 - 2*x)
}

// Fade applies raised-cosine fades: no click at either end of a one-shot.
func (b *Buf) Fade(in, out float64) *Buf {
	ni, no := int(in*float64(b.Rate)), int(out*float64(b.Rate))
	for i := 0; i < ni && i < len(b.S); i++ {
		b.S[i] *= (1 - math.Cos(math.Pi*float64(i)/float64(ni))) / 2
	}
	for i := 0; i < no && i < len(b.S); i++ {
		b.S[len(b.S)-1-i] *= (1 - math.Cos(math.Pi*float64(i)/float64(no))) / 2
	}
	return b
}

// FadePower applies equal-power (sine/cosine) fades. Two uncorrelated beds
// overlapping by the fade length keep a constant loudness through the join,
// which is how a bed re-fired every (length − fade) seconds tiles.
func (b *Buf) FadePower(d float64) *Buf {
	n := int(d * float64(b.Rate))
	for i := 0; i < n && i < len(b.S); i++ {
		g := math.Sin(math.Pi / 2 * float64(i) / float64(n))
		b.S[i] *= g
		b.S[len(b.S)-1-i] *= g
	}
	return b
}

// Peak is the largest magnitude.
func (b *Buf) Peak() float64 {
	p := 0.0
	for _, v := range b.S {
		if v > p {
			p = v
		} else if -v > p {
			p = -v
		}
	}
	return p
}

// RMS is the root mean square level.
func (b *Buf) RMS() float64 {
	if len(b.S) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range b.S {
		s += v * v
	}
	return math.Sqrt(s / float64(len(b.S)))
}

// Scale multiplies every sample.
func (b *Buf) Scale(g float64) *Buf {
	for i := range b.S {
		b.S[i] *= g
	}
	return b
}

// NormalizePeak scales to the given peak (linear).
func (b *Buf) NormalizePeak(peak float64) *Buf {
	if p := b.Peak(); p > 0 {
		b.Scale(peak / p)
	}
	return b
}

// NormalizeRMS scales to the given RMS, then lowers the whole buffer if a
// peak would pass maxPeak.
func (b *Buf) NormalizeRMS(rms, maxPeak float64) *Buf {
	if r := b.RMS(); r > 0 {
		b.Scale(rms / r)
	}
	if p := b.Peak(); p > maxPeak {
		b.Scale(maxPeak / p)
	}
	return b
}

// DB converts decibels to a linear gain.
func DB(db float64) float64 { return math.Pow(10, db/20) }

// ---- space ----

// Reverb adds a Schroeder reverberator's tail (four parallel feedback combs
// into two series allpasses, Schroeder 1962, delays from Moorer's tunings)
// mixed in at wet, extending the buffer by tail seconds. A call heard across a
// valley is mostly its reflections; this gives the demo's animals that room.
func (b *Buf) Reverb(wet, decay, tail float64) *Buf {
	out := make([]float64, len(b.S)+int(tail*float64(b.Rate)))
	copy(out, b.S)
	combs := []float64{0.0297, 0.0371, 0.0411, 0.0437}
	wetSig := make([]float64, len(out))
	for _, d := range combs {
		n := max(1, int(d*float64(b.Rate)))
		g := math.Pow(0.001, d/decay) // −60 dB after decay seconds
		line := make([]float64, n)
		lp := 0.0
		for i := range out {
			y := line[i%n]
			lp = 0.7*y + 0.3*lp // damping: highs die first, as in air and foliage
			line[i%n] = out[i] + g*lp
			wetSig[i] += y / 4
		}
	}
	for _, d := range []float64{0.005, 0.0017} {
		n := max(1, int(d*float64(b.Rate)))
		line := make([]float64, n)
		for i := range wetSig {
			y := line[i%n]
			x := wetSig[i] + 0.7*y
			line[i%n] = x
			wetSig[i] = y - 0.7*x
		}
	}
	for i := range out {
		out[i] += wet * wetSig[i]
	}
	b.S = out
	return b
}
