package audio

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// msExtra is the standard MS-ADPCM extra: samples per block, 7 coefficients.
func msExtra(spb int, more ...int) []byte {
	c := []int{256, 0, 512, -256, 0, 0, 192, 64, 240, 0, 460, -208, 392, -232}
	c = append(c, more...)
	return cat(le16(spb, len(c)/2), le16(c...))
}

// Two mono blocks of 9 bytes (7-byte header + 2 code bytes = 6 samples each),
// decoded by hand with the RIFFNEW rules: pred = (s1·c1 + s2·c2) >> 8,
// s = pred + code·delta, delta = max(16, adapt[code]·delta >> 8).
//
// Block 1: predictor 1 (512, −256), delta 16, s1 100, s2 50; codes 2 1 F 8.
//
//	out 50, 100 (s2 first, then s1)
//	(100·512 − 50·256) >> 8 = 150;   + 2·16 = 182; delta 230·16>>8 = 14 → 16
//	(182·512 − 100·256) >> 8 = 264;  + 1·16 = 280; delta 16
//	(280·512 − 182·256) >> 8 = 378;  − 1·16 = 362; delta 16
//	(362·512 − 280·256) >> 8 = 444;  − 8·16 = 316; delta 768·16>>8 = 48
//
// Block 2: predictor 5 (460, −208), delta 20, s1 −3, s2 1; codes 0 3 7 A.
// The shift floors negative predictions where RIFFNEW's division would not:
//
//	out 1, −3
//	(−3·460 − 1·208) >> 8 = −1588 >> 8 = −7 (division: −6); + 0 = −7; delta 230·20>>8 = 17
//	(−7·460 + 3·208) >> 8 = −2596 >> 8 = −11;  + 3·17 = 40;  delta 230·17>>8 = 15 → 16
//	(40·460 + 7·208) >> 8 = 19856 >> 8 = 77;   + 7·16 = 189; delta 614·16>>8 = 38
//	(189·460 − 40·208) >> 8 = 78620 >> 8 = 307; − 6·38 = 79; delta 512·38>>8 = 76
func TestMSADPCMHandBlocks(t *testing.T) {
	data := cat(
		[]byte{1}, le16(16, 100, 50), []byte{0x21, 0xF8},
		[]byte{5}, le16(20, -3, 1), []byte{0x03, 0x7A},
	)
	p, err := Decode(wave(header(2, 1, 11025, 9, 4, msExtra(6)...), data))
	if err != nil {
		t.Fatal(err)
	}
	want := []int{50, 100, 182, 280, 362, 316, 1, -3, -7, 40, 189, 79}
	if got := ints(p); !slices.Equal(got, want) {
		t.Errorf("samples %v\nwant    %v", got, want)
	}
	if p.Rate != 11025 || p.Channels != 1 {
		t.Errorf("rate %d channels %d", p.Rate, p.Channels)
	}
}

// Stereo: header fields per channel, codes high nibble left, low nibble right.
// Left: predictor 0 (256, 0), delta 16, s1 1000, s2 900 → code 3: 1000 + 48 = 1048.
// Right: predictor 2 (0, 0), delta 32, s1 −5, s2 7 → code E (−2): 0 − 64 = −64.
func TestMSADPCMStereo(t *testing.T) {
	data := cat([]byte{0, 2}, le16(16, 32, 1000, -5, 900, 7), []byte{0x3E})
	p, err := Decode(wave(header(2, 2, 22050, 15, 4, msExtra(3)...), data))
	if err != nil {
		t.Fatal(err)
	}
	want := []int{900, 7, 1000, -5, 1048, -64}
	if got := ints(p); !slices.Equal(got, want) || p.Channels != 2 {
		t.Errorf("samples %v (%d ch), want %v", got, p.Channels, want)
	}
}

// A custom eighth coefficient pair from the extra bytes is honoured:
// predictor 7 = (128, 64), s1 200, s2 100: (200·128 + 100·64) >> 8 = 125; code 1, delta 20 → 145.
func TestMSADPCMCustomCoefficients(t *testing.T) {
	data := cat([]byte{7}, le16(20, 200, 100), []byte{0x10})
	p, err := Decode(wave(header(2, 1, 8000, 8, 4, msExtra(3, 128, 64)...), data))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ints(p), []int{100, 200, 145}; !slices.Equal(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
}

// A final short block decodes what it holds; a final block cut inside its
// header is an error naming the offset.
func TestMSADPCMShortFinalBlock(t *testing.T) {
	full := cat([]byte{1}, le16(16, 100, 50), []byte{0x21, 0xF8})
	p, err := Decode(wave(header(2, 1, 11025, 9, 4, msExtra(6)...), cat(full, []byte{0}, le16(16, 10, 20), []byte{0x10})))
	if err != nil {
		t.Fatal(err)
	}
	// Second block: predictor 0 (256, 0): 20, 10, then 10 + 16 = 26, 26 + 0 = 26.
	if got, want := ints(p), []int{50, 100, 182, 280, 362, 316, 20, 10, 26, 26}; !slices.Equal(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
	_, err = Decode(wave(header(2, 1, 11025, 9, 4, msExtra(6)...), cat(full, []byte{0, 16, 0})))
	if err == nil || !strings.Contains(err.Error(), "data offset 9") {
		t.Errorf("truncated header: err %v, want one naming data offset 9", err)
	}
}

func TestEncodeMSADPCMRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		ch, spb, frames int
	}{{1, 1012, 22050}, {2, 500, 11025}, {1, 64, 1000}} {
		x := synthTest(tc.frames, tc.ch)
		h, d := EncodeMSADPCM(x, tc.ch, 22050, tc.spb)
		p, err := Decode(wave(h, d))
		if err != nil {
			t.Fatal(err)
		}
		if p.Channels != tc.ch || p.Rate != 22050 {
			t.Fatalf("decoded %d ch at %d Hz", p.Channels, p.Rate)
		}
		if p.Frames() < tc.frames || p.Frames() > tc.frames+1 {
			t.Fatalf("%d frames decoded, want %d (+1 padding nibble at most)", p.Frames(), tc.frames)
		}
		var sig, noise float64
		for i, s := range x {
			e := float64(s) - float64(p.Samples.At(i))*32768
			sig += float64(s) * float64(s)
			noise += e * e
		}
		snr := 10 * math.Log10(sig/noise)
		if snr < 20 {
			t.Errorf("%d ch, %d per block: SNR %.1f dB, want > 20", tc.ch, tc.spb, snr)
		}
		t.Logf("%d ch, %d per block: SNR %.1f dB, %d bytes for %d samples", tc.ch, tc.spb, snr, len(d), len(x))
	}
}

func TestEncodeMSADPCMHeader(t *testing.T) {
	h, _ := EncodeMSADPCM(make([]int16, 2048), 1, 22050, 1012)
	f, err := wave(h, nil).Format()
	if err != nil {
		t.Fatal(err)
	}
	// 1012 samples: 7 header bytes + 1010 nibbles = 512 bytes, the usual 22 kHz block.
	if f.FormatTag != 2 || f.BlockAlign != 512 || f.BitsPerSample != 4 || f.CbSize != 32 || f.AvgBytesPerSec != 11155 {
		t.Errorf("header %+v", f)
	}
	if len(h) != 50 || h[18] != 0xF4 || h[19] != 0x03 || h[20] != 7 {
		t.Errorf("extra % X", h[18:])
	}
	if h, d := EncodeMSADPCM(nil, 0, 22050, 1012); h != nil || d != nil {
		t.Error("0 channels gave a header")
	}
}

// synthTest is a chirp plus a low tone under a smooth envelope, ±20000.
func synthTest(frames, ch int) []int16 {
	x := make([]int16, frames*ch)
	for i := range frames {
		tt := float64(i) / 22050
		env := math.Sin(math.Pi * float64(i) / float64(frames))
		v := 0.6*math.Sin(2*math.Pi*(300+2000*tt)*tt) + 0.3*math.Sin(2*math.Pi*110*tt)
		for c := range ch {
			x[i*ch+c] = int16(20000 * env * v * (1 - 0.3*float64(c)))
		}
	}
	return x
}
