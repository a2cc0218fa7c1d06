package ambient

// Bed is a continuous sound set that the last rebuild made audible: a
// ConstantSound the gather reached whose next fire plays (CanHear holds and
// its centred level passes the −50 dB cull), with the whole dB it fires at.
// Captions say what these are (core/caption); the engine never reads them.
type Bed struct {
	STBIndex   int
	SoundIndex int
	DB         int // GetAttenuation(0, A·current_volume, A): what its next centred play is sent at
}

// Beds appends to dst the continuous sounds that fire audibly as of the last
// rebuild, in the order the gather first reached them, and returns dst.
// Nothing fires while ambient sound is disabled (UseTime returns at once),
// nor at slider 0 (every play is culled). It allocates only when dst must
// grow.
func (e *Engine) Beds(dst []Bed) []Bed {
	if !e.enabled {
		return dst
	}
	for _, n := range e.live {
		in := &e.sounds[n]
		if !in.constant || !in.canHear(&e.stbs[in.stb]) {
			continue
		}
		// PlayAmbientSoundFromCenter: the slider once into the volume, then
		// GetAttenuation(0, v) with the slider again (playAmbient).
		if _, db, ok := attenuation(0, e.volume*in.volume(), e.volume); ok {
			dst = append(dst, Bed{STBIndex: in.stb, SoundIndex: in.idx, DB: db})
		}
	}
	return dst
}

// AppendCells appends Cells' list to dst without a copy of its own: a
// caller that keeps a buffer allocates only when it grows.
func (e *Engine) AppendCells(dst []CellWeight) []CellWeight {
	return append(dst, e.cellLog...)
}

// DirHeading is the nominal compass heading, in radians clockwise from
// north, of a direction band 1..8 as retail places a sound in it
// (LandDefs::heading 0x005A9A30); 0 (centred) and unknown bands give north.
func DirHeading(dir int) float32 { return dirHeading(dir) }
