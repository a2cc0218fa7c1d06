package mix

import (
	"fmt"
	"math"
	"testing"

	"acambient/core/audio"
)

// tone is a mono sine of frequency f at rate, amplitude a, n frames.
func tone(rate int, f, a float64, n int) *audio.PCM {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(a * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return audio.NewPCM(rate, 1, s)
}

// fitSine fits y ≈ c·cos(ωi) + s·sin(ωi) by least squares (ω in radians a
// sample) and returns the fitted amplitude and the RMS of what is left.
func fitSine(y []float32, w float64) (amp, residual float64) {
	var cc, cs, ss, yc, ys float64
	for i, v := range y {
		c, s := math.Cos(w*float64(i)), math.Sin(w*float64(i))
		cc += c * c
		cs += c * s
		ss += s * s
		yc += float64(v) * c
		ys += float64(v) * s
	}
	det := cc*ss - cs*cs
	a := (yc*ss - ys*cs) / det
	b := (ys*cc - yc*cs) / det
	var e float64
	for i, v := range y {
		d := float64(v) - a*math.Cos(w*float64(i)) - b*math.Sin(w*float64(i))
		e += d * d
	}
	return math.Hypot(a, b), math.Sqrt(e / float64(len(y)))
}

func rms(y []float32) float64 {
	var e float64
	for _, v := range y {
		e += float64(v) * float64(v)
	}
	return math.Sqrt(e / float64(len(y)))
}

func db(x float64) float64 { return 20 * math.Log10(x) }

// TestResamplerSweep steps a sine through the input band and measures the
// output: in the passband (to 0.9 × the lower Nyquist) the tone's level
// within 0.1 dB of the input's, and everything else in the output (aliases,
// images, filter noise) at least 60 dB below the tone; a tone above the
// output's Nyquist (downsampling) comes out at least 60 dB down in total.
func TestResamplerSweep(t *testing.T) {
	for _, pair := range [][2]int{{22050, 48000}, {44100, 48000}, {11025, 48000}, {48000, 44100}, {8000, 48000}, {22222, 48000}} {
		in, out := pair[0], pair[1]
		t.Run(fmt.Sprintf("%d-%d", in, out), func(t *testing.T) {
			r := newResampler(in, out)
			nyLow := 0.5 * float64(min(in, out))
			const amp = 0.5
			worstPass, worstAlias, worstStop := 0.0, -999.0, -999.0
			for i := 1; i <= 60; i++ {
				f := 0.5 * float64(in) * float64(i) / 61 // up to 0.98 of the input's Nyquist
				y := convertAll(tone(in, f, amp, in/4), r).data.Flat()
				y = y[len(y)/4 : 3*len(y)/4] // away from the zero-padded ends
				w := 2 * math.Pi * f / float64(out)
				switch {
				case f <= passEdge*nyLow:
					a, res := fitSine(y, w)
					worstPass = max(worstPass, math.Abs(db(a/amp)))
					worstAlias = max(worstAlias, db(res/(amp/math.Sqrt2)))
				case f >= nyLow: // the output cannot carry it: all of it is alias
					worstStop = max(worstStop, db(rms(y)/(amp/math.Sqrt2)))
				default: // transition band: level free, nothing else may appear
					_, res := fitSine(y, w)
					worstAlias = max(worstAlias, db(res/(amp/math.Sqrt2)))
				}
			}
			t.Logf("passband deviation %.4f dB, worst other content %.1f dB, worst stopband leak %.1f dB",
				worstPass, worstAlias, worstStop)
			if !(worstPass <= 0.1) {
				t.Errorf("passband deviates %.3f dB (want ≤ 0.1)", worstPass)
			}
			if !(worstAlias <= -60 && worstStop <= -60) {
				t.Errorf("aliases at %.1f dB, stopband at %.1f dB (want ≤ −60)", worstAlias, worstStop)
			}
		})
	}
}

// TestResamplerLengthAndDC: the output has floor(n·out/in) frames, a
// constant stays that constant (every phase row sums to 1) away from the
// ends, and output frame j samples the input at j·in/out (an impulse at
// input 147 lands on output 320 at 22050 → 48000).
func TestResamplerLengthAndDC(t *testing.T) {
	r := newResampler(22050, 48000)
	if got := r.frames(22050); got != 48000 {
		t.Errorf("frames(22050) = %d, want 48000", got)
	}
	if got := r.frames(1001); got != 1001*48000/22050 {
		t.Errorf("frames(1001) = %d, want %d", got, 1001*48000/22050)
	}
	c := convertAll(dc(22050, 2000, 0.25), r)
	y := c.data.Flat()
	for j := 200; j < c.frames-200; j++ {
		if d := math.Abs(float64(y[j]) - 0.25); d > 1e-6 {
			t.Fatalf("DC frame %d = %v, want 0.25", j, y[j])
		}
	}
	imp := dc(22050, 400, 0)
	imp.Samples.Set(147, 1)
	y = convertAll(imp, r).data.Flat()
	peak := 0
	for j := range y {
		if math.Abs(float64(y[j])) > math.Abs(float64(y[peak])) {
			peak = j
		}
	}
	if peak != 320 {
		t.Errorf("impulse at input 147 peaks at output %d, want 320", peak)
	}
}

// TestConvertChannels: a stereo wave keeps its channels apart; a 4-channel
// one keeps its first two; NaN and ±Inf input samples become finite.
func TestConvertChannels(t *testing.T) {
	r := newResampler(24000, 48000)
	s := make([]float32, 4*1000)
	for i := 0; i < 1000; i++ {
		s[4*i], s[4*i+1], s[4*i+2], s[4*i+3] = 0.5, -0.25, 0.9, 0.9
	}
	s[4*500] = float32(math.NaN())
	s[4*501+1] = float32(math.Inf(1))
	c := convertAll(audio.NewPCM(24000, 4, s), r)
	y := c.data.Flat()
	if c.ch != 2 || c.frames != 2000 {
		t.Fatalf("clip has %d channels, %d frames; want 2, 2000", c.ch, c.frames)
	}
	for j := 0; j < c.frames; j++ {
		l, rr := y[2*j], y[2*j+1]
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) || math.IsNaN(float64(rr)) || math.IsInf(float64(rr), 0) {
			t.Fatalf("frame %d = %v, %v: not finite", j, l, rr)
		}
		if j > 200 && j < 800 && (math.Abs(float64(l)-0.5) > 1e-5 || math.Abs(float64(rr)+0.25) > 1e-5) {
			t.Fatalf("frame %d = %v, %v; want 0.5, -0.25", j, l, rr)
		}
	}
	// The identity path (equal rates) sanitizes too.
	c = convert(audio.NewPCM(48000, 1, []float32{float32(math.NaN()), 2, -3, 0.5}), nil)
	if want := []float32{0, 1, -1, 0.5}; fmt.Sprint(c.data.Flat()) != fmt.Sprint(want) {
		t.Errorf("identity convert = %v, want %v", c.data.Flat(), want)
	}
}

// convertAll is convert with every frame computed.
func convertAll(p *audio.PCM, r *resampler) *clip {
	c := convert(p, r)
	c.fill(c.frames)
	return c
}

// TestClipFillsInSteps: a clip computed a little at a time, in any steps,
// equals the clip computed at once, and lets go of its input when done.
func TestClipFillsInSteps(t *testing.T) {
	p := tone(22050, 1234, 0.8, 30001)
	r := newResampler(22050, 48000)
	whole := convertAll(p, r)
	c := convert(p, r)
	for _, up := range []int{1, 1, 5000, 4999, 17, 60000, c.frames} {
		c.fill(up)
		if c.done < min(up, c.frames) {
			t.Fatalf("fill(%d) left done at %d", up, c.done)
		}
	}
	if !equal(c.data.Flat(), whole.data.Flat()) {
		t.Error("stepwise fill differs from the whole")
	}
	if c.pad[0] != nil {
		t.Error("a finished clip still holds its input")
	}
}

func BenchmarkResample(b *testing.B) {
	for _, pair := range [][2]int{{22050, 48000}, {44100, 48000}, {48000, 44100}, {22222, 48000}} {
		b.Run(fmt.Sprintf("%d-%d", pair[0], pair[1]), func(b *testing.B) {
			p := tone(pair[0], 440, 0.5, pair[0]) // one second
			r := newResampler(pair[0], pair[1])
			b.SetBytes(int64(4 * pair[1])) // output bytes per op
			b.ReportAllocs()
			for b.Loop() {
				convertAll(p, r)
			}
			b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)*1e3, "ms/s-of-audio")
		})
	}
}

// Prepare designs ahead, in pieces, the very filter a first play would
// design: the shared table is Prepare's, equal tap for tap to one designed
// at once, and the work yielded between pieces.
func TestPrepareDesignsTheSameFilter(t *testing.T) {
	const in, out = 22051, 48000 // a pair no other test shares
	yields := 0
	Prepare(in, out, func() { yields++ })
	want := newResampler(in, out)
	if n := want.rows / designYieldRows; yields != n {
		t.Errorf("Prepare yielded %d times over %d rows, want %d", yields, want.rows, n)
	}
	got := resamplerFor(in, out)
	if got.half != want.half || got.rows != want.rows || got.exact != want.exact || !equal(got.coef, want.coef) {
		t.Fatalf("the shared filter differs from a fresh design: half %d/%d rows %d/%d", got.half, want.half, got.rows, want.rows)
	}
	n := yields
	Prepare(in, out, func() { yields++ })
	if yields != n || resamplerFor(in, out) != got {
		t.Fatal("a second Prepare designed again")
	}
}

// TestRunMatchesTheDirectSum: the filter's unrolled sum gives, sample for
// sample and bit for bit, what the plain tap-by-tap loop gives (the order
// of a float32 sum is the output's: `render` and its golden files depend
// on it), at an exact ratio and at one read between rows.
func TestRunMatchesTheDirectSum(t *testing.T) {
	for _, pair := range [][2]int{{22050, 48000}, {22222, 48000}, {48000, 44100}, {11025, 48000}} {
		r := newResampler(pair[0], pair[1])
		p := tone(pair[0], 3001, 0.9, 4000)
		got := convertAll(p, r).data.Flat()
		want := make([]float32, r.frames(4000))
		taps := 2 * r.half
		for j := range want {
			pos := int64(j) * int64(r.in)
			base, rem := int(pos/int64(r.out)), int(pos%int64(r.out))
			var acc float32
			for m := 0; m < taps; m++ {
				in := base - r.half + 1 + m
				var v float32
				if in >= 0 && in < p.Samples.Len() {
					v = p.Samples.At(in)
				}
				if r.exact {
					acc += v * r.coef[rem*taps+m]
					continue
				}
				q := int64(rem) * int64(r.rows)
				row := int(q / int64(r.out))
				f := float32(float64(q%int64(r.out)) / float64(r.out))
				c0, c1 := r.coef[row*taps+m], r.coef[(row+1)*taps+m]
				acc += v * (c0 + f*(c1-c0))
			}
			want[j] = acc
		}
		for j := range want {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				t.Fatalf("%d → %d: frame %d is %v, the direct sum %v", pair[0], pair[1], j, got[j], want[j])
			}
		}
	}
}

// TestVoiceResamplesWhatItReaches: a voice never plays a frame its clip has
// not computed: it resamples on demand what it reaches (the audio thread
// cannot wait: a wait is a dropout), so whatever has been computed ahead
// (another voice on the same clip, earlier reads) and whatever the blocks
// the mixer is read in, every frame heard is the whole-clip resampler's,
// sample for sample: no zeros, nothing stale.
func TestVoiceResamplesWhatItReaches(t *testing.T) {
	p := tone(22050, 997, 0.25, 2*22050)
	whole := convertAll(p, newResampler(22050, DefaultRate)).data.Flat()
	// Slot 0 from 0 s, slot 1 on the same wave (the same clip, which slot
	// 0 has computed a little beyond half a second by then) from 0.5 s.
	m := newMixer(t, newFake(map[uint32]*audio.PCM{1: p}, play(0, 0, 1, 0, 0), play(0.5, 1, 1, 0, 0)), Options{})
	var out []float32
	for i, blocks := 0, []int{1, 777, 2048, 5000, 3, 1600, 9999}; len(out) < 2*len(whole)+2*DefaultRate; i++ {
		buf := make([]float32, 2*blocks[i%len(blocks)])
		m.ReadFloat(buf)
		out = append(out, buf...)
	}
	second := DefaultRate / 2
	for j := 0; j < len(whole)+second; j++ {
		var want float32
		if j < len(whole) {
			want += whole[j]
		}
		if k := j - second; k >= 0 && k < len(whole) {
			want += whole[k]
		}
		if out[2*j] != want || out[2*j+1] != want {
			t.Fatalf("frame %d: %v, %v; want %v from the whole clip", j, out[2*j], out[2*j+1], want)
		}
	}
}
