package audio

import (
	"bytes"
	"encoding/hex"
	"slices"
	"testing"

	"acambient/core/dat"
)

func TestWriteWAV(t *testing.T) {
	p := &PCM{Rate: 11025, Channels: 2, Samples: []float32{0, -1, 0.5, 1.5}}
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
	if !slices.Equal(q.Samples, []float32{0, -1, 0.5, 32767.0 / 32768}) || q.Rate != 11025 || q.Channels != 2 {
		t.Errorf("round trip %+v", q)
	}
}

func TestWriteWAVErrors(t *testing.T) {
	for _, p := range []*PCM{nil, {Rate: 0, Channels: 1}, {Rate: 8000, Channels: 0}, {Rate: 8000, Channels: 2, Samples: make([]float32, 3)}} {
		if err := WriteWAV(&bytes.Buffer{}, p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}
