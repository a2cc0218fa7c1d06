package dat

import (
	"fmt"
	"strconv"
)

// Well-known ids and ranges (docs/dat-format.md §1.6).
const (
	RegionID      = 0x13000000 // Dereth; enum-mapped, not 0x13000000+number (docs/dat-format.md §3)
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

// ParseID reads a record id, as docs/interfaces.md §0 asks of input ids: decimal, or
// hex after "0x" or "0X" with digits in any case; the full unsigned 32-bit
// range. It is the one id parser: of the command line, JSON positions, the
// server's URL segments and the listings the HTTP source reads. Like the
// Rust integer parse acdatservice uses (its parse_file_id), a leading "+" is
// allowed on decimal; a "-" is an error. Bare hex without "0x" is refused:
// "12345678" would be ambiguous. Nothing around the id is trimmed; callers
// reading free text trim it first.
func ParseID(s string) (uint32, error) {
	if s == "" {
		return 0, fmt.Errorf("empty record id")
	}
	if len(s) > 64 {
		return 0, fmt.Errorf("record id of %d characters", len(s))
	}
	t, base := s, 10
	switch {
	case len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X"):
		t, base = t[2:], 16
	case t[0] == '+':
		t = t[1:]
	}
	// ParseUint with an explicit base takes neither signs nor underscores.
	v, err := strconv.ParseUint(t, base, 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("record id %q is beyond 32 bits", s)
		}
		return 0, fmt.Errorf("record id %q: want decimal or 0x-hex", s)
	}
	return uint32(v), nil
}
