package caption

import (
	"errors"
	"math"
	"strconv"
)

// MarshalJSON writes the caption event of docs/interfaces.md §3.3: text,
// kind, direction, near, stbIndex, table and wave ("0x%08X"; null for a
// bed), then t and db. Written by hand, as ambient.Event is, so the page's
// build needs no reflection for it; one string concatenation keeps its code
// small there.
func (c Caption) MarshalJSON() ([]byte, error) {
	if math.IsNaN(c.T) || math.IsInf(c.T, 0) {
		return nil, errors.New("caption: t is not a number JSON can hold")
	}
	wave := "null"
	if c.Kind != KindBed {
		wave = hexID(c.Wave)
	}
	t := "0" // also turns −0 into 0
	if c.T != 0 {
		t = strconv.FormatFloat(c.T, 'f', -1, 64)
	}
	return []byte(`{"text":` + strconv.Quote(c.Text) + `,"kind":` + strconv.Quote(string(c.Kind)) +
		`,"direction":` + strconv.Quote(c.Direction) + `,"near":` + strconv.FormatBool(c.Near) +
		`,"stbIndex":` + strconv.Itoa(c.STBIndex) + `,"table":` + hexID(c.Table) + `,"wave":` + wave +
		`,"t":` + t + `,"db":` + strconv.Itoa(c.DB) + `}`), nil
}

// hexID is id as a JSON string "0x%08X".
func hexID(id uint32) string {
	const hex = "0123456789ABCDEF"
	b := [12]byte{'"', '0', 'x', 11: '"'}
	for i := range 8 {
		b[3+i] = hex[id>>(28-4*i)&0xF]
	}
	return string(b[:])
}
