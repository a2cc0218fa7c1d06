package audio

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"acambient/core/dat"
)

// testdata/sox holds an independent check on the ADPCM decoders: sox 14.4
// encoded a sweep (mono, 11025 Hz) and pink noise plus a tone (stereo,
// 22050 Hz) with -e ms-adpcm and -e ima-adpcm, and decoded each back to
// 16-bit PCM (*.ref.wav). Made with:
//
//	sox -n -r 11025 -c 1 -b 16 src1.wav synth 0.25 sine 300-2500 gain -3
//	sox -n -r 22050 -c 2 -b 16 src2.wav synth 0.2 pinknoise sine 440 gain -6
//	sox srcN.wav -e ms-adpcm msN.wav; sox srcN.wav -e ima-adpcm imaN.wav
//	sox X.wav -e signed -b 16 X.ref.wav
func TestDecodeAgreesWithSox(t *testing.T) {
	for _, name := range []string{"ms1", "ms2", "ima1", "ima2"} {
		t.Run(name, func(t *testing.T) {
			w := readRIFF(t, filepath.Join("testdata", "sox", name+".wav"))
			ref := readRIFF(t, filepath.Join("testdata", "sox", name+".ref.wav"))
			got, err := Decode(w)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Decode(ref)
			if err != nil {
				t.Fatal(err)
			}
			if got.Channels != want.Channels || got.Rate != want.Rate {
				t.Fatalf("%d ch %d Hz, sox %d ch %d Hz", got.Channels, got.Rate, want.Channels, want.Rate)
			}
			if got.Samples.Len() != want.Samples.Len() {
				t.Fatalf("%d samples, sox %d", got.Samples.Len(), want.Samples.Len())
			}
			g, s := ints(got), ints(want)
			for i := range g {
				if g[i] != s[i] {
					t.Fatalf("sample %d: %d, sox %d", i, g[i], s[i])
				}
			}
		})
	}
}

// readRIFF loads a WAV file's fmt and data chunks as a Wave.
func readRIFF(t *testing.T, path string) *dat.Wave {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := &dat.Wave{ID: 0x0A00FFFF}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("%s: not RIFF WAVE", path)
	}
	for off := 12; off+8 <= len(b); {
		id, n := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		body := b[off+8 : min(off+8+n, len(b))]
		switch id {
		case "fmt ":
			w.Header = body
		case "data":
			w.Data = body
		}
		off += 8 + n + n%2
	}
	if w.Header == nil || w.Data == nil {
		t.Fatal(fmt.Errorf("%s: no fmt or data chunk", path))
	}
	return w
}
