package audio

import (
	"os"
	"path/filepath"
	"testing"

	"acambient/core/dat"
)

// FuzzDecode feeds arbitrary header and data bytes through Decode: it must
// return an error or PCM whose samples fill whole frames and lie in [-1, 1],
// and never panic. Seeds: every codec's valid input, including the demo's
// MP3 asset and lame streams of other MPEG versions.
func FuzzDecode(f *testing.F) {
	f.Add(header(1, 1, 22050, 1, 8), []byte{0x80, 0xFF, 0})
	f.Add(header(1, 2, 44100, 4, 16), le16(1, -1, 300, -300))
	f.Add(header(3, 1, 8000, 4, 32), f32s(0.5, -2))
	f.Add(header(2, 1, 11025, 9, 4, msExtra(6)...), cat([]byte{1}, le16(16, 100, 50), []byte{0x21, 0xF8}))
	f.Add(header(0x11, 1, 11025, 8, 4, le16(9)...), cat(le16(0), []byte{0, 0, 0x74, 0x8C, 0, 0}))
	h, d := EncodeMSADPCM(synthTest(700, 2), 2, 22050, 256)
	f.Add(h, d)
	for _, name := range []string{"ms2", "ima2"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "sox", name+".wav")); err == nil && len(b) > 200 {
			f.Add(b[20:20+int(b[16])], b[len(b)-200:])
		}
	}
	if b, err := os.ReadFile(mp3Asset); err == nil {
		f.Add(header(0x55, 1, 22050, 1, 0, make([]byte, 12)...), b[:min(len(b), 2000)])
	}
	for _, name := range []string{"stereo44k", "mono11k"} { // MPEG-1 joint stereo; MPEG-2.5, refused
		if b, err := os.ReadFile(filepath.Join("testdata", "mp3", name+".mp3")); err == nil {
			f.Add(mp3Format(2, 44100, 128, 0), b)
		}
	}
	f.Fuzz(func(t *testing.T, h, d []byte) {
		p, err := Decode(&dat.Wave{ID: 0x0A000001, Header: h, Data: d})
		if err != nil {
			return
		}
		if p.Channels < 1 || p.Channels > maxChannels || p.Rate < 1 || p.Samples.Len()%p.Channels != 0 {
			t.Fatalf("decoded %d samples, %d channels, %d Hz", p.Samples.Len(), p.Channels, p.Rate)
		}
		for i, s := range p.Samples.Flat() {
			if !(s >= -1 && s <= 1) {
				t.Fatalf("sample %d = %v", i, s)
			}
		}
	})
}
