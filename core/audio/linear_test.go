package audio

import (
	"math"
	"slices"
	"testing"
)

func TestDecodeLinear(t *testing.T) {
	tests := []struct {
		name     string
		tag      uint16
		ch       uint16
		bits     uint16
		data     []byte
		want     []float32
		channels int
	}{
		// 8-bit is unsigned: 0x80 is silence, 0xFF the top, 0x00 exactly −1.
		{"8-bit", 1, 1, 8, []byte{0x80, 0xFF, 0x00, 0x40, 0xC0}, []float32{0, 127.0 / 128, -1, -0.5, 0.5}, 1},
		// 16-bit signed LE: 0x7FFF = 32767/32768, 0x8000 = −1, stereo interleaved L,R.
		{"16-bit stereo", 1, 2, 16, le16(0, 0x7FFF, -32768, 16384), []float32{0, 32767.0 / 32768, -1, 0.5}, 2},
		// A trailing odd byte (half a frame) is not played.
		{"16-bit odd tail", 1, 1, 16, append(le16(-16384), 0x12), []float32{-0.5}, 1},
		// 24-bit: 0x400000 = 0.5, 0x800000 = −1, 0xFFFFFF = −1/2^23.
		{"24-bit", 1, 1, 24, []byte{0, 0, 0x40, 0, 0, 0x80, 0xFF, 0xFF, 0xFF}, []float32{0.5, -1, -1.0 / (1 << 23)}, 1},
		// 32-bit integer: 0xC0000000 = −0.5.
		{"32-bit", 1, 1, 32, []byte{0, 0, 0, 0xC0}, []float32{-0.5}, 1},
		// IEEE float clamps to [-1, 1]: 0.25, 2.0 → 1, NaN → 0.
		{"float", 3, 1, 32, f32s(0.25, 2, float32(math.NaN())), []float32{0.25, 1, 0}, 1},
		// WAVE_FORMAT_EXTENSIBLE with the PCM sub format decodes as PCM.
		{"extensible", 0xFFFE, 1, 16, le16(8192), []float32{0.25}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []byte
			if tt.tag == 0xFFFE {
				extra = cat(le16(16), []byte{0, 0, 0, 0}, []byte{1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71})
			}
			p, err := Decode(wave(header(tt.tag, tt.ch, 22050, tt.ch*tt.bits/8, tt.bits, extra...), tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if p.Rate != 22050 || p.Channels != tt.channels {
				t.Errorf("rate %d channels %d, want 22050 %d", p.Rate, p.Channels, tt.channels)
			}
			if !slices.Equal(p.Samples.Flat(), tt.want) {
				t.Errorf("samples %v, want %v", p.Samples.Flat(), tt.want)
			}
		})
	}
}

func f32s(v ...float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}

func TestDuration(t *testing.T) {
	p := NewPCM(11025, 2, make([]float32, 2*22050))
	if d := p.Duration(); d != 2 {
		t.Errorf("duration %v, want 2 s", d)
	}
	if d := (&PCM{}).Duration(); d != 0 {
		t.Errorf("empty duration %v", d)
	}
}
