package ambient

// The engine's two random sources, as retail has them (docs/retail.md §R7).

// ran2 is retail Random::rand (0x0042C4C0): Numerical Recipes ran2, two
// L'Ecuyer generators combined through a 32-entry Bays–Durham shuffle.
type ran2 struct {
	idum, idum2, iy int32
	iv              [ran2NTab]int32
}

const (
	ran2IM1  = 2147483563 // L'Ecuyer modulus 1
	ran2IM2  = 2147483399 // L'Ecuyer modulus 2
	ran2IA1  = 40014
	ran2IA2  = 40692
	ran2IQ1  = 53668 // IM1 / IA1
	ran2IQ2  = 52774 // IM2 / IA2
	ran2IR1  = 12211 // IM1 % IA1
	ran2IR2  = 3791  // IM2 % IA2
	ran2NTab = 32
	ran2NDiv = 1 + (ran2IM1-1)/ran2NTab // 67108862, the divisor retail shows
	ran2AM   = 4.656613057391769e-10    // 1/IM1, retail's literal
	ran2RNMX = 0.99999988               // 1 − 1.2e-7: rand never returns 1
)

// seed is retail Random::Seed(int) (0x0042C450): NR's idum = −seed start,
// with 0 replaced by 1; the first 8 warm-up steps are discarded.
func (r *ran2) seed(seed uint32) {
	s := int32(seed)
	if s == 0 {
		s = 1
	}
	r.idum2 = s
	for j := ran2NTab + 7; j >= 0; j-- {
		s = lecuyer(s, ran2IA1, ran2IQ1, ran2IR1, ran2IM1)
		if j < ran2NTab {
			r.iv[j] = s
		}
	}
	r.iy = r.iv[0]
	r.idum = s
}

// next returns a uniform deviate in (0, 0.99999988].
func (r *ran2) next() float64 {
	r.idum = lecuyer(r.idum, ran2IA1, ran2IQ1, ran2IR1, ran2IM1)
	r.idum2 = lecuyer(r.idum2, ran2IA2, ran2IQ2, ran2IR2, ran2IM2)
	j := r.iy / ran2NDiv
	r.iy = r.iv[j] - r.idum2
	r.iv[j] = r.idum
	if r.iy < 1 {
		r.iy += ran2IM1 - 1
	}
	if v := float64(r.iy) * ran2AM; v <= ran2RNMX {
		return v
	}
	return ran2RNMX
}

// rollDice is retail Random::RollDice(float, float) (0x0042C600): equal
// bounds return lo without drawing, reversed bounds are swapped, otherwise
// lo + rand·(hi − lo), uniform on [lo, hi).
func (r *ran2) rollDice(lo, hi float32) float64 {
	if lo == hi {
		return float64(lo)
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	return r.next()*(float64(hi)-float64(lo)) + float64(lo)
}

// lecuyer steps one multiplicative congruential generator with Schrage's
// method, so the product never overflows 32 bits.
func lecuyer(v, a, q, rem, m int32) int32 {
	k := v / q
	v = a*(v-k*q) - k*rem
	if v < 0 {
		v += m
	}
	return v
}

// crtRand is the MSVC C runtime rand(): a 32-bit LCG whose bits 16–30 are
// the result. Retail seeds it with time(0) in SoundManager::Init (0x00550640)
// and uses it only for a SoundTable entry's probability gate (docs/retail.md §R5).
type crtRand struct{ state uint32 }

func (c *crtRand) next() int {
	c.state = c.state*214013 + 2531011
	return int(c.state>>16) & 0x7FFF
}
