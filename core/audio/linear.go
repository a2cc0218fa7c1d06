package audio

import (
	"encoding/binary"
	"fmt"
	"math"

	"acambient/core/dat"
	"acambient/core/samples"
)

// decodeLinear decodes integer PCM. 8-bit samples are unsigned with 0x80 as
// silence; wider ones are signed little-endian (WAVEFORMATEX rules). Every
// width is scaled by 2^(bits−1), so full-scale negative maps to exactly −1
// and 0x80 / 0x0000 to exactly 0. A trailing partial frame is not played,
// as DirectSound plays whole frames only.
func decodeLinear(f dat.WaveFormat, data []byte, yield func()) (*PCM, error) {
	bytesPer := int(f.BitsPerSample) / 8
	switch f.BitsPerSample {
	case 8, 16, 24, 32:
	default:
		return nil, fmt.Errorf("PCM with %d bits per sample (want 8, 16, 24 or 32)", f.BitsPerSample)
	}
	ch := int(f.Channels)
	if int(f.BlockAlign) != ch*bytesPer {
		return nil, fmt.Errorf("PCM block align %d, want %d for %d channels of %d bits",
			f.BlockAlign, ch*bytesPer, ch, f.BitsPerSample)
	}
	n := len(data) / int(f.BlockAlign) * ch
	// A block at a time (a span of the Buf), calling yield between: a
	// sample at a time through Append was 40 ms for a bed wave in the
	// browser's wasm, in one piece.
	out := samples.Make(n)
	for i := 0; i < n; {
		s := out.Span(i, n-i)
		switch bytesPer {
		case 1:
			d := data[i:]
			for j := range s {
				s[j] = float32(int(d[j])-128) / 128
			}
		case 2:
			d := data[2*i:]
			for j := range s {
				s[j] = float32(int16(binary.LittleEndian.Uint16(d[2*j:]))) / 32768
			}
		case 3:
			d := data[3*i:]
			for j := range s {
				b := d[3*j:]
				v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
				s[j] = float32(v) / (1 << 23)
			}
		case 4:
			d := data[4*i:]
			for j := range s {
				s[j] = float32(float64(int32(binary.LittleEndian.Uint32(d[4*j:]))) / (1 << 31))
			}
		}
		i += len(s)
		if yield != nil {
			yield()
		}
	}
	return &PCM{Rate: int(f.SamplesPerSec), Channels: ch, Samples: out}, nil
}

// decodeFloat decodes 32-bit IEEE float PCM, clamping to [-1, 1] as the
// Windows mixer does on output (infinities included); NaN becomes silence.
func decodeFloat(f dat.WaveFormat, data []byte) (*PCM, error) {
	if f.BitsPerSample != 32 {
		return nil, fmt.Errorf("float PCM with %d bits per sample (want 32)", f.BitsPerSample)
	}
	ch := int(f.Channels)
	if int(f.BlockAlign) != 4*ch {
		return nil, fmt.Errorf("float PCM block align %d, want %d for %d channels", f.BlockAlign, 4*ch, ch)
	}
	out := samples.New()
	for i := range len(data) / int(f.BlockAlign) * ch {
		v := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		switch {
		case v != v: // NaN
			v = 0
		case v > 1:
			v = 1
		case v < -1:
			v = -1
		}
		out.Append(v)
	}
	return &PCM{Rate: int(f.SamplesPerSec), Channels: ch, Samples: out}, nil
}
