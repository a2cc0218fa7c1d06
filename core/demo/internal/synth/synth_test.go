package synth

import (
	"math"
	"testing"
)

// SplitMix64 from state 0 gives the reference generator's first outputs.
func TestRandSplitMix64(t *testing.T) {
	r := NewRand(0)
	for i, want := range []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F} {
		if got := r.Uint64(); got != want {
			t.Errorf("output %d: %016X, want %016X", i, got, want)
		}
	}
}

// gainAt measures a filter's steady-state gain for a sine of hz.
func gainAt(f *Biquad, rate int, hz float64) float64 {
	peak := 0.0
	for i := 0; i < rate; i++ {
		y := f.Next(math.Sin(2 * math.Pi * hz * float64(i) / float64(rate)))
		if i > rate/2 {
			peak = math.Max(peak, math.Abs(y))
		}
	}
	return peak
}

func TestBiquadResponses(t *testing.T) {
	const rate = 22050
	tests := []struct {
		name string
		f    *Biquad
		hz   float64
		want float64 // linear gain
	}{
		{"lowpass passband", NewBiquad(rate).Lowpass(1000, 0.7071), 100, 1},
		{"lowpass at cutoff (−3 dB)", NewBiquad(rate).Lowpass(1000, 0.7071), 1000, math.Sqrt(0.5)},
		{"lowpass two octaves up (≈ −24 dB)", NewBiquad(rate).Lowpass(1000, 0.7071), 4000, 0.063},
		{"highpass passband", NewBiquad(rate).Highpass(1000, 0.7071), 8000, 1},
		{"bandpass centre (0 dB peak)", NewBiquad(rate).Bandpass(2000, 2), 2000, 1},
		{"bandpass an octave off", NewBiquad(rate).Bandpass(2000, 2), 4000, 0.3},
	}
	for _, tt := range tests {
		if g := gainAt(tt.f, rate, tt.hz); math.Abs(g-tt.want) > 0.03 {
			t.Errorf("%s: gain %.3f, want %.3f", tt.name, g, tt.want)
		}
	}
}

// Two beds overlapping by the fade keep constant power through the join:
// sin² + cos² = 1 at every point of the overlap.
func TestFadePowerCrossfade(t *testing.T) {
	b := &Buf{Rate: 100, S: make([]float64, 400)}
	for i := range b.S {
		b.S[i] = 1
	}
	b.FadePower(1)
	for i := 0; i < 100; i++ {
		out, in := b.S[300+i], b.S[i] // the tail of one firing over the head of the next
		if p := out*out + in*in; math.Abs(p-1) > 0.07 {
			t.Fatalf("overlap sample %d: power %.3f", i, p)
		}
	}
	if b.S[0] != 0 || b.S[200] != 1 {
		t.Errorf("fade shape: start %v middle %v", b.S[0], b.S[200])
	}
}

// Every recipe is deterministic and lands at its level.
func TestRecipesLevels(t *testing.T) {
	a, b := Songbird(22050, 5), Songbird(22050, 5)
	for i := range a.S {
		if a.S[i] != b.S[i] {
			t.Fatalf("songbird differs at sample %d between two renders", i)
		}
	}
	if p := a.Peak(); math.Abs(p-CallPeak) > 1e-9 {
		t.Errorf("call peak %v, want %v", p, CallPeak)
	}
	if r := MeadowBreeze(11025, 4, 1).RMS(); math.Abs(r-BedRMS) > 1e-9 {
		t.Errorf("bed RMS %v, want %v", r, BedRMS)
	}
	h := WolfHowl(11025, [4]float64{400, 600, 550, 380}, 2, 1)
	if got := h.Seconds(); math.Abs(got-(2+1.6)) > 0.01 {
		t.Errorf("howl of 2 s with a 1.6 s reverb tail lasts %.2f s", got)
	}
}
