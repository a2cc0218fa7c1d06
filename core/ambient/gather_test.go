package ambient

import (
	"math"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// threeCells is landblock (10,10) with STB k at vertices (0,0), (0,4) and
// (2,0); the player stands on vertex (0,0), so the offsets are 0, 96 m north
// and 48 m east: weights 1, 400/9216 = 0.0434028 and 400/2304 = 0.1736111.
func threeCells(k0, k1 int) *testLand {
	return newLand(sparseBlock(10, 10, [3]int{0, 0, int(word(k0))}, [3]int{0, 4, int(word(k1))}, [3]int{2, 0, int(word(k1))}))
}

func TestGatherIntermittentBands(t *testing.T) {
	r := testRegion(stb(0x20000001, intermit(1, 0.5, 10, 20)))
	e := New(r, threeCells(0, 0), newLib(table(0x20000001, 0x0A000001)), DefaultConfig())
	e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
	s := e.State()
	if !s.Outdoorish || s.ContributingCells != 3 || !near(float64(s.TotalSoundCount), 1.2170139, 1e-6) {
		t.Fatalf("outdoorish %v, cells %d, total %v; want true, 3, 1.2170139", s.Outdoorish, s.ContributingCells, s.TotalSoundCount)
	}
	if len(s.Sounds) != 1 {
		t.Fatalf("%d instances, want 1", len(s.Sounds))
	}
	in := s.Sounds[0]
	// One STB, one sound: share 1, chance = base_chance.
	if in.Continuous || !near(in.Share, 1, 1e-6) || !near(float64(in.PlayChance), 0.5, 1e-6) || in.CurrentVolume != 0 {
		t.Errorf("instance %+v: want intermittent, share 1, chance 0.5", in)
	}
	// The (0,0) cell is closer than 14.14 m: [4, 10] in all eight directions,
	// registered N, S, E, W, NW, NE, SW, SE. The north cell at 96 m widens N
	// to 106; the east cell at 48 m widens E to 58; the minimum stays 4.
	want := []DirBand{
		{dirN, 4, 106}, {dirS, 4, 10}, {dirE, 4, 58}, {dirW, 4, 10},
		{dirNW, 4, 10}, {dirNE, 4, 10}, {dirSW, 4, 10}, {dirSE, 4, 10},
	}
	if !slices.Equal(in.Dirs, want) {
		t.Errorf("bands %v, want %v", in.Dirs, want)
	}
}

func TestGatherSharesAndNSoundSTB(t *testing.T) {
	// STB 0: one constant sound (volume .6) at (0,0), weight 1.
	// STB 1: three intermittent sounds (chance .3) at (0,4) and (2,0).
	r := testRegion(
		stb(0x20000001, constant(0.6, 5)),
		stb(0x20000002, intermit(1, 0.3, 5, 9), intermit(1, 0.3, 5, 9), intermit(1, 0.3, 5, 9)),
	)
	lib := newLib(table(0x20000001, 0x0A000001), table(0x20000002, 0x0A000002))
	e := New(r, threeCells(0, 1), lib, DefaultConfig())
	e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
	s := e.State()
	// The total counts each cell once: 1 + 0.0434028 + 0.1736111.
	if !near(float64(s.TotalSoundCount), 1.2170139, 1e-6) || s.ContributingCells != 3 {
		t.Fatalf("total %v cells %d, want 1.2170139 and 3", s.TotalSoundCount, s.ContributingCells)
	}
	// Creation order follows the x-major cell walk: (0,0) then (0,4).
	var ids [][2]int
	for _, in := range s.Sounds {
		ids = append(ids, [2]int{in.STBIndex, in.SoundIndex})
	}
	if want := [][2]int{{0, 0}, {1, 0}, {1, 1}, {1, 2}}; !slices.Equal(ids, want) {
		t.Fatalf("instances %v, want %v", ids, want)
	}
	// Constant: 0.6 / 1.2170139 · 1 = 0.4930100.
	if c := s.Sounds[0]; !c.Continuous || !near(float64(c.CurrentVolume), 0.4930100, 1e-6) || c.PlayChance != 0 || len(c.Dirs) != 0 {
		t.Errorf("constant %+v, want current volume 0.4930100", c)
	}
	// Each of STB 1's sounds gets both cells' weight: share .1783167, chance .0534950.
	var sum float64
	for _, in := range s.Sounds[1:] {
		if !near(in.Share, 0.1783167, 1e-6) || !near(float64(in.PlayChance), 0.0534950, 1e-6) {
			t.Errorf("sound %d: share %v chance %v, want 0.1783167 0.0534950", in.SoundIndex, in.Share, in.PlayChance)
		}
		sum += float64(in.SoundCount)
	}
	if !near(sum, 3*0.2170139, 1e-6) {
		t.Errorf("STB 1 sound counts sum to %v, want 3 × 0.2170139", sum)
	}
}

func TestGatherNSoundSumIsNTimesTotal(t *testing.T) {
	// A full ring of one 3-sound STB: every share is 1 (≤ 1) and the sound
	// counts sum to 3 × total.
	r := testRegion(stb(0x20000001, intermit(1, 0.2, 5, 9), constant(0.5, 4), intermit(1, 0.9, 1, 2)))
	land := newLand()
	for bx := 9; bx <= 11; bx++ {
		for by := 9; by <= 11; by++ {
			b := flatBlock(bx, by, word(0))
			land.blocks[[2]int{bx, by}] = b
		}
	}
	e := New(r, land, newLib(table(0x20000001, 0x0A000001)), DefaultConfig())
	e.ChangePosition(0, at(10, 10, 100, 90, 0), false)
	s := e.State()
	var sum float64
	for _, in := range s.Sounds {
		if in.Share > 1+1e-6 || !near(in.Share, 1, 1e-6) {
			t.Errorf("sound %d share %v, want 1", in.SoundIndex, in.Share)
		}
		sum += float64(in.SoundCount)
	}
	if len(s.Sounds) != 3 || !near(sum, 3*float64(s.TotalSoundCount), 1e-4) {
		t.Errorf("%d sounds, counts sum %v, total %v; want 3 and 3·total", len(s.Sounds), sum, s.TotalSoundCount)
	}
	// π·120²/576 ≈ 78.5 cells lie within 120 m of an interior point.
	if s.ContributingCells < 70 || s.ContributingCells > 90 {
		t.Errorf("%d contributing cells, want about 78", s.ContributingCells)
	}
}

func TestAddSoundDistanceBoundary(t *testing.T) {
	// Vertex (3,4) is at (72, 96): 72² + 96² = 14400 exactly, which passes
	// (weight 400/14400). Lifted 1 m (height byte 1), it does not.
	r := testRegion(stb(0x20000001, intermit(1, 0.5, 10, 20)))
	for _, tt := range []struct {
		height uint8
		cells  int
		total  float64
	}{{0, 1, 400.0 / 14400}, {1, 0, 0}} {
		lb := sparseBlock(10, 10, [3]int{3, 4, int(word(0))})
		lb.Height[9*3+4] = tt.height
		lib := newLib(table(0x20000001, 0x0A000001))
		e := New(r, newLand(lb), lib, DefaultConfig())
		e.ChangePosition(0, at(10, 10, 0, 0, 0), false)
		s := e.State()
		if s.ContributingCells != tt.cells || !near(float64(s.TotalSoundCount), tt.total, 1e-7) {
			t.Errorf("height %d: cells %d total %v, want %d %v", tt.height, s.ContributingCells, s.TotalSoundCount, tt.cells, tt.total)
		}
		// CRegionDesc::GetSTBDesc loads the table before AddSound's distance
		// test, so it is fetched even when the cell is out of range.
		if lib.calls[0x20000001] != 1 {
			t.Errorf("height %d: table fetched %d times, want 1", tt.height, lib.calls[0x20000001])
		}
	}
}

func TestResolveChain(t *testing.T) {
	r := testRegion(stb(0x20000001, constant(1, 5)), stb(0x20000002, constant(1, 5)))
	r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes,
		sceneType(0xFFFFFFFF), // scene 2: no STB
		sceneType(7),          // scene 3: STB index out of range
		sceneType(1),          // scene 4: STB 1
	)
	r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes,
		terrainType(0xFFFFFFFF, 2, 3, 99, 4), // type 2
	)
	chain := ResolveChain(r)
	tests := []struct{ t, s, want int }{
		{0, 0, 0}, {1, 0, 1},
		{0, 1, noSTB}, // scene ordinal beyond the type's list
		{2, 0, noSTB}, // scene index 0xFFFFFFFF
		{2, 1, noSTB}, // scene type's STB index 0xFFFFFFFF
		{2, 2, noSTB}, // STB index 7 of 2
		{2, 3, noSTB}, // scene index 99 of 5
		{2, 4, 1},     // through scene type 4
		{3, 0, noSTB}, // terrain type beyond the list
		{31, 31, noSTB},
	}
	for _, tt := range tests {
		if got := int(chain[tt.t][tt.s]); got != tt.want {
			t.Errorf("chain[type %d][scene %d] = %d, want %d", tt.t, tt.s, got, tt.want)
		}
	}
	if c := ResolveChain(nil); c[0][0] != noSTB {
		t.Error("nil region resolved an STB")
	}
	// Table: the STB's SoundTable id through the same hops; an STB whose
	// table id is 0 (INVALID_DID) names none.
	r.SoundInfo.STBDescs = append(r.SoundInfo.STBDescs, stb(0))
	r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, sceneType(2)) // scene 5: STB 2, table 0
	r.TerrainInfo.TerrainTypes[2].SceneTypes = append(r.TerrainInfo.TerrainTypes[2].SceneTypes, 5)
	tables := NewTables(r)
	for _, tt := range []struct {
		t, s int
		id   uint32
	}{{0, 0, 0x20000001}, {1, 0, 0x20000002}, {2, 4, 0x20000002}, {2, 5, 0}, {2, 2, 0}, {3, 0, 0}} {
		id, ok := tables.Table(uint16(tt.s<<11 | tt.t<<2))
		if id != tt.id || ok != (tt.id != 0) {
			t.Errorf("Table(type %d, scene %d) = 0x%08X %v, want 0x%08X", tt.t, tt.s, id, ok, tt.id)
		}
	}
}

func TestRingOrderAndWorldEdge(t *testing.T) {
	r := testRegion(stb(0x20000001, constant(1, 5)))
	tests := []struct {
		name   string
		bx, by int
		want   [][2]int
	}{
		{"interior: west→east columns, south→north within", 5, 5,
			[][2]int{{4, 4}, {4, 5}, {4, 6}, {5, 4}, {5, 5}, {5, 6}, {6, 4}, {6, 5}, {6, 6}}},
		{"south-west corner", 0, 0, [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}}},
		{"east edge", 254, 100, [][2]int{{253, 99}, {253, 100}, {253, 101}, {254, 99}, {254, 100}, {254, 101}}},
		{"north-east corner", 254, 254, [][2]int{{253, 253}, {253, 254}, {254, 253}, {254, 254}}},
	}
	for _, tt := range tests {
		land := newLand()
		e := New(r, land, newLib(), DefaultConfig())
		e.ChangePosition(0, at(tt.bx, tt.by, 10, 10, 0), false)
		if !slices.Equal(land.asked, tt.want) {
			t.Errorf("%s: landblocks asked %v, want %v", tt.name, land.asked, tt.want)
		}
	}
}

func TestRingOrderDecidesCreationOrder(t *testing.T) {
	// STB 1 lies in block (4,5) (west), STB 0 in block (5,4) (south), both
	// within 24 m of the player at the SW corner of (5,5). x-major visits
	// (4,5) first, so STB 1's instance is created first; a y-major walk
	// would have created STB 0's first.
	r := testRegion(stb(0x20000001, constant(1, 5)), stb(0x20000002, constant(1, 5)))
	land := newLand(
		sparseBlock(4, 5, [3]int{7, 0, int(word(1))}),
		sparseBlock(5, 4, [3]int{0, 7, int(word(0))}),
	)
	e := New(r, land, newLib(table(0x20000001, 1), table(0x20000002, 2)), DefaultConfig())
	e.ChangePosition(0, at(5, 5, 0, 0, 0), false)
	s := e.State()
	if len(s.Sounds) != 2 || s.Sounds[0].STBIndex != 1 || s.Sounds[1].STBIndex != 0 {
		t.Errorf("instances %+v, want STB 1 then STB 0", s.Sounds)
	}
	// Both cells are 24 m away: weight 400/576 each, directions W and S.
	if !near(float64(s.TotalSoundCount), 2*400.0/576, 1e-6) {
		t.Errorf("total %v, want %v", s.TotalSoundCount, 2*400.0/576)
	}
}

func TestIndoorRules(t *testing.T) {
	const cell = 0x0A0A0105
	r := testRegion(stb(0x20000001, constant(1, 5)))
	tests := []struct {
		name       string
		flags      uint32
		missing    bool
		outdoorish bool
	}{
		{"seen_outside hears the outdoor set", 0x1, false, true},
		{"seen_outside with other flags", 0x3, false, true},
		{"no seen_outside: silence", 0x2, false, false},
		{"missing EnvCell: silence", 0, true, false},
	}
	for _, tt := range tests {
		land := newLand(flatBlock(10, 10, word(0)))
		if !tt.missing {
			land.cells[cell] = envCell(cell, tt.flags)
		}
		e := New(r, land, newLib(table(0x20000001, 0x0A000001)), DefaultConfig())
		e.ChangePosition(0, posIn(cell, 96, 96, 0), false)
		s := e.State()
		if s.Outdoorish != tt.outdoorish {
			t.Errorf("%s: outdoorish %v, want %v", tt.name, s.Outdoorish, tt.outdoorish)
		}
		if heard := s.TotalSoundCount > 0 && len(s.Sounds) == 1; heard != tt.outdoorish {
			t.Errorf("%s: total %v with %d sounds", tt.name, s.TotalSoundCount, len(s.Sounds))
		}
		if !tt.outdoorish && (len(land.asked) != 0 || len(decisions(e)) != 0) {
			t.Errorf("%s: gathered %v and produced %d events indoors", tt.name, land.asked, len(decisions(e)))
		}
	}
}
