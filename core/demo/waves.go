package demo

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"

	"acambient/core/audio"
	"acambient/core/dat"
	"acambient/core/demo/internal/synth"
)

// wolfHowlMP3 is the one MP3 wave: synth.WolfHowl with wolfHowlBContour,
// encoded by lame. Regenerate with `go run ./core/demo/internal/mkmp3`.
//
//go:embed assets/wolf_howl.mp3
var wolfHowlMP3 []byte

// Wave storage formats the demo uses, to cover every path a retail wave can
// take through core/audio.
type encoding int

const (
	pcm16 encoding = iota
	pcm8
	msADPCM
	mp3
)

// waveSpec is one wave of the demo: its id, what it is and how it is stored.
type waveSpec struct {
	id   uint32
	name string
	enc  encoding
	rate int
	make func(rate int) *synth.Buf // nil for the MP3, which is embedded
}

// Wave ids. Beds first in each group, then the one-shots of that group.
const (
	wMeadowBreeze = 0x0A000101 + iota
	wSongbirdA
	wSongbirdB
	wSongbirdC
	wCricketsA
	wCricketsB
)

const (
	wForestLeaves = 0x0A000111 + iota
	wThrushA
	wThrushB
	wCuckoo
	wWoodpecker
	wWolfHowlA
	wWolfHowlB
)

const (
	wRiverFlow = 0x0A000121 + iota
	wSplashA
	wSplashB
	wFrog
	wBullfrog
	wPlop
)

const (
	wSurf = 0x0A000131 + iota
	wGullA
	wGullB
	wColdWind
	wGustA
	wGustB
	wDesertWind
	wHawk
	wMarshHum
	wHollowWind
	wRavenA
	wRavenB
)

// wolfHowlBContour is the MP3 howl's pitch contour (Hz: start, crest, hold
// end, close); internal/mkmp3 renders it.
var wolfHowlBContour = [4]float64{430, 690, 610, 360}

// WolfHowlB renders the source of the MP3 wave (for internal/mkmp3).
func WolfHowlB() *synth.Buf { return synth.WolfHowl(22050, wolfHowlBContour, 4.2, 0x6F6C66) }

// waves lists every wave. Rates: 44100 for the songbirds (their syllables
// reach 6 kHz with harmonics above), 11025 for the winds and gusts (nothing
// above 5 kHz matters in them), 22050 elsewhere. 8-bit suits the noisy
// sounds, whose own hiss hides the quantisation; MS-ADPCM the two longest beds.
var waves = []waveSpec{
	{wMeadowBreeze, "meadow breeze (bed)", pcm16, 22050, func(r int) *synth.Buf { return synth.MeadowBreeze(r, 9, 101) }},
	{wSongbirdA, "songbird A", pcm16, 44100, func(r int) *synth.Buf { return synth.Songbird(r, 102) }},
	{wSongbirdB, "songbird B", pcm16, 44100, func(r int) *synth.Buf { return synth.Songbird(r, 103) }},
	{wSongbirdC, "songbird C", pcm16, 44100, func(r int) *synth.Buf { return synth.Songbird(r, 104) }},
	{wCricketsA, "crickets A", pcm16, 22050, func(r int) *synth.Buf { return synth.Crickets(r, 2.6, 105) }},
	{wCricketsB, "crickets B", pcm16, 22050, func(r int) *synth.Buf { return synth.Crickets(r, 2.2, 106) }},

	{wForestLeaves, "forest leaves (bed)", pcm16, 22050, func(r int) *synth.Buf { return synth.ForestLeaves(r, 9, 111) }},
	{wThrushA, "thrush A", pcm16, 22050, func(r int) *synth.Buf { return synth.Thrush(r, 112) }},
	{wThrushB, "thrush B", pcm16, 22050, func(r int) *synth.Buf { return synth.Thrush(r, 113) }},
	{wCuckoo, "cuckoo", pcm16, 22050, func(r int) *synth.Buf { return synth.Cuckoo(r, 114) }},
	{wWoodpecker, "woodpecker", pcm16, 22050, func(r int) *synth.Buf { return synth.Woodpecker(r, 115) }},
	{wWolfHowlA, "wolf howl A", pcm16, 22050, func(r int) *synth.Buf {
		return synth.WolfHowl(r, [4]float64{370, 560, 520, 390}, 3.6, 116)
	}},
	{wWolfHowlB, "wolf howl B (MP3)", mp3, 22050, nil},

	{wRiverFlow, "river flow (bed)", pcm16, 22050, func(r int) *synth.Buf { return synth.RiverFlow(r, 8, 121) }},
	{wSplashA, "splash A", pcm8, 22050, func(r int) *synth.Buf { return synth.Splash(r, false, 122) }},
	{wSplashB, "splash B", pcm8, 22050, func(r int) *synth.Buf { return synth.Splash(r, false, 123) }},
	{wFrog, "frog", pcm16, 22050, func(r int) *synth.Buf { return synth.Frog(r, false, 124) }},
	{wBullfrog, "bullfrog", pcm16, 22050, func(r int) *synth.Buf { return synth.Frog(r, true, 125) }},
	{wPlop, "plop", pcm8, 22050, func(r int) *synth.Buf { return synth.Splash(r, true, 126) }},

	{wSurf, "surf (bed)", msADPCM, 22050, func(r int) *synth.Buf { return synth.SurfSwells(r, 16, 131) }},
	{wGullA, "gull A", pcm16, 22050, func(r int) *synth.Buf { return synth.Gull(r, 132) }},
	{wGullB, "gull B", pcm16, 22050, func(r int) *synth.Buf { return synth.Gull(r, 133) }},
	{wColdWind, "cold wind (bed)", pcm8, 11025, func(r int) *synth.Buf { return synth.ColdWind(r, 10, 134) }},
	{wGustA, "gust A", pcm8, 11025, func(r int) *synth.Buf { return synth.Gust(r, 2.6, 135) }},
	{wGustB, "gust B", pcm8, 11025, func(r int) *synth.Buf { return synth.Gust(r, 3.2, 136) }},
	{wDesertWind, "desert wind (bed)", pcm16, 11025, func(r int) *synth.Buf { return synth.DesertWind(r, 10, 137) }},
	{wHawk, "hawk", pcm16, 22050, func(r int) *synth.Buf { return synth.Hawk(r, 138) }},
	{wMarshHum, "marsh hum (bed)", msADPCM, 22050, func(r int) *synth.Buf { return synth.MarshHum(r, 9, 139) }},
	{wHollowWind, "hollow wind (bed)", pcm16, 22050, func(r int) *synth.Buf { return synth.HollowWind(r, 9, 140) }},
	{wRavenA, "raven A", pcm16, 22050, func(r int) *synth.Buf { return synth.Raven(r, 141) }},
	{wRavenB, "raven B", pcm16, 22050, func(r int) *synth.Buf { return synth.Raven(r, 142) }},
}

// msBlock is the MS-ADPCM samples per block: 1012 makes the 512-byte block
// that Windows' encoder uses for mono at 22050 Hz.
const msBlock = 1012

// buildWave synthesises and encodes one wave; it also returns the decoded
// length in seconds (0 for the MP3), which sets a bed's re-fire period.
func buildWave(s waveSpec) (*dat.Wave, float64, error) {
	w := &dat.Wave{ID: dat.DID(s.id)}
	if s.enc == mp3 {
		h, err := mp3Header(wolfHowlMP3, s.rate)
		if err != nil {
			return nil, 0, fmt.Errorf("wave 0x%08X: %w", s.id, err)
		}
		// Its length is not needed: only beds' lengths set a period, and the
		// MP3 is a one-shot.
		w.Header, w.Data = h, wolfHowlMP3
		return w, 0, nil
	}
	b := s.make(s.rate)
	n := len(b.S)
	switch s.enc {
	case pcm16:
		w.Header = dat.PCMHeader(s.rate, 1, 16)
		w.Data = make([]byte, 2*n)
		for i, v := range b.S {
			binary.LittleEndian.PutUint16(w.Data[2*i:], uint16(audio.To16(float32(v))))
		}
	case pcm8:
		w.Header = dat.PCMHeader(s.rate, 1, 8)
		w.Data = make([]byte, n)
		for i, v := range b.S {
			w.Data[i] = byte(min(max(math.Round(v*128)+128, 0), 255))
		}
	case msADPCM:
		x := make([]int16, n)
		for i, v := range b.S {
			x[i] = audio.To16(float32(v))
		}
		w.Header, w.Data = audio.EncodeMSADPCM(x, 1, s.rate, msBlock)
	}
	return w, float64(n) / float64(s.rate), nil
}

// mp3Header is the 30-byte MPEGLAYER3WAVEFORMAT for a raw MPEG stream (docs/dat-format.md
// §5, H = 30): WAVEFORMATEX with block align 1 and 0 bits per sample, then
// wID 1 (MPEGLAYER3_ID_MPEG), fdwFlags 0 (MPEGLAYER3_FLAG_PADDING_ISO: the
// encoder pads frames as ISO says), nBlockSize (the unpadded frame length),
// nFramesPerBlock 1 and nCodecDelay 1105 (lame's 576 + 529 samples).
func mp3Header(stream []byte, rate int) ([]byte, error) {
	if len(stream) < 4 || stream[0] != 0xFF || stream[1]&0xE0 != 0xE0 {
		return nil, fmt.Errorf("MP3 asset does not start with an MPEG frame")
	}
	// MPEG-2 layer 3 (22050 Hz): 576 samples a frame, 72·bitrate/rate bytes.
	kbps := [16]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0}[stream[2]>>4]
	if stream[1]&0x18 != 0x10 || kbps == 0 {
		return nil, fmt.Errorf("MP3 asset is not a constant-bitrate MPEG-2 stream")
	}
	h := make([]byte, 30)
	binary.LittleEndian.PutUint16(h[0:], dat.FormatMP3)
	binary.LittleEndian.PutUint16(h[2:], 1)
	binary.LittleEndian.PutUint32(h[4:], uint32(rate))
	binary.LittleEndian.PutUint32(h[8:], uint32(kbps*1000/8))
	binary.LittleEndian.PutUint16(h[12:], 1)
	binary.LittleEndian.PutUint16(h[14:], 0)
	binary.LittleEndian.PutUint16(h[16:], 12)
	binary.LittleEndian.PutUint16(h[18:], 1)
	binary.LittleEndian.PutUint32(h[20:], 0)
	binary.LittleEndian.PutUint16(h[24:], uint16(72*kbps*1000/rate))
	binary.LittleEndian.PutUint16(h[26:], 1)
	binary.LittleEndian.PutUint16(h[28:], 1105)
	return h, nil
}
