// Package synth makes the demo world's sounds: noise beds and animal calls
// built from oscillators, filtered noise and envelopes. Everything is
// deterministic: a recipe and a seed give the same samples on every run, so
// the demo dats are byte-identical from build to build.
package synth

import "math"

// Rand is SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and specified
// exactly, so no library change can alter the demo's bytes.
type Rand struct{ s uint64 }

func NewRand(seed uint64) *Rand { return &Rand{s: seed} }

func (r *Rand) Uint64() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Float is uniform on [0, 1).
func (r *Rand) Float() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Range is uniform on [lo, hi).
func (r *Rand) Range(lo, hi float64) float64 { return lo + (hi-lo)*r.Float() }

// Intn is uniform on 0..n−1.
func (r *Rand) Intn(n int) int { return int(r.Uint64() % uint64(n)) }

// White is uniform on [−1, 1).
func (r *Rand) White() float64 { return 2*r.Float() - 1 }

// LogRange is log-uniform on [lo, hi): even over octaves, as pitch is heard.
func (r *Rand) LogRange(lo, hi float64) float64 {
	return lo * math.Exp(r.Float()*math.Log(hi/lo))
}
