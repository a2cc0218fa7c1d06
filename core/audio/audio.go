// Package audio turns the Waves of the portal dat into PCM and writes WAV
// files. It knows WAVEFORMATEX and the codecs retail waves use (spec
// docs/dat-format.md §5): linear PCM, MS-ADPCM, IMA ADPCM and MPEG layer 3, and it
// knows nothing else about dats.
//
// Retail hands every non-PCM wave to MSACM, which converts it to PCM when the
// sound buffer is created (RE Soundbuf.c). Decode plays the part of MSACM;
// where Windows' codecs and the published format descriptions differ, Decode
// follows the codec Windows shipped and says so next to the code.
package audio

import (
	"fmt"

	"acambient/core/dat"
	"acambient/core/samples"
)

// PCM is decoded audio: interleaved frames of Channels samples each, every
// sample in [-1, 1]. The samples are held in the blocks of package samples'
// pool, not one slice: waves come in every length, and a page left open
// for an hour would otherwise grow by the holes freed waves leave
// (docs/architecture.md §4.8).
type PCM struct {
	Rate     int
	Channels int
	Samples  *samples.Buf
}

// NewPCM is a PCM holding a copy of s (tests and tools that build a wave
// by hand).
func NewPCM(rate, channels int, s []float32) *PCM {
	return &PCM{Rate: rate, Channels: channels, Samples: samples.From(s)}
}

// Frames is the number of sample frames (samples per channel).
func (p *PCM) Frames() int {
	if p == nil || p.Channels <= 0 {
		return 0
	}
	return p.Samples.Len() / p.Channels
}

// Duration is the length in seconds.
func (p *PCM) Duration() float64 {
	if p == nil || p.Rate <= 0 {
		return 0
	}
	return float64(p.Frames()) / float64(p.Rate)
}

// Limits of WAVEFORMATEX fields that Decode accepts. Eight channels is the
// most any Windows mixer of the retail era handled; a larger count in a
// retail wave would mean a corrupt header.
const maxChannels = 8

// Decode converts a Wave to PCM, choosing the codec by the header's format
// tag. Errors name the wave id, and the byte offset in the data where the
// problem sits when there is one.
func Decode(w *dat.Wave) (*PCM, error) { return DecodeYielding(w, nil) }

// DecodeYielding is Decode calling yield, if not nil, between pieces of a
// long decode (an MP3 takes a third of a second in the browser's wasm, a
// PCM bed wave tens of milliseconds):
// the page's loader lets the JavaScript event loop, and the audio
// callbacks it runs, in meanwhile.
func DecodeYielding(w *dat.Wave, yield func()) (*PCM, error) {
	if w == nil {
		return nil, fmt.Errorf("audio: nil wave")
	}
	f, err := w.Format() // its error names the wave
	if err != nil {
		return nil, err
	}
	if err := checkCommon(f); err != nil {
		return nil, fmt.Errorf("wave %s: %w", w.ID, err)
	}
	tag := f.FormatTag
	if tag == formatExtensible {
		if tag, err = extensibleTag(f); err != nil {
			return nil, fmt.Errorf("wave %s: %w", w.ID, err)
		}
	}
	var p *PCM
	switch tag {
	case dat.FormatPCM:
		p, err = decodeLinear(f, w.Data, yield)
	case formatFloat:
		p, err = decodeFloat(f, w.Data)
	case dat.FormatMSADPCM:
		p, err = decodeMSADPCM(f, w.Data)
	case dat.FormatIMA:
		p, err = decodeIMA(f, w.Data)
	case dat.FormatMP3:
		p, err = decodeMP3(f, w.Data, yield)
	default:
		err = fmt.Errorf("format 0x%04X not supported", tag)
	}
	if err != nil {
		return nil, fmt.Errorf("wave %s: %w", w.ID, err)
	}
	return p, nil
}

// Format tags Decode knows beyond those named in package dat.
const (
	formatFloat      = 0x0003 // WAVE_FORMAT_IEEE_FLOAT
	formatExtensible = 0xFFFE // WAVE_FORMAT_EXTENSIBLE: the real tag is in the SubFormat GUID
)

// checkCommon rejects headers no codec can play. MP3 is exempt from the
// block-align test: MPEGLAYER3WAVEFORMAT writers commonly put 1 there.
func checkCommon(f dat.WaveFormat) error {
	switch {
	case f.Channels == 0 || f.Channels > maxChannels:
		return fmt.Errorf("%d channels (want 1..%d)", f.Channels, maxChannels)
	case f.SamplesPerSec == 0:
		return fmt.Errorf("sample rate 0")
	case f.SamplesPerSec > 1<<20:
		return fmt.Errorf("sample rate %d Hz is implausible", f.SamplesPerSec)
	case f.BlockAlign == 0 && f.FormatTag != dat.FormatMP3:
		return fmt.Errorf("block align 0")
	}
	return nil
}

// extensibleTag reads the format tag out of a WAVEFORMATEXTENSIBLE SubFormat
// GUID, whose first two bytes are the old-style tag (KSDATAFORMAT_SUBTYPE_*).
// Extra layout: u16 valid bits, u32 channel mask, GUID sub format.
func extensibleTag(f dat.WaveFormat) (uint16, error) {
	if len(f.Extra) < 22 {
		return 0, fmt.Errorf("extensible format with %d extra bytes (want 22)", len(f.Extra))
	}
	tag := uint16(f.Extra[6]) | uint16(f.Extra[7])<<8
	if tag != dat.FormatPCM && tag != formatFloat {
		return 0, fmt.Errorf("extensible format with sub format 0x%04X not supported", tag)
	}
	return tag, nil
}
