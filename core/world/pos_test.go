package world

import (
	"math"
	"strings"
	"testing"
)

func TestParsePOS(t *testing.T) {
	cases := []struct {
		in      string
		want    Position
		needsZ  bool
		heading float64 // -1 = none
	}{
		{"0xA9B4001F/84.5,160.25,42", Position{0xA9B4001F, 84.5, 160.25, 42}, false, -1},
		{"0xa9b4001f/12.5,50.25,10/90", Position{0xA9B4001F, 12.5, 50.25, 10}, false, 90},
		{"0x7D64010D/1,2,3", Position{0x7D64010D, 1, 2, 3}, false, -1},
		// Global: X = 192·0xA9 + 84.5 = 32532.5; cell cx = 3, cy = 6 → 1+24+6 = 0x1F.
		{"@32532.5,34720.25,42", Position{0xA9B4001F, 84.5, 160.25, 42}, false, -1},
		{"@32532.5, 34720.25, 42/-90", Position{0xA9B4001F, 84.5, 160.25, 42}, false, 270},
		// /loc: the game's own form, with prefix and quaternion.
		{"0x7D64000D [51.9 112.1 11.9]", Position{0x7D64000D, 51.9, 112.1, 11.9}, false, -1},
		{"Your location is: 0x7D64000D [51.9 112.1 11.9] 1.000000 0.000000 0.000000 0.000000",
			Position{0x7D64000D, 51.9, 112.1, 11.9}, false, -1},
		// Map: X = (10·33.6 + 1019.5)·24 = 32532, Y = (10·42.1+1019.5)·24 = 34572:
		// bx = 169 (0xA9), x = 84; by = 180 (0xB4), y = 12 → cell 1+8·3+0 = 0x19.
		{"42.1N,33.6E", Position{0xA9B40019, 84, 12, 0}, true, -1},
		{"42.1N, 33.6E/45", Position{0xA9B40019, 84, 12, 0}, true, 45},
		// South and west are negative: X = (−336+1019.5)·24 = 16404 → bx 85 (0x55), x = 84;
		// Y = (−421+1019.5)·24 = 14364 → by 74 (0x4A), y = 156 → cell 1+8·3+6 = 0x1F.
		{"42.1S 33.6W", Position{0x554A001F, 84, 156, 0}, true, -1},
	}
	for _, c := range cases {
		sp, err := ParsePOS(c.in)
		if err != nil {
			t.Errorf("ParsePOS(%q): %v", c.in, err)
			continue
		}
		p := sp.Pos
		if p.ObjCellID != c.want.ObjCellID || !near(p.X, c.want.X) || !near(p.Y, c.want.Y) || !near(p.Z, c.want.Z) {
			t.Errorf("ParsePOS(%q) = %+v (0x%08X), want %+v (0x%08X)", c.in, p, p.ObjCellID, c.want, c.want.ObjCellID)
		}
		if sp.NeedsZ != c.needsZ {
			t.Errorf("ParsePOS(%q).NeedsZ = %v", c.in, sp.NeedsZ)
		}
		if (c.heading >= 0) != sp.HasHeading || (sp.HasHeading && sp.Heading != c.heading) {
			t.Errorf("ParsePOS(%q) heading = %v/%v, want %v", c.in, sp.Heading, sp.HasHeading, c.heading)
		}
	}
}

func TestParsePOSErrors(t *testing.T) {
	cases := []struct{ in, msg string }{
		{"", "empty"},
		{"0xA9B4001F", "want 0xXXYYCCCC/x,y,z"},
		{"0xA9B4001F/1,2", "three numbers"},
		{"0xA9B4001F/1,2,nan", "finite"},
		{"0xA9B40050/1,2,3", "neither a land cell"},
		{"0xFFB4001F/1,2,3", "outside"},
		{"@-5,10,0", "outside the world"},
		{"@1,2,3/x", "heading"},
		{"0xA9B4001F/1,2,3/4/5", "too many"},
		{"somewhere nice", "want 0xXXYYCCCC"},
		// Issue 8 item 6: an out-of-range number names the range it is out of.
		{"102.1N,0E", "map coordinates 102.1N, 0E are off the map: north-south runs 101.95S..102.05N and east-west 101.95W..102.05E"},
		{"0N,102.05E", "off the map"},
		{"101.96S,0W", "off the map"},
		{"@99999999,0,0", "outside the world (0 ≤ X, Y < 48960 m)"},
		{"@0,48960,0", "outside the world (0 ≤ X, Y < 48960 m)"},
		{"@1,1,99999999", "z 99999999 is outside -1e+06..1e+06 m"},
		{"0xA9B4001F/99999999,1,1", "x 99999999 is outside -1e+06..1e+06 m"},
		{"0x7D64000D [1 -99999999 1]", "y -99999999 is outside -1e+06..1e+06 m"},
		{"@1,2,1e999", "not a finite number"},
	}
	for _, c := range cases {
		_, err := ParsePOS(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParsePOS(%q) error = %v, want it to mention %q", c.in, err, c.msg)
		}
	}
}

// The map's edges, from docs/dat-format.md §8: global 0 is 101.95S/W, and the
// last cell's far edge (48960 m) is 102.05N/E. 91N (Y = 46308 m, landblock
// row 241) is on the map.
func TestParsePOSMapEdges(t *testing.T) {
	for _, c := range []struct {
		in   string
		cell uint32
	}{
		{"101.95S,101.95W", 0x00000001},
		{"102.04N,102.04E", 0xFEFE0040},
		{"91N,0E", 0x7FF1001A}, // X 24468: bx 127, x 84, cx 3; Y 46308: by 241, y 36, cy 1
	} {
		sp, err := ParsePOS(c.in)
		if err != nil || sp.Pos.ObjCellID != c.cell {
			t.Errorf("ParsePOS(%q) = 0x%08X, %v; want cell 0x%08X", c.in, sp.Pos.ObjCellID, err, c.cell)
		}
	}
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-3 }
