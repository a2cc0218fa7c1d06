package zones

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/world"
	"acambient/datfetch/source"
	"acambient/internal/testkit/synthworld"
)

// recordLand serves an engine the landblocks of a cell record map, as the
// host does: a record that does not decode is missing.
type recordLand map[uint32][]byte

func (l recordLand) LandBlock(bx, by int) *dat.LandBlock {
	id := world.LandBlockID(bx, by)
	b, ok := l[id]
	if !ok {
		return nil
	}
	lb, err := dat.DecodeLandBlock(id, b)
	if err != nil {
		return nil
	}
	return lb
}

func (recordLand) EnvCell(uint32) *dat.EnvCell { return nil }

// recordLib serves SoundTables from a portal record map: missing or
// malformed is NotFound, as the host answers once it has asked.
type recordLib map[uint32][]byte

func (l recordLib) SoundTable(id uint32) (*dat.SoundTable, ambient.Status) {
	b, ok := l[id]
	if !ok {
		return nil, ambient.NotFound
	}
	t, err := dat.DecodeSoundTable(id, b)
	if err != nil {
		return nil, ambient.NotFound
	}
	return t, ambient.Loaded
}

func (recordLib) Wave(uint32) (float64, bool) { return 1, true }

// engineAt is a gather by the engine itself (a fresh Engine, one
// ChangePosition, as `gather` runs it) at the centre of land cell (cx, cy)
// of block (bx, by), z from the terrain. It returns the soundCount of each
// STB that has sounds there and the STB that dominates (-1: none).
func engineAt(t *testing.T, r *dat.Region, portal, cell map[uint32][]byte, bx, by, cx, cy int) (map[int]float32, int) {
	t.Helper()
	land := recordLand(cell)
	lb := land.LandBlock(bx, by)
	x, y := float32(24*cx+12), float32(24*cy+12)
	z, err := world.TerrainZ(r, lb, x, y)
	if err != nil {
		t.Fatal(err)
	}
	e := ambient.New(r, land, recordLib(portal), ambient.DefaultConfig())
	e.ChangePosition(0, world.Position{ObjCellID: world.OutdoorCellID(bx, by, cx, cy), X: x, Y: y, Z: z}, false)
	counts := map[int]float32{}
	for _, s := range e.State().Sounds {
		if s.SoundCount > 0 {
			counts[s.STBIndex] = s.SoundCount
		}
	}
	return counts, dominantOf(counts)
}

// dominantOf is the contract's rule read off a gather: the largest
// soundCount, ties to the lower STB index.
func dominantOf(counts map[int]float32) int {
	best, k := float32(0), -1
	for i, c := range counts {
		if c > best || (c == best && i < k) {
			best, k = c, i
		}
	}
	return k
}

func decodeRegion(t *testing.T, portal map[uint32][]byte) *dat.Region {
	t.Helper()
	r, err := dat.DecodeRegion(dat.RegionID, portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func demoWorld(t *testing.T) (portal, cell map[uint32][]byte) {
	t.Helper()
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	return w.Portal, w.Cell
}

// written is a layer as Write left it on disk.
type written struct {
	idx   Index
	img   *image.NRGBA
	warns []string
}

func write(t *testing.T, portal source.Source, cell source.Lister) (written, error) {
	t.Helper()
	dir := t.TempDir()
	var w written
	_, err := Write(context.Background(), portal, cell, dir, Options{Warnf: func(f string, a ...any) {
		w.warns = append(w.warns, fmt.Sprintf(f, a...))
	}})
	if err != nil {
		return w, err
	}
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &w.idx); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, ImageFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != w.idx.Width || cfg.Height != w.idx.Height {
		t.Fatalf("image %d×%d, index says %d×%d", cfg.Width, cfg.Height, w.idx.Width, w.idx.Height)
	}
	f.Seek(0, 0)
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 8-bit RGBA (PNG colour type 6, depth 8) decodes as NRGBA.
	img, ok := m.(*image.NRGBA)
	if !ok {
		t.Fatalf("zones.png decodes as %T, want 8-bit RGBA", m)
	}
	w.img = img
	return w, nil
}

func write0(t *testing.T, portal, cell map[uint32][]byte) written {
	t.Helper()
	w, err := write(t, source.NewMemory(portal), source.NewMemory(cell))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// pixel is the image's pixel of land cell (cx, cy) of block (bx, by).
func (w written) pixel(bx, by, cx, cy int) [4]uint8 {
	west, south := int(w.idx.Bounds[0][1]/192), int(w.idx.Bounds[0][0]/192)
	col := 8*(bx-west) + cx
	row := w.idx.Height - 1 - (8*(by-south) + cy)
	c := w.img.NRGBAAt(col, row)
	return [4]uint8{c.R, c.G, c.B, c.A}
}

func colorOf(k int) [4]uint8 {
	if k < 0 {
		return [4]uint8{}
	}
	c := Color(k)
	return [4]uint8{c[0], c[1], c[2], 0xFF}
}

// checkAgainstEngine compares every land cell of the blocks in cell: its
// pixel is the colour of the STB the engine's own gather makes dominant
// there, or transparent; and the legend's counts are those pixels'.
func checkAgainstEngine(t *testing.T, portal, cell map[uint32][]byte, w written) {
	t.Helper()
	r := decodeRegion(t, portal)
	counts := map[int]int{}
	cells, silent, bad := 0, 0, 0
	for id := range cell {
		if dat.CellKind(id) != dat.KindLandBlock || recordLand(cell).LandBlock(world.BlockX(id), world.BlockY(id)) == nil {
			continue
		}
		bx, by := world.BlockX(id), world.BlockY(id)
		for cx := range 8 {
			for cy := range 8 {
				_, k := engineAt(t, r, portal, cell, bx, by, cx, cy)
				cells++
				if k < 0 {
					silent++
				} else {
					counts[k]++
				}
				if got, want := w.pixel(bx, by, cx, cy), colorOf(k); got != want {
					if bad++; bad <= 5 {
						t.Errorf("cell 0x%08X: pixel %v, the gather's dominant STB %d is %v", world.OutdoorCellID(bx, by, cx, cy), got, k, want)
					}
				}
			}
		}
	}
	if w.idx.Cells != cells || w.idx.Silent != silent {
		t.Errorf("index: cells %d silent %d, want %d and %d", w.idx.Cells, w.idx.Silent, cells, silent)
	}
	sum := w.idx.Silent
	for _, s := range w.idx.Sets {
		sum += s.Cells
		if s.Cells != counts[s.STBIndex] {
			t.Errorf("set %d: %d cells, the gather makes it dominant in %d", s.STBIndex, s.Cells, counts[s.STBIndex])
		}
		if s.Color != Hex(s.STBIndex) || s.Table != r.SoundInfo.STBDescs[s.STBIndex].STBID {
			t.Errorf("set %d: colour %s table %s", s.STBIndex, s.Color, s.Table)
		}
		delete(counts, s.STBIndex)
	}
	if len(counts) > 0 {
		t.Errorf("STBs dominant somewhere but not in the legend: %v", counts)
	}
	if sum != w.idx.Cells {
		t.Errorf("legend counts and silent add up to %d, cells present %d", sum, w.idx.Cells)
	}
}

// TestDemoEveryCellIsTheGathers: all 9216 land cells of the demo world.
func TestDemoEveryCellIsTheGathers(t *testing.T) {
	portal, cell := demoWorld(t)
	w := write0(t, portal, cell)
	if w.idx.Width != 96 || w.idx.Height != 96 || w.idx.Image != ImageFile {
		t.Errorf("size %d×%d image %q", w.idx.Width, w.idx.Height, w.idx.Image)
	}
	// Blocks 0xA4..0xAF × 0xAF..0xBA of 192 m.
	if want := [2][2]float64{{0xAF * 192, 0xA4 * 192}, {0xBB * 192, 0xB0 * 192}}; w.idx.Bounds != want {
		t.Errorf("bounds %v, want %v", w.idx.Bounds, want)
	}
	if len(w.warns) > 0 {
		t.Errorf("warnings: %v", w.warns)
	}
	checkAgainstEngine(t, portal, cell, w)
	// Every demo set dominates somewhere (the river only on its own cells).
	if len(w.idx.Sets) != 9 {
		t.Errorf("%d sets dominate, want the demo's 9", len(w.idx.Sets))
	}
}

// TestDemoLandmarks: at each outdoor landmark's cell centre, the pixel is
// the colour of the STB the gather there makes dominant, and that STB is
// named for the place.
func TestDemoLandmarks(t *testing.T) {
	portal, cell := demoWorld(t)
	w := write0(t, portal, cell)
	r := decodeRegion(t, portal)
	// The demo's own account (core/demo doc) of each place. The river is
	// a vertex or two wide: 12 m off its vertex, at the cell's centre, the
	// meadow of its banks outweighs it, and the gather says so.
	want := map[string]string{
		"meadow": "grassland", "forest": "forest", "river": "grassland", "coast": "sea",
		"snowfield": "snow and ice", "desert": "sand", "marsh": "marsh", "hills": "rock",
	}
	names := map[int]string{}
	for _, s := range w.idx.Sets {
		names[s.STBIndex] = s.Name
	}
	for _, lm := range demo.Landmarks {
		if !world.IsOutdoor(lm.ObjCellID) {
			continue
		}
		bx, by := world.BlockX(lm.ObjCellID), world.BlockY(lm.ObjCellID)
		cx, cy, _ := world.CellXY(lm.ObjCellID)
		counts, k := engineAt(t, r, portal, cell, bx, by, cx, cy)
		if k < 0 {
			t.Errorf("%s: the gather finds nothing", lm.Name)
			continue
		}
		if got := w.pixel(bx, by, cx, cy); got != colorOf(k) {
			t.Errorf("%s: pixel %v, dominant STB %d (counts %v) is %v", lm.Name, got, k, counts, colorOf(k))
		}
		if n, ok := want[lm.Name]; ok && names[k] != n {
			t.Errorf("%s: dominant set %d is named %q, want %q", lm.Name, k, names[k], n)
		}
	}
}

// TestSumsAreTheGathersSoundCounts: the layer's per-STB sums are, bit for
// bit, the soundCount the engine reports, on the demo and on a corner of
// the synthetic world (37 STBs, four ordinals a terrain, the world's edge
// at bx = 0 and by = 254, and a missing block).
func TestSumsAreTheGathersSoundCounts(t *testing.T) {
	demoPortal, demoCell := demoWorld(t)
	synthPortal, err := synthworld.Portal()
	if err != nil {
		t.Fatal(err)
	}
	synthCell := map[uint32][]byte{}
	for bx := range 4 {
		for by := 251; by < 255; by++ {
			if bx == 2 && by == 252 {
				continue // a hole
			}
			synthCell[world.LandBlockID(bx, by)] = synthworld.LandBlock(bx, by).Encode()
		}
	}
	for _, c := range []struct {
		name         string
		portal, cell map[uint32][]byte
		blocks       [][2]int
	}{
		{"demo", demoPortal, demoCell, [][2]int{{0xA9, 0xB5}, {0xA4, 0xBA}, {0xAF, 0xAF}, {0xAA, 0xB4}}},
		{"synthetic", synthPortal, synthCell, [][2]int{{0, 254}, {1, 253}, {2, 251}, {3, 252}, {0, 251}}},
	} {
		r := decodeRegion(t, c.portal)
		land := recordLand(c.cell)
		l := NewLayer(r, func(k int) bool {
			_, st := recordLib(c.portal).SoundTable(uint32(r.SoundInfo.STBDescs[k].STBID))
			return st == ambient.Loaded
		})
		for _, b := range c.blocks {
			var ring Ring
			for dx := range 3 {
				for dy := range 3 {
					if lb := land.LandBlock(b[0]+dx-1, b[1]+dy-1); lb != nil && world.ValidBlock(b[0]+dx-1, b[1]+dy-1) {
						ring[dx][dy] = l.Prepare(lb)
					}
				}
			}
			for cx := range 8 {
				for cy := range 8 {
					want, wantK := engineAt(t, r, c.portal, c.cell, b[0], b[1], cx, cy)
					if err := l.gather(&ring, cx, cy); err != nil {
						t.Fatal(err)
					}
					got := map[int]float32{}
					for _, k := range l.touched {
						if l.audible[k] {
							got[int(k)] = l.sums[k]
						}
					}
					if !maps.Equal(got, want) {
						t.Errorf("%s 0x%08X: sums %v, the gather's soundCounts %v", c.name, world.OutdoorCellID(b[0], b[1], cx, cy), got, want)
					}
					k, ok, _ := l.Dominant(&ring, cx, cy)
					if !ok {
						k = -1
					}
					if k != wantK {
						t.Errorf("%s 0x%08X: dominant %d, want %d", c.name, world.OutdoorCellID(b[0], b[1], cx, cy), k, wantK)
					}
				}
			}
		}
	}
}

// TestSyntheticCornerIsTheGathers: the whole pipeline at the world's
// north-west corner of the synthetic world, a hole in it.
func TestSyntheticCornerIsTheGathers(t *testing.T) {
	portal, err := synthworld.Portal()
	if err != nil {
		t.Fatal(err)
	}
	cell := map[uint32][]byte{}
	for bx := range 4 {
		for by := 250; by < 255; by++ {
			if bx != 1 || by != 252 {
				cell[world.LandBlockID(bx, by)] = synthworld.LandBlock(bx, by).Encode()
			}
		}
	}
	w := write0(t, portal, cell)
	if w.idx.Width != 32 || w.idx.Height != 40 || w.idx.Cells != 19*64 {
		t.Errorf("size %d×%d cells %d", w.idx.Width, w.idx.Height, w.idx.Cells)
	}
	// The hole is transparent and not counted.
	for cx := range 8 {
		for cy := range 8 {
			if p := w.pixel(1, 252, cx, cy); p[3] != 0 {
				t.Fatalf("missing block's cell (%d, %d) is %v", cx, cy, p)
			}
		}
	}
	checkAgainstEngine(t, portal, cell, w)
}

// TestOrientation: two landblocks far apart, one all forest (south-west),
// one all river (north-east): row 0 is the north, column 0 the west, and
// the rectangle between them is transparent and not counted.
func TestOrientation(t *testing.T) {
	portal, cell := demoWorld(t)
	r := decodeRegion(t, portal)
	word := func(terrain uint32) uint16 { return uint16(terrain << 2) }
	sw, ne := flat(20, 30, word(0x15)), flat(21, 32, word(0x10)) // ForestFloor, WaterRunning
	cell = map[uint32][]byte{uint32(sw.ID): sw.Encode(), uint32(ne.ID): ne.Encode()}
	w := write0(t, portal, cell)
	if w.idx.Width != 16 || w.idx.Height != 24 || w.idx.Cells != 128 || w.idx.Silent != 0 {
		t.Fatalf("size %d×%d cells %d silent %d", w.idx.Width, w.idx.Height, w.idx.Cells, w.idx.Silent)
	}
	if want := [2][2]float64{{30 * 192, 20 * 192}, {33 * 192, 22 * 192}}; w.idx.Bounds != want {
		t.Errorf("bounds %v, want %v", w.idx.Bounds, want)
	}
	forest, river := stbOf(t, r, 0x15), stbOf(t, r, 0x10)
	for y := range 24 {
		for x := range 16 {
			c := w.img.NRGBAAt(x, y)
			got := [4]uint8{c.R, c.G, c.B, c.A}
			want := [4]uint8{}
			switch {
			case y >= 16 && x < 8:
				want = colorOf(forest)
			case y < 8 && x >= 8:
				want = colorOf(river)
			}
			if got != want {
				t.Fatalf("pixel (%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	if len(w.idx.Sets) != 2 || w.idx.Sets[0].Cells != 64 || w.idx.Sets[1].Cells != 64 {
		t.Errorf("sets %+v", w.idx.Sets)
	}
}

func flat(bx, by int, w uint16) *dat.LandBlock {
	lb := &dat.LandBlock{ID: dat.DID(world.LandBlockID(bx, by))}
	for i := range lb.Terrain {
		lb.Terrain[i] = w
		lb.Height[i] = 40
	}
	return lb
}

func stbOf(t *testing.T, r *dat.Region, terrain uint32) int {
	t.Helper()
	k, ok := r.STBDesc(terrain, 0)
	if !ok {
		t.Fatalf("terrain 0x%X names no STB", terrain)
	}
	return k
}

// TestSilentIsTransparent: a 3×3 patch of DesolateLands (no scene type) in
// the demo: its middle block lies over 120 m from any sounding cell, so its
// 64 cells are transparent and counted as silent; everything else is still
// the gather's.
func TestSilentIsTransparent(t *testing.T) {
	portal, cell := demoWorld(t)
	cell = maps.Clone(cell)
	for bx := 0xA8; bx <= 0xAA; bx++ {
		for by := 0xB0; by <= 0xB2; by++ {
			lb := flat(bx, by, 0x1F<<2)
			cell[uint32(lb.ID)] = lb.Encode()
		}
	}
	w := write0(t, portal, cell)
	for cx := range 8 {
		for cy := range 8 {
			if p := w.pixel(0xA9, 0xB1, cx, cy); p != [4]uint8{} {
				t.Fatalf("silent cell (%d, %d) is %v, want transparent", cx, cy, p)
			}
		}
	}
	if w.idx.Silent < 64 {
		t.Errorf("silent %d, want at least the 64 of the middle block", w.idx.Silent)
	}
	checkAgainstEngine(t, portal, cell, w)
}

// TestMissingTableAndBadBlock: a SoundTable that is not there silences its
// STB's cells, as in a gather (the river's go to the banks' sets); a
// landblock that does not decode is left out, as a gather skips it. Both
// are warned about, and the rest is the gather's.
func TestMissingTableAndBadBlock(t *testing.T) {
	portal, cell := demoWorld(t)
	portal, cell = maps.Clone(portal), maps.Clone(cell)
	r := decodeRegion(t, portal)
	river := stbOf(t, r, 0x10)
	delete(portal, uint32(r.SoundInfo.STBDescs[river].STBID))
	bad := world.LandBlockID(0xAB, 0xB6)
	cell[bad] = cell[bad][:100]
	w := write0(t, portal, cell)
	joined := strings.Join(w.warns, "\n")
	if !strings.Contains(joined, r.SoundInfo.STBDescs[river].STBID.String()) || !strings.Contains(joined, fmt.Sprintf("0x%08X", bad)) {
		t.Errorf("warnings do not name the table and the block: %q", joined)
	}
	for _, s := range w.idx.Sets {
		if s.STBIndex == river {
			t.Errorf("the river's set, whose table is missing, dominates %d cells", s.Cells)
		}
	}
	if w.idx.Cells != 143*64 {
		t.Errorf("cells %d, want %d (one block left out)", w.idx.Cells, 143*64)
	}
	if p := w.pixel(0xAB, 0xB6, 3, 3); p != [4]uint8{} {
		t.Errorf("bad block's pixel %v, want transparent", p)
	}
	delete(cell, bad) // the engine's land skips it too; compare the rest
	checkAgainstEngine(t, portal, cell, w)
}

// failing fails Get for one id with a network-like error.
type failing struct {
	source.Lister
	id uint32
}

func (f failing) Get(ctx context.Context, id uint32) ([]byte, error) {
	if id == f.id {
		return nil, errors.New("connection reset")
	}
	return f.Lister.Get(ctx, id)
}

func TestErrors(t *testing.T) {
	portal, cell := demoWorld(t)
	p, c := source.NewMemory(portal), source.NewMemory(cell)
	lb := world.LandBlockID(0xA9, 0xB4)
	table := uint32(0x20000102)
	noLand := source.NewMemory(map[uint32][]byte{dat.IterationID: cell[dat.IterationID]})
	for _, tc := range []struct {
		name   string
		portal source.Source
		cell   source.Lister
		want   string
	}{
		{"landblock fetch fails", p, failing{c, lb}, fmt.Sprintf("landblock 0x%08X: connection reset", lb)},
		{"table fetch fails", failing{p, table}, c, fmt.Sprintf("SoundTable 0x%08X of STB 2: connection reset", table)},
		{"no region", source.NewMemory(nil), c, "region 0x13000000"},
		{"no landblocks", p, noLand, "holds no landblocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := write(t, tc.portal, tc.cell)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCancel: a cancelled context stops the layer with its error and
// leaves no file behind.
func TestCancel(t *testing.T) {
	portal, cell := demoWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Write(ctx, source.NewMemory(portal), source.NewMemory(cell), dir, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files", len(ents))
	}
}

// TestPaletteIsFarthestPoint regenerates the palette by the method Color
// documents, and checks its colours are distinct and within the bounds.
func TestPaletteIsFarthestPoint(t *testing.T) {
	got := farthestPalette(len(palette))
	for k := range palette {
		if got[k] != Color(k) {
			t.Fatalf("palette[%d] = %s, farthest-point sampling gives #%02x%02x%02x", k, palette[k], got[k][0], got[k][1], got[k][2])
		}
	}
	seen := map[string]int{}
	for k := range 200 {
		h := Hex(k)
		if j, dup := seen[h]; dup && k < len(palette) {
			t.Errorf("STBs %d and %d share %s", j, k, h)
		}
		seen[h] = k
		if len(h) != 7 || h[0] != '#' || strings.ToLower(h) != h {
			t.Errorf("Hex(%d) = %q", k, h)
		}
	}
	if Hex(0) != "#df5b57" || Hex(64) == Hex(63) {
		t.Errorf("Hex(0) %s, Hex(63) %s, Hex(64) %s", Hex(0), Hex(63), Hex(64))
	}
}

// farthestPalette is Color's method: candidates on a grid of OKLab with
// lightness 0.52–0.84 (steps of 0.04) and chroma 0.07–0.17, in gamut; the
// first the nearest to a brick red OKLCH(0.65, 0.17, 25°), each next the
// candidate farthest from all chosen (first such in grid order).
func farthestPalette(n int) [][3]uint8 {
	type cand struct {
		L, a, b float64
		rgb     [3]uint8
	}
	var cands []cand
	for Li := 52; Li <= 84; Li += 4 {
		for ai := -30; ai <= 30; ai++ {
			for bi := -30; bi <= 30; bi++ {
				L, a, b := float64(Li)/100, float64(ai)/100, float64(bi)/100
				if c := math.Hypot(a, b); c < 0.07 || c > 0.17 {
					continue
				}
				if rgb, ok := oklab(L, a, b); ok {
					cands = append(cands, cand{L, a, b, rgb})
				}
			}
		}
	}
	d2 := func(p, q cand) float64 {
		return float64((p.L-q.L)*(p.L-q.L)) + float64((p.a-q.a)*(p.a-q.a)) + float64((p.b-q.b)*(p.b-q.b))
	}
	h := 25 * math.Pi / 180
	seed := cand{L: 0.65, a: 0.17 * math.Cos(h), b: 0.17 * math.Sin(h)}
	pick, best := 0, math.Inf(1)
	for i, c := range cands {
		if d := d2(c, seed); d < best {
			best, pick = d, i
		}
	}
	dist := make([]float64, len(cands))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	var out [][3]uint8
	for len(out) < n {
		p := cands[pick]
		out = append(out, p.rgb)
		far := -1.0
		for i, c := range cands {
			dist[i] = math.Min(dist[i], d2(c, p))
			if dist[i] > far {
				far, pick = dist[i], i
			}
		}
	}
	return out
}
