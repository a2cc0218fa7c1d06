package audio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WriteWAV writes p as a canonical 16-bit PCM RIFF WAVE file. Samples are
// scaled by 32768 and clamped, the inverse of Decode's 16-bit scaling, so a
// decoded 16-bit wave writes back to its own bytes.
func WriteWAV(w io.Writer, p *PCM) error {
	switch {
	case p == nil:
		return fmt.Errorf("wav: nil PCM")
	case p.Channels < 1 || p.Channels > 0xFFFF:
		return fmt.Errorf("wav: %d channels", p.Channels)
	case p.Rate < 1 || p.Rate > math.MaxInt32/(2*p.Channels):
		return fmt.Errorf("wav: sample rate %d Hz", p.Rate)
	case len(p.Samples)%p.Channels != 0:
		return fmt.Errorf("wav: %d samples do not fill frames of %d channels", len(p.Samples), p.Channels)
	case len(p.Samples) > (math.MaxUint32-36)/2:
		return fmt.Errorf("wav: %d samples exceed the 4 GiB RIFF limit", len(p.Samples))
	}
	dataLen := 2 * len(p.Samples)
	b := make([]byte, 44+dataLen)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+dataLen))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // WAVE_FORMAT_PCM
	binary.LittleEndian.PutUint16(b[22:], uint16(p.Channels))
	binary.LittleEndian.PutUint32(b[24:], uint32(p.Rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(p.Rate*2*p.Channels))
	binary.LittleEndian.PutUint16(b[32:], uint16(2*p.Channels))
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(dataLen))
	for i, s := range p.Samples {
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(To16(s)))
	}
	_, err := w.Write(b)
	return err
}

// To16 converts a sample to 16 bits: ×32768, rounded half away from zero,
// clamped; NaN is silence.
func To16(s float32) int16 {
	v := math.Round(float64(s) * 32768)
	switch {
	case v != v:
		return 0
	case v > 32767:
		return 32767
	case v < -32768:
		return -32768
	}
	return int16(v)
}
