package dat

import (
	"fmt"
	"strconv"
	"strings"
)

// Well-known ids and ranges (spec §1.6).
const (
	RegionID      = 0x13000000 // Dereth; enum-mapped, not 0x13000000+number (spec §3)
	IterationID   = 0xFFFF0001 // iteration list, in every dat, no DID prefix
	LandBlockLow  = 0xFFFF
	LandInfoLow   = 0xFFFE
	EnvCellFirst  = 0x0100
	EnvCellLast   = 0xFFFD
	OutdoorCellHi = 0x0040
)

// Kind names a record kind as the inspect command spells it.
type Kind string

const (
	KindRegion     Kind = "region"
	KindSoundTable Kind = "soundtable"
	KindWave       Kind = "wave"
	KindLandBlock  Kind = "landblock"
	KindEnvCell    Kind = "envcell"
	KindUnknown    Kind = ""
)

// PortalKind classifies a portal-dat id by its high byte.
func PortalKind(id uint32) Kind {
	switch id >> 24 {
	case 0x0A:
		return KindWave
	case 0x13:
		return KindRegion
	case 0x20:
		return KindSoundTable
	}
	return KindUnknown
}

// CellKind classifies a cell-dat id by its low 16 bits.
func CellKind(id uint32) Kind {
	low := id & 0xFFFF
	switch {
	case id == IterationID:
		return KindUnknown
	case low == LandBlockLow:
		return KindLandBlock
	case low >= EnvCellFirst && low <= EnvCellLast:
		return KindEnvCell
	}
	return KindUnknown
}

// ParseID accepts decimal or 0x-hex (any case), as contracts §0 requires of input ids.
func ParseID(s string) (uint32, error) {
	t := strings.TrimSpace(s)
	var v uint64
	var err error
	if len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X") {
		v, err = strconv.ParseUint(t[2:], 16, 32)
	} else {
		v, err = strconv.ParseUint(t, 10, 32)
	}
	if err != nil {
		return 0, fmt.Errorf("id %q: want decimal or 0x-hex, 32 bits", s)
	}
	return uint32(v), nil
}
