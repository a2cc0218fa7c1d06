package audio

import (
	"strings"
	"testing"

	"acambient/core/dat"
)

func TestDecodeErrors(t *testing.T) {
	ms := msExtra(6)
	msBlock := cat([]byte{1}, le16(16, 100, 50), []byte{0x21, 0xF8})
	tests := []struct {
		name string
		w    *dat.Wave
		want string
	}{
		{"unsupported tag", wave(header(0x0161, 2, 44100, 4, 16), nil), "wave 0x0A000123: format 0x0161 not supported"},
		{"short header", wave([]byte{1, 0, 1}, nil), "wave 0x0A000123: header offset 0: 3 bytes"},
		{"0 channels", wave(header(1, 0, 22050, 2, 16), nil), "0 channels"},
		{"9 channels", wave(header(1, 9, 22050, 18, 16), nil), "9 channels"},
		{"rate 0", wave(header(1, 1, 0, 2, 16), nil), "sample rate 0"},
		{"block align 0", wave(header(1, 1, 22050, 0, 16), nil), "block align 0"},
		{"12-bit PCM", wave(header(1, 1, 22050, 2, 12), nil), "12 bits per sample"},
		{"PCM align mismatch", wave(header(1, 2, 22050, 2, 16), nil), "block align 2, want 4"},
		{"ADPCM 8 bits", wave(header(2, 1, 22050, 9, 8, ms...), msBlock), "8 bits per sample"},
		{"ADPCM align too small", wave(header(2, 2, 22050, 14, 4, ms...), msBlock), "block align 14"},
		{"ADPCM spb too large", wave(header(2, 1, 22050, 9, 4, msExtra(7)...), msBlock), "samples per block 7 exceed"},
		{"ADPCM coefficients overrun", wave(header(2, 1, 22050, 9, 4, le16(6, 9, 256, 0)...), msBlock), "claims 9 coefficient pairs"},
		{"ADPCM predictor 7 of 7", wave(header(2, 1, 22050, 9, 4, ms...), cat(msBlock, []byte{7}, le16(16, 0, 0), []byte{0, 0})),
			"block at data offset 9: channel 0 predictor index 7 out of range"},
		{"ADPCM truncated header", wave(header(2, 1, 22050, 9, 4, ms...), msBlock[:5]), "block at data offset 0 truncated"},
		{"IMA index 89", wave(header(0x11, 1, 22050, 8, 4), cat(le16(0), []byte{89, 0, 0, 0, 0, 0})), "step index 89 out of range"},
		{"IMA ragged align", wave(header(0x11, 2, 22050, 13, 4), nil), "block align 13"},
		{"MP3 garbage", wave(header(0x55, 1, 22050, 1, 0), []byte("this is not an mpeg stream at all")), "holds no MPEG layer 3 frame"},
		{"MP3 huge ID3", wave(header(0x55, 1, 22050, 1, 0), []byte("ID3\x03\x00\x00\x7F\x7F\x7F\x7F....")), "overruns"},
		{"extensible non-PCM", wave(header(0xFFFE, 1, 22050, 2, 16, make([]byte, 22)...), nil), "sub format 0x0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Decode(tt.w)
			if err == nil {
				t.Fatalf("no error; decoded %d samples", p.Samples.Len())
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "wave 0x0A000123: ") {
				t.Errorf("error %q, want it to name the wave and contain %q", err, tt.want)
			}
		})
	}
	if _, err := Decode(nil); err == nil {
		t.Error("nil wave: no error")
	}
}
