package world

import (
	"math"
	"strconv"
)

// Where is a position in every form a page shows: objcell and
// landblock-local metres, global metres, map coordinates.
type Where struct {
	Position
	Outdoor bool
	X, Y    float64 // global metres
	NS, EW  float64 // map coordinates (north and east positive)
}

// WhereOf describes p.
func WhereOf(p Position) Where {
	X, Y, _ := p.Global()
	ns, ew := MapCoords(X, Y)
	return Where{Position: p, Outdoor: IsOutdoor(p.ObjCellID), X: X, Y: Y, NS: ns, EW: ew}
}

// MarshalJSON writes the position's keys (docs/interfaces.md §1.2), then "outdoor",
// "X", "Y", "ns" and "ew", every number the shortest plain decimal that
// reads back as it (never an exponent).
func (w Where) MarshalJSON() ([]byte, error) {
	b, err := w.Position.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], `,"outdoor":`...)
	b = strconv.AppendBool(b, w.Outdoor)
	for _, f := range [...]struct {
		key string
		v   float64
	}{{"X", w.X}, {"Y", w.Y}, {"ns", w.NS}, {"ew", w.EW}} {
		b = append(b, `,"`...)
		b = append(b, f.key...)
		b = append(b, `":`...)
		b = appendNumber(b, f.v)
	}
	return append(b, '}'), nil
}

// appendNumber appends v as JSON wants a number here (docs/interfaces.md §0: plain
// decimals): the shortest decimal that reads back as v, without an
// exponent however small or large, −0 as 0; NaN and ±Inf, which JSON
// cannot hold, as null.
func appendNumber(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return append(b, "null"...)
	case v == 0:
		return append(b, '0')
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}
