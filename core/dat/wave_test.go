package dat

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

func TestWaveVector(t *testing.T) {
	b := pcmWaveBytes()
	w, err := DecodeWave(0x0A000002, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Header) != 18 || len(w.Data) != 7046 {
		t.Errorf("H = %d, D = %d; want 18, 7046", len(w.Header), len(w.Data))
	}
	f, err := w.Format()
	if err != nil {
		t.Fatal(err)
	}
	want := WaveFormat{FormatTag: 1, Channels: 1, SamplesPerSec: 22050, AvgBytesPerSec: 44100, BlockAlign: 2, BitsPerSample: 16, CbSize: 0, Extra: []byte{}}
	if f.FormatTag != want.FormatTag || f.Channels != 1 || f.SamplesPerSec != 22050 || f.AvgBytesPerSec != 44100 ||
		f.BlockAlign != 2 || f.BitsPerSample != 16 || f.CbSize != 0 || len(f.Extra) != 0 {
		t.Errorf("format = %+v, want %+v", f, want)
	}
	if w.Data[0] != 0 || w.Data[7045] != uint8(7045%251) {
		t.Errorf("data ends = %d, %d", w.Data[0], w.Data[7045])
	}
	if got := w.Encode(); !bytes.Equal(got, b) {
		t.Errorf("Encode differs at offset 0x%X", firstDiff(got, b))
	}
	// Decoded bytes are copies: the caller's buffer may be reused.
	b[12] = 0xEE
	b[40] = 0xEE
	if w.Header[0] != 1 || w.Data[10] != 10 {
		t.Errorf("wave aliases its input")
	}
}

func TestWaveFormatHeaders(t *testing.T) {
	tests := []struct {
		name   string
		header []byte
		tag    uint16
		cb     uint16
		extra  []byte
		bad    bool
	}{
		{"16-byte WAVEFORMAT, no cbSize", []byte{1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0}, 1, 0, nil, false},
		{"17 bytes: cbSize absent", []byte{1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0, 9}, 1, 0, nil, false},
		{"cbSize 2 with room", []byte{2, 0, 1, 0, 0x22, 0x56, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0, 2, 0, 0xF4, 0x03}, 2, 2, []byte{0xF4, 0x03}, false},
		{"bytes past the extra are kept, not parsed", []byte{0x61, 0x01, 1, 0, 0x22, 0x56, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 7, 7}, 0x161, 0, []byte{}, false},
		{"cbSize exceeds header", []byte{1, 0, 1, 0, 0x22, 0x56, 0, 0, 0, 0, 0, 0, 2, 0, 16, 0, 3, 0, 0, 0}, 0, 0, nil, true},
		{"15 bytes", make([]byte, 15), 0, 0, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := (&Wave{ID: 0x0A000005, Header: tc.header}).Format()
			if tc.bad {
				if err == nil {
					t.Fatalf("Format accepted %+v", f)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.FormatTag != tc.tag || f.CbSize != tc.cb || !bytes.Equal(f.Extra, tc.extra) {
				t.Errorf("tag 0x%X cb %d extra % X; want 0x%X %d % X", f.FormatTag, f.CbSize, f.Extra, tc.tag, tc.cb, tc.extra)
			}
			// DecodeWave accepts exactly what Format accepts, whatever the tag.
			var w builder
			w.u32(0x0A000005, uint32(len(tc.header)), 0)
			w.b = append(w.b, tc.header...)
			if _, err := DecodeWave(0x0A000005, w.b); err != nil {
				t.Errorf("DecodeWave: %v", err)
			}
		})
	}
}

func TestWaveJSON(t *testing.T) {
	wave := func(tag, ch uint16, rate, avg uint32, align, bits uint16, extra []byte, data int) *Wave {
		var w builder
		w.u16(tag, ch)
		w.u32(rate, avg)
		w.u16(align, bits, uint16(len(extra)))
		w.b = append(w.b, extra...)
		return &Wave{ID: 0x0A000010, Header: w.b, Data: make([]byte, data)}
	}
	// wSamplesPerBlock 1012 for MS-ADPCM mono blocks of 512 (2 + (512−7)·2);
	// 1017 for IMA (1 + (512−4)·2).
	msExtra := []byte{0xF4, 0x03, 7, 0}
	imaExtra := []byte{0xF9, 0x03}
	tests := []struct {
		name      string
		w         *Wave
		fmtName   string
		seconds   float64 // NaN: omitted
		estimated bool
	}{
		{"PCM 0x0A000002", &Wave{ID: 0x0A000002, Header: pcmWaveBytes()[12:30], Data: make([]byte, 7046)}, "PCM", 3523.0 / 22050, false},
		{"PCM stereo, partial frame ignored", wave(1, 2, 44100, 176400, 4, 16, nil, 44100*4+3), "PCM", 1, false},
		{"MS-ADPCM 3 blocks + 17 bytes", wave(2, 1, 22050, 11155, 512, 4, msExtra, 3*512+17), "MS-ADPCM", (3*1012 + 2 + 10*2) / 22050.0, false},
		{"MS-ADPCM derived samples per block", wave(2, 1, 22050, 11155, 512, 4, nil, 2*512), "MS-ADPCM", 2 * 1012 / 22050.0, false},
		{"IMA 2 blocks + 12 bytes", wave(0x11, 1, 22050, 11100, 512, 4, imaExtra, 2*512+12), "IMA ADPCM", (2*1017 + 1 + 8*2) / 22050.0, false},
		{"MP3 from avgBytesPerSec", &Wave{ID: 0x0A000393, Header: mp3WaveBytes()[12:42], Data: make([]byte, 8000)}, "MPEG Layer 3", 0.5, true},
		{"unknown tag, no byte rate", wave(0x161, 2, 44100, 0, 0, 0, nil, 100), "0x0161", math.NaN(), false},
		{"PCM with zero rate", wave(1, 1, 0, 0, 2, 16, nil, 100), "PCM", math.NaN(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := json.Marshal(tc.w)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID         string
				HeaderSize int
				DataSize   int
				Format     map[string]float64
				FormatName string
				Duration   *float64 `json:"durationSeconds"`
				Estimated  bool     `json:"durationEstimated"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != tc.w.ID.String() || got.HeaderSize != len(tc.w.Header) || got.DataSize != len(tc.w.Data) {
				t.Errorf("id/sizes: %s", out)
			}
			if got.FormatName != tc.fmtName {
				t.Errorf("formatName %q, want %q", got.FormatName, tc.fmtName)
			}
			for _, k := range []string{"formatTag", "channels", "samplesPerSec", "avgBytesPerSec", "blockAlign", "bitsPerSample", "cbSize"} {
				if _, ok := got.Format[k]; !ok {
					t.Errorf("format lacks %s: %s", k, out)
				}
			}
			switch {
			case math.IsNaN(tc.seconds):
				if got.Duration != nil {
					t.Errorf("duration %v, want omitted", *got.Duration)
				}
			case got.Duration == nil:
				t.Errorf("duration omitted, want %v: %s", tc.seconds, out)
			case math.Abs(*got.Duration-tc.seconds) > 1e-12 || got.Estimated != tc.estimated:
				t.Errorf("duration %v estimated %v, want %v %v", *got.Duration, got.Estimated, tc.seconds, tc.estimated)
			}
		})
	}
}

func TestWaveJSONBadHeader(t *testing.T) {
	out, err := json.Marshal(&Wave{ID: 0x0A000001, Header: []byte{1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"formatError":"wave 0x0A000001: header offset 0: 2 bytes, WAVEFORMAT needs 16"`)) {
		t.Errorf("json = %s", out)
	}
}

func TestPCMHeader(t *testing.T) {
	w := &Wave{Header: PCMHeader(22050, 2, 16)}
	f, err := w.Format()
	want := WaveFormat{FormatTag: FormatPCM, Channels: 2, SamplesPerSec: 22050, AvgBytesPerSec: 88200, BlockAlign: 4, BitsPerSample: 16}
	if err != nil || len(w.Header) != 18 || f.FormatTag != want.FormatTag || f.Channels != 2 || f.SamplesPerSec != 22050 ||
		f.AvgBytesPerSec != 88200 || f.BlockAlign != 4 || f.BitsPerSample != 16 || f.CbSize != 0 {
		t.Errorf("PCMHeader(22050, 2, 16) parses as %+v, %v; want %+v", f, err, want)
	}
}
