package mapview

import (
	"testing"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/world"
)

func TestShade(t *testing.T) {
	for _, c := range []struct {
		name   string
		rgb    uint32
		sx, sy float64
		want   uint32
	}{
		{"flat keeps its colour", 0x4E9A2E, 0, 0, 0x4E9A2E},
		// Rising east and falling north by 1 m/m: faces the NW light.
		// toward = 2/√2 = 1.41421, tanh = 0.88838, f = 1.44419: each channel
		// moves 44.419 % of the way to 255: 0x40 → 64+191·.44419 = 148.84 → 149.
		{"facing the light lightens", 0x404040, 1, -1, 0x959595},
		// The opposite slope: f = 0.55581, 0x80 = 128 → 71.14 → 71 = 0x47.
		{"facing away darkens", 0x808080, -1, 1, 0x474747},
		// Rising north-east: across the light, no change.
		{"across the light", 0x123456, 1, 1, 0x123456},
	} {
		if got := Shade(c.rgb, c.sx, c.sy); got != c.want {
			t.Errorf("%s: Shade(%06X, %v, %v) = %06X, want %06X", c.name, c.rgb, c.sx, c.sy, got, c.want)
		}
	}
}

// The demo's river landmark stands in the river; its block's cells take the
// region's terrain colours through their SW vertex words.
func TestTileOfTheDemoRiver(t *testing.T) {
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	var river demo.Landmark
	for _, l := range demo.Landmarks {
		if l.Name == "river" {
			river = l
		}
	}
	id := river.ObjCellID | 0xFFFF
	lb, err := dat.DecodeLandBlock(id, w.Cell[id])
	if err != nil {
		t.Fatal(err)
	}
	tile, err := NewTile(r, lb)
	if err != nil {
		t.Fatal(err)
	}
	if tile.BX != 0xA9 || tile.BY != 0xB5 || len(tile.Colors) != 64 || len(tile.Types) != 64 || len(tile.Z) != 81 {
		t.Fatalf("tile %02X,%02X with %d colours, %d types, %d heights", tile.BX, tile.BY, len(tile.Colors), len(tile.Types), len(tile.Z))
	}
	cx, cy, _ := world.CellXY(river.ObjCellID)
	i := 8*cx + cy
	ty := int(lb.Word(cx, cy).Type())
	if tile.Types[i] != ty {
		t.Errorf("cell (%d,%d) type %d, want the SW word's %d", cx, cy, tile.Types[i], ty)
	}
	name := r.TerrainInfo.TerrainTypes[ty].TerrainName
	if name == "" {
		t.Errorf("terrain type %d has no name", ty)
	}
	// Every cell's colour is its terrain colour shaded by its own slope.
	for cx := 0; cx < 8; cx++ {
		for cy := 0; cy < 8; cy++ {
			i := 8*cx + cy
			z := func(dx, dy int) float64 { return tile.Z[9*(cx+dx)+cy+dy] }
			sx := (z(1, 0) + z(1, 1) - z(0, 0) - z(0, 1)) / 48
			sy := (z(0, 1) + z(1, 1) - z(0, 0) - z(1, 0)) / 48
			base := r.TerrainInfo.TerrainTypes[tile.Types[i]].TerrainColor & 0xFFFFFF
			if want := int(Shade(base, sx, sy)); tile.Colors[i] != want {
				t.Fatalf("cell (%d,%d) colour %06X, want %06X", cx, cy, tile.Colors[i], want)
			}
		}
	}
	// The landmark's own height is its SW vertex's.
	if got := tile.Z[9*cx+cy]; float32(got) != river.Z {
		t.Errorf("vertex height %v, landmark z %v", got, river.Z)
	}
	if n := len(Terrains(r)); n != len(r.TerrainInfo.TerrainTypes) || n == 0 {
		t.Errorf("%d terrains listed", n)
	}
}
