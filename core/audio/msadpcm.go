package audio

import (
	"encoding/binary"
	"fmt"

	"acambient/core/dat"
	"acambient/core/samples"
)

// MS-ADPCM (WAVE_FORMAT_ADPCM, 0x0002), as described in Microsoft's
// "Multimedia Standards Update" (RIFFNEW, 1994) and as msadp32.acm decodes it.
//
// A block holds, per channel: a predictor index (u8), then per channel the
// initial delta (i16), then sample 1 (i16), then sample 2 (i16) — each field
// for all channels before the next field. Sample 2 is the older one and is
// output first, then sample 1. Then 4-bit codes follow, high nibble first,
// interleaved across channels (stereo: high nibble left, low nibble right).

// msAdaptation scales the delta after each code (8.8 fixed point), indexed by
// the unsigned nibble.
var msAdaptation = [16]int{230, 230, 230, 230, 307, 409, 512, 614, 768, 614, 512, 409, 307, 230, 230, 230}

// msCoefficients is the standard predictor table (8.8 fixed point) that every
// MS-ADPCM header carries as its first seven entries.
var msCoefficients = [7][2]int{{256, 0}, {512, -256}, {0, 0}, {192, 64}, {240, 0}, {460, -208}, {392, -232}}

const (
	msMinDelta = 16 // RIFFNEW: the delta never falls below 16
	// msMaxDelta keeps delta·768 inside int32, as msadp32 works in 32 bits;
	// only corrupt data gets near it (a delta that large saturates every code).
	msMaxDelta = (1<<31 - 1) / 768
)

// msFormat is the codec part of an MS-ADPCM header.
type msFormat struct {
	channels        int
	blockAlign      int
	samplesPerBlock int // per channel, including the two header samples
	coef            [][2]int
}

// parseMSFormat validates the header. The extra bytes are u16
// samples-per-block, u16 coefficient count, then count pairs of i16.
func parseMSFormat(f dat.WaveFormat) (msFormat, error) {
	m := msFormat{channels: int(f.Channels), blockAlign: int(f.BlockAlign)}
	if f.BitsPerSample != 4 {
		return m, fmt.Errorf("MS-ADPCM with %d bits per sample (want 4)", f.BitsPerSample)
	}
	hdr := 7 * m.channels
	if m.blockAlign <= hdr {
		return m, fmt.Errorf("MS-ADPCM block align %d leaves no room after the %d-byte block header", m.blockAlign, hdr)
	}
	// Every nibble after the header is one sample of one channel.
	fit := 2 + (m.blockAlign-hdr)*2/m.channels
	m.samplesPerBlock = fit
	m.coef = make([][2]int, len(msCoefficients))
	copy(m.coef, msCoefficients[:])
	x := f.Extra
	if len(x) == 0 {
		return m, nil // no extra: a bare header; the standard table applies
	}
	if len(x) < 4 {
		return m, fmt.Errorf("MS-ADPCM extra of %d bytes (want >= 4)", len(x))
	}
	spb := int(binary.LittleEndian.Uint16(x))
	switch {
	case spb < 2:
		return m, fmt.Errorf("MS-ADPCM samples per block %d (want >= 2)", spb)
	case spb > fit:
		return m, fmt.Errorf("MS-ADPCM samples per block %d exceed the %d a %d-byte block holds", spb, fit, m.blockAlign)
	}
	m.samplesPerBlock = spb
	n := int(binary.LittleEndian.Uint16(x[2:]))
	if n == 0 {
		return m, fmt.Errorf("MS-ADPCM header with 0 coefficients")
	}
	if 4+4*n > len(x) {
		return m, fmt.Errorf("MS-ADPCM header claims %d coefficient pairs, extra holds %d", n, (len(x)-4)/4)
	}
	m.coef = make([][2]int, n)
	for i := range m.coef {
		m.coef[i][0] = int(int16(binary.LittleEndian.Uint16(x[4+4*i:])))
		m.coef[i][1] = int(int16(binary.LittleEndian.Uint16(x[6+4*i:])))
	}
	return m, nil
}

func decodeMSADPCM(f dat.WaveFormat, data []byte) (*PCM, error) {
	m, err := parseMSFormat(f)
	if err != nil {
		return nil, err
	}
	ch, hdr := m.channels, 7*m.channels
	// A final short block decodes the samples it holds, as msadp32 and most
	// decoders do; a block cut inside its header is an error.
	for off := 0; off < len(data); off += m.blockAlign {
		n := min(m.blockAlign, len(data)-off)
		if n < hdr {
			return nil, fmt.Errorf("MS-ADPCM block at data offset %d truncated: %d bytes, header needs %d", off, n, hdr)
		}
	}
	out := samples.New()
	st := make([]msChannel, ch)
	for off := 0; off < len(data); off += m.blockAlign {
		blk := data[off : off+min(m.blockAlign, len(data)-off)]
		if err = m.decodeBlock(blk, st, out); err != nil {
			return nil, fmt.Errorf("MS-ADPCM block at data offset %d: %w", off, err)
		}
	}
	return &PCM{Rate: int(f.SamplesPerSec), Channels: ch, Samples: out}, nil
}

// msChannel is one channel's decoder state.
type msChannel struct {
	c1, c2, delta, s1, s2 int
}

// expand decodes one 4-bit code. msadp32 computes the prediction with an
// arithmetic shift (floor), not the division RIFFNEW prints (which truncates
// toward zero); they differ by one on negative predictions. Retail decoded
// through msadp32, so the shift is the faithful choice.
func (c *msChannel) expand(code byte) int16 {
	pred := (c.s1*c.c1 + c.s2*c.c2) >> 8
	signed := int(code)
	if signed >= 8 {
		signed -= 16
	}
	s := clamp16(pred + signed*c.delta)
	c.s2, c.s1 = c.s1, s
	c.delta = min(max(msAdaptation[code]*c.delta>>8, msMinDelta), msMaxDelta)
	return int16(s)
}

// decodeBlock appends the block's samples to out.
func (m *msFormat) decodeBlock(b []byte, st []msChannel, out *samples.Buf) error {
	ch := m.channels
	for i := range st {
		p := int(b[i])
		if p >= len(m.coef) {
			return fmt.Errorf("channel %d predictor index %d out of range (header has %d)", i, p, len(m.coef))
		}
		d := int(int16(binary.LittleEndian.Uint16(b[ch+2*i:])))
		st[i] = msChannel{
			c1:    m.coef[p][0],
			c2:    m.coef[p][1],
			delta: d, // a negative delta is kept for the first code: msadp32 does not check it
			s1:    int(int16(binary.LittleEndian.Uint16(b[3*ch+2*i:]))),
			s2:    int(int16(binary.LittleEndian.Uint16(b[5*ch+2*i:]))),
		}
	}
	for i := range st {
		out.Append(float32(st[i].s2) / 32768)
	}
	for i := range st {
		out.Append(float32(st[i].s1) / 32768)
	}
	codes := b[7*ch:]
	frames := min(m.samplesPerBlock, 2+len(codes)*2/ch) - 2
	for k := 0; k < frames*ch; k++ {
		code := codes[k/2] >> 4
		if k%2 == 1 {
			code = codes[k/2] & 0x0F
		}
		out.Append(float32(st[k%ch].expand(code)) / 32768)
	}
	return nil
}

func clamp16(v int) int { return min(max(v, -32768), 32767) }
