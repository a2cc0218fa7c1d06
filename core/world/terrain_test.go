package world

import (
	"math"
	"testing"

	"acambient/core/dat"
)

func TestSplitSWtoNE(t *testing.T) {
	// Hash values computed by hand (Python, mod 2^32) from the retail formula
	// y·(214614067·x + 1813693831) − 1109124029·x − 1369149221.
	tests := []struct {
		gx, gy int
		want   bool
	}{
		{0, 0, true},        // 2925818075 · 2^-32 = 0.681
		{1, 0, false},       // 1816694046 → 0.423
		{0, 1, false},       // 444544610 → 0.104
		{1, 1, true},        // 3845001944 → 0.895
		{7, 7, false},       // 1194026788 → 0.278
		{1352, 1440, true},  // 3244022035 → 0.755
		{2039, 2039, false}, // 944173284 → 0.220
	}
	for _, tt := range tests {
		if got := SplitSWtoNE(tt.gx, tt.gy); got != tt.want {
			t.Errorf("SplitSWtoNE(%d,%d) = %v, want %v", tt.gx, tt.gy, got, tt.want)
		}
	}
}

func TestHeightTable(t *testing.T) {
	var r dat.Region
	for i := range r.LandDefs.LandHeightTable {
		r.LandDefs.LandHeightTable[i] = float32(3 * i)
	}
	tab := HeightTable(&r)
	if tab[0] != 0 || tab[200] != 600 || tab[255] != 765 {
		t.Errorf("valid table: got %v %v %v, want 0 600 765", tab[0], tab[200], tab[255])
	}
	// Entry 10 is out of [0, 800]: retail stops copying there.
	r.LandDefs.LandHeightTable[10] = 800.5
	tab = HeightTable(&r)
	if tab[9] != 27 || tab[10] != 0 || tab[11] != 0 || tab[255] != 0 {
		t.Errorf("truncated table: got %v %v %v %v, want 27 0 0 0", tab[9], tab[10], tab[11], tab[255])
	}
	if HeightTable(nil) != ([256]float32{}) {
		t.Error("HeightTable(nil) not zero")
	}
}

// terrainFixture is landblock 0x0000 with height byte b meaning z = 2b, and
// the two cells (0,0) (cut SW–NE) and (1,0) (cut SE–NW) given corner heights
// SW 0, SE 10, NW 20, NE 40.
func terrainFixture() (*dat.Region, *dat.LandBlock) {
	var r dat.Region
	for i := range r.LandDefs.LandHeightTable {
		r.LandDefs.LandHeightTable[i] = float32(2 * i)
	}
	lb := &dat.LandBlock{ID: 0x0000FFFF}
	set := func(x, y int, z uint8) { lb.Height[9*x+y] = z / 2 }
	set(0, 0, 0)
	set(1, 0, 10)
	set(0, 1, 20)
	set(1, 1, 40)
	set(2, 0, 0) // cell (1,0): SW = vertex (1,0) = 10, SE = (2,0), NW = (1,1) = 40, NE = (2,1)
	set(2, 1, 50)
	set(8, 8, 100)
	set(7, 8, 100)
	set(8, 7, 100)
	set(7, 7, 100)
	return &r, lb
}

func TestTerrainZ(t *testing.T) {
	r, lb := terrainFixture()
	tests := []struct {
		name string
		x, y float32
		want float32
	}{
		{"SW vertex", 0, 0, 0},
		{"NE vertex of cell 0,0", 24, 24, 40},
		// Cell (0,0), SW–NE cut. Below the diagonal (u .75, v .25):
		// 0 + .75·10 + .25·(40 − 10) = 15. Bilinear would give 14.375.
		{"SE triangle", 18, 6, 15},
		// Above it (u .25, v .75): 0 + .75·20 + .25·(40 − 20) = 20. Bilinear 19.375.
		{"NW triangle", 6, 18, 20},
		// Cell (1,0), SE–NW cut; corners SW 10, SE 0, NW 40, NE 50.
		// (u .25, v .25): 10 + .25·(0 − 10) + .25·(40 − 10) = 15.
		{"SW triangle", 30, 6, 15},
		// (u .75, v .75): 50 + .25·(40 − 50) + .25·(0 − 50) = 35. Bilinear 36.25.
		{"NE triangle", 42, 18, 35},
		{"north-east corner of the block", 192, 192, 100},
	}
	for _, tt := range tests {
		got, err := TerrainZ(r, lb, tt.x, tt.y)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !near32(got, tt.want) {
			t.Errorf("%s: TerrainZ(%v,%v) = %v, want %v", tt.name, tt.x, tt.y, got, tt.want)
		}
	}
	for _, bad := range [][2]float32{{-1, 0}, {0, 192.5}, {float32(math.NaN()), 5}} {
		if _, err := TerrainZ(r, lb, bad[0], bad[1]); err == nil {
			t.Errorf("TerrainZ(%v,%v): no error", bad[0], bad[1])
		}
	}
	if _, err := TerrainZ(r, nil, 1, 1); err == nil {
		t.Error("TerrainZ with nil landblock: no error")
	}
}
