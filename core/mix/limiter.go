package mix

import "math"

// The master limiter. Retail has none: DirectSound summed its buffers and
// clipped (docs/divergences.md). Here the sum is left exactly as it is while
// its peak stays at or under −1 dBFS. Above that, a peak envelope (instant
// rise, ~100 ms fall) sets the gain that brings the peak to −1 dBFS, which
// the gain reaches over about half a millisecond; a soft knee between −1
// and 0 dBFS catches what that attack has not, so no sample leaves louder
// than full scale. Once the envelope has fallen to −1 dBFS the gain is
// exactly 1 again.
const (
	limitThreshold = 0.89125094 // 10^(−1/20): −1 dBFS
	limitAttack    = 0.0005     // s, time constant of the gain going down
	limitRelease   = 0.1        // s, time constant of the envelope falling
)

type limiter struct {
	env      float32 // peak envelope of the input
	g        float32 // current gain, 1 when idle
	att, rel float32 // one-pole coefficients per frame
}

func newLimiter(rate int) limiter {
	coef := func(tc float64) float32 { return float32(1 - math.Exp(-1/(tc*float64(rate)))) }
	return limiter{g: 1, att: coef(limitAttack), rel: coef(limitRelease)}
}

// process limits interleaved stereo frames in place and makes every sample
// finite.
func (l *limiter) process(buf []float32) {
	g, env := l.g, l.env
	for i := 0; i+1 < len(buf); i += 2 {
		a, b := buf[i], buf[i+1]
		if p := max(abs32(a), abs32(b)); p > env {
			env = p
		} else {
			env += (p - env) * l.rel
		}
		target := float32(1)
		if env > limitThreshold {
			target = limitThreshold / env
		}
		if target < g {
			g += (target - g) * l.att
		} else {
			g = target // the envelope's fall is the release
		}
		buf[i], buf[i+1] = knee(a*g), knee(b*g)
	}
	l.g, l.env = g, env
}

// knee is the identity up to −1 dBFS and bends the rest smoothly (tanh,
// slope 1 at the threshold) into (−1 dBFS, 0 dBFS]. NaN becomes 0.
func knee(x float32) float32 {
	ax := abs32(x)
	switch {
	case ax <= limitThreshold:
		return x
	case x != x:
		return 0
	}
	const room = 1 - limitThreshold
	y := float32(limitThreshold + room*math.Tanh(float64(ax-limitThreshold)/room))
	y = min(y, 1)
	if x < 0 {
		return -y
	}
	return y
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
