package world

import (
	"fmt"
	"math"

	"acambient/core/dat"
)

// HeightTable is the land height table as retail installs it from the region:
// LandDefs::set_height_table (0x005A99E0) copies entries while each lies in
// [0, 1000 − 200] and stops at the first that does not, leaving the rest of
// the (zero-initialised) table untouched.
func HeightTable(r *dat.Region) (t [256]float32) {
	if r == nil {
		return t
	}
	for i := range t {
		z := r.HeightZ(uint8(i))
		if !(z >= 0 && z <= 1000-200) {
			break
		}
		t[i] = z
	}
	return t
}

// SplitSWtoNE reports how retail cuts land cell (gx, gy) into two triangles,
// gx = 8·bx + cx and gy = 8·by + cy being global cell coordinates.
// CLandBlockStruct::ConstructPolygons (0x00531D10, acclient.c:354000; the
// same formula as ACE's LandblockStruct) hashes the cell with 32-bit wrapping
// arithmetic and cuts along the SW–NE diagonal when the hash, as unsigned and
// scaled by 2.3283064e-10 in double, is ≥ 0.5; otherwise along SE–NW.
func SplitSWtoNE(gx, gy int) bool {
	x, y := int32(gx), int32(gy)
	h := uint32(y*(214614067*x+1813693831) - 1109124029*x - 1369149221)
	return float64(h)*2.3283064e-10 >= 0.5
}

// TerrainZ is the terrain height at landblock-local (x, y) of lb, on the
// plane of the triangle that contains the point, using retail's per-cell
// split direction (SplitSWtoNE). Points on the block's north or east edge
// belong to the last cell. x and y must lie in [0, 192].
func TerrainZ(r *dat.Region, lb *dat.LandBlock, x, y float32) (float32, error) {
	table := HeightTable(r)
	return TerrainZIn(&table, lb, x, y)
}

// TerrainZIn is TerrainZ with the region's HeightTable already made, for
// callers that ask for many points.
func TerrainZIn(table *[256]float32, lb *dat.LandBlock, x, y float32) (float32, error) {
	if lb == nil {
		return 0, fmt.Errorf("world: terrain height: no landblock")
	}
	if !(x >= 0 && x <= BlockLength && y >= 0 && y <= BlockLength) {
		return 0, fmt.Errorf("world: landblock 0x%08X: terrain height at (%g, %g): outside [0, 192]",
			uint32(lb.ID), x, y)
	}
	cx, cy := clampCell(int(x/CellLength)), clampCell(int(y/CellLength))
	u := float64(x)/CellLength - float64(cx) // 0..1 east within the cell
	v := float64(y)/CellLength - float64(cy) // 0..1 north within the cell
	z := func(dx, dy int) float64 { return float64(table[lb.HeightAt(cx+dx, cy+dy)]) }
	sw, se, nw, ne := z(0, 0), z(1, 0), z(0, 1), z(1, 1)

	id := uint32(lb.ID)
	gx, gy := CellsPerBlock*BlockX(id)+cx, CellsPerBlock*BlockY(id)+cy
	var h float64
	if SplitSWtoNE(gx, gy) {
		// Triangles (SW, SE, NE) and (SW, NE, NW), diagonal u = v.
		if u >= v {
			h = sw + u*(se-sw) + v*(ne-se)
		} else {
			h = sw + v*(nw-sw) + u*(ne-nw)
		}
	} else {
		// Triangles (SW, SE, NW) and (NE, NW, SE), diagonal u + v = 1.
		if u+v <= 1 {
			h = sw + u*(se-sw) + v*(nw-sw)
		} else {
			h = ne + (1-u)*(nw-ne) + (1-v)*(se-ne)
		}
	}
	if math.IsNaN(h) {
		return 0, fmt.Errorf("world: landblock 0x%08X: terrain height at (%g, %g) is not a number", id, x, y)
	}
	return float32(h), nil
}
