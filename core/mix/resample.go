package mix

import (
	"math"
	"sync"

	"acambient/core/audio"
	"acambient/core/samples"
)

// Band-limited sample-rate conversion: a Kaiser-windowed sinc evaluated as
// a polyphase table (J. O. Smith, "Digital Audio Resampling"). No pure-Go
// resampler is served by the module proxy (zaf/resample wraps libsoxr and
// needs cgo), so this one is ours; resample_test.go measures it.
//
// The filter is designed against the lower of the two rates (its Nyquist
// frequency is "Ny"): passband to 0.9·Ny, stopband from Ny, so nothing the
// output cannot carry folds back and no image of the input above Ny
// survives, each at least stopDB down.
const (
	passEdge = 0.9  // passband edge, fraction of the lower Nyquist
	stopEdge = 1.0  // stopband edge
	stopDB   = 80.0 // Kaiser design attenuation; the tests ask for 60
	// maxRows bounds the phase table. A ratio that reduces to more phases
	// than this (22222 → 48000, say) reads between rows linearly; the error
	// of that at 1024 rows is below −110 dB.
	maxRows = 1024
)

// resampler converts one pair of rates. It is immutable once built, so
// one table serves every wave at that rate.
type resampler struct {
	in, out int // rates reduced by their gcd: out output frames span in input frames
	half    int // taps on each side of the output instant, in input samples
	rows    int // phase rows (out when exact, else maxRows)
	exact   bool
	coef    []float32 // (rows+1) rows of 2·half taps
}

// resamplers holds every filter designed or being designed, by rate pair:
// a table is immutable and costs milliseconds to design (57 ms for 22050 →
// 48000 in the browser, BenchmarkDesign), so the process shares it, and
// Prepare can make it before the first wave at that rate plays.
var resamplers struct {
	sync.Mutex
	m map[[2]int]*design
}

type design struct {
	once sync.Once
	r    *resampler
}

// resamplerFor is the (shared) resampler for inRate → outRate.
func resamplerFor(inRate, outRate int) *resampler {
	return designFor(inRate, outRate, nil)
}

// Prepare designs the resampler for inRate → outRate now, unless it is
// designed already, calling yield (if not nil) between pieces of the work:
// under GOOS=js, where the mixer shares the page's one thread, a host that
// calls it while it waits on the network takes the design off the first
// sound's path. The filter is the same whoever designs it.
func Prepare(inRate, outRate int, yield func()) {
	if inRate > 0 && outRate > 0 && inRate != outRate {
		designFor(inRate, outRate, yield)
	}
}

func designFor(inRate, outRate int, yield func()) *resampler {
	k := [2]int{inRate, outRate}
	resamplers.Lock()
	d := resamplers.m[k]
	if d == nil {
		if resamplers.m == nil {
			resamplers.m = map[[2]int]*design{}
		}
		d = &design{}
		resamplers.m[k] = d
	}
	resamplers.Unlock()
	d.once.Do(func() { d.r = newResamplerYielding(inRate, outRate, yield) })
	return d.r
}

// newResampler designs the filter for inRate → outRate.
func newResampler(inRate, outRate int) *resampler {
	return newResamplerYielding(inRate, outRate, nil)
}

// designYieldRows is how many phase rows Prepare designs between yields
// (a few milliseconds of work in the browser).
const designYieldRows = 32

func newResamplerYielding(inRate, outRate int, yield func()) *resampler {
	g := gcd(inRate, outRate)
	r := &resampler{in: inRate / g, out: outRate / g}
	scale := 1.0 // filter bandwidth relative to the input's Nyquist
	if outRate < inRate {
		scale = float64(outRate) / float64(inRate)
	}
	// Kaiser's formulas: β from the attenuation, length from the transition
	// width (in cycles per input sample).
	beta := 0.1102 * (stopDB - 8.7)
	width := 0.5 * (stopEdge - passEdge) * scale
	length := (stopDB - 7.95) / (14.36 * width)
	r.half = int(math.Ceil(length / 2))
	fc := 0.5 * (passEdge + stopEdge) / 2 * scale // cutoff, cycles per input sample

	r.rows, r.exact = r.out, true
	if r.out > maxRows {
		r.rows, r.exact = maxRows, false
	}
	taps := 2 * r.half
	r.coef = make([]float32, (r.rows+1)*taps)
	i0beta := besselI0(beta)
	row := make([]float64, taps)
	for p := 0; p <= r.rows; p++ {
		if yield != nil && p > 0 && p%designYieldRows == 0 {
			yield()
		}
		// Row p serves output instants φ = p/rows of an input sample past
		// input n; tap m weighs input n−half+1+m, at distance φ+half−1−m.
		phi := float64(p) / float64(r.rows)
		sum := 0.0
		for m := range row {
			t := phi + float64(r.half-1-m)
			x := t / float64(r.half)
			w := 0.0
			if x > -1 && x < 1 {
				w = besselI0(beta*math.Sqrt(1-x*x)) / i0beta
			}
			row[m] = 2 * fc * sinc(2*fc*t) * w
			sum += row[m]
		}
		// Each row sums to exactly 1: DC passes unchanged at every phase.
		for m, v := range row {
			r.coef[p*taps+m] = float32(v / sum)
		}
	}
	return r
}

// window is the inputs [lo, hi) output frames [j0, j1) read: output
// frame j reads inputs floor(j·in/out)−half+1 … floor(j·in/out)+half.
func (r *resampler) window(j0, j1 int) (lo, hi int) {
	lo = int(int64(j0)*int64(r.in)/int64(r.out)) - r.half + 1
	hi = int(int64(j1-1)*int64(r.in)/int64(r.out)) + r.half + 1
	return lo, hi
}

// frames is how many output frames n input frames make: floor(n·out/in),
// never more, so that a voice never outlasts the engine's start+duration.
func (r *resampler) frames(n int) int {
	return int(int64(n) * int64(r.out) / int64(r.in))
}

// run computes output frames [j0, j1) of one channel into dst (dstStride
// apart, dst[0] being frame j0's) from pad: the channel's input, sanitized,
// from input lo on (zeros before 0 and past the end), as far as the
// filter reaches for those frames (window).
func (r *resampler) run(dst []float32, dstStride int, pad []float32, lo, j0, j1 int) {
	taps := 2 * r.half
	for j := j0; j < j1; j++ {
		pos := int64(j) * int64(r.in) // output j sits at input pos/out
		base := int(pos / int64(r.out))
		rem := int(pos % int64(r.out))
		at := base - r.half + 1 - lo
		x := pad[at : at+taps] // inputs base−half+1 … base+half
		if r.exact {
			dst[(j-j0)*dstStride] = dot(x, r.coef[rem*taps:rem*taps+taps])
			continue
		}
		q := int64(rem) * int64(r.rows)
		row := int(q / int64(r.out))
		f := float32(float64(q%int64(r.out)) / float64(r.out))
		c0 := r.coef[row*taps : row*taps+taps]
		c1 := r.coef[(row+1)*taps : (row+1)*taps+taps]
		c1 = c1[:len(c0)]
		x = x[:len(c0)]
		var acc float32
		for m, c := range c0 {
			acc += x[m] * (c + f*(c1[m]-c))
		}
		dst[(j-j0)*dstStride] = acc
	}
}

// dot is Σ x[m]·c[m], summed in order from m = 0 in float32 (the order is
// the output's: every sum the mixer makes must come out bit for bit the
// same, in `render` and in the page). Eight taps a step, with the bounds
// proved once per step: the filter is most of what a first play costs,
// and under GOOS=js a bounds check a tap was a large part of it.
func dot(x, c []float32) float32 {
	c = c[:len(x)]
	var acc float32
	m := 0
	for ; m+8 <= len(x); m += 8 {
		xs, cs := x[m:m+8:m+8], c[m:m+8:m+8]
		acc += xs[0] * cs[0]
		acc += xs[1] * cs[1]
		acc += xs[2] * cs[2]
		acc += xs[3] * cs[3]
		acc += xs[4] * cs[4]
		acc += xs[5] * cs[5]
		acc += xs[6] * cs[6]
		acc += xs[7] * cs[7]
	}
	for ; m < len(x); m++ {
		acc += x[m] * c[m]
	}
	return acc
}

// clip is a wave at the mixer's rate: 1 or 2 channels, interleaved, every
// sample finite (the filter may overshoot ±1 a little on full-scale steps;
// the master limiter sees to the output).
//
// A resampled clip is computed as its voices reach it (fill), not all at
// once when it starts: a long wave's first play then costs the audio thread
// a block's worth of filtering, not the whole wave's, which matters under
// GOOS=js, where the mixer shares one thread with the page. Its samples
// are held in the blocks of core/samples, taken as the fills reach them.
type clip struct {
	data   *samples.Buf // in blocks, as the waves are (core/samples)
	ch     int
	frames int
	done   int // frames of data computed so far
	r      *resampler
	// While filling: per channel the window of input the filter reads for
	// the frames of one fill, sanitized (window), reused from fill to fill;
	// nil once done. Not the whole input: a copy the size of the wave for
	// as long as its first play lasts, uncounted by the cache, was garbage
	// of a wave's size at every first play, whose holes grew the page's
	// linear memory (docs/architecture.md §4.8).
	pad [2][]float32
	src *audio.PCM
}

// fillAhead is the least a fill computes: fewer, larger steps.
const fillAhead = 2048

// fill makes sure frames [0, upTo) of data are computed.
func (c *clip) fill(upTo int) {
	if upTo <= c.done {
		return
	}
	upTo = min(c.frames, max(upTo, c.done+fillAhead))
	lo, hi := c.r.window(c.done, upTo)
	n := c.src.Frames()
	c.data.Resize(upTo * c.ch) // the blocks come as the fills reach them
	for k := 0; k < c.ch; k++ {
		if cap(c.pad[k]) < hi-lo {
			c.pad[k] = make([]float32, hi-lo)
		}
		pad := c.pad[k][:hi-lo]
		for i := range pad {
			pad[i] = 0
			if in := lo + i; in >= 0 && in < n {
				pad[i] = sanitize(c.src.Samples.At(in*c.src.Channels + k))
			}
		}
		// A block holds whole frames (ch is 1 or 2): one run a block.
		for j := c.done; j < upTo; {
			span := c.data.Span(j*c.ch, (upTo-j)*c.ch)
			j1 := j + len(span)/c.ch
			c.r.run(span[k:], c.ch, pad, lo, j, j1)
			j = j1
		}
	}
	c.done = upTo
	if c.done == c.frames {
		c.pad, c.src = [2][]float32{}, nil
	}
}

// bytes is the clip's size once computed, in whole blocks (what the cache
// budgets; the input window a clip holds while filling is transient).
func (c *clip) bytes() int64 { return samples.BytesFor(c.frames * c.ch) }

// convert makes the clip of p at the output rate (r nil when the rates are
// equal: then it is a plain copy, done at once). Mono stays mono; a stereo
// wave keeps its channels; of more channels the first two (front left,
// front right in WAVEFORMATEX order) are kept. Input samples are sanitized
// once, before filtering (as fill reaches them): NaN becomes 0 and the
// rest is clamped to [-1, 1], so one bad sample cannot smear across the
// filter.
func convert(p *audio.PCM, r *resampler) *clip {
	n := p.Frames()
	ch := min(p.Channels, 2)
	c := &clip{ch: ch, frames: n, done: n, r: r}
	if r == nil {
		c.data = samples.New()
		for i := 0; i < n; i++ {
			for k := 0; k < ch; k++ {
				c.data.Append(sanitize(p.Samples.At(i*p.Channels + k)))
			}
		}
		return c
	}
	c.frames, c.done, c.src = r.frames(n), 0, p
	c.data = samples.New()
	return c
}

// sanitize maps NaN to 0 and clamps to [-1, 1] (±Inf to ±1).
func sanitize(v float32) float32 {
	switch {
	case v != v:
		return 0
	case v > 1:
		return 1
	case v < -1:
		return -1
	}
	return v
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the modified Bessel function of the first kind, order 0, by
// its power series (converges fast for the β·x ≤ 10 a Kaiser window needs).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 64; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
