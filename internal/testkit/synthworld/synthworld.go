// Package synthworld writes a synthetic Dereth of every one of the 255×255
// landblocks, for benchmarks of whole-world tools (the zones layer) where the
// retail dats are not at hand. Its region is shaped like EoR's: 37 sound
// sets (their sounds and SoundTables the demo world's), 32 terrain types
// of four scene ordinals each, some leading to no set; its land has zones
// a few landblocks across, ragged edges, heights over the whole height table
// and every scene ordinal in use. Everything depends only on the block
// coordinates: the same bytes on every run.
package synthworld

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/world"
	"acambient/datfetch/datfile"
)

// STBs is the number of sound sets of the region, EoR's count (docs/dat-format.md §3.6).
const STBs = 37

// Ordinals is the scene ordinals of each terrain type.
const Ordinals = 4

// Portal returns the portal records: the region and the demo's SoundTables
// (no waves: what a gather reads).
func Portal() (map[uint32][]byte, error) {
	w, err := demo.Build()
	if err != nil {
		return nil, err
	}
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		return nil, err
	}
	base := r.SoundInfo.STBDescs
	out := map[uint32][]byte{}
	for _, d := range base {
		out[uint32(d.STBID)] = w.Portal[uint32(d.STBID)]
	}
	r.SoundInfo = &dat.SoundDesc{}
	r.SceneInfo = &dat.SceneDesc{}
	for k := range STBs {
		r.SoundInfo.STBDescs = append(r.SoundInfo.STBDescs, base[k%len(base)])
		r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, dat.SceneType{STBIndex: uint32(k), Scenes: []dat.DID{}})
	}
	silent := uint32(len(r.SceneInfo.SceneTypes))
	r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, dat.SceneType{STBIndex: dat.None, Scenes: []dat.DID{}})
	for t := range r.TerrainInfo.TerrainTypes {
		scenes := make([]uint32, Ordinals)
		for s := range scenes {
			switch {
			case t == 0x1F: // DesolateLands: no scene at all
				scenes[s] = dat.None
			case s == Ordinals-1 && t%3 == 0: // some terrains have a silent ordinal
				scenes[s] = silent
			default:
				scenes[s] = uint32((t*5 + s*11) % STBs)
			}
		}
		r.TerrainInfo.TerrainTypes[t].SceneTypes = scenes
	}
	out[dat.RegionID] = r.Encode()
	out[dat.IterationID] = w.Portal[dat.IterationID]
	return out, nil
}

// LandBlock is landblock (bx, by) of the synthetic world. Vertex values are
// functions of the global vertex (8·bx + x, 8·by + y), so blocks agree on
// their shared edges.
func LandBlock(bx, by int) *dat.LandBlock {
	lb := &dat.LandBlock{ID: dat.DID(world.LandBlockID(bx, by))}
	for x := range 9 {
		for y := range 9 {
			gx, gy := float64(8*bx+x), float64(8*by+y)
			// Terrain zones a few landblocks across, their edges frayed by
			// a finer octave; a second broad field picks which half of the
			// 32 types a part of the world uses.
			n := noise(gx/40, gy/40, 1) + 0.12*noise(gx/4, gy/4, 2)
			half := 0
			if noise(gx/160, gy/160, 6) > 0 {
				half = 16
			}
			tt := uint16((int(math.Floor(8*(n+1.12)))+half)%32 + 32)
			scene := uint16(float64(Ordinals) * frac(0.5*noise(gx/56, gy/56, 3)+0.5))
			h := 255 * clamp01(0.5+0.5*noise(gx/40, gy/40, 4)+0.15*noise(gx/6, gy/6, 5))
			lb.Terrain[9*x+y] = uint16(tt&0x1F)<<2 | scene<<11
			lb.Height[9*x+y] = uint8(h)
		}
	}
	return lb
}

// Write writes client_portal.dat and client_cell_1.dat of the whole world
// into dir.
func Write(dir string) error {
	portal, err := Portal()
	if err != nil {
		return err
	}
	cell := make(map[uint32][]byte, world.BlocksPerSide*world.BlocksPerSide+1)
	for bx := range world.BlocksPerSide {
		for by := range world.BlocksPerSide {
			cell[world.LandBlockID(bx, by)] = LandBlock(bx, by).Encode()
		}
	}
	cell[dat.IterationID] = portal[dat.IterationID]
	for _, f := range []struct {
		name string
		set  datfile.DataSet
		recs map[uint32][]byte
	}{{"client_portal.dat", datfile.Portal, portal}, {"client_cell_1.dat", datfile.Cell, cell}} {
		out, err := os.Create(filepath.Join(dir, f.name))
		if err != nil {
			return err
		}
		if err := datfile.WriteDat(out, f.set, f.recs); err != nil {
			out.Close()
			return fmt.Errorf("synthworld: %s: %w", f.name, err)
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

// noise is smooth value noise in [−1, 1], seeded.
func noise(x, y float64, seed uint32) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := smooth(x-x0), smooth(y-y0)
	ix, iy := int32(x0), int32(y0)
	v := func(dx, dy int32) float64 { return lattice(ix+dx, iy+dy, seed) }
	top := v(0, 1) + fx*(v(1, 1)-v(0, 1))
	bottom := v(0, 0) + fx*(v(1, 0)-v(0, 0))
	return bottom + fy*(top-bottom)
}

func lattice(x, y int32, seed uint32) float64 {
	h := uint32(x)*0x8DA6B343 ^ uint32(y)*0xD8163841 ^ seed*0xCB1AB31F
	h ^= h >> 13
	h *= 0x5BD1E995
	h ^= h >> 15
	return float64(h)/float64(math.MaxUint32)*2 - 1
}

func smooth(t float64) float64 { return t * t * (3 - 2*t) }
func frac(v float64) float64   { return v - math.Floor(v) }
func clamp01(v float64) float64 {
	return math.Max(0, math.Min(1, v))
}
