package audio

import (
	"bytes"
	"encoding/hex"
	"slices"
	"testing"

	"acambient/core/dat"
)

func TestWriteWAV(t *testing.T) {
	p := NewPCM(11025, 2, []float32{0, -1, 0.5, 1.5})
	var buf bytes.Buffer
	if err := WriteWAV(&buf, p); err != nil {
		t.Fatal(err)
	}
	// 44-byte canonical header: RIFF size 36+8, fmt 16 bytes PCM 2 ch 11025 Hz,
	// 44100 bytes/s, align 4, 16 bits; data 8 bytes: 0, −32768, 16384, 32767 (clamped).
	want := "52494646" + "2c000000" + "57415645" + "666d7420" + "10000000" +
		"0100" + "0200" + "112b0000" + "44ac0000" + "0400" + "1000" +
		"64617461" + "08000000" + "0000" + "0080" + "0040" + "ff7f"
	if got := hex.EncodeToString(buf.Bytes()); got != want {
		t.Errorf("bytes\n%s\nwant\n%s", got, want)
	}
	// The body is a 16-bit PCM wave again.
	b := buf.Bytes()
	q, err := Decode(&dat.Wave{ID: 0x0A000001, Header: b[20:36], Data: b[44:]})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Samples.Flat(), []float32{0, -1, 0.5, 32767.0 / 32768}) || q.Rate != 11025 || q.Channels != 2 {
		t.Errorf("round trip %+v", q)
	}
}

func TestWriteWAVErrors(t *testing.T) {
	for _, p := range []*PCM{nil, {Rate: 0, Channels: 1}, {Rate: 8000, Channels: 0}, NewPCM(8000, 2, make([]float32, 3))} {
		if err := WriteWAV(&bytes.Buffer{}, p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// TestWAVWriterStreams: the streaming writer writes the same bytes as
// WriteWAV in any split of the samples, refuses samples past the header's
// length, reports a short file at Close, and writes in bounded blocks.
func TestWAVWriterStreams(t *testing.T) {
	flat := make([]float32, 2*20000)
	for i := range flat {
		flat[i] = float32(i%2001-1000) / 1000
	}
	p := NewPCM(48000, 2, flat)
	var whole bytes.Buffer
	if err := WriteWAV(&whole, p); err != nil {
		t.Fatal(err)
	}
	var parts countingWriter
	ww, err := NewWAVWriter(&parts, 48000, 2, 20000)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := 0, 1; i < len(flat); i, n = i+n, n*3 {
		if err := ww.Write(flat[i:min(i+n, len(flat))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := ww.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(parts.Bytes(), whole.Bytes()) || len(whole.Bytes()) != 44+4*20000 {
		t.Errorf("streamed %d bytes differ from WriteWAV's %d", parts.Len(), whole.Len())
	}
	if parts.largest > 2*wavBlock {
		t.Errorf("largest single write %d bytes, want ≤ %d", parts.largest, 2*wavBlock)
	}
	if err := ww.Write([]float32{0}); err == nil {
		t.Error("a sample past the announced length was accepted")
	}
	short, _ := NewWAVWriter(&bytes.Buffer{}, 8000, 1, 10)
	short.Write(make([]float32, 9))
	if err := short.Close(); err == nil {
		t.Error("Close of a file one frame short gave no error")
	}
	for _, c := range [][3]int64{{0, 1, 1}, {8000, 0, 1}, {8000, 1, -1}, {8000, 2, 1 << 31}} {
		if _, err := NewWAVWriter(&bytes.Buffer{}, int(c[0]), int(c[1]), c[2]); err == nil {
			t.Errorf("NewWAVWriter(rate %d, %d channels, %d frames) accepted", c[0], c[1], c[2])
		}
	}
}

type countingWriter struct {
	bytes.Buffer
	largest int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.largest = max(c.largest, len(p))
	return c.Buffer.Write(p)
}
