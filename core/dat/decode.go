package dat

import "fmt"

// Decode decodes a record of the given kind, for tools that pick the kind at
// run time (inspect). The result is *Region, *SoundTable, *Wave, *LandBlock
// or *EnvCell, and a nil interface on error.
func Decode(kind Kind, id uint32, b []byte) (any, error) {
	switch kind {
	case KindRegion:
		return result(DecodeRegion(id, b))
	case KindSoundTable:
		return result(DecodeSoundTable(id, b))
	case KindWave:
		return result(DecodeWave(id, b))
	case KindLandBlock:
		return result(DecodeLandBlock(id, b))
	case KindEnvCell:
		return result(DecodeEnvCell(id, b))
	}
	return nil, fmt.Errorf("dat: record 0x%08X: unknown kind %q (want region, soundtable, wave, landblock or envcell)", id, kind)
}

// result keeps a typed nil pointer out of the interface on error.
func result[T any](v *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}
