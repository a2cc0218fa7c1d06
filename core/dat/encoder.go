package dat

import (
	"encoding/binary"
	"math"
)

// encoder appends a record's bytes; b[0] is the DID, so len(b) is the offset
// that pad4 aligns to.
type encoder struct {
	b []byte

	// PString bookkeeping (Region only), the mirror of decoder's.
	nstr int
	raws []rawPString
}

func newEncoder(id DID, sizeHint int) *encoder {
	e := &encoder{b: make([]byte, 0, sizeHint)}
	e.u32(uint32(id))
	return e
}

func (e *encoder) u8(v uint8)     { e.b = append(e.b, v) }
func (e *encoder) u16(v uint16)   { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *encoder) u32(v uint32)   { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) i32(v int32)    { e.u32(uint32(v)) }
func (e *encoder) did(v DID)      { e.u32(uint32(v)) }
func (e *encoder) f32(v float32)  { e.u32(math.Float32bits(v)) }
func (e *encoder) f64(v float64)  { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v)) }
func (e *encoder) bytes(p []byte) { e.b = append(e.b, p...) }

// count writes a list length; lists in memory never exceed 32 bits in practice,
// and a longer one could not be decoded from a dat anyway.
func (e *encoder) count(n int) { e.u32(uint32(n)) }

// padLen is how many pad bytes pad4 needs at the current offset.
func (e *encoder) padLen() int { return (4 - len(e.b)&3) & 3 }

// pad4 writes zero padding to the next multiple of 4 (docs/dat-format.md §1.5: pad bytes are zero).
func (e *encoder) pad4() {
	for n := e.padLen(); n > 0; n-- {
		e.b = append(e.b, 0)
	}
}
