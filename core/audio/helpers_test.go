package audio

import (
	"encoding/binary"

	"acambient/core/dat"
)

// header builds a WAVEFORMATEX: 18 bytes plus extra (cbSize = len(extra)).
func header(tag, ch uint16, rate uint32, align, bits uint16, extra ...byte) []byte {
	h := make([]byte, 18, 18+len(extra))
	binary.LittleEndian.PutUint16(h[0:], tag)
	binary.LittleEndian.PutUint16(h[2:], ch)
	binary.LittleEndian.PutUint32(h[4:], rate)
	binary.LittleEndian.PutUint32(h[8:], rate*uint32(align))
	binary.LittleEndian.PutUint16(h[12:], align)
	binary.LittleEndian.PutUint16(h[14:], bits)
	binary.LittleEndian.PutUint16(h[16:], uint16(len(extra)))
	return append(h, extra...)
}

func wave(h, data []byte) *dat.Wave { return &dat.Wave{ID: 0x0A000123, Header: h, Data: data} }

// le16 packs int16 values little-endian.
func le16(v ...int) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(x)))
	}
	return b
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// ints converts decoded samples back to 16-bit integers (exact for 16-bit sources).
func ints(p *PCM) []int {
	out := make([]int, p.Samples.Len())
	for i, s := range p.Samples.Flat() {
		out[i] = int(To16(s))
	}
	return out
}
