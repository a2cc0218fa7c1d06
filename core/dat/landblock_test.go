package dat

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestLandBlockVector(t *testing.T) {
	b := landBlockBytes()
	if len(b) != LandBlockSize || LandBlockSize != 252 {
		t.Fatalf("fixture %d bytes, LandBlockSize %d; docs/dat-format.md §6.1 says 252", len(b), LandBlockSize)
	}
	// docs/dat-format.md §6.1 offsets: terrain at 8, heights at 170, pad at 251.
	if b[8] != 0x34 || b[9] != 0x48 || b[170] != 120 || b[170+40] != 93 {
		t.Fatalf("fixture layout off")
	}
	l, err := DecodeLandBlock(0x9AB1FFFF, b)
	if err != nil {
		t.Fatal(err)
	}
	if l.HasObjects != 0 {
		t.Errorf("has_objects = %d", l.HasObjects)
	}
	words := []struct {
		x, y               int
		raw                uint16
		road, typ, scenery uint32
	}{
		{0, 0, 0x4834, 0, 13, 9},  // SedimentaryRock
		{0, 1, 0x6824, 0, 9, 13},  // PatchyGrassland
		{8, 8, 0x5834, 0, 13, 11}, // index 80
	}
	for _, w := range words {
		got := l.Word(w.x, w.y)
		if uint16(got) != w.raw || got.Road() != w.road || got.Type() != w.typ || got.Scene() != w.scenery {
			t.Errorf("word(%d,%d) = 0x%04X road %d type %d scene %d; want 0x%04X %d %d %d",
				w.x, w.y, uint16(got), got.Road(), got.Type(), got.Scene(), w.raw, w.road, w.typ, w.scenery)
		}
	}
	heights := []struct{ x, y, h int }{{0, 0, 120}, {0, 1, 139}, {4, 4, 93}, {8, 7, 93}, {8, 8, 110}}
	for _, h := range heights {
		if got := l.HeightAt(h.x, h.y); int(got) != h.h {
			t.Errorf("height(%d,%d) = %d, want %d", h.x, h.y, got, h.h)
		}
	}
	if got := l.Encode(); !bytes.Equal(got, b) {
		t.Errorf("Encode differs at offset 0x%X", firstDiff(got, b))
	}
}

// A non-zero pad byte is kept for exact re-encoding.
func TestLandBlockPad(t *testing.T) {
	b := landBlockBytes()
	b[251] = 0x5A
	l, err := DecodeLandBlock(0x9AB1FFFF, b)
	if err != nil {
		t.Fatal(err)
	}
	if l.Pad != 0x5A || !bytes.Equal(l.Encode(), b) {
		t.Errorf("pad %#x, encode exact %v", l.Pad, bytes.Equal(l.Encode(), b))
	}
}

func TestLandBlockJSON(t *testing.T) {
	l, err := DecodeLandBlock(0x9AB1FFFF, landBlockBytes())
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID       string
		Terrain  []uint16
		Height   []uint8
		Vertices []struct{ X, Y, Road, Type, Scene, Height int }
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "0x9AB1FFFF" || len(got.Terrain) != 81 || len(got.Height) != 81 || len(got.Vertices) != 81 {
		t.Fatalf("json: id %s, %d terrain, %d heights, %d vertices", got.ID, len(got.Terrain), len(got.Height), len(got.Vertices))
	}
	if v := got.Vertices[1]; v.X != 0 || v.Y != 1 || v.Type != 9 || v.Scene != 13 || v.Height != 139 {
		t.Errorf("vertex 1 = %+v", v)
	}
	if v := got.Vertices[79]; v.X != 8 || v.Y != 7 || v.Height != 93 {
		t.Errorf("vertex 79 = %+v", v)
	}
	if bytes.Contains(out, []byte(`"Pad"`)) {
		t.Errorf("pad leaked into JSON")
	}
}
