package ambient

import (
	"math"
	"testing"

	"acambient/core/world"
)

func TestCalcWeight(t *testing.T) {
	// docs/retail.md §R9: 1 within 20 m, 400/d² to 120 m, 0 beyond.
	tests := []struct {
		d    float32
		want float32
	}{
		{0, 1},
		{10, 1},
		{19.99, 1},
		{20, 1},    // 400/400
		{40, 0.25}, // 400/1600
		{80, 0.0625},
		{120, 0.027777778}, // 400/14400, still counted
		{120.01, 0},
	}
	for _, tt := range tests {
		got := calcWeight(world.Vec3{X: tt.d})
		if math.Abs(float64(got-tt.want)) > 1e-7 {
			t.Errorf("CalcWeight(%v m) = %v, want %v", tt.d, got, tt.want)
		}
	}
	// z counts: (96, 72, 0) is 120 m; lifting it by 1 m puts it out.
	if got := calcWeight(world.Vec3{X: 96, Y: 72}); math.Abs(float64(got)-400.0/14400) > 1e-7 {
		t.Errorf("CalcWeight(96,72,0) = %v, want 0.027778", got)
	}
	if got := calcWeight(world.Vec3{X: 96, Y: 72, Z: 1}); got != 0 {
		t.Errorf("CalcWeight(96,72,1) = %v, want 0", got)
	}
}

// TestAddSoundWeight: what AddSound adds for a cell (docs/retail.md §R3): its
// distance gate passes exactly 14400 m², then CalcWeight, z included.
func TestAddSoundWeight(t *testing.T) {
	for _, tt := range []struct {
		off  world.Vec3
		want float32
	}{
		{world.Vec3{X: 12, Y: -12}, 1},
		{world.Vec3{X: 36, Y: 12, Z: -2}, float32(400.0 / (36*36 + 12*12 + 4))},
		{world.Vec3{X: 96, Y: 72}, float32(400.0 / 14400)}, // exactly 120 m passes
		{world.Vec3{X: 96, Y: 72, Z: 0.01}, 0},
		{world.Vec3{X: 108, Y: 60}, 0}, // 123.5 m horizontally
		{world.Vec3{Z: float32(math.NaN())}, 0},
	} {
		if got := AddSoundWeight(tt.off); got != tt.want {
			t.Errorf("AddSoundWeight(%v) = %v, want %v", tt.off, got, tt.want)
		}
	}
}

func TestCalcDir(t *testing.T) {
	tests := []struct {
		x, y float32
		want int
	}{
		// docs/retail.md §R9 vectors.
		{0, 20, dirN},
		{30, 10, dirE},
		{30, 16, dirNE},
		{-30, -20, dirSW},
		{9, 9, dirHere}, // 162 < 200
		// All eight sectors.
		{0, -20, dirS},
		{20, 0, dirE},
		{-20, 0, dirW},
		{-15, 15, dirNW},
		{-15, -15, dirSW},
		{15, 15, dirNE},
		{15, -15, dirSE},
		// The "too close" edge: x²+y² < 200 is here, = 200 is not.
		{10, 10, dirNE},
		{9.99, 10, dirHere},
		// The 2:1 dominance boundary: exactly 2 is still a diagonal.
		{10, 20, dirNE},
		{10, 20.01, dirN},
		{20, 10, dirNE},
		{20.01, 10, dirE},
		{-20, -10, dirSW},
		{-20.01, -10, dirW},
		{10, -20.01, dirS},
		// An axis within 0.0002 is that axis.
		{0.0001, -30, dirS},
		{-30, 0.0001, dirW},
	}
	for _, tt := range tests {
		if got := calcDir(world.Vec3{X: tt.x, Y: tt.y, Z: 50}); got != tt.want {
			t.Errorf("CalcDir(%v, %v) = %d, want %d", tt.x, tt.y, got, tt.want)
		}
	}
}

func TestDirHeading(t *testing.T) {
	for dir, deg := range map[int]float64{dirHere: 0, dirN: 0, dirNE: 45, dirE: 90, dirSE: 135, dirS: 180, dirSW: 225, dirW: 270, dirNW: 315, 9: 0} {
		if got := float64(dirHeading(dir)) * 180 / math.Pi; math.Abs(got-deg) > 1e-4 {
			t.Errorf("heading(%d) = %v°, want %v°", dir, got, deg)
		}
	}
}

func TestAttenuation(t *testing.T) {
	tests := []struct {
		name    string
		d, v, a float32
		db      int
		gain    float64
		ok      bool
	}{
		// docs/retail.md §R9, V = A = 1 (so v = A·V = 1).
		{"10 m", 10, 1, 1, -12, 0.25, true},                             // log2 .25 · 6.0206 = −12.04 → −12
		{"50 m", 50, 1, 1, -40, 0.01, true},                             // −39.99999 → −40
		{"94 m plays", 94, 1, 1, -50, 25.0 / (94 * 94), true},           // −50.97 → −50
		{"94.2 m culled", 94.2, 1, 1, -50, 25.0 / (94.2 * 94.2), false}, // −51.003 → −51
		// Whole-dB steps: ceil(log2 g · 6.0206).
		{"5 m, clamp", 5, 1, 1, 0, 1, true},
		{"inside 5 m the distance is ignored", 4.99, 0.5, 1, -6, 0.5, true}, // −6.02 → −6
		{"0.7", 0, 0.7, 1, -3, 0.7, true},                                   // −3.098 → −3
		{"clamp before the slider", 1, 4, 0.5, -6, 0.5, true},
		// The slider applies again: v already holds one A.
		{"slider squared", 0, 0.5, 0.5, -12, 0.25, true}, // V = 1, A = .5: A·V·A = .25
		{"silent", 10, 0, 1, -50, 0, false},
		{"slider off", 10, 1, 0, -50, 0, false},
	}
	for _, tt := range tests {
		gain, db, ok := attenuation(tt.d, tt.v, tt.a)
		if ok != tt.ok || (ok && db != tt.db) || math.Abs(gain-tt.gain) > 1e-6 {
			t.Errorf("%s: GetAttenuation(%v, %v, A=%v) = %v, %d, %v; want %v, %d, %v",
				tt.name, tt.d, tt.v, tt.a, gain, db, ok, tt.gain, tt.db, tt.ok)
		}
	}
}

func TestPan(t *testing.T) {
	cam := world.Position{ObjCellID: 0xA9B4001F, X: 96, Y: 96, Z: 10}
	east := world.Position{ObjCellID: 0xA9B4001F, X: 126, Y: 96, Z: 10}
	west := world.Position{ObjCellID: 0xA9B4001F, X: 66, Y: 96, Z: 10}
	north := world.Position{ObjCellID: 0xA9B4001F, X: 96, Y: 126, Z: 10}
	ne := world.Position{ObjCellID: 0xA9B4001F, X: 126, Y: 126, Z: 10}
	near := world.Position{ObjCellID: 0xA9B4001F, X: 100.9, Y: 96, Z: 10}
	// Retail converts degrees with 0.017453292 (< π/180), so a sound exactly
	// abeam gives 15·sin(1.57079628) = 14.99999999999998, truncated to 14.
	tests := []struct {
		name    string
		sound   world.Position
		heading float32
		mono    bool
		want    int
	}{
		{"east of a north-facing camera: right", east, 0, false, 14},
		{"west of a north-facing camera: left", west, 0, false, -14},
		{"east of an east-facing camera: ahead", east, 90, false, 0},
		{"east of a south-facing camera: left", east, 180, false, -14},
		{"north of an east-facing camera: left", north, 90, false, -14},
		{"north-east, facing north: trunc(15·sin 45°)", ne, 0, false, 10},
		{"heading beyond 360 wraps", east, 720, false, 14},
		{"negative heading", north, -90, false, 14},
		{"mono never pans", east, 0, true, 0},
		{"closer than 5 whole metres", near, 0, false, 0},
	}
	for _, tt := range tests {
		d := world.Offset(tt.sound, cam).Len()
		if got := pan(tt.sound, cam, tt.heading, d, tt.mono); got != tt.want {
			t.Errorf("%s: pan = %d, want %d", tt.name, got, tt.want)
		}
	}
}
