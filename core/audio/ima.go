package audio

import (
	"encoding/binary"
	"fmt"

	"acambient/core/dat"
	"acambient/core/samples"
)

// IMA ADPCM (WAVE_FORMAT_IMA_ADPCM / DVI, 0x0011), per the IMA Digital Audio
// Focus and Technical Working Groups' recommendation (1992) as Microsoft
// packs it in WAV: per channel a 4-byte header (i16 first sample, u8 step
// index 0..88, u8 reserved 0), then 4-byte words, one channel's word after
// the other, each word holding 8 codes of its channel, low nibble first.

var imaStep = [89]int{
	7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45,
	50, 55, 60, 66, 73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230,
	253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796, 876, 963,
	1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327,
	3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442,
	11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
	32767,
}

var imaIndexStep = [16]int{-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8}

func decodeIMA(f dat.WaveFormat, data []byte) (*PCM, error) {
	if f.BitsPerSample != 4 {
		return nil, fmt.Errorf("IMA ADPCM with %d bits per sample (want 4)", f.BitsPerSample)
	}
	ch, align := int(f.Channels), int(f.BlockAlign)
	hdr, group := 4*ch, 4*ch // a group is one 4-byte word per channel: 8 frames
	if align <= hdr || (align-hdr)%group != 0 {
		return nil, fmt.Errorf("IMA ADPCM block align %d is not a %d-byte header plus whole %d-byte groups", align, hdr, group)
	}
	for off := 0; off < len(data); off += align {
		n := min(align, len(data)-off)
		if n < hdr {
			return nil, fmt.Errorf("IMA ADPCM block at data offset %d truncated: %d bytes, header needs %d", off, n, hdr)
		}
	}
	out := samples.New()
	pred := make([]int, ch)
	index := make([]int, ch)
	for off := 0; off < len(data); off += align {
		b := data[off : off+min(align, len(data)-off)]
		for c := range ch {
			pred[c] = int(int16(binary.LittleEndian.Uint16(b[4*c:])))
			index[c] = int(b[4*c+2])
			if index[c] > 88 {
				return nil, fmt.Errorf("IMA ADPCM block at data offset %d: channel %d step index %d out of range 0..88", off, c, index[c])
			}
			out.Append(float32(pred[c]) / 32768)
		}
		groups := (len(b) - hdr) / group
		base := out.Len()
		out.Resize(base + groups*8*ch)
		for g := range groups {
			for c := range ch {
				word := b[hdr+g*group+4*c : hdr+g*group+4*c+4]
				for k := range 8 {
					code := word[k/2] >> (4 * (k % 2)) & 0x0F
					out.Set(base+(g*8+k)*ch+c, float32(imaExpand(&pred[c], &index[c], code))/32768)
				}
			}
		}
	}
	return &PCM{Rate: int(f.SamplesPerSec), Channels: ch, Samples: out}, nil
}

// imaExpand decodes one code: the difference is step·(code&7 + ½)/4 built
// from shifts, so its rounding is the reference's, not a multiplication's.
func imaExpand(pred, index *int, code byte) int {
	step := imaStep[*index]
	diff := step >> 3
	if code&4 != 0 {
		diff += step
	}
	if code&2 != 0 {
		diff += step >> 1
	}
	if code&1 != 0 {
		diff += step >> 2
	}
	if code&8 != 0 {
		*pred = clamp16(*pred - diff)
	} else {
		*pred = clamp16(*pred + diff)
	}
	*index = min(max(*index+imaIndexStep[code], 0), 88)
	return *pred
}
