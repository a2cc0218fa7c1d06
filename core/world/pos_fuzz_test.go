package world

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePOS: any text is a position or a *POSError that names it. A
// position has finite numbers within ±maxAbsCoord, a cell that is a land
// cell or an EnvCell of a landblock in the world, a heading in [0, 360);
// written back in the objcell form it reads back the same; every form but
// the objcell and /loc ones lands in an outdoor cell, inside it.
func FuzzParsePOS(f *testing.F) {
	for _, s := range posMatchSeeds {
		f.Add(s)
	}
	for _, s := range []string{
		"0xA9B4001F/84.5,160.25,42", "0xa9b4001f/12.5,50.25,10/90", "0x7D64010D/1,2,3", "@32532.5,34720.25,42",
		"@32532.5, 34720.25, 42/-90", "42.1S 33.6W", "101.95S,101.95W", "102.05N,0E", "@48960,0,0", "@-0.0001,5,5",
		"0xA9B4001F/1,2,nan", "0xA9B4001F/1,2,1e7", "0xA9B40050/1,2,3", "0xFFB4001F/1,2,3", "0xA9B4001F/1,2,3/4/5",
		"0xA9B4001F/1,2,3/inf", "/90", "@1,2,3/-1e-300", " 0x1/0x1p3,2,3 ", "0xA9B4FFFE/1,2,3", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParsePOS(s)
		if err != nil {
			var pe *POSError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "position") {
				t.Fatalf("%q: error %T %q is not a *POSError naming the position", s, err, err)
			}
			return
		}
		p := sp.Pos
		for _, v := range [...]float32{p.X, p.Y, p.Z} {
			if math.IsNaN(float64(v)) || math.Abs(float64(v)) > maxAbsCoord {
				t.Fatalf("%q: %+v has a coordinate %v", s, p, v)
			}
		}
		low := p.ObjCellID & 0xFFFF
		if !(low >= 1 && low <= MaxOutdoorLow) && !(low >= 0x100 && low <= 0xFFFD) || !ValidBlock(BlockX(p.ObjCellID), BlockY(p.ObjCellID)) {
			t.Fatalf("%q: cell 0x%08X", s, p.ObjCellID)
		}
		if sp.HasHeading && !(sp.Heading >= 0 && sp.Heading < 360) {
			t.Fatalf("%q: heading %v", s, sp.Heading)
		}
		body, _, _ := strings.Cut(strings.TrimSpace(s), "/")
		if !isObjcellForm(body) && !isLoc(strings.TrimSpace(s)) && !isLoc(body) {
			if !IsOutdoor(p.ObjCellID) || !(p.X >= 0 && p.X < 192 && p.Y >= 0 && p.Y < 192) {
				t.Fatalf("%q: %+v (0x%08X) is not inside an outdoor cell", s, p, p.ObjCellID)
			}
		}
		f32 := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
		again := fmt.Sprintf("0x%08X/%s,%s,%s", p.ObjCellID, f32(p.X), f32(p.Y), f32(p.Z))
		back, err := ParsePOS(again)
		if err != nil || back.Pos != p {
			t.Fatalf("%q: %+v written as %q reads %+v, %v", s, p, again, back.Pos, err)
		}
	})
}

// FuzzPositionJSON: any JSON a Position takes, it writes back in the form
// docs/interfaces.md §1.2 gives, which reads back the same.
func FuzzPositionJSON(f *testing.F) {
	for _, s := range []string{
		`{"objcellId":"0xA9B4001F","x":84.5,"y":160.25,"z":42}`, `{"objcellId":2847146015,"x":1,"y":2,"z":3}`,
		`{"objcellId":" 0x1 ","X":1e38}`, `{"objcellId":"+7"}`, `{"objcellId":"-1"}`, `{"objcellId":4294967296}`,
		`{"objcellId":1.5}`, `{"objcellId":null}`, `{"x":1}`, `{"objcellId":"0x1","z":1e39}`, `[]`, `null`, `{`,
		`{"objcellId":"0x1","objcellId":"0x2"}`, `{"OBJCELLID":"0x3","x":-0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Position
		if err := json.Unmarshal(b, &p); err != nil {
			// Not JSON at all, or a position's error naming it.
			var se *json.SyntaxError
			if !errors.As(err, &se) && !strings.HasPrefix(err.Error(), "world: position") {
				t.Fatalf("%q: error %q", b, err)
			}
			return
		}
		// The coordinates are the input's own x, y and z.
		var xyz struct{ X, Y, Z float32 }
		if err := json.Unmarshal(b, &xyz); err != nil || xyz.X != p.X || xyz.Y != p.Y || xyz.Z != p.Z {
			t.Fatalf("%q: read as %+v; its x, y, z are %+v, %v", b, p, xyz, err)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%q: read as %+v, which does not write: %v", b, p, err)
		}
		var back Position
		if err := json.Unmarshal(out, &back); err != nil || back != p {
			t.Fatalf("%q: %+v wrote %s, which reads %+v, %v", b, p, out, back, err)
		}
	})
}
