package world

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"acambient/core/dat"
)

// MarshalJSON writes {"objcellId": "0x%08X", "x", "y", "z"} (docs/interfaces.md §1.2)
// with the coordinates as plain decimals, never in exponent form.
func (p Position) MarshalJSON() ([]byte, error) {
	for _, v := range [...]float32{p.X, p.Y, p.Z} {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("world: position 0x%08X: coordinate %v is not a number JSON can hold", p.ObjCellID, v)
		}
	}
	b := make([]byte, 0, 80)
	b = append(b, `{"objcellId":"`...)
	b = append(b, dat.DID(p.ObjCellID).String()...)
	b = append(b, `","x":`...)
	b = strconv.AppendFloat(b, float64(p.X), 'f', -1, 32)
	b = append(b, `,"y":`...)
	b = strconv.AppendFloat(b, float64(p.Y), 'f', -1, 32)
	b = append(b, `,"z":`...)
	b = strconv.AppendFloat(b, float64(p.Z), 'f', -1, 32)
	return append(b, '}'), nil
}

// UnmarshalJSON accepts the objcell id as a "0x…"/decimal string or a number.
func (p *Position) UnmarshalJSON(b []byte) error {
	var raw struct {
		ObjCellID json.RawMessage `json:"objcellId"`
		X, Y, Z   float32
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("world: position: %w", err)
	}
	if len(raw.ObjCellID) == 0 {
		return fmt.Errorf("world: position: objcellId missing")
	}
	var id uint32
	var s string
	if err := json.Unmarshal(raw.ObjCellID, &s); err == nil {
		v, err := dat.ParseID(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("world: position: objcellId: %w", err)
		}
		id = v
	} else if err := json.Unmarshal(raw.ObjCellID, &id); err != nil {
		return fmt.Errorf("world: position: objcellId %s: want a 32-bit id", raw.ObjCellID)
	}
	*p = Position{ObjCellID: id, X: raw.X, Y: raw.Y, Z: raw.Z}
	return nil
}
