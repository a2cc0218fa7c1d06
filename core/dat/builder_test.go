package dat

import (
	"encoding/binary"
	"math"
	"testing"
)

// builder writes little-endian record bytes by hand, independently of the
// package's encoder, so fixtures state the spec's layouts directly.
type builder struct{ b []byte }

func (w *builder) u8(v ...uint8) { w.b = append(w.b, v...) }
func (w *builder) u16(v ...uint16) {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint16(w.b, x)
	}
}
func (w *builder) u32(v ...uint32) {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint32(w.b, x)
	}
}
func (w *builder) f32(v ...float32) {
	for _, x := range v {
		w.u32(math.Float32bits(x))
	}
}
func (w *builder) f64(v float64) { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v)) }
func (w *builder) at() int       { return len(w.b) }

// pstr writes the canonical AC1Legacy PString of an ASCII s: u16 length,
// bytes, zero pad to a multiple of 4 from the record start.
func (w *builder) pstr(s string) {
	w.u16(uint16(len(s)))
	w.b = append(w.b, s...)
	w.zpad()
}

func (w *builder) zpad() {
	for len(w.b)%4 != 0 {
		w.b = append(w.b, 0)
	}
}

// put overwrites a u32 at off, for corrupting a valid fixture.
func put32(b []byte, off int, v uint32) []byte {
	c := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

func TestBuilderPString(t *testing.T) {
	// "Dereth" at 0x0C: u16 6 + 6 bytes ends at 0x14 with no pad (docs/dat-format.md §3.1);
	// "P.Y." from 0x14 ends at 0x1A and pads 2 bytes to 0x1C.
	var w builder
	w.u32(0, 0, 0)
	w.pstr("Dereth")
	if w.at() != 0x14 {
		t.Fatalf("after Dereth: at 0x%X, want 0x14", w.at())
	}
	w.pstr("P.Y.")
	if w.at() != 0x1C {
		t.Fatalf("after P.Y.: at 0x%X, want 0x1C", w.at())
	}
}
