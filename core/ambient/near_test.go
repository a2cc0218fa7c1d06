package ambient

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// nearDB is caption.NearDB (core/caption imports this package, so its test
// here cannot import it): the least whole dB a caption calls near.
const nearDB = -20

// The README's "within about 15 m of a one-shot of volume 0.8 with the
// slider at full": where GetAttenuation's whole dB falls below −20. By the
// inverse square, 25·0.8/r² is −20 dB at 14.1 m; the whole dB rounds up
// (ceil), so −20 holds to −20.99…, at 14.98 m.
func TestNearDistance(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Near is −20 dB or louder, in the whole dB the engine sends\s+at: within about (\d+) m of a one-shot of volume 0\.8`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md no longer says how near near is")
	}
	said, _ := strconv.ParseFloat(string(m[1]), 64)
	// The boundary, by bisection on the engine's own attenuation.
	lo, hi := float32(volMinDist), float32(100)
	for range 60 {
		mid := (lo + hi) / 2
		if _, db, _ := attenuation(mid, 0.8, 1); db >= nearDB {
			lo = mid
		} else {
			hi = mid
		}
	}
	if math.Abs(float64(lo)-said) > 0.5 {
		t.Errorf("near ends at %.2f m for a one-shot of volume 0.8; the README says about %v m", lo, said)
	}
	for _, tc := range []struct {
		dist float32
		db   int
	}{{14.1, -19}, {14.2, -20}, {14.97, -20}, {15.0, -21}, {5, -1}} {
		if _, db, ok := attenuation(tc.dist, 0.8, 1); !ok || db != tc.db {
			t.Errorf("a volume-0.8 one-shot at %v m: %d dB (%v), want %d", tc.dist, db, ok, tc.db)
		}
	}
}
