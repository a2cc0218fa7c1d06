package world

import (
	"encoding/json"
	"errors"
	"testing"
)

// The demo's river landmark: X = 0xA9·192 + 120 = 32568, Y = 0xB5·192 + 96
// = 34848; EW = (32568/24 − 1019.5)/10 = 33.75, NS = (34848/24 − 1019.5)/10
// = 43.25.
func TestWhereOf(t *testing.T) {
	w := WhereOf(Position{ObjCellID: 0xA9B5002D, X: 120, Y: 96, Z: 22.8522})
	if w.X != 32568 || w.Y != 34848 || w.EW != 33.75 || w.NS != 43.25 || !w.Outdoor {
		t.Errorf("where %+v", w)
	}
	js, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"objcellId":"0xA9B5002D","x":120,"y":96,"z":22.8522,"outdoor":true,"X":32568,"Y":34848,"ns":43.25,"ew":33.75}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
	if in := WhereOf(Position{ObjCellID: 0xA9B40100, X: 1, Y: 2}); in.Outdoor {
		t.Error("an EnvCell counted as outdoors")
	}
}

// Numbers are the shortest plain decimals that read back: a point a tenth
// of a micrometre from the world's SW corner is not written 1e-07, and
// 2.5 km out is not rounded to six digits.
func TestWhereNumbersArePlainDecimals(t *testing.T) {
	w := Where{X: 1e-7, Y: 2468.0625, NS: -101.95, EW: 0}
	js, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"objcellId":"0x00000000","x":0,"y":0,"z":0,"outdoor":false,"X":0.0000001,"Y":2468.0625,"ns":-101.95,"ew":0}`; string(js) != want {
		t.Errorf("JSON %s\nwant %s", js, want)
	}
}

// Every POS that does not parse or lies off the map is a *POSError, with
// the cause's text.
func TestParsePOSErrorsAreTyped(t *testing.T) {
	for _, s := range []string{"", "north of here", "0xA9B5002D/1,2", "200N,0E", "@-5,0,0", "0xFFB50001/1,2,3", "0xA9B5002D/1,2,3/x"} {
		_, err := ParsePOS(s)
		var pe *POSError
		if !errors.As(err, &pe) || err.Error() != pe.Err.Error() {
			t.Errorf("ParsePOS(%q) = %v; want a *POSError", s, err)
		}
	}
}
