package dat

import (
	"encoding/binary"
	"fmt"
)

// WAVEFORMATEX sizes (docs/dat-format.md §5): the 16-byte WAVEFORMAT/PCMWAVEFORMAT core,
// and 18 once cbSize is present.
const (
	waveFormatSize   = 16
	waveFormatExSize = 18
)

// DecodeWave decodes a Wave record (docs/dat-format.md §5): DID, header size H, data size
// D, H header bytes (a bare WAVEFORMATEX), D data bytes, no padding. Any
// format tag is accepted: what a tag means is the audio layer's business,
// as retail hands every non-PCM wave to ACM. The header must hold the
// 16-byte WAVEFORMAT and, when H ≥ 18, its cbSize extra bytes.
func DecodeWave(id uint32, b []byte) (*Wave, error) {
	d := newDecoder(KindWave, id, b)
	hAt := d.off
	h := d.u32()
	dAt := d.off
	n := d.u32()
	if d.err == nil && h < waveFormatSize {
		d.failf(hAt, ErrMalformed, "header size %d, WAVEFORMAT needs %d", h, waveFormatSize)
	}
	if d.err == nil && uint64(h) > uint64(d.left()) {
		d.failf(hAt, ErrTruncated, "header size %d, %d bytes left", h, d.left())
	}
	header := d.take(int(h))
	if d.err == nil {
		if _, off, msg := parseWaveFormat(header); msg != "" {
			d.failf(hAt+8+off, ErrMalformed, "header: %s", msg)
		}
	}
	if d.err == nil && uint64(n) > uint64(d.left()) {
		d.failf(dAt, ErrTruncated, "data size %d, %d bytes left", n, d.left())
	}
	data := d.bytes(int(n))
	if err := d.finish(); err != nil {
		return nil, err
	}
	return &Wave{ID: DID(id), Header: append([]byte(nil), header...), Data: data}, nil
}

// Encode packs the wave; H and D are the lengths of Header and Data.
func (w *Wave) Encode() []byte {
	e := newEncoder(w.ID, 12+len(w.Header)+len(w.Data))
	e.count(len(w.Header))
	e.count(len(w.Data))
	e.bytes(w.Header)
	e.bytes(w.Data)
	return e.b
}

// PCMHeader is the 18-byte WAVEFORMATEX (cbSize 0) of linear PCM, the form
// retail PCM waves take (docs/dat-format.md §5: H = 18).
func PCMHeader(rate, channels, bits int) []byte {
	align := channels * bits / 8
	h := make([]byte, 18)
	binary.LittleEndian.PutUint16(h[0:], FormatPCM)
	binary.LittleEndian.PutUint16(h[2:], uint16(channels))
	binary.LittleEndian.PutUint32(h[4:], uint32(rate))
	binary.LittleEndian.PutUint32(h[8:], uint32(rate*align))
	binary.LittleEndian.PutUint16(h[12:], uint16(align))
	binary.LittleEndian.PutUint16(h[14:], uint16(bits))
	return h
}

// Format parses Header as WAVEFORMATEX: the 16-byte core, cbSize iff the
// header has at least 18 bytes, and cbSize extra bytes after it (Extra
// aliases Header). Header bytes past the extra ones are allowed and ignored.
func (w *Wave) Format() (WaveFormat, error) {
	f, off, msg := parseWaveFormat(w.Header)
	if msg != "" {
		return WaveFormat{}, fmt.Errorf("wave 0x%08X: header offset %d: %s", uint32(w.ID), off, msg)
	}
	return f, nil
}

// parseWaveFormat returns the format, or the header offset of the problem and
// a message.
func parseWaveFormat(h []byte) (f WaveFormat, off int, msg string) {
	if len(h) < waveFormatSize {
		return f, 0, fmt.Sprintf("%d bytes, WAVEFORMAT needs %d", len(h), waveFormatSize)
	}
	le := binary.LittleEndian
	f = WaveFormat{
		FormatTag:      le.Uint16(h[0:]),
		Channels:       le.Uint16(h[2:]),
		SamplesPerSec:  le.Uint32(h[4:]),
		AvgBytesPerSec: le.Uint32(h[8:]),
		BlockAlign:     le.Uint16(h[12:]),
		BitsPerSample:  le.Uint16(h[14:]),
	}
	if len(h) >= waveFormatExSize {
		f.CbSize = le.Uint16(h[16:])
		if extra := len(h) - waveFormatExSize; int(f.CbSize) > extra {
			return WaveFormat{}, 16, fmt.Sprintf("cbSize %d exceeds the %d bytes after it", f.CbSize, extra)
		}
		f.Extra = h[waveFormatExSize : waveFormatExSize+int(f.CbSize) : waveFormatExSize+int(f.CbSize)]
	}
	return f, 0, ""
}

// FormatName names a WAVEFORMATEX format tag the way inspect prints it.
func FormatName(tag uint16) string {
	switch tag {
	case FormatPCM:
		return "PCM"
	case FormatMSADPCM:
		return "MS-ADPCM"
	case FormatIMA:
		return "IMA ADPCM"
	case FormatMP3:
		return "MPEG Layer 3"
	}
	return fmt.Sprintf("0x%04X", tag)
}
