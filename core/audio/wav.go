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
	if p == nil {
		return fmt.Errorf("wav: nil PCM")
	}
	n := p.Samples.Len()
	if p.Channels >= 1 && n%p.Channels != 0 {
		return fmt.Errorf("wav: %d samples do not fill frames of %d channels", n, p.Channels)
	}
	frames := 0
	if p.Channels >= 1 {
		frames = n / p.Channels
	}
	ww, err := NewWAVWriter(w, p.Rate, p.Channels, int64(frames))
	if err != nil {
		return err
	}
	for k := range p.Samples.Blocks() {
		if err := ww.Write(p.Samples.Block(k)); err != nil {
			return err
		}
	}
	return ww.Close()
}

// WAVWriter streams a 16-bit PCM RIFF WAVE file whose length is known up
// front: the header goes first, so the output need not be seekable (a pipe,
// stdout), and memory stays flat however long the file. Samples convert as
// WriteWAV's do (To16).
type WAVWriter struct {
	w        io.Writer
	channels int
	left     int64  // samples still owed
	buf      []byte // conversion block, reused
}

// wavBlock is how many samples WAVWriter converts per underlying Write.
const wavBlock = 8192

// NewWAVWriter writes the header of a file of frames frames and returns
// the writer of its samples.
func NewWAVWriter(w io.Writer, rate, channels int, frames int64) (*WAVWriter, error) {
	switch {
	case channels < 1 || channels > 0xFFFF:
		return nil, fmt.Errorf("wav: %d channels", channels)
	case rate < 1 || rate > math.MaxInt32/(2*channels):
		return nil, fmt.Errorf("wav: sample rate %d Hz", rate)
	case frames < 0 || frames > (math.MaxUint32-36)/int64(2*channels):
		return nil, fmt.Errorf("wav: %d frames of %d channels exceed the 4 GiB RIFF limit", frames, channels)
	}
	dataLen := uint32(frames * int64(2*channels))
	b := make([]byte, 44)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], 36+dataLen)
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // WAVE_FORMAT_PCM
	binary.LittleEndian.PutUint16(b[22:], uint16(channels))
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate*2*channels))
	binary.LittleEndian.PutUint16(b[32:], uint16(2*channels))
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], dataLen)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	return &WAVWriter{w: w, channels: channels, left: frames * int64(channels), buf: make([]byte, 0, 2*wavBlock)}, nil
}

// Write appends interleaved samples. Writing more than the header
// announced is an error (nothing of that call is written).
func (ww *WAVWriter) Write(samples []float32) error {
	if int64(len(samples)) > ww.left {
		return fmt.Errorf("wav: %d samples written past the %d the header announced", int64(len(samples))-ww.left, ww.left)
	}
	for len(samples) > 0 {
		n := min(len(samples), wavBlock)
		ww.buf = ww.buf[:0]
		for _, s := range samples[:n] {
			ww.buf = binary.LittleEndian.AppendUint16(ww.buf, uint16(To16(s)))
		}
		if _, err := ww.w.Write(ww.buf); err != nil {
			return err
		}
		ww.left -= int64(n)
		samples = samples[n:]
	}
	return nil
}

// Close checks that every sample the header announced was written; it
// does not close the underlying writer.
func (ww *WAVWriter) Close() error {
	if ww.left != 0 {
		return fmt.Errorf("wav: %d samples (%d frames) short of the header's length", ww.left, ww.left/int64(ww.channels))
	}
	return nil
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
