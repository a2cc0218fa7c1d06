package dat

import (
	"encoding/binary"
	"encoding/json"
)

// waveJSON is what inspect prints for a wave: sizes and the parsed format
// instead of the raw bytes.
type waveJSON struct {
	ID                DID         `json:"id"`
	HeaderSize        int         `json:"headerSize"`
	DataSize          int         `json:"dataSize"`
	Format            *WaveFormat `json:"format,omitempty"`
	FormatName        string      `json:"formatName,omitempty"`
	FormatError       string      `json:"formatError,omitempty"` // only for a hand-built wave; decoded ones always parse
	DurationSeconds   *float64    `json:"durationSeconds,omitempty"`
	DurationEstimated bool        `json:"durationEstimated,omitempty"` // true when taken from avgBytesPerSec
}

// MarshalJSON gives the inspect view of a wave. durationSeconds is counted
// for PCM (whole frames of blockAlign bytes) and for MS-ADPCM and IMA ADPCM
// (whole blocks at wSamplesPerBlock from the extra bytes, plus the samples of
// a final partial block); for MP3 and unknown tags it is estimated as
// dataSize / avgBytesPerSec and durationEstimated is set. It is omitted when
// the header gives nothing to compute it from (a zero rate or block size).
func (w Wave) MarshalJSON() ([]byte, error) {
	v := waveJSON{ID: w.ID, HeaderSize: len(w.Header), DataSize: len(w.Data)}
	f, err := w.Format()
	if err != nil {
		v.FormatError = err.Error()
		return json.Marshal(v)
	}
	v.Format = &f
	v.FormatName = FormatName(f.FormatTag)
	if sec, exact, ok := f.duration(len(w.Data)); ok {
		v.DurationSeconds = &sec
		v.DurationEstimated = !exact
	}
	return json.Marshal(v)
}

// duration is the play time of n data bytes; exact is false when it comes
// from the average byte rate rather than a sample count.
func (f WaveFormat) duration(n int) (sec float64, exact, ok bool) {
	if f.SamplesPerSec == 0 {
		return 0, false, false
	}
	rate := float64(f.SamplesPerSec)
	c, block := int(f.Channels), int(f.BlockAlign)
	switch f.FormatTag {
	case FormatPCM:
		if block == 0 {
			return 0, false, false
		}
		return float64(n/block) / rate, true, true
	case FormatMSADPCM:
		// Block: per channel a 7-byte preamble holding 2 samples, then
		// nibbles interleaved across channels.
		if c > 0 && block >= 7*c {
			spb := f.samplesPerBlock(2 + (block-7*c)*2/c)
			samples := n / block * spb
			if r := n % block; r >= 7*c {
				samples += min(spb, 2+(r-7*c)*2/c)
			}
			return float64(samples) / rate, true, true
		}
	case FormatIMA:
		// Block: per channel a 4-byte preamble holding 1 sample, then
		// 4-byte words of 8 samples, channel by channel.
		if c > 0 && block >= 4*c {
			spb := f.samplesPerBlock(1 + (block-4*c)*2/c)
			samples := n / block * spb
			if r := n % block; r >= 4*c {
				samples += min(spb, 1+(r-4*c)/(4*c)*8)
			}
			return float64(samples) / rate, true, true
		}
	}
	if f.AvgBytesPerSec == 0 {
		return 0, false, false
	}
	return float64(n) / float64(f.AvgBytesPerSec), false, true
}

// samplesPerBlock is wSamplesPerBlock, the first extra word of both ADPCM
// formats, or derived when the header lacks it.
func (f WaveFormat) samplesPerBlock(derived int) int {
	if len(f.Extra) >= 2 {
		if spb := int(binary.LittleEndian.Uint16(f.Extra)); spb > 0 {
			return spb
		}
	}
	return derived
}
