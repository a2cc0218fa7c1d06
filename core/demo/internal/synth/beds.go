package synth

import "math"

// Beds are the constant sounds: long noise textures that the engine re-fires
// every (length − BedFade) seconds. Each has equal-power fades of BedFade at
// both ends, so consecutive firings cross-fade at constant loudness, and is
// levelled to BedRMS: beds sit under the one-shots, which peak near full scale.

// BedFade is the cross-fade between consecutive firings of a bed.
const BedFade = 0.75

// BedRMS is the level of every bed (−23 dBFS).
var BedRMS = DB(-23)

func finishBed(b *Buf) *Buf {
	return b.FadePower(BedFade).NormalizeRMS(BedRMS, DB(-6))
}

// MeadowBreeze: wind combing through grass. Pink noise under a low-pass that
// wanders between 450 and 1400 Hz, swelling with slow gusts, over a faint
// high rustle that flutters when the gust is strong.
func MeadowBreeze(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	pink, cut := NewPink(r), NewWander(r, 0.15, rate)
	swell, flutter := NewWander(r, 0.12, rate), NewWander(r, 7, rate)
	lp, bp, hp := NewBiquad(rate), NewBiquad(rate), NewBiquad(rate).Highpass(70, 0.7)
	bp.Bandpass(3800, 0.8)
	for i := range b.S {
		if i%32 == 0 {
			lp.Lowpass(450+950*cut.Next(), 0.6)
		}
		g := 0.35 + 0.65*swell.Next()
		breeze := lp.Next(pink.Next()) * g * g
		rustle := bp.Next(r.White()) * 0.18 * g * g * g * (0.4 + 0.6*flutter.Next())
		b.S[i] = hp.Next(breeze + rustle)
	}
	return finishBed(b)
}

// ForestLeaves: a canopy in a light wind. Band-passed noise for the leaves,
// chopped by a fast random flutter (each leaf cluster catching the wind), and
// a soft low roar of wind in the trunks beneath.
func ForestLeaves(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	brown := NewBrown(r)
	swell, flutter, flutter2 := NewWander(r, 0.1, rate), NewWander(r, 11, rate), NewWander(r, 17, rate)
	leaves, leaves2 := NewBiquad(rate).Bandpass(2600, 0.6), NewBiquad(rate).Bandpass(5200, 0.9)
	trunk, hp := NewBiquad(rate).Lowpass(260, 0.7), NewBiquad(rate).Highpass(50, 0.7)
	for i := range b.S {
		g := 0.3 + 0.7*swell.Next()
		f1, f2 := flutter.Next(), flutter2.Next()
		l := leaves.Next(r.White())*f1*f1*f1 + 0.5*leaves2.Next(r.White())*f2*f2*f2
		b.S[i] = hp.Next(0.9*l*g + 0.6*trunk.Next(brown.Next())*g)
	}
	return finishBed(b)
}

// RiverFlow: running water. Bright band-passed noise that shimmers, a low
// rumble, and a stream of bubbles: short sines whose pitch rises as they ring
// (a bubble's resonance climbs as it nears the surface).
func RiverFlow(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	pink, brown := NewPink(r), NewBrown(r)
	shimmer := NewWander(r, 4, rate)
	body, hiss := NewBiquad(rate).Bandpass(1100, 0.5), NewBiquad(rate).Bandpass(3400, 0.9)
	rumble := NewBiquad(rate).Lowpass(180, 0.7)
	for i := range b.S {
		s := shimmer.Next()
		b.S[i] = body.Next(pink.Next())*1.4 + hiss.Next(r.White())*(0.25+0.35*s) + 0.5*rumble.Next(brown.Next())
	}
	for t := r.Range(0, 0.02); t < seconds; t += -math.Log(1-r.Float()) / 45 {
		bubble(b, r, t, r.LogRange(500, 2600), r.Range(0.008, 0.03), 0.25*r.Float()*r.Float())
	}
	return finishBed(b)
}

// bubble adds one decaying, upward-gliding sine at time t.
func bubble(b *Buf, r *Rand, t, f0, dur, amp float64) {
	start, n := int(t*float64(b.Rate)), int(dur*float64(b.Rate))
	ph := r.Float() * 2 * math.Pi
	for k := 0; k < n && start+k < len(b.S); k++ {
		u := float64(k) / float64(n)
		f := f0 * (1 + 0.6*u)
		ph += 2 * math.Pi * f / float64(b.Rate)
		env := math.Exp(-4*u) * math.Min(1, float64(k)/8)
		b.S[start+k] += amp * env * math.Sin(ph)
	}
}

// SurfSwells: waves on a shore, one every seconds/2. Each swell rises over
// three seconds as the noise brightens, breaks, then drains away in foam
// hiss, over a steady low roar of the open sea. The bed begins and ends
// between swells so the cross-fade falls in a lull.
func SurfSwells(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	pink, brown := NewPink(r), NewBrown(r)
	lp, foam := NewBiquad(rate), NewBiquad(rate).Highpass(2500, 0.7)
	roar := NewBiquad(rate).Lowpass(300, 0.7)
	period := seconds / 2
	for i := range b.S {
		t := math.Mod(b.T(i)-0.4, period)
		if t < 0 {
			t += period
		}
		var env float64
		switch {
		case t < 3:
			env = 0.15 + 0.55*Smooth(t/3)
		case t < 3.4:
			env = 0.7 + 0.3*Smooth((t-3)/0.4)
		default:
			env = 0.15 + 0.85*math.Exp(-(t-3.4)/1.3)
		}
		if i%32 == 0 {
			lp.Lowpass(300+3200*env*env, 0.7)
		}
		b.S[i] = lp.Next(pink.Next())*env*1.5 + foam.Next(r.White())*0.35*env*env*env + 0.5*roar.Next(brown.Next())
	}
	return finishBed(b)
}

// MarshHum: a warm evening marsh. A low drone of band-passed brown noise
// (distant frogs and insects blurred together) under a shimmer of three
// insect choruses pulsing at their own rates, and the odd drip.
func MarshHum(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	brown := NewBrown(r)
	hum, swell := NewBiquad(rate).Bandpass(150, 1.5), NewWander(r, 0.2, rate)
	type chorus struct {
		f       *Biquad
		rate, g float64
		w       *Wander
	}
	var cs []chorus
	for _, c := range [][3]float64{{4700, 31, 0.35}, {6100, 43, 0.25}, {3600, 23, 0.2}} {
		cs = append(cs, chorus{NewBiquad(rate).Bandpass(c[0], 6), c[1], c[2], NewWander(r, 0.25, rate)})
	}
	for i := range b.S {
		t := b.T(i)
		v := hum.Next(brown.Next()) * (0.7 + 0.3*swell.Next()) * 1.6
		for _, c := range cs {
			pulse := 0.5 + 0.5*math.Sin(2*math.Pi*c.rate*t)
			v += c.f.Next(r.White()) * c.g * pulse * pulse * c.w.Next() * 3
		}
		b.S[i] = v
	}
	for t := r.Range(0.5, 2); t < seconds-0.5; t += r.Range(1.2, 3) {
		bubble(b, r, t, r.LogRange(700, 1400), 0.04, 0.03)
	}
	return finishBed(b)
}

// DesertWind: a dry low wind with sand hissing in its strongest gusts.
func DesertWind(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	brown := NewBrown(r)
	swell, cut := NewWander(r, 0.09, rate), NewWander(r, 0.2, rate)
	lp, sand, hp := NewBiquad(rate), NewBiquad(rate).Highpass(2200, 0.7), NewBiquad(rate).Highpass(45, 0.7)
	for i := range b.S {
		if i%32 == 0 {
			lp.Lowpass(180+380*cut.Next(), 0.9)
		}
		g := 0.25 + 0.75*swell.Next()
		grains := 0.0
		if r.Float() < 0.08*g*g {
			grains = r.White()
		}
		b.S[i] = hp.Next(lp.Next(brown.Next())*g + sand.Next(0.5*r.White()+grains)*0.25*g*g*g)
	}
	return finishBed(b)
}

// HollowWind: wind over bare rock, moaning in two resonances that glide
// together as the gusts come and go.
func HollowWind(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	pink := NewPink(r)
	swell, pitch := NewWander(r, 0.11, rate), NewWander(r, 0.18, rate)
	moan, moan2, air := NewBiquad(rate), NewBiquad(rate), NewBiquad(rate).Bandpass(900, 0.5)
	hp := NewBiquad(rate).Highpass(60, 0.7)
	for i := range b.S {
		g := 0.2 + 0.8*swell.Next()
		if i%32 == 0 {
			f := 230 + 320*pitch.Next()
			moan.Bandpass(f, 5)
			moan2.Bandpass(1.58*f, 6)
		}
		x := pink.Next()
		b.S[i] = hp.Next((moan.Next(x)*2.2+moan2.Next(x)*1.2)*g*g + air.Next(x)*0.5*g)
	}
	return finishBed(b)
}

// ColdWind: a thin, high wind on the snowfields that whistles through the
// ice when it gusts.
func ColdWind(rate int, seconds float64, seed uint64) *Buf {
	r := NewRand(seed)
	b := NewBuf(rate, seconds)
	pink, brown := NewPink(r), NewBrown(r)
	swell, sweep, whistleF := NewWander(r, 0.13, rate), NewWander(r, 0.25, rate), NewWander(r, 0.4, rate)
	band, whistle, hp := NewBiquad(rate), NewBiquad(rate), NewBiquad(rate).Highpass(90, 0.7)
	for i := range b.S {
		g := 0.2 + 0.8*swell.Next()
		if i%32 == 0 {
			band.Bandpass(420+600*sweep.Next(), 1.4)
			whistle.Bandpass(950+700*whistleF.Next(), 25)
		}
		x := pink.Next() + 0.4*brown.Next()
		b.S[i] = hp.Next(band.Next(x)*g + whistle.Next(r.White())*2.5*g*g*g)
	}
	return finishBed(b)
}
