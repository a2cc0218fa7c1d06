package dat

import (
	"bytes"
	"testing"
)

func TestEnvCellVector(t *testing.T) {
	b := envCellBytes()
	c, err := DecodeEnvCell(0x7D64010D, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Flags != 0x3 || !c.SeenOutside() || c.CellID != 0x7D64010D {
		t.Errorf("flags 0x%X seen outside %v cell %v", c.Flags, c.SeenOutside(), c.CellID)
	}
	if c.NumSurfaces != 3 || c.NumPortals != 2 || c.NumVisibleCells != 5 || len(c.Rest) != 12 {
		t.Errorf("counts %d %d %d rest %d", c.NumSurfaces, c.NumPortals, c.NumVisibleCells, len(c.Rest))
	}
	if got := c.Encode(); !bytes.Equal(got, b) {
		t.Errorf("Encode differs at offset 0x%X", firstDiff(got, b))
	}
}

func TestEnvCellSeenOutside(t *testing.T) {
	for _, tc := range []struct {
		flags uint32
		want  bool
	}{{0x0, false}, {0x1, true}, {0x2, false}, {0x3, true}, {0x8, false}, {0xB, true}} {
		b := put32(envCellBytes(), 4, tc.flags)
		c, err := DecodeEnvCell(0x7D64010D, b)
		if err != nil {
			t.Fatal(err)
		}
		if c.SeenOutside() != tc.want {
			t.Errorf("flags 0x%X: SeenOutside %v, want %v", tc.flags, c.SeenOutside(), tc.want)
		}
	}
}

// The prefix alone is a whole record: the tail is opaque here.
func TestEnvCellPrefixOnly(t *testing.T) {
	b := envCellBytes()[:envCellPrefixSize]
	c, err := DecodeEnvCell(0x7D64010D, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rest) != 0 || !bytes.Equal(c.Encode(), b) {
		t.Errorf("rest %d bytes", len(c.Rest))
	}
}
