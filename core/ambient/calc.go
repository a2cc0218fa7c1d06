package ambient

import (
	"math"

	"acambient/core/world"
)

// Retail constants (docs/retail.md §R1; .data addresses from docs/retail.md §A4.2).
const (
	minDist    float32 = 20.0  // Ambient::ambient_sound_min_dist   0x0081F148
	minDistSq  float32 = 400.0 // Ambient::ambient_sound_min_dist_sq 0x0081F14C
	maxDistSq  float32 = 14400 // Ambient::ambient_sound_max_dist_sq 0x0081F154 (120 m)
	minVolume  float32 = 0.03  // Ambient::ambient_sound_min_vol     0x0081F158
	dirEpsilon float32 = 0.0002
	// Heading jitter arc π/8 (acclient_data.h:6704, "upper_bound"): the
	// placement heading is the octant's heading ± π/16.
	jitterArc float32 = 0.39269909
	// IntermitSound::AddTo (0x00551450): bands are |offset| ± min_dist/2, and
	// an omni (dir 0) cell registers [5 − 1, min_dist/2] in all 8 directions.
	bandHalfWidth = minDist * 0.5
	omniMin       = float32(5.0 - 1.0)
	omniMax       = bandHalfWidth
	// SoundManager (docs/retail.md §R1): inverse square beyond 5 m (VOL_MIN_DIST_SQ
	// 5·5), whole-dB steps as log2·6.0206, and nothing below VOL_MIN −50 dB.
	volMinDistSq = 5.0 * 5.0
	volMinDist   = 5.0
	dbPerLog2    = 6.0206
	volMinDB     = -50
	// SoundManager::PlayProbability / PlayAmbientSound*: rand()·(1/32767).
	crtScale = 0.000030518509
	// SoundBuf::Play clamps the pan to ±15 whole dB.
	maxPan = 15
)

// Direction is retail LandDefs::Direction (acclient.h:3284) as CalcDir
// returns it: 0 means "in the viewer's block", i.e. closer than 14.14 m.
const (
	dirHere = 0
	dirN    = 1
	dirS    = 2
	dirE    = 3
	dirW    = 4
	dirNW   = 5
	dirSW   = 6
	dirNE   = 7
	dirSE   = 8
)

// calcWeight is Ambient::CalcWeight (0x00550DD0, byte-verified in the
// docs/retail.md §A4.2): 1 within 20 m, 400/d² out to 120 m, 0 beyond. d² is
// stored as a float before the compares, as retail does.
func calcWeight(off world.Vec3) float32 {
	d2 := float32(off.LenSq())
	// Retail's compares read "d2 <= max" and "d2 >= min", so a NaN offset
	// weighs 0.
	if !(float64(d2) <= float64(maxDistSq)) {
		return 0
	}
	if !(float64(d2) >= float64(minDistSq)) {
		return 1
	}
	return float32(float64(minDistSq) / float64(d2))
}

// calcDir is Ambient::CalcDir (0x00550E40): horizontal only. Cardinal
// sectors win when one axis dominates the other by more than 2:1, so they are
// 53.13° wide and the diagonals 36.87°.
func calcDir(off world.Vec3) int {
	x, y := off.X, off.Y
	ax, ay := float32(math.Abs(float64(x))), float32(math.Abs(float64(y)))
	if !(float64(minDistSq)*0.5 <= float64(float64(y)*float64(y))+float64(float64(x)*float64(x))) {
		return dirHere
	}
	switch {
	case ax < dirEpsilon || float64(ay)/float64(ax) > 2:
		if y < 0 {
			return dirS
		}
		return dirN
	case ay < dirEpsilon || float64(ax)/float64(ay) > 2:
		if x < 0 {
			return dirW
		}
		return dirE
	case x < 0:
		if y < 0 {
			return dirSW
		}
		return dirNW
	default:
		if y < 0 {
			return dirSE
		}
		return dirNE
	}
}

// dirHeading is LandDefs::heading (0x005A9A30): compass radians clockwise
// from north, as the float constants retail returns; 0 and unknown are north.
func dirHeading(dir int) float32 {
	switch dir {
	case dirS:
		return 3.1415927
	case dirE:
		return 1.5707964
	case dirW:
		return 4.712389
	case dirNE:
		return 0.78539819
	case dirSE:
		return 2.3561945
	case dirSW:
		return 3.9269907
	case dirNW:
		return 5.497787
	}
	return 0
}

// attenuation is SoundManager::GetAttenuation (0x00550020) on the ambient
// path: v is the already slider-scaled volume, a the slider applied again.
// It returns the linear gain after every factor and the whole-dB level; ok
// is false when retail would not play (gain ≤ 0 or below −50 dB).
func attenuation(dist, v, a float32) (gain float64, db int, ok bool) {
	d := float64(dist)
	g := float64(v)
	if d >= volMinDist {
		g = volMinDistSq * g / (d * d)
	}
	if g > 1 {
		g = 1
	}
	g *= float64(a)
	if !(g > 0) {
		return g, volMinDB, false
	}
	db = int(math.Ceil(math.Log2(g) * dbPerLog2))
	if db < volMinDB {
		return g, volMinDB, false
	}
	return g, db, true
}

// pan is the stereo pan of SoundManager::PlaySoundInternal (0x00550170):
// zero when mono or closer than 5 whole metres, else
// trunc(−15·sin(heading(sound→listener) − camera heading)), which is
// +15·sin of the sound's bearing clockwise from the camera's facing: a sound
// on the right pans right (positive).
func pan(sound world.Position, camera world.Position, cameraHeading float32, dist float32, mono bool) int {
	if mono {
		return 0
	}
	angle := positionHeading(sound, camera)
	rel := math.Mod(float64(angle)-float64(cameraHeading), 360)
	if rel > 180 {
		rel -= 360
	}
	if int64(dist) < volMinDist {
		return 0
	}
	p := int(math.Sin(rel*0.017453292) * -maxPan)
	return max(-maxPan, min(maxPan, p)) // SoundBuf::Play's clamp
}

// positionHeading is retail Position::heading(from, to) as ACE ports it:
// the compass heading in degrees of the horizontal offset from → to,
// (450 − atan2(dy, dx)·180/π) mod 360, and 0 when the offset is tiny.
func positionHeading(from, to world.Position) float32 {
	off := world.Offset(from, to)
	dx, dy := float64(off.X), float64(off.Y)
	if math.Hypot(dx, dy) < float64(dirEpsilon) {
		return 0
	}
	return float32(math.Mod(450-math.Atan2(dy, dx)*180/math.Pi, 360))
}
