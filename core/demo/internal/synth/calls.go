package synth

import "math"

// Calls are the intermittent one-shots: animals and gusts. Each ends with
// raised-cosine fades (no click at either end) and peaks at −1 dBFS; the
// engine's distance gain (25·V/r²) sets how loud they land.

// CallPeak is every one-shot's peak level.
var CallPeak = DB(-1)

func finishCall(b *Buf) *Buf {
	return b.Fade(0.006, 0.04).NormalizePeak(CallPeak)
}

// tone renders a harmonic tone over dur seconds whose pitch and amplitude
// follow f(u) and env(u), u going 0 → 1; harm holds the harmonics' amplitudes.
// Harmonics at or above 0.45·rate are left out (no aliasing).
func tone(rate int, dur float64, f, env func(u float64) float64, harm []float64) *Buf {
	b := NewBuf(rate, dur)
	ph := 0.0
	for i := range b.S {
		u := float64(i) / float64(len(b.S))
		fr := f(u)
		ph += 2 * math.Pi * fr / float64(rate)
		if ph > 2*math.Pi {
			ph -= 2 * math.Pi
		}
		// sin(kφ) by the Chebyshev recurrence sin((k+1)φ) = 2cos φ·sin kφ − sin((k−1)φ):
		// one sine and cosine a sample instead of one a harmonic.
		s1, c1 := math.Sincos(ph)
		prev, cur := 0.0, s1
		v := 0.0
		for k, a := range harm {
			if float64(k+1)*fr >= 0.45*float64(rate) {
				break
			}
			v += a * cur
			prev, cur = cur, 2*c1*cur-prev
		}
		b.S[i] = v * env(u)
	}
	return b
}

// syllableEnv rises over the first att of the syllable and falls away over
// the last rel, both as sin² (a bird's syrinx opens and closes smoothly).
func syllableEnv(att, rel float64) func(u float64) float64 {
	return func(u float64) float64 {
		e := 1.0
		if u < att {
			s := math.Sin(math.Pi / 2 * u / att)
			e = s * s
		}
		if u > 1-rel {
			s := math.Sin(math.Pi / 2 * (1 - u) / rel)
			e *= s * s
		}
		return e
	}
}

// Songbird: a meadow songbird's phrase. A motif of two or three syllable
// shapes (upsweeps, downsweeps, chevrons, trills) is sung, repeated with
// small changes, and closed by a flourish; a whisper of room follows.
func Songbird(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	base := r.Range(2800, 4200)
	type syl struct{ kind, f0, f1, dur float64 }
	motif := make([]syl, 2+r.Intn(2))
	for i := range motif {
		motif[i] = syl{float64(r.Intn(4)), base * r.Range(0.75, 1.3), base * r.Range(0.75, 1.4), r.Range(0.05, 0.12)}
	}
	out := NewBuf(rate, 3)
	t := 0.02
	reps := 2 + r.Intn(3)
	for rep := 0; rep < reps; rep++ {
		for _, s := range motif {
			f0, f1 := s.f0*r.Range(0.97, 1.03), s.f1*r.Range(0.97, 1.03)
			var f func(u float64) float64
			switch s.kind {
			case 0: // sweep
				f = func(u float64) float64 { return f0 + (f1-f0)*u }
			case 1: // chevron
				f = func(u float64) float64 { return f0 + (f1-f0)*math.Sin(math.Pi*u)*1.2 }
			case 2: // trill
				f = func(u float64) float64 { return f0 + 0.12*f0*math.Sin(2*math.Pi*45*u*s.dur) }
			default: // whistle with a drop at the end
				f = func(u float64) float64 { return f0 * (1 - 0.25*u*u*u) }
			}
			amp := r.Range(0.6, 1) * (1 - 0.15*float64(rep)/float64(reps))
			out.Add(tone(rate, s.dur, f, syllableEnv(0.15, 0.4), []float64{1, 0.12, 0.03}), t, amp)
			t += s.dur + r.Range(0.025, 0.07)
		}
		t += r.Range(0.04, 0.12)
	}
	// Flourish: a fast descending run of short notes.
	for k := 0; k < 3+r.Intn(3); k++ {
		f0 := base * (1.35 - 0.1*float64(k))
		out.Add(tone(rate, 0.03, func(u float64) float64 { return f0 * (1 - 0.2*u) }, syllableEnv(0.2, 0.5), []float64{1, 0.1}), t, 0.7)
		t += 0.045
	}
	out.S = out.S[:min(len(out.S), int((t+0.05)*float64(rate)))]
	return finishCall(out.Reverb(0.12, 0.6, 0.4))
}

// Thrush: a forest thrush's fluty phrase: a few clear notes with a touch of
// vibrato and breath, each phrase ending in a soft trill, rich in reflections.
func Thrush(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	out := NewBuf(rate, 3)
	t := 0.03
	for n := 0; n < 3+r.Intn(3); n++ {
		f0 := r.Range(1700, 3300)
		glide := r.Range(-0.15, 0.2)
		d := r.Range(0.1, 0.24)
		f := func(u float64) float64 { return f0 * (1 + glide*u) * (1 + 0.012*math.Sin(2*math.Pi*6*u*d)) }
		out.Add(tone(rate, d, f, syllableEnv(0.25, 0.45), []float64{1, 0.3, 0.08}), t, r.Range(0.7, 1))
		t += d + r.Range(0.05, 0.14)
	}
	tf := r.Range(3000, 4200)
	for k := 0; k < 6; k++ {
		out.Add(tone(rate, 0.035, func(u float64) float64 { return tf * (1 + 0.15*math.Sin(math.Pi*u)) }, syllableEnv(0.2, 0.5), []float64{1, 0.2}), t, 0.55-0.05*float64(k))
		t += 0.05
	}
	out.S = out.S[:min(len(out.S), int((t+0.05)*float64(rate)))]
	return finishCall(out.Reverb(0.3, 1.1, 0.9))
}

// Cuckoo: the two-note "cu-ckoo", a falling third, soft and hollow, two or
// three times from somewhere off in the trees.
func Cuckoo(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	hi := r.Range(660, 720)
	lo := hi * 0.82
	calls := 2 + r.Intn(2)
	out := NewBuf(rate, float64(calls)*1.0+0.3)
	t := 0.03
	for c := 0; c < calls; c++ {
		for k, f0 := range []float64{hi, lo} {
			d := []float64{0.2, 0.32}[k]
			f := func(u float64) float64 { return f0 * (1 - 0.03*u) }
			out.Add(tone(rate, d, f, syllableEnv(0.12, 0.5), []float64{1, 0.12, 0.04}), t, 1-0.1*float64(k))
			t += d + 0.1
		}
		t += r.Range(0.35, 0.5)
	}
	return finishCall(out.Reverb(0.35, 1.4, 1.0))
}

// Woodpecker: a drum roll on a hollow trunk: twenty-odd knocks at about
// 18 a second, each a click into a wooden resonance, fading as it goes.
func Woodpecker(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	n := 16 + r.Intn(10)
	out := NewBuf(rate, 2.2)
	wood := r.Range(900, 1400)
	t := 0.02
	for k := 0; k < n; k++ {
		hit := NewBuf(rate, 0.04)
		res, res2 := NewBiquad(rate).Bandpass(wood, 8), NewBiquad(rate).Bandpass(wood*2.7, 10)
		for i := range hit.S {
			x := 0.0
			if i < rate/900 {
				x = r.White()
			}
			hit.S[i] = res.Next(x)*3 + res2.Next(x)*1.5
		}
		out.Add(hit, t, math.Pow(0.93, float64(k))*r.Range(0.85, 1))
		t += 1/18.0 - 0.0006*float64(k)
	}
	out.S = out.S[:min(len(out.S), int((t+0.1)*float64(rate)))]
	return finishCall(out.Reverb(0.3, 1.0, 0.8))
}

// Crickets: a field cricket's chirps (bursts of four wing-strokes at a
// 4–5 kHz carrier, two or three chirps a second) with a fainter neighbour a
// little higher and out of step.
func Crickets(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	out := NewBuf(rate, seconds)
	for voice, gain := range []float64{1, 0.45} {
		carrier := r.Range(4300, 4800) * (1 + 0.12*float64(voice))
		chirpEvery := r.Range(0.33, 0.45)
		for t := r.Range(0.02, 0.2); t < seconds-0.25; t += chirpEvery * r.Range(0.95, 1.05) {
			for p := 0; p < 3+r.Intn(2); p++ {
				out.Add(tone(rate, 0.016, func(float64) float64 { return carrier }, syllableEnv(0.3, 0.5), []float64{1, 0.15}), t+float64(p)*0.032, gain)
			}
		}
	}
	return finishCall(out)
}

// Frog: a "rib-bit" croak: a buzz of glottal pulses through two throat
// resonances, in two syllables. A bullfrog (bull) is slower, lower and
// longer, a "jug-o-rum" three times over.
func Frog(rate int, bull bool, seed uint64) *Buf {
	r := NewRand(seed)
	pulse, f1, f2, syl := r.Range(90, 120), r.Range(420, 520), r.Range(1300, 1600), []float64{0.11, 0.09}
	gap, reps := 0.07, 1+r.Intn(2)
	if bull {
		pulse, f1, f2, syl, gap, reps = r.Range(55, 70), r.Range(220, 280), r.Range(700, 850), []float64{0.16, 0.1, 0.28}, 0.05, 2+r.Intn(2)
	}
	out := NewBuf(rate, 3.5)
	t := 0.02
	for rep := 0; rep < reps; rep++ {
		for k, d := range syl {
			s := NewBuf(rate, d)
			a, b := NewBiquad(rate).Bandpass(f1*(1+0.05*float64(k)), 5), NewBiquad(rate).Bandpass(f2, 7)
			env := syllableEnv(0.15, 0.35)
			ph := 0.0
			for i := range s.S {
				u := float64(i) / float64(len(s.S))
				ph += pulse * (1 - 0.1*u) / float64(rate)
				x := 0.0
				if ph >= 1 {
					ph--
					x = 1
				}
				x += 0.05 * r.White()
				s.S[i] = (a.Next(x)*3 + b.Next(x)*1.2) * env(u)
			}
			out.Add(s, t, 1)
			t += d + gap
		}
		t += r.Range(0.25, 0.45)
	}
	out.S = out.S[:min(len(out.S), int(t*float64(rate)))]
	return finishCall(out.Reverb(0.15, 0.7, 0.4))
}

// WolfHowl: a long howl: the pitch climbs, holds with a slow vibrato and
// sags away, with breath in the voice and a valley's echo behind it.
// contour gives the pitch (Hz) at the start, the crest, the hold's end and
// the close.
func WolfHowl(rate int, contour [4]float64, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	vib := r.Range(4.5, 5.5)
	f := func(u float64) float64 {
		var p float64
		switch {
		case u < 0.2:
			p = contour[0] + (contour[1]-contour[0])*Smooth(u/0.2)
		case u < 0.75:
			p = contour[1] + (contour[2]-contour[1])*(u-0.2)/0.55
		default:
			p = contour[2] + (contour[3]-contour[2])*Smooth((u-0.75)/0.25)
		}
		return p * (1 + 0.013*Smooth(u/0.3)*math.Sin(2*math.Pi*vib*u*seconds))
	}
	env := func(u float64) float64 { return Smooth(u/0.1) * (1 - Smooth((u-0.7)/0.3)) }
	b := tone(rate, seconds, f, env, []float64{1, 0.5, 0.22, 0.12, 0.05})
	voice := NewBiquad(rate).Lowpass(1600, 0.8)
	pink, breath := NewPink(r), NewBiquad(rate).Bandpass(950, 1.2)
	for i := range b.S {
		u := float64(i) / float64(len(b.S))
		b.S[i] = voice.Next(b.S[i]) + breath.Next(pink.Next())*0.35*env(u)
	}
	return finishCall(b.Reverb(0.4, 1.8, 1.6))
}

// Gull: a herring gull's "kee-ow": a harsh, nasal call rising briefly then
// falling, two to four times.
func Gull(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	calls := 2 + r.Intn(3)
	out := NewBuf(rate, float64(calls)*0.7+0.3)
	saw := sawPartials(10)
	t := 0.02
	for c := 0; c < calls; c++ {
		top := r.Range(1500, 1800)
		kee, ow := r.Range(0.09, 0.13), r.Range(0.22, 0.32)
		d := kee + ow
		f := func(u float64) float64 {
			s := u * d
			if s < kee {
				return top * (0.8 + 0.2*s/kee)
			}
			return top * (1 - 0.4*Smooth((s-kee)/ow))
		}
		call := tone(rate, d, f, syllableEnv(0.1, 0.35), saw)
		nasal, rough := NewBiquad(rate).Bandpass(2300, 2), 65.0
		for i := range call.S {
			call.S[i] = (nasal.Next(call.S[i])*2 + 0.4*call.S[i]) * (0.8 + 0.2*math.Sin(2*math.Pi*rough*call.T(i)))
		}
		out.Add(call, t, r.Range(0.75, 1))
		t += d + r.Range(0.12, 0.3)
	}
	out.S = out.S[:min(len(out.S), int(t*float64(rate)))]
	return finishCall(out.Reverb(0.2, 0.9, 0.6))
}

// Hawk: a red-tailed hawk's rasping scream, "kee-eeer", falling over most of
// a second, high over open ground.
func Hawk(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	d := r.Range(0.8, 1.1)
	top := r.Range(2500, 2800)
	f := func(u float64) float64 { return top * (1 - 0.3*Smooth(u)) * (1 + 0.02*math.Sin(2*math.Pi*30*u)) }
	b := tone(rate, d, f, syllableEnv(0.06, 0.5), []float64{1, 0.45, 0.3, 0.12})
	rasp := NewBiquad(rate).Bandpass(3000, 1.5)
	for i := range b.S {
		u := float64(i) / float64(len(b.S))
		b.S[i] = b.S[i]*(0.75+0.25*math.Sin(2*math.Pi*90*b.T(i))) + rasp.Next(r.White())*0.25*syllableEnv(0.06, 0.5)(u)
	}
	return finishCall(b.Reverb(0.35, 1.5, 1.0))
}

// Raven: the deep croaking "kraa" of a raven on a crag, two or three times.
func Raven(rate int, seed uint64) *Buf {
	r := NewRand(seed)
	calls := 2 + r.Intn(2)
	out := NewBuf(rate, float64(calls)*0.8+0.3)
	saw := sawPartials(14)
	t := 0.02
	for c := 0; c < calls; c++ {
		f0, d := r.Range(280, 360), r.Range(0.28, 0.4)
		call := tone(rate, d, func(u float64) float64 { return f0 * (1 + 0.08*math.Sin(math.Pi*u)) }, syllableEnv(0.08, 0.4), saw)
		a, b := NewBiquad(rate).Bandpass(1100, 2.5), NewBiquad(rate).Bandpass(2300, 3)
		for i := range call.S {
			x := call.S[i] * (0.55 + 0.45*math.Sin(2*math.Pi*42*call.T(i)))
			call.S[i] = a.Next(x)*2 + b.Next(x)
		}
		out.Add(call, t, r.Range(0.8, 1))
		t += d + r.Range(0.2, 0.35)
	}
	out.S = out.S[:min(len(out.S), int(t*float64(rate)))]
	return finishCall(out.Reverb(0.3, 1.3, 0.9))
}

// Gust: a single gust: band-passed noise swelling for most of a second while
// its band sweeps up, then sighing away as it falls.
func Gust(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	pink := NewPink(r)
	band, whoosh := NewBiquad(rate), NewBiquad(rate).Highpass(1800, 0.7)
	peakAt := r.Range(0.3, 0.4)
	lo, hi := r.Range(300, 420), r.Range(1000, 1400)
	for i := range b.S {
		u := float64(i) / float64(len(b.S))
		var env float64
		if u < peakAt {
			env = Smooth(u / peakAt)
		} else {
			env = 1 - Smooth((u-peakAt)/(1-peakAt))
		}
		if i%16 == 0 {
			band.Bandpass(lo+(hi-lo)*env, 1.3)
		}
		x := pink.Next()
		b.S[i] = band.Next(x)*env*2 + whoosh.Next(x)*env*env*0.6
	}
	return finishCall(b)
}

// Splash: something breaking the water: a noisy slap with a fast decay, a
// smaller second slap, then droplets falling back as bright blips. small
// makes a frog's plop: softer, lower, fewer drops.
func Splash(rate int, small bool, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, 1.0)
	hp, bp := NewBiquad(rate).Highpass(650, 0.7), NewBiquad(rate).Bandpass(1500, 0.8)
	tau, drops, lo, hi := 0.07, 8+r.Intn(8), 900.0, 3200.0
	if small {
		tau, drops, lo, hi = 0.03, 2+r.Intn(3), 500, 1400
		bubble(b, r, 0.01, r.Range(280, 380), 0.09, 0.6)
	}
	second := r.Range(0.05, 0.09)
	for i := range b.S {
		t := b.T(i)
		env := math.Min(1, t/0.004) * math.Exp(-t/tau)
		if t > second {
			env += 0.4 * math.Exp(-(t-second)/tau)
		}
		x := r.White() * env
		b.S[i] = hp.Next(x)*0.8 + bp.Next(x)*0.6
	}
	for k := 0; k < drops; k++ {
		bubble(b, r, r.Range(0.08, 0.7), r.LogRange(lo, hi), r.Range(0.015, 0.04), r.Range(0.1, 0.35))
	}
	return finishCall(b)
}

// sawPartials are the first n harmonic amplitudes of a sawtooth, 1/k: the
// buzzy, reedy source of the harsh calls (gull, raven).
func sawPartials(n int) []float64 {
	p := make([]float64, n)
	for k := range p {
		p[k] = 1 / float64(k+1)
	}
	return p
}
