package world

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestCellIDs(t *testing.T) {
	tests := []struct {
		bx, by, cx, cy int
		cell, block    uint32
	}{
		{0xA9, 0xB4, 3, 6, 0xA9B4001F, 0xA9B4FFFF}, // 1 + 8·3 + 6 = 31
		{0, 0, 0, 0, 0x00000001, 0x0000FFFF},
		{0, 0, 0, 7, 0x00000008, 0x0000FFFF}, // cells 1–8: westernmost column, south→north
		{0, 0, 1, 0, 0x00000009, 0x0000FFFF},
		{254, 254, 7, 7, 0xFEFE0040, 0xFEFEFFFF},
	}
	for _, tt := range tests {
		if got := OutdoorCellID(tt.bx, tt.by, tt.cx, tt.cy); got != tt.cell {
			t.Errorf("OutdoorCellID(%d,%d,%d,%d) = 0x%08X, want 0x%08X", tt.bx, tt.by, tt.cx, tt.cy, got, tt.cell)
		}
		if got := LandBlockID(tt.bx, tt.by); got != tt.block {
			t.Errorf("LandBlockID(%d,%d) = 0x%08X, want 0x%08X", tt.bx, tt.by, got, tt.block)
		}
		if bx, by := BlockX(tt.cell), BlockY(tt.cell); bx != tt.bx || by != tt.by {
			t.Errorf("BlockX/Y(0x%08X) = %d,%d, want %d,%d", tt.cell, bx, by, tt.bx, tt.by)
		}
		cx, cy, ok := CellXY(tt.cell)
		if !ok || cx != tt.cx || cy != tt.cy {
			t.Errorf("CellXY(0x%08X) = %d,%d,%v, want %d,%d,true", tt.cell, cx, cy, ok, tt.cx, tt.cy)
		}
	}
}

func TestIsOutdoor(t *testing.T) {
	tests := []struct {
		id   uint32
		want bool
	}{
		{0xA9B40000, false},
		{0xA9B40001, true},
		{0xA9B40040, true},
		{0xA9B40041, false},
		{0xA9B40100, false}, // first EnvCell
		{0xA9B4FFFE, false},
		{0xA9B4FFFF, false},
	}
	for _, tt := range tests {
		if got := IsOutdoor(tt.id); got != tt.want {
			t.Errorf("IsOutdoor(0x%08X) = %v, want %v", tt.id, got, tt.want)
		}
	}
	if _, _, ok := CellXY(0xA9B40100); ok {
		t.Error("CellXY accepted an EnvCell id")
	}
}

func TestGlobal(t *testing.T) {
	p := Position{ObjCellID: 0xA9B4001F, X: 12.5, Y: 50.25, Z: 10}
	X, Y, Z := p.Global()
	// 192·169 + 12.5, 192·180 + 50.25
	if X != 32460.5 || Y != 34610.25 || Z != 10 {
		t.Errorf("Global = %v,%v,%v, want 32460.5,34610.25,10", X, Y, Z)
	}
}

func TestFromGlobal(t *testing.T) {
	tests := []struct {
		X, Y float64
		want Position
	}{
		// x = 12.5 → cx 0; y = 50.25 → cy 2 → cell 3.
		{32460.5, 34610.25, Position{0xA9B40003, 12.5, 50.25, 7}},
		{0, 0, Position{0x00000001, 0, 0, 7}},
		// The last metre of the world: bx 254, x 191.5 → cx 7, cy 0 → cell 57.
		{48959.5, 0.5, Position{0xFE000039, 191.5, 0.5, 7}},
		// A point exactly on a landblock boundary belongs to the block east of it.
		{192, 384, Position{0x01020001, 0, 0, 7}},
	}
	for _, tt := range tests {
		got, err := FromGlobal(tt.X, tt.Y, 7)
		if err != nil {
			t.Errorf("FromGlobal(%v,%v): %v", tt.X, tt.Y, err)
			continue
		}
		if got != tt.want {
			t.Errorf("FromGlobal(%v,%v) = %+v, want %+v", tt.X, tt.Y, got, tt.want)
		}
	}
	for _, bad := range [][2]float64{{-0.01, 5}, {5, -1}, {48960, 5}, {5, 48960}, {math.NaN(), 5}, {5, math.Inf(1)}} {
		if _, err := FromGlobal(bad[0], bad[1], 0); !errors.Is(err, ErrOutsideWorld) {
			t.Errorf("FromGlobal(%v,%v) error = %v, want ErrOutsideWorld", bad[0], bad[1], err)
		}
	}
}

func TestOffset(t *testing.T) {
	tests := []struct {
		name     string
		from, to Position
		want     Vec3
	}{
		{"same block", Position{0xA9B4001F, 10, 20, 5}, Position{0xA9B40001, 0, 0, 8}, Vec3{-10, -20, 3}},
		// One block east and one south: 192 − 10 + 5 = 187, −192 − 20 + 190 = −22.
		{"neighbour block", Position{0xA9B4001F, 10, 20, 5}, Position{0xAAB30040, 5, 190, 7}, Vec3{187, -22, 2}},
		// EnvCell ids use the same block arithmetic (origin is landblock-local).
		{"indoor", Position{0x7D64010D, 51.9, 112.1, 11.9}, Position{0x7D650001, 0, 0, 11.9}, Vec3{-51.9, 79.9, 0}},
	}
	for _, tt := range tests {
		got := Offset(tt.from, tt.to)
		if !near32(got.X, tt.want.X) || !near32(got.Y, tt.want.Y) || !near32(got.Z, tt.want.Z) {
			t.Errorf("%s: Offset = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestVecLen(t *testing.T) {
	v := Vec3{3, 4, 12}
	if v.LenSq() != 169 || v.Len() != 13 {
		t.Errorf("Vec3{3,4,12}: LenSq %v Len %v, want 169 13", v.LenSq(), v.Len())
	}
}

func TestMapCoords(t *testing.T) {
	tests := []struct {
		X, Y, ns, ew float64
	}{
		{24468, 24468, 0, 0},           // 24·1019.5: the map centre
		{32532, 34572, 42.1, 33.6},     // (10·33.6 + 1019.5)·24, (10·42.1 + 1019.5)·24
		{0, 0, -101.95, -101.95},       // the SW corner of the world
		{48960, 48960, 102.05, 102.05}, // the NE corner
	}
	for _, tt := range tests {
		ns, ew := MapCoords(tt.X, tt.Y)
		if math.Abs(ns-tt.ns) > 1e-9 || math.Abs(ew-tt.ew) > 1e-9 {
			t.Errorf("MapCoords(%v,%v) = %v,%v, want %v,%v", tt.X, tt.Y, ns, ew, tt.ns, tt.ew)
		}
		X, Y := FromMap(tt.ns, tt.ew)
		if math.Abs(X-tt.X) > 1e-6 || math.Abs(Y-tt.Y) > 1e-6 {
			t.Errorf("FromMap(%v,%v) = %v,%v, want %v,%v", tt.ns, tt.ew, X, Y, tt.X, tt.Y)
		}
	}
}

func TestPositionJSON(t *testing.T) {
	p := Position{ObjCellID: 0xA9B4001F, X: 12.5, Y: 50.25, Z: 10}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"objcellId":"0xA9B4001F","x":12.5,"y":50.25,"z":10}`
	if string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	// A tiny value stays a plain decimal.
	b, _ = json.Marshal(Position{ObjCellID: 1, X: 1e-7})
	if want := `{"objcellId":"0x00000001","x":0.0000001,"y":0,"z":0}`; string(b) != want {
		t.Errorf("Marshal small = %s, want %s", b, want)
	}
	for _, in := range []string{
		`{"objcellId":"0xA9B4001F","x":12.5,"y":50.25,"z":10}`,
		`{"objcellId":"0xa9b4001f","x":12.5,"y":50.25,"z":10}`,
		`{"objcellId":2847146015,"x":12.5,"y":50.25,"z":10}`,
		`{"objcellId":"2847146015","x":12.5,"y":50.25,"z":10}`,
	} {
		var q Position
		if err := json.Unmarshal([]byte(in), &q); err != nil {
			t.Errorf("Unmarshal %s: %v", in, err)
		} else if q != p {
			t.Errorf("Unmarshal %s = %+v, want %+v", in, q, p)
		}
	}
	for _, in := range []string{`{"x":1}`, `{"objcellId":"0xZZ"}`, `{"objcellId":-1}`, `{"objcellId":true}`, `[1]`} {
		var q Position
		if err := json.Unmarshal([]byte(in), &q); err == nil {
			t.Errorf("Unmarshal %s: no error", in)
		}
	}
	if _, err := json.Marshal(Position{X: float32(math.NaN())}); err == nil {
		t.Error("Marshal NaN: no error")
	}
}

func near32(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-4 }
