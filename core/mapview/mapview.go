// Package mapview turns region and landblock records into what the page's
// map draws: a colour per land cell from the region's terrain colours,
// shaded by the terrain's slope (Tile, and Tiles, which fetches and keeps
// them), a legend of the terrain types and the demo's landmarks (Info). It
// knows nothing of audio or of the browser, so the map's numbers are tested
// natively.
package mapview

import (
	"fmt"
	"math"

	"acambient/core/dat"
	"acambient/core/world"
)

// Terrain is one of the region's terrain types (docs/dat-format.md §3.8).
type Terrain struct {
	Index int    `json:"index" js:"index"`
	Name  string `json:"name" js:"name"`
	Color int    `json:"color" js:"color"` // 0xRRGGBB, the region's TerrainColor without alpha
}

// Tile is one landblock as the map draws it. Cells are x-major, as retail
// walks them (index 8·cx + cy, cx east and cy north): the cell takes the
// terrain of its SW vertex, the vertex whose word names its ambient set
// (docs/dat-format.md §6.3).
type Tile struct {
	ID     uint32    `json:"id" js:"id"`
	BX     int       `json:"bx" js:"bx"`
	BY     int       `json:"by" js:"by"`
	Colors []int     `json:"colors" js:"colors"` // 64 shaded 0xRRGGBB
	Types  []int     `json:"types" js:"types"`   // 64 terrain type indices
	Z      []float64 `json:"z" js:"z"`           // 81 vertex heights, x-major (9·x + y)
}

// Terrains lists the region's terrain types in index order.
func Terrains(r *dat.Region) []Terrain {
	out := []Terrain{}
	if r == nil {
		return out
	}
	for i, t := range r.TerrainInfo.TerrainTypes {
		out = append(out, Terrain{Index: i, Name: t.TerrainName, Color: int(t.TerrainColor & 0xFFFFFF)})
	}
	return out
}

// shadeStrength scales how much a slope lightens or darkens a cell: a 1:1
// slope facing the light (from the north-west) brightens by about a third.
const shadeStrength = 0.5

// NewTile colours landblock lb of region r. A terrain type the region does
// not list is drawn mid grey.
func NewTile(r *dat.Region, lb *dat.LandBlock) (Tile, error) {
	if r == nil || lb == nil {
		return Tile{}, fmt.Errorf("mapview: tile needs a region and a landblock")
	}
	id := uint32(lb.ID)
	t := Tile{ID: id, BX: world.BlockX(id), BY: world.BlockY(id),
		Colors: make([]int, 64), Types: make([]int, 64), Z: make([]float64, 81)}
	heights := world.HeightTable(r)
	for v := range t.Z {
		t.Z[v] = float64(heights[lb.Height[v]])
	}
	types := r.TerrainInfo.TerrainTypes
	for cx := 0; cx < world.CellsPerBlock; cx++ {
		for cy := 0; cy < world.CellsPerBlock; cy++ {
			w := lb.Word(cx, cy)
			ty := int(w.Type())
			base := uint32(0x808080)
			if ty < len(types) {
				base = types[ty].TerrainColor & 0xFFFFFF
			}
			z := func(dx, dy int) float64 { return t.Z[9*(cx+dx)+cy+dy] }
			// Slope over the cell, metres per metre, east and north.
			sx := (z(1, 0) + z(1, 1) - z(0, 0) - z(0, 1)) / (2 * world.CellLength)
			sy := (z(0, 1) + z(1, 1) - z(0, 0) - z(1, 0)) / (2 * world.CellLength)
			i := 8*cx + cy
			t.Types[i] = ty
			t.Colors[i] = int(Shade(base, sx, sy))
		}
	}
	return t, nil
}

// Shade lights colour rgb (0xRRGGBB) on a surface rising sx metres per metre
// eastward and sy northward, with the light from the north-west as maps
// draw it: flat ground keeps its colour exactly, a slope facing north-west
// is lighter and one facing south-east darker.
func Shade(rgb uint32, sx, sy float64) uint32 {
	// The slope's component towards the light, per unit of run: a surface
	// rising to the south-east faces north-west.
	toward := (sx - sy) / math.Sqrt2
	f := 1 + shadeStrength*math.Tanh(toward)
	ch := func(shift uint) uint32 {
		c := float64((rgb >> shift) & 0xFF)
		if f > 1 {
			c += (255 - c) * (f - 1) // lighten towards white
		} else {
			c *= f
		}
		return uint32(math.Round(math.Max(0, math.Min(255, c))))
	}
	return ch(16)<<16 | ch(8)<<8 | ch(0)
}
