package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"

	"acambient/core/dat"
	"acambient/core/samples"
)

// MPEG audio layer 3 (WAVE_FORMAT_MPEGLAYER3, 0x0055). Retail waves of this
// tag carry raw MPEG frames in their data (docs/dat-format.md §5 [P]); the header's
// MPEGLAYER3WAVEFORMAT extra describes the stream but a decoder needs none of
// it, so the frames themselves decide rate and channel count.
//
// go-mp3 decodes; this file bounds what it may produce and checks the stream
// first, because go-mp3 trusts its input (an ID3 size is allocated as read,
// free-format frames decode from a 4-byte header).

func decodeMP3(_ dat.WaveFormat, data []byte, yield func()) (*PCM, error) {
	body, err := stripTags(data)
	if err != nil {
		return nil, err
	}
	first, frames, samples := scanFrames(body)
	if frames == 0 {
		return nil, fmt.Errorf("MP3 data of %d bytes holds no MPEG layer 3 frame", len(data))
	}
	ch := first.channels()
	out, err := runMP3(body, samples, ch, yield)
	if err != nil {
		return nil, fmt.Errorf("MP3: %w", err)
	}
	return &PCM{Rate: first.rate(), Channels: ch, Samples: out}, nil
}

// runMP3 decodes with go-mp3 into ch channels of at most frames frames,
// calling yield (if set) every yieldFrames reads,
// converting each piece of go-mp3's output (always 16-bit stereo; a mono
// stream is copied to both sides) as it comes: the 16-bit stream whole
// would be a second copy of the wave, garbage the size of the wave at every
// decode, which in the page grows the linear memory (docs/architecture.md
// §4.8). The recover is a fence around third-party code fed arbitrary
// bytes: a panic there becomes this wave's error instead of the page's
// crash.
func runMP3(body []byte, frames, ch int, yield func()) (out *samples.Buf, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("decoder failed: %v", r)
		}
	}()
	// Hiding Seek keeps go-mp3 from pre-scanning the whole stream for Length.
	d, err := mp3.NewDecoder(struct{ io.Reader }{bytes.NewReader(body)})
	if err != nil {
		return nil, err
	}
	out = samples.New() // grown a block at a time: frames is a bound, not the length
	buf := make([]byte, 4608)
	have := 0 // bytes of buf carried over: go-mp3 may return part of a frame
	for reads := 1; out.Len() < frames*ch; reads++ {
		if yield != nil && reads%yieldFrames == 0 {
			yield()
		}
		n, err := d.Read(buf[have:])
		have += n
		whole := have / 4
		for i := 0; i < whole && out.Len() < frames*ch; i++ {
			b := buf[4*i:]
			out.Append(float32(int16(uint16(b[0])|uint16(b[1])<<8)) / 32768)
			if ch == 2 {
				out.Append(float32(int16(uint16(b[2])|uint16(b[3])<<8)) / 32768)
			}
		}
		have = copy(buf, buf[4*whole:have])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// yieldFrames is how many reads of go-mp3 (one MPEG frame each: 1152
// samples, 576 in MPEG-2) runMP3 makes between yields: 10–25 ms of work in
// the browser's wasm, about core/pace's Budget.
const yieldFrames = 8

// stripTags removes a leading ID3v2 tag and a trailing ID3v1 tag. Raw frames
// should have neither, but MP3 files pasted into waves sometimes do.
func stripTags(b []byte) ([]byte, error) {
	// go-mp3 allocates whatever size an ID3v2 header states, so every tag at
	// the front is removed here, after checking its size against the data.
	for len(b) >= 3 && string(b[:3]) == "ID3" {
		if len(b) < 10 {
			return nil, fmt.Errorf("MP3 ID3v2 tag header cut short at %d bytes", len(b))
		}
		size := 0
		for _, c := range b[6:10] {
			if c >= 0x80 {
				return nil, fmt.Errorf("MP3 ID3v2 tag size byte 0x%02X is not synchsafe", c)
			}
			size = size<<7 | int(c)
		}
		if b[5]&0x10 != 0 { // footer present
			size += 10
		}
		if 10+size > len(b) {
			return nil, fmt.Errorf("MP3 ID3v2 tag of %d bytes overruns the %d-byte data", 10+size, len(b))
		}
		b = b[10+size:]
	}
	if len(b) >= 128 && string(b[len(b)-128:len(b)-125]) == "TAG" {
		b = b[:len(b)-128]
	}
	return b, nil
}

// mpegHeader is a 32-bit MPEG audio frame header (ISO 11172-3 §2.4.2.3,
// ISO 13818-3 for the half rates, and the MPEG 2.5 extension).
type mpegHeader uint32

func (h mpegHeader) version() uint32 { return uint32(h) >> 19 & 3 } // 0 = 2.5, 1 reserved, 2 = MPEG-2, 3 = MPEG-1
func (h mpegHeader) layer() uint32   { return uint32(h) >> 17 & 3 } // 1 = layer 3
func (h mpegHeader) bitrateIndex() uint32 {
	return uint32(h) >> 12 & 15
}
func (h mpegHeader) rateIndex() uint32 { return uint32(h) >> 10 & 3 }
func (h mpegHeader) padding() int      { return int(uint32(h) >> 9 & 1) }
func (h mpegHeader) channels() int {
	if uint32(h)>>6&3 == 3 {
		return 1
	}
	return 2
}

// valid accepts layer 3 headers with a table bitrate. Free format (index 0)
// is refused: its frame length is not in the header, so nothing bounds it.
func (h mpegHeader) valid() bool {
	return uint32(h)&0xFFE00000 == 0xFFE00000 && h.version() != 1 && h.layer() == 1 &&
		h.bitrateIndex() != 0 && h.bitrateIndex() != 15 && h.rateIndex() != 3 && uint32(h)&3 != 2
}

func (h mpegHeader) rate() int {
	r := [3]int{44100, 48000, 32000}[h.rateIndex()]
	switch h.version() {
	case 2:
		r /= 2
	case 0:
		r /= 4
	}
	return r
}

func (h mpegHeader) samplesPerFrame() int {
	if h.version() == 3 {
		return 1152
	}
	return 576
}

var (
	l3Bitrates1 = [15]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	l3Bitrates2 = [15]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
)

// frameBytes is the frame length: samples/8 · bitrate / rate, plus padding.
func (h mpegHeader) frameBytes() int {
	kbps := l3Bitrates2[h.bitrateIndex()]
	if h.version() == 3 {
		kbps = l3Bitrates1[h.bitrateIndex()]
	}
	return h.samplesPerFrame()/8*kbps*1000/h.rate() + h.padding()
}

// scanFrames walks the stream the way a decoder resynchronises: at a valid
// header it skips the frame, elsewhere one byte. It returns the first header,
// the frame count and the most stereo samples those frames can decode to.
func scanFrames(b []byte) (first mpegHeader, frames, samples int) {
	for pos := 0; pos+4 <= len(b); {
		h := mpegHeader(uint32(b[pos])<<24 | uint32(b[pos+1])<<16 | uint32(b[pos+2])<<8 | uint32(b[pos+3]))
		if !h.valid() {
			pos++
			continue
		}
		if frames == 0 {
			first = h
		}
		frames++
		samples += 1152 // go-mp3 may decode any frame as MPEG-1 size; count the larger
		pos += max(h.frameBytes(), 4)
	}
	return first, frames, samples
}
