package acceptance

import (
	"fmt"
	"testing"
)

// listener positions in world 1 (see world_test.go).
type listener struct {
	name     string
	pos      string
	bx, by   int
	x, y, z  float64
	wantOmni bool // some cell is within 14.14 m horizontally
}

var world1Listeners = []listener{
	// Centre of land cell (3,4) of block (1,1): 1 + 8·3 + 4 = 29 = 0x1D.
	// All 9 ring blocks exist; the resolution-chain special cells are 24–60 m away.
	{name: "cell-centre", pos: "0x0101001D/84,108,10", bx: 1, by: 1, x: 84, y: 108, z: 10},
	// Exactly on the SW vertex of cell (4,3) of block (2,2) (cell 1+32+3 = 0x24),
	// z = table[h] with h = (12+15+14+22) mod 9 = 0 → z 0: d = 0 → weight 1, dir 0 (omni).
	{name: "cell-corner", pos: "0x02020024/96,72,0", bx: 2, by: 2, x: 96, y: 72, z: 0, wantOmni: true},
	// 2 m from the east edge of block (2,1), 5 m from its south edge: cell (7,0) = 0x39.
	// Block (3,0)'s vertex (0,7) at local (0,168) → offset (2, −29, …) contributes.
	{name: "landblock-edge", pos: "0x02010039/190,5,12", bx: 2, by: 1, x: 190, y: 5, z: 12, wantOmni: true},
	// 3 m from the world's west edge (bx = 0): the bx = −1 column does not exist.
	{name: "world-edge", pos: "0x00020005/3,100,8", bx: 0, by: 2, x: 3, y: 100, z: 8, wantOmni: true},
	// Cell (3,4) of block (1,1) again, 2 m east / 4 m north of its SW vertex (72,96):
	// horizontal 2²+4² = 20 < 200 → omni band [4,10] on all 8 dirs.
	{name: "omni", pos: "0x0101001D/74,100,10", bx: 1, by: 1, x: 74, y: 100, z: 10, wantOmni: true},
	// On vertex (1,2) of block (1,2) (cell 1+8+2 = 0x0B). Vertex (6,2) of the same block
	// is at offset (120, 0, 0): h(1,2,6,2) = (18+10+7+22) mod 9 = 3 → z = 6 = player z,
	// so d² = 14400 exactly, which docs/retail.md §R8.3 says passes (weight 400/14400 = 0.0277778).
	{name: "exactly-120m", pos: "0x0102000B/24,48,6", bx: 1, by: 2, x: 24, y: 48, z: 6, wantOmni: true},
}

func TestGatherWorld1(t *testing.T) {
	// Self-check of the fixture arithmetic used in the comments above.
	if h := world1Height(2, 2, 4, 3); h != 0 {
		t.Fatalf("fixture: h(2,2,4,3) = %d, want 0", h)
	}
	if h := world1Height(1, 2, 6, 2); heightTable()[h] != 6 {
		t.Fatalf("fixture: z(1,2,6,2) = %v, want 6", heightTable()[h])
	}
	for _, l := range world1Listeners {
		t.Run(l.name, func(t *testing.T) {
			got := runGather(t, "-player", l.pos)
			exp := oracleGather(l.bx, l.by, l.x, l.y, l.z, oracleOpts{})
			omni := false
			for _, s := range exp.sounds {
				for _, d := range s.dirs {
					omni = omni || d.min == 4
				}
			}
			if omni != l.wantOmni {
				t.Fatalf("fixture: omni band expected %v, oracle says %v", l.wantOmni, omni)
			}
			if !got.Outdoorish {
				t.Errorf("outdoorish = false, want true for a land cell")
			}
			compareGather(t, got, exp, true)
		})
	}
}

// TestGatherBoundary120 pins the d² = 14400 boundary (docs/retail.md §R8.3: "≤ passes").
func TestGatherBoundary120(t *testing.T) {
	l := world1Listeners[5]
	incl := oracleGather(l.bx, l.by, l.x, l.y, l.z, oracleOpts{})
	excl := oracleGather(l.bx, l.by, l.x, l.y, l.z, oracleOpts{strictMax: true})
	if incl.cells != excl.cells+1 {
		t.Fatalf("fixture: expected exactly one cell at d² = 14400, got %d vs %d", incl.cells, excl.cells)
	}
	// The boundary cell adds 400/14400 = 0.02777778 to the total.
	if !close(incl.total-excl.total, 400.0/14400) {
		t.Fatalf("fixture: boundary weight %v", incl.total-excl.total)
	}
	got := runGather(t, "-player", l.pos)
	if got.ContributingCells != incl.cells {
		t.Errorf("contributingCells = %d, want %d (the cell at exactly 120 m counts; %d would mean it was dropped)",
			got.ContributingCells, incl.cells, excl.cells)
	}
	if !close(got.TotalSoundCount, incl.total) {
		t.Errorf("totalSoundCount = %v, want %v (without the 120 m cell: %v)", got.TotalSoundCount, incl.total, excl.total)
	}
}

// TestGatherResolutionChain: none of the special cells of block (1,1)
// contribute, except STB E (table present, no sounds) which adds to the
// total and the cell count only.
func TestGatherResolutionChain(t *testing.T) {
	got := runGather(t, "-player", "0x0101001D/84,108,10")
	for _, s := range got.Sounds {
		if s.STBIndex != 0 && s.STBIndex != 1 {
			t.Errorf("sound from STB %d (%s) present; only STB 0 and 1 can resolve here", s.STBIndex, s.STBID)
		}
		if s.STBID == fmt.Sprintf("0x%08X", stbM) {
			t.Errorf("STB with missing SoundTable 0x%08X produced an instance", stbM)
		}
	}
	// Hand check of the special cells from P = (84,108,10) in block (1,1):
	// heights h = (3x+5y+7+11) mod 9, z = 2h.
	//   (3,2) STB M: offset (72−84, 48−108, z−10); h=(9+10+18)%9=1 → z=2 → (−12,−60,−8): d²=144+3600+64=3808
	//        weight would be 400/3808 = 0.105042 — must NOT be in the total.
	//   (4,3) STB E: (96−84, 72−108), h=(12+15+18)%9=0 → z=0 → (12,−36,−10): d²=144+1296+100=1540
	//        weight 400/1540 = 0.259740 — IS in the total and the cell count.
	exp := oracleGather(1, 1, 84, 108, 10, oracleOpts{})
	// Without E's cell the total and count would be lower by exactly that weight.
	if !close(got.TotalSoundCount, exp.total) || got.ContributingCells != exp.cells {
		t.Errorf("total/cells = %v/%d, want %v/%d (STB E's cell adds 0.259740 and 1; STB M's cell would add 0.105042 and 1)",
			got.TotalSoundCount, got.ContributingCells, exp.total, exp.cells)
	}
	var sumA float64
	for _, s := range got.Sounds {
		if s.STBIndex == 0 && s.SoundIndex == 0 {
			sumA = s.SoundCount
		}
	}
	var sumB float64
	for _, s := range got.Sounds {
		if s.STBIndex == 1 && s.SoundIndex == 0 {
			sumB = s.SoundCount
		}
	}
	// total = A + B + E's weight, with STB A counted once per cell though it has 3 sounds.
	if !close(got.TotalSoundCount, sumA+sumB+400.0/1540) {
		t.Errorf("total %v ≠ count(A) %v + count(B) %v + E-cell 0.259740", got.TotalSoundCount, sumA, sumB)
	}
}

func TestGatherIndoors(t *testing.T) {
	outdoor := runGather(t, "-player", "0x0101001D/84,108,10")
	t.Run("seen_outside", func(t *testing.T) {
		got := runGather(t, "-player", "0x01010100/84,108,10")
		if !got.Outdoorish {
			t.Errorf("EnvCell with seen_outside: outdoorish = false, want true")
		}
		if got.Player.ObjCellID != "0x01010100" {
			t.Errorf("player.objcellId = %s, want 0x01010100", got.Player.ObjCellID)
		}
		exp := oracleGather(1, 1, 84, 108, 10, oracleOpts{})
		compareGather(t, got, exp, true)
		if len(got.Sounds) != len(outdoor.Sounds) || !close(got.TotalSoundCount, outdoor.TotalSoundCount) {
			t.Errorf("indoor (seen_outside) differs from outdoors at the same spot: %d sounds total %v vs %d sounds total %v",
				len(got.Sounds), got.TotalSoundCount, len(outdoor.Sounds), outdoor.TotalSoundCount)
		}
	})
	t.Run("closed", func(t *testing.T) {
		got := runGather(t, "-player", "0x01010101/84,108,10")
		if got.Outdoorish {
			t.Errorf("EnvCell without seen_outside: outdoorish = true, want false")
		}
		if got.Sounds == nil || len(got.Sounds) != 0 {
			t.Errorf("sounds = %v, want []", got.Sounds)
		}
		if got.TotalSoundCount != 0 || got.ContributingCells != 0 {
			t.Errorf("total/cells = %v/%d, want 0/0", got.TotalSoundCount, got.ContributingCells)
		}
	})
}

// TestGatherWorld2ByHand is computed entirely by hand (no oracle).
// Player 0x06060015/60,96,20 (cell (2,4) of block (6,6): 1+16+4 = 21 = 0x15).
// STB T cells at vertices (4,4), (5,4), (7,4) = local (96,96), (120,96), (168,96), z = 20:
// offsets (36,0,0), (60,0,0), (108,0,0) — all dir E (|y| < 0.0002, x > 0).
//
//	weights 400/1296 = 0.30864198, 400/3600 = 0.11111111, 400/11664 = 0.03429355
//	total = 0.45404664; share = 1 for both sounds of T.
//	ConstantSound [0]: currentVolume = 0.5/0.45404664·0.45404664 = 0.5
//	IntermitSound [1]: playChance = 1.0; band E: [36−10,36+10] ∪ [50,70] ∪ [98,118] → [26, 118]
func TestGatherWorld2ByHand(t *testing.T) {
	got := runGather(t, "-player", "0x06060015/60,96,20")
	total := 400.0/1296 + 400.0/3600 + 400.0/11664
	if !close(got.TotalSoundCount, 0.45404664) || !close(total, 0.45404664) {
		t.Errorf("totalSoundCount = %v, want 0.45404664", got.TotalSoundCount)
	}
	if got.ContributingCells != 3 {
		t.Errorf("contributingCells = %d, want 3", got.ContributingCells)
	}
	if len(got.Sounds) != 2 {
		t.Fatalf("sounds: %d, want 2", len(got.Sounds))
	}
	c, i := got.Sounds[0], got.Sounds[1]
	if c.STBIndex != 4 || c.SoundIndex != 0 || c.STBID != "0x20000004" || c.SType != 70 || !c.Continuous {
		t.Errorf("sounds[0] identity = %+v", c)
	}
	if !close(c.SoundCount, 0.45404664) || !close(c.Share, 1) || !close(c.CurrentVolume, 0.5) || c.PlayChance != 0 || len(c.Dirs) != 0 {
		t.Errorf("sounds[0] = count %v share %v vol %v chance %v dirs %v; want 0.45404664 1 0.5 0 []",
			c.SoundCount, c.Share, c.CurrentVolume, c.PlayChance, c.Dirs)
	}
	if i.STBIndex != 4 || i.SoundIndex != 1 || i.SType != 71 || i.Continuous {
		t.Errorf("sounds[1] identity = %+v", i)
	}
	if !close(i.SoundCount, 0.45404664) || !close(i.Share, 1) || i.CurrentVolume != 0 || !close(i.PlayChance, 1) {
		t.Errorf("sounds[1] = count %v share %v vol %v chance %v; want 0.45404664 1 0 1",
			i.SoundCount, i.Share, i.CurrentVolume, i.PlayChance)
	}
	if len(i.Dirs) != 1 || i.Dirs[0].Dir != 3 || !close(i.Dirs[0].Min, 26) || !close(i.Dirs[0].Max, 118) {
		t.Errorf("sounds[1].dirs = %+v, want [{3 26 118}]", i.Dirs)
	}
	if i.Authored.Volume != 1 || i.Authored.BaseChance != 1 || i.Authored.MinRate != 0.5 || i.Authored.MaxRate != 1.5 {
		t.Errorf("sounds[1].authored = %+v", i.Authored)
	}
}

// TestGatherHandValues hand-checks single numbers of the cell-centre listener.
func TestGatherHandValues(t *testing.T) {
	exp := oracleGather(1, 1, 84, 108, 10, oracleOpts{})
	// CalcWeight vectors (docs/retail.md §R9): d=10 → 1, 40 → 0.25, 120 → 0.02778, 120.01 → 0.
	for _, v := range [][2]float64{{100, 1}, {1600, 0.25}, {14400, 0.0277778}, {120.01 * 120.01, 0}} {
		if !close(calcWeight(v[0]), v[1]) {
			t.Fatalf("oracle calcWeight(%v) = %v, want %v", v[0], calcWeight(v[0]), v[1])
		}
	}
	// CalcDir vectors (docs/retail.md §R9): (0,20)→N1 (30,10)→E3 (30,16)→NE7 (−30,−20)→SW6 (9,9)→0; (12,24): ratio 2 is not > 2 → NE7.
	for _, v := range [][3]float64{{0, 20, 1}, {30, 10, 3}, {30, 16, 7}, {-30, -20, 6}, {9, 9, 0}, {12, 24, 7}, {-12, -24, 6}} {
		if calcDir(v[0], v[1]) != int(v[2]) {
			t.Fatalf("oracle calcDir(%v,%v) = %d, want %v", v[0], v[1], calcDir(v[0], v[1]), v[2])
		}
	}
	// Cell (3,4) of block (1,1) itself: SW vertex (72,96), h=(9+20+18)%9=2 → z=4.
	// offset (−12,−12,−6): d² = 144+144+36 = 324 < 400 → weight 1; x²+y² = 288 ≥ 200,
	// |y|/|x| = 1 → diagonal, x<0,y<0 → SW(6); r = 18 → band [8, 28].
	// Cell (4,5) (vertex (96,120), h=(12+25+18)%9=1 → z=2): offset (12,12,−8): d²=352 → weight 1, NE(7), r=18.7617 → [8.7617, 28.7617].
	// Sound A[0] is a ConstantSound: currentVolume = 0.4 / total · count(A).
	var a0 *expSound
	for _, s := range exp.sounds {
		if s.stbIndex == 0 && s.soundIndex == 0 {
			a0 = s
		}
	}
	got := runGather(t, "-player", "0x0101001D/84,108,10")
	for _, s := range got.Sounds {
		if s.STBIndex == 0 && s.SoundIndex == 0 {
			if !close(s.CurrentVolume, 0.4/exp.total*a0.count) {
				t.Errorf("A[0].currentVolume = %v, want 0.4/%v·%v = %v", s.CurrentVolume, exp.total, a0.count, 0.4/exp.total*a0.count)
			}
		}
		if s.STBIndex == 0 && s.SoundIndex == 1 {
			// The SW band must contain at least [8, 28] from the listener's own cell.
			for _, d := range s.Dirs {
				if d.Dir == 6 && (d.Min > 8+1e-3 || d.Max < 28-1e-3) {
					t.Errorf("A[1] SW band %v does not cover [8,28] of the listener's own cell", d)
				}
			}
		}
	}
}

func compareGather(t *testing.T, got *gOut, exp *expGather, checkOrder bool) {
	t.Helper()
	if !close(got.TotalSoundCount, exp.total) {
		t.Errorf("totalSoundCount = %v, want %v", got.TotalSoundCount, exp.total)
	}
	if got.ContributingCells != exp.cells {
		t.Errorf("contributingCells = %d, want %d", got.ContributingCells, exp.cells)
	}
	if len(got.Sounds) != len(exp.sounds) {
		t.Errorf("sounds: %d, want %d", len(got.Sounds), len(exp.sounds))
	}
	for i, e := range exp.sounds {
		var g *gSound
		for j := range got.Sounds {
			if got.Sounds[j].STBIndex == e.stbIndex && got.Sounds[j].SoundIndex == e.soundIndex {
				g = &got.Sounds[j]
				if checkOrder && j != i {
					t.Errorf("sound (%d,%d) at position %d, want %d (instance-creation order)", e.stbIndex, e.soundIndex, j, i)
				}
			}
		}
		if g == nil {
			t.Errorf("sound (%d,%d) missing", e.stbIndex, e.soundIndex)
			continue
		}
		id := fmt.Sprintf("sound (%d,%d)", e.stbIndex, e.soundIndex)
		if g.STBID != fmt.Sprintf("0x%08X", e.stbID) || g.SType != e.sType || g.Continuous != e.continuous {
			t.Errorf("%s identity: stbId %s sType %d continuous %v; want 0x%08X %d %v", id, g.STBID, g.SType, g.Continuous, e.stbID, e.sType, e.continuous)
		}
		if !close(g.Authored.Volume, e.volume) || !close(g.Authored.BaseChance, e.baseChance) ||
			!close(g.Authored.MinRate, e.minRate) || !close(g.Authored.MaxRate, e.maxRate) {
			t.Errorf("%s authored = %+v", id, g.Authored)
		}
		share := e.count / exp.total
		if !close(g.SoundCount, e.count) {
			t.Errorf("%s soundCount = %v, want %v", id, g.SoundCount, e.count)
		}
		if !close(g.Share, share) {
			t.Errorf("%s share = %v, want %v", id, g.Share, share)
		}
		wantVol, wantChance := 0.0, 0.0
		if e.continuous {
			wantVol = e.volume / exp.total * e.count
		} else {
			wantChance = e.baseChance / exp.total * e.count
		}
		if !close(g.CurrentVolume, wantVol) {
			t.Errorf("%s currentVolume = %v, want %v", id, g.CurrentVolume, wantVol)
		}
		if !close(g.PlayChance, wantChance) {
			t.Errorf("%s playChance = %v, want %v", id, g.PlayChance, wantChance)
		}
		compareDirs(t, id, g.Dirs, e.dirs, checkOrder)
	}
}

func compareDirs(t *testing.T, id string, got []gDir, exp []expDir, checkOrder bool) {
	t.Helper()
	if len(got) != len(exp) {
		t.Errorf("%s dirs = %v, want %v", id, got, exp)
		return
	}
	for i, e := range exp {
		found := false
		for j, g := range got {
			if g.Dir != e.dir {
				continue
			}
			found = true
			if checkOrder && j != i {
				t.Errorf("%s dir %d registered at %d, want %d (registration order %v, got %v)", id, e.dir, j, i, exp, got)
			}
			if !close(g.Min, e.min) || !close(g.Max, e.max) {
				t.Errorf("%s dir %d band [%v, %v], want [%v, %v]", id, e.dir, g.Min, g.Max, e.min, e.max)
			}
		}
		if !found {
			t.Errorf("%s dir %d missing (got %v)", id, e.dir, got)
		}
	}
}

// TestGatherPosForms: the POS forms of docs/interfaces.md §1.1 name the same listener.
// Cell (3,4) of block (1,1) at local (84,108): global X = 192·1 + 84 = 276, Y = 300.
// Map: EW = (276/24 − 1019.5)/10 = −100.8 → 100.8W; NS = (300/24 − 1019.5)/10 = −100.7 → 100.7S.
func TestGatherPosForms(t *testing.T) {
	base := runGather(t, "-player", "0x0101001D/84,108,10")
	for _, pos := range []string{"@276,300,10", "0x0101001D [84 108 10]", "Your location is: 0x0101001D [84.000000 108.000000 10.000000] 1.000000 0.000000 0.000000 0.000000", "0x0101001d/84,108,10"} {
		got := runGather(t, "-player", pos)
		if got.Player != base.Player || got.TotalSoundCount != base.TotalSoundCount || got.ContributingCells != base.ContributingCells || len(got.Sounds) != len(base.Sounds) {
			t.Errorf("POS %q: player %+v total %v cells %d; want %+v %v %d", pos, got.Player, got.TotalSoundCount, got.ContributingCells, base.Player, base.TotalSoundCount, base.ContributingCells)
		}
	}
	got := runGather(t, "-player", "100.7S,100.8W")
	if got.Player.ObjCellID != "0x0101001D" || !close(got.Player.X, 84) || !close(got.Player.Y, 108) {
		t.Errorf("POS 100.7S,100.8W: player %+v, want 0x0101001D at (84, 108)", got.Player)
	}
	if !base.Outdoorish || base.Player.X != 84 || base.Player.Y != 108 || base.Player.Z != 10 {
		t.Errorf("player echo %+v, want 0x0101001D (84, 108, 10)", base.Player)
	}
}
