package ambient

import (
	"math"

	"acambient/core/dat"
	"acambient/core/world"
)

// instance is one retail AmbientSound: an IntermitSound (random one-shots
// placed around the listener) or, when the authored base_chance is 0, a
// ConstantSound (a centred one-shot re-fired every min_rate seconds). Its
// identity is (STB index, sound index), as Ambient::GetSound (0x005510B0)
// keys it; instances are never evicted.
type instance struct {
	stb, idx   int
	desc       *dat.AmbientSoundDesc
	constant   bool
	onQueue    bool
	soundCount float32 // accumulated weight this rebuild
	reached    uint64  // the last rebuild whose gather added to it (Engine.live)
	waiting    uint32  // ConstantSound: the wave its last fire found loading (WaveLoader), 0 if none

	playChance    float32 // IntermitSound: base_chance·share
	currentVolume float32 // ConstantSound: volume·share; survives ResetCount

	// IntermitSound direction bands: sound_dir[num_dir] with [min, max]
	// metres, in registration order.
	numDir           int
	dirs             [8]int8
	minDist, maxDist [8]float32
}

// omniOrder is the order IntermitSound::AddTo registers the eight
// directions for a cell closer than 14.14 m (Ambient.c:489ff).
var omniOrder = [8]int8{dirN, dirS, dirE, dirW, dirNW, dirNE, dirSW, dirSE}

// resetCount is IntermitSound::ResetCount (0x00550CD0) and
// ConstantSound::ResetCount (0x00550D70): both zero their STB's play_count;
// a ConstantSound keeps current_volume.
func (in *instance) resetCount(st *stbState) {
	st.playCount = 0
	in.soundCount = 0
	if !in.constant {
		in.numDir = 0
		in.playChance = 0
	}
}

// addTo is ConstantSound::AddTo (0x00551000) and IntermitSound::AddTo
// (0x00551450): both add the cell's weight; an IntermitSound also widens the
// band of the cell's direction to |offset| ± 10 m, or registers [4, 10] m in
// all eight directions for a cell in the viewer's block (dir 0).
func (in *instance) addTo(w float32, off world.Vec3, dir int) {
	in.soundCount += w
	if in.constant {
		return
	}
	r := math.Sqrt(off.LenSq())
	if dir != dirHere {
		in.addDir(int8(dir), float32(r-float64(bandHalfWidth)), float32(float64(bandHalfWidth)+r))
		return
	}
	for _, d := range omniOrder {
		in.addDir(d, omniMin, omniMax)
	}
}

// addDir is IntermitSound::AddDir (0x00550CF0): append a new direction with
// its band, or widen the stored band to the union.
func (in *instance) addDir(dir int8, lo, hi float32) {
	for i := 0; i < in.numDir; i++ {
		if in.dirs[i] == dir {
			if lo < in.minDist[i] {
				in.minDist[i] = lo
			}
			if hi > in.maxDist[i] {
				in.maxDist[i] = hi
			}
			return
		}
	}
	if in.numDir == len(in.dirs) {
		return // all eight directions are registered; unreachable for dirs 1..8
	}
	in.dirs[in.numDir], in.minDist[in.numDir], in.maxDist[in.numDir] = dir, lo, hi
	in.numDir++
}

// updateSound is IntermitSound::UpdateSound (0x00551310) and
// ConstantSound::UpdateSound (0x00551540): the share sound_count/total scales
// the authored chance or volume, and an audible sound keeps its STB's table
// alive. Retail evaluates base/total·count in x87 precision and stores a float.
func (in *instance) updateSound(total float32, st *stbState) {
	share := func(authored float32) float32 {
		return float32(float64(authored) / float64(total) * float64(in.soundCount))
	}
	if in.constant {
		if in.soundCount == 0 {
			in.currentVolume = 0
			return
		}
		st.playCount++
		in.currentVolume = share(in.desc.Volume)
		return
	}
	if in.soundCount > 0 {
		st.playCount++
		in.playChance = share(in.desc.BaseChance)
	}
}

// canHear is IntermitSound::CanHear (0x00550F80): play_chance > 0, and
// ConstantSound::CanHear (0x00550FD0): current_volume ≥ 0.03 and a table.
func (in *instance) canHear(st *stbState) bool {
	if in.constant {
		return in.currentVolume >= minVolume && st.table != nil
	}
	return in.playChance > 0
}

// volume is GetVolume: the authored volume for an IntermitSound (0x00551070,
// not scaled by the share), current_volume for a ConstantSound (0x00550D80).
func (in *instance) volume() float32 {
	if in.constant {
		return in.currentVolume
	}
	return in.desc.Volume
}
