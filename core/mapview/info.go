package mapview

import (
	"acambient/core/dat"
	"acambient/core/demo/spots"
	"acambient/core/world"
)

// Info is what a page needs once from a region: the terrain legend, the
// landblocks that can hold land, and the demo's landmarks when the region
// is the demo's.
type Info struct {
	Terrains  []Terrain  `json:"terrains"`
	Landmarks []Landmark `json:"landmarks"`
	Bounds    Bounds     `json:"bounds"`
	Demo      bool       `json:"demo"`
	// Region is the region's own name ("Dereth" in retail's portal dat,
	// docs/dat-format.md §3.1), by which a page names the world it plays.
	Region string `json:"region"`
}

// Landmark is a named demo spot with its position in every form.
type Landmark struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Where       world.Where `json:"where"`
}

// Bounds is the range of landblocks that can hold land, inclusive: the
// demo's 12×12 for the demo world, the whole world otherwise. A map asks
// for no tile outside it.
type Bounds struct {
	BX0 int `json:"bx0"`
	BY0 int `json:"by0"`
	BX1 int `json:"bx1"`
	BY1 int `json:"by1"`
}

// InfoOf describes region r. Landmarks are listed only for the demo world
// (their landblocks would be arbitrary spots in retail's Dereth).
func InfoOf(r *dat.Region) Info {
	in := Info{Terrains: Terrains(r), Landmarks: []Landmark{}, Region: regionName(r),
		Bounds: Bounds{0, 0, world.BlocksPerSide - 1, world.BlocksPerSide - 1}}
	if IsDemo(r) {
		in.Demo = true
		in.Bounds = Bounds{spots.BlockX0, spots.BlockY0, spots.BlockX0 + spots.BlocksX - 1, spots.BlockY0 + spots.BlocksY - 1}
		for _, l := range spots.Landmarks {
			p := world.Position{ObjCellID: l.ObjCellID, X: l.X, Y: l.Y, Z: l.Z}
			in.Landmarks = append(in.Landmarks, Landmark{Name: l.Name, Description: l.Description, Where: world.WhereOf(p)})
		}
	}
	return in
}

// IsDemo reports whether r is the built-in demo world's region.
func IsDemo(r *dat.Region) bool { return r != nil && r.RegionName == spots.RegionName }

func regionName(r *dat.Region) string {
	if r == nil {
		return ""
	}
	return r.RegionName
}
