package audio

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"acambient/core/dat"
)

// testdata/mp3 holds an independent check on the MP3 path, as testdata/sox
// does for ADPCM: lame-encoded streams (MPEG-1 mono and joint stereo at
// 44100 Hz, MPEG-2 joint stereo at 22050 Hz) and the demo's asset (MPEG-2
// mono 22050 Hz), each with mpg123's decode to 16-bit PCM (*.ref.wav).
// testdata/mp3/make.sh made them and says how.
//
// Both decoders output every frame, the decoder's delay and the encoder's
// padding included, so the decodes must be equally long and agree at lag 0:
// a sweep's or a tone's decode shifted by one sample is at most 21 dB from
// itself. They differ only in the last bit: go-mp3 scales by 32767 and
// truncates toward zero, mpg123 scales by 32768 and rounds, so a sample may
// be off by up to 1 LSB from the scale (at full scale) plus 1 LSB from the
// rounding (mpg123's own AVX and C syntheses differ by 1 LSB). Measured: at
// most 2 LSB apart and an SNR of 72.1-83.5 dB (the quietest channel lowest).
// The test allows 3 LSB and 65 dB: room for float rounding elsewhere (FMA on
// other architectures), and far from what a decoding error does (a one-sample
// shift: 8-21 dB; a gain change of 0.01 dB: 59 dB and 18-25 LSB).
//
// The asset's length follows from its making: lame (internal/mkmp3) encoded
// 127 890 samples, delaying them by 576 + 529 and padding the end by at least
// the decoder's 529, then to a whole 576-sample frame: 129 600 (5.878 s).
func TestDecodeMP3AgreesWithMpg123(t *testing.T) {
	const maxLSB, minSNR = 3, 65.0
	for _, tt := range []struct {
		name, mp3  string
		ch, rate   int
		kbps, lsf  int // lsf: MPEG-2's 576-sample frames
		wantFrames int
	}{
		{"mono44k", "", 1, 44100, 64, 0, 14976},
		{"stereo44k", "", 2, 44100, 128, 0, 14976},
		{"stereo22k", "", 2, 22050, 64, 1, 8064},
		{"wolf_howl", mp3Asset, 1, 22050, 48, 1, 129600},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.mp3 == "" {
				tt.mp3 = filepath.Join("testdata", "mp3", tt.name+".mp3")
			}
			b, err := os.ReadFile(tt.mp3)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(wave(mp3Format(tt.ch, tt.rate, tt.kbps, tt.lsf), b))
			if err != nil {
				t.Fatal(err)
			}
			want, err := Decode(readRIFF(t, filepath.Join("testdata", "mp3", tt.name+".ref.wav")))
			if err != nil {
				t.Fatal(err)
			}
			if got.Rate != tt.rate || got.Channels != tt.ch || want.Rate != tt.rate || want.Channels != tt.ch {
				t.Fatalf("%d Hz %d ch, mpg123 %d Hz %d ch, want %d Hz %d ch", got.Rate, got.Channels, want.Rate, want.Channels, tt.rate, tt.ch)
			}
			if got.Frames() != want.Frames() || want.Frames() != tt.wantFrames {
				t.Fatalf("%d frames, mpg123 %d, want %d", got.Frames(), want.Frames(), tt.wantFrames)
			}
			if lag := bestLag(got, want, 8); lag != 0 {
				t.Errorf("agrees best with mpg123 shifted by %+d samples, want 0", lag)
			}
			for c := range tt.ch {
				worst, snr := compare(got, want, c)
				t.Logf("channel %d: at most %d LSB from mpg123, SNR %.1f dB", c, worst, snr)
				if worst > maxLSB || snr < minSNR {
					t.Errorf("channel %d: %d LSB from mpg123 at worst, SNR %.1f dB; want ≤ %d LSB, ≥ %.0f dB", c, worst, snr, maxLSB, minSNR)
				}
			}
		})
	}
}

// go-mp3 decodes MPEG-1 and MPEG-2 but not MPEG-2.5 (8000, 11025 and
// 12000 Hz, where lame puts any stream at those rates): such a wave is a
// clear error, not a crash or silence.
func TestDecodeMP3RefusesMPEG25(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "mp3", "mono11k.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	if b[1]&0x18 != 0 {
		t.Fatalf("header 0x%02X%02X is not MPEG-2.5", b[0], b[1])
	}
	_, err = Decode(wave(mp3Format(1, 11025, 24, 1), b))
	if err == nil || !strings.Contains(err.Error(), "MPEG version 2.5 is not supported") || !strings.HasPrefix(err.Error(), "wave 0x0A000123: MP3: ") {
		t.Errorf("error %v, want the wave named and MPEG-2.5 refused", err)
	}
}

// mp3Format is the MPEGLAYER3WAVEFORMAT a retail wave of a raw lame stream
// carries (docs/dat-format.md §5, H = 30): block align 1, 0 bits per sample, then
// wID 1, fdwFlags 0, nBlockSize (the unpadded frame length: 144 or, for
// MPEG-2's half frames, 72 bytes per kbit/s per kHz), nFramesPerBlock 1 and
// nCodecDelay 1105 (lame's 576 + 529).
func mp3Format(ch, rate, kbps, lsf int) []byte {
	block := (144 >> lsf) * kbps * 1000 / rate
	h := header(dat.FormatMP3, uint16(ch), uint32(rate), 1, 0, cat(le16(1), []byte{0, 0, 0, 0}, le16(block, 1, 1105))...)
	// nAvgBytesPerSec is the bitrate, not rate × align.
	binary.LittleEndian.PutUint32(h[8:], uint32(kbps*1000/8))
	return h
}

// compare returns channel c's largest difference from the reference in
// 16-bit steps and the reference's power over the difference's in dB.
func compare(got, want *PCM, c int) (worst int, snr float64) {
	var sig, noise float64
	for i := c; i < want.Samples.Len(); i += want.Channels {
		g, w := int(To16(got.Samples.At(i))), int(To16(want.Samples.At(i)))
		worst = max(worst, g-w, w-g)
		sig += float64(w) * float64(w)
		noise += float64(g-w) * float64(g-w)
	}
	return worst, 10 * math.Log10(sig/max(noise, 1e-9))
}

// bestLag is the shift of got within ±span samples that is closest to want
// (least squared difference over all channels).
func bestLag(got, want *PCM, span int) int {
	ch, n := want.Channels, min(got.Frames(), want.Frames())
	best, bestErr := 0, math.Inf(1)
	for lag := -span; lag <= span; lag++ {
		e := 0.0
		for i := max(0, -lag); i < n && i+lag < n; i++ {
			for c := range ch {
				d := float64(got.Samples.At((i+lag)*ch+c) - want.Samples.At(i*ch+c))
				e += d * d
			}
		}
		if e < bestErr {
			best, bestErr = lag, e
		}
	}
	return best
}

// DecodeYielding gives the page's loader a turn every few frames of a long
// MP3 (the demo's howl: 129 600 samples in MPEG-2's 576-sample frames, 225
// frames, which go-mp3 hands over one a read), and the samples Decode gives.
func TestDecodeYieldingYieldsAndAgrees(t *testing.T) {
	b, err := os.ReadFile(mp3Asset)
	if err != nil {
		t.Fatal(err)
	}
	w := wave(mp3Format(1, 22050, 48, 1), b)
	want, err := Decode(w)
	if err != nil {
		t.Fatal(err)
	}
	yields := 0
	got, err := DecodeYielding(w, func() { yields++ })
	if err != nil {
		t.Fatal(err)
	}
	if frames := want.Frames() / 576; yields != frames/yieldFrames {
		t.Errorf("%d yields over %d frames; want one every %d", yields, frames, yieldFrames)
	}
	if !slices.Equal(got.Samples.Flat(), want.Samples.Flat()) || got.Rate != want.Rate || got.Channels != want.Channels {
		t.Error("the yielding decode's samples differ from Decode's")
	}
}
