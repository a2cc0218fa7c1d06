package dat

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// validRecord is one well-formed fixture per decoder (several for Region,
// SoundTable and Wave, whose shapes differ).
type validRecord struct {
	name string
	kind Kind
	id   uint32
	b    []byte
	// tailOpaque: the record has no fixed end (EnvCell keeps its tail
	// verbatim), so only prefixes shorter than minLen are truncations and a
	// trailing byte is data.
	tailOpaque bool
	minLen     int
}

func validRecords() []validRecord {
	full, _ := fullRegionBytes()
	return []validRecord{
		{name: "region full", kind: KindRegion, id: regionID, b: full},
		{name: "region terrain only", kind: KindRegion, id: regionID, b: terrainOnlyRegionBytes(PartTerrain)},
		{name: "region palshift", kind: KindRegion, id: regionID, b: palShiftRegionBytes()},
		{name: "soundtable 0x20000001", kind: KindSoundTable, id: 0x20000001, b: soundTable1Bytes()},
		{name: "soundtable 0x200000A8", kind: KindSoundTable, id: 0x200000A8, b: soundTableA8Bytes()},
		{name: "soundtable nested", kind: KindSoundTable, id: 0x20000002, b: nestedSoundTableBytes(MaxSoundNodeDepth)},
		{name: "wave pcm", kind: KindWave, id: 0x0A000002, b: pcmWaveBytes()},
		{name: "wave mp3", kind: KindWave, id: 0x0A000393, b: mp3WaveBytes()},
		{name: "landblock", kind: KindLandBlock, id: 0x9AB1FFFF, b: landBlockBytes()},
		{name: "envcell", kind: KindEnvCell, id: 0x7D64010D, b: envCellBytes(), tailOpaque: true, minLen: envCellPrefixSize},
	}
}

// checkDecodeError asserts err is a *DecodeError of the class, naming the
// record's kind and id and an offset, and returns it.
func checkDecodeError(t *testing.T, err error, kind Kind, id uint32, class error) *DecodeError {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v (%T), want *DecodeError", err, err)
	}
	if !errors.Is(err, class) {
		t.Errorf("err %q is not %v", err, class)
	}
	if de.Kind != kind || de.ID != id {
		t.Errorf("err names %s 0x%08X, want %s 0x%08X", de.Kind, de.ID, kind, id)
	}
	prefix := fmt.Sprintf("%s 0x%08X: offset 0x%X: ", kind, id, de.Offset)
	if !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("message %q does not start with %q", err, prefix)
	}
	return de
}

func TestDecodeTruncatedEverywhere(t *testing.T) {
	for _, v := range validRecords() {
		t.Run(v.name, func(t *testing.T) {
			if _, err := Decode(v.kind, v.id, v.b); err != nil {
				t.Fatalf("valid fixture: %v", err)
			}
			end := len(v.b)
			if v.tailOpaque {
				end = v.minLen
			}
			for n := 0; n < end; n++ {
				got, err := Decode(v.kind, v.id, v.b[:n:n])
				if err == nil {
					t.Fatalf("prefix of %d bytes decoded: %+v", n, got)
				}
				if got != nil {
					t.Fatalf("prefix of %d bytes: non-nil result with error", n)
				}
				de := checkDecodeError(t, err, v.kind, v.id, ErrTruncated)
				if de.Offset > n {
					t.Fatalf("prefix of %d bytes: offset 0x%X past the end", n, de.Offset)
				}
			}
		})
	}
}

func TestDecodeTrailingAndID(t *testing.T) {
	for _, v := range validRecords() {
		t.Run(v.name, func(t *testing.T) {
			if !v.tailOpaque {
				_, err := Decode(v.kind, v.id, append(append([]byte(nil), v.b...), 0))
				de := checkDecodeError(t, err, v.kind, v.id, ErrTrailingBytes)
				if de.Offset != len(v.b) || !strings.Contains(de.Msg, "1 trailing bytes") {
					t.Errorf("trailing byte: offset 0x%X msg %q; want 0x%X", de.Offset, de.Msg, len(v.b))
				}
			}
			_, err := Decode(v.kind, v.id+1, v.b)
			de := checkDecodeError(t, err, v.kind, v.id+1, ErrIDMismatch)
			if de.Offset != 0 || !strings.Contains(de.Msg, fmt.Sprintf("0x%08X", v.id)) {
				t.Errorf("id mismatch: offset %d msg %q", de.Offset, de.Msg)
			}
		})
	}
}

func TestDecodeBadValues(t *testing.T) {
	full, marks := fullRegionBytes()
	st := soundTable1Bytes()
	pcm := pcmWaveBytes()
	huge := uint32(0xFFFFFFFF)
	longName := append([]byte(nil), full...)
	copy(longName[0x0C:], []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}) // u16 escape, u32 length 2^32−1
	cb := append([]byte(nil), pcm...)
	cb[12+16] = 1 // cbSize 1 with H = 18: no room
	tests := []struct {
		name  string
		kind  Kind
		id    uint32
		b     []byte
		class error
		off   int
		msg   string
	}{
		{"region version 2", KindRegion, regionID, put32(full, 8, 2), ErrMalformed, 8, "version 2, retail reads only version 3"},
		{"region name length 2^32-1", KindRegion, regionID, longName, ErrTruncated, 0x0C, "region name: string length 4294967295"},
		{"region time-of-day count", KindRegion, regionID, put32(full, 0x450, huge), ErrTruncated, 0x450, "game time: time of day count 4294967295 needs 42949672950 bytes"},
		{"region day group count", KindRegion, regionID, put32(full, marks["sky"]+16, huge), ErrTruncated, marks["sky"] + 16, "sky: day group count 4294967295"},
		{"region sky replace count", KindRegion, regionID, put32(full, marks["sky"]+16+4+4+8+4+2*36+4+44, huge), ErrTruncated, marks["sky"] + 16 + 4 + 4 + 8 + 4 + 2*36 + 4 + 44, "sky: day group 0: sky time 0: sky object replace count 4294967295"},
		{"region stb count", KindRegion, regionID, put32(full, marks["sound"], huge), ErrTruncated, marks["sound"], "sound: stb desc count 4294967295"},
		{"region ambient sound count", KindRegion, regionID, put32(full, marks["sound"]+8, huge), ErrTruncated, marks["sound"] + 8, "sound: stb desc 0: ambient sound count 4294967295"},
		{"region scene count", KindRegion, regionID, put32(full, marks["scene"], huge), ErrTruncated, marks["scene"], "scene: scene type count"},
		{"region terrain count", KindRegion, regionID, put32(full, marks["terrain"], huge), ErrTruncated, marks["terrain"], "terrain: terrain type count"},
		{"region corner map count", KindRegion, regionID, put32(full, marks["landSurf"]+8, huge), ErrTruncated, marks["landSurf"] + 8, "terrain: land surf: tex merge: corner terrain map count 4294967295"},
		{"region palshift code count", KindRegion, regionID, put32(palShiftRegionBytes(), len(palShiftRegionBytes())-4*15, huge), ErrTruncated, len(palShiftRegionBytes()) - 4*15, "pal shift: entry 0: code count 4294967295 needs 51539607540 bytes"},
		{"soundtable record count", KindSoundTable, 0x20000001, put32(st, 8, huge), ErrTruncated, 8, "root: record count 4294967295 needs 68719476720 bytes"},
		{"soundtable child count", KindSoundTable, 0x20000001, put32(st, 0x1C, 70000), ErrTruncated, 0x1C, "root: child count 70000 needs 840000 bytes, 1456 left"},
		{"soundtable grandchild count", KindSoundTable, 0x20000001, put32(st, 0x20+24, huge), ErrTruncated, 0x20 + 24, "root: child 0: child count 4294967295"},
		{"soundtable deep", KindSoundTable, 0x20000002, nestedSoundTableBytes(100000), ErrMalformed, 4 + 12*17, "node nesting deeper than 16"},
		{"wave header size 2^32-1", KindWave, 0x0A000002, put32(pcm, 4, huge), ErrTruncated, 4, "header size 4294967295"},
		{"wave data size 2^32-1", KindWave, 0x0A000002, put32(pcm, 8, huge), ErrTruncated, 8, "data size 4294967295"},
		{"wave header 15 bytes", KindWave, 0x0A000002, put32(pcm, 4, 15), ErrMalformed, 4, "header size 15, WAVEFORMAT needs 16"},
		{"wave cbSize past header", KindWave, 0x0A000002, cb, ErrMalformed, 0x1C, "header: cbSize 1 exceeds the 0 bytes after it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.kind, tc.id, tc.b)
			de := checkDecodeError(t, err, tc.kind, tc.id, tc.class)
			if de.Offset != tc.off {
				t.Errorf("offset 0x%X, want 0x%X (%v)", de.Offset, tc.off, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q lacks %q", err, tc.msg)
			}
		})
	}
}

// The message format of the brief, in full.
func TestDecodeErrorText(t *testing.T) {
	_, err := DecodeSoundTable(0x20000001, put32(soundTable1Bytes(), 0x1C, 70000))
	const want = "soundtable 0x20000001: offset 0x1C: root: child count 70000 needs 840000 bytes, 1456 left"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

func TestDecodeUnknownKind(t *testing.T) {
	v, err := Decode("scene", 0x12000001, []byte{1, 0, 0, 0x12})
	if err == nil || v != nil || !strings.Contains(err.Error(), `unknown kind "scene"`) {
		t.Errorf("Decode(scene) = %v, %v", v, err)
	}
}
