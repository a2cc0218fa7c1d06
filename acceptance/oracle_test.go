package acceptance

import (
	"math"
)

// An independent reading of the rebuild (docs/retail.md §R3,
// docs/retail.md §A4, docs/dat-format.md §3.11/§6/§8), used to derive
// the expected gather output. Computed in float64; compared with ±1e-4
// relative tolerance to absorb the engine's float32 arithmetic.

type expDir struct {
	dir      int
	min, max float64
}

type expSound struct {
	stbIndex, soundIndex int
	stbID                uint32
	sType                uint32
	continuous           bool
	volume, baseChance   float64
	minRate, maxRate     float64
	count                float64
	dirs                 []expDir
}

type expGather struct {
	total  float64
	cells  int
	sounds []*expSound
}

// Constants (docs/retail.md §R1).
const (
	minDistSq = 400.0
	maxDistSq = 14400.0
)

// calcWeight: 0 if d² > 14400; 1 if d² < 400; else 400/d² (docs/retail.md §A4.2, docs/retail.md §R3).
func calcWeight(d2 float64) float64 {
	if d2 > maxDistSq {
		return 0
	}
	if d2 < minDistSq {
		return 1
	}
	return minDistSq / d2
}

// calcDir (docs/retail.md §R3): x, y only. 0 = here/omni; N=1 S=2 E=3 W=4 NW=5 SW=6 NE=7 SE=8.
func calcDir(x, y float64) int {
	if x*x+y*y < minDistSq*0.5 {
		return 0
	}
	ax, ay := math.Abs(x), math.Abs(y)
	if ax < 0.0002 || ay/ax > 2 {
		if y >= 0 {
			return 1
		}
		return 2
	}
	if ay < 0.0002 || ax/ay > 2 {
		if x < 0 {
			return 4
		}
		return 3
	}
	switch {
	case x < 0 && y >= 0:
		return 5
	case x < 0:
		return 6
	case y >= 0:
		return 7
	default:
		return 8
	}
}

// omniOrder is the AddDir call order of IntermitSound::AddTo for dir 0.
var omniOrder = []int{1, 2, 3, 4, 5, 7, 6, 8}

// addDir appends a new direction band or widens an existing one (AddDir).
func (s *expSound) addDir(d int, lo, hi float64) {
	for i := range s.dirs {
		if s.dirs[i].dir == d {
			s.dirs[i].min = math.Min(s.dirs[i].min, lo)
			s.dirs[i].max = math.Max(s.dirs[i].max, hi)
			return
		}
	}
	s.dirs = append(s.dirs, expDir{d, lo, hi})
}

// options of the oracle, to show which reading a disagreement comes from.
type oracleOpts struct {
	strictMax bool // use d² < 14400 (the first reading, docs/retail.md §R8.3) instead of docs/retail.md §R8's ≤
}

// resolveSTB follows the chain of docs/dat-format.md §3.11 and CRegionDesc::GetSTBDesc:
// terrain type → scene ordinal → scene type → stb index → desc, which only
// counts when its SoundTable exists in the portal. Returns -1 for "none".
func resolveSTB(w uint16) int {
	reg := fixtureRegion()
	t := int(w>>2) & 0x1F
	s := int(w >> 11)
	tts := reg.TerrainInfo.TerrainTypes
	if t >= len(tts) || s >= len(tts[t].SceneTypes) {
		return -1
	}
	si := tts[t].SceneTypes[s]
	if si == 0xFFFFFFFF || int(si) >= len(reg.SceneInfo.SceneTypes) {
		return -1
	}
	stb := reg.SceneInfo.SceneTypes[si].STBIndex
	if stb == 0xFFFFFFFF || int(stb) >= len(reg.SoundInfo.STBDescs) {
		return -1
	}
	if _, ok := tableChildren[uint32(reg.SoundInfo.STBDescs[stb].STBID)]; !ok {
		return -1 // InitSoundTable fails: GetSTBDesc returns NULL, AddSound never runs
	}
	return int(stb)
}

// oracleGather is one fresh rebuild at the player (block pbx,pby; local px,py,pz).
func oracleGather(pbx, pby int, px, py, pz float64, o oracleOpts) *expGather {
	reg := fixtureRegion()
	blocks := fixtureBlocks()
	ht := heightTable()
	g := &expGather{}
	find := func(stb, k int) *expSound {
		for _, s := range g.sounds {
			if s.stbIndex == stb && s.soundIndex == k {
				return s
			}
		}
		d := reg.SoundInfo.STBDescs[stb]
		a := d.AmbientSounds[k]
		s := &expSound{stbIndex: stb, soundIndex: k, stbID: uint32(d.STBID), sType: a.SType,
			continuous: a.BaseChance == 0, volume: float64(a.Volume), baseChance: float64(a.BaseChance),
			minRate: float64(a.MinRate), maxRate: float64(a.MaxRate)}
		g.sounds = append(g.sounds, s)
		return s
	}
	// Ring walk order. docs/retail.md §A4.1 prints it as "for by … for bx …
	// land_blocks[mid_width*by + bx]", but that is BN naming (the same artifact
	// docs/dat-format.md §6.3 documents for the cell walk): the Hex-Rays text of
	// LScape::add_ambient_sounds (acclient.c:307179, the [MAG] source the runtime
	// spec cites) calls get_block_orient(ix = outer, iy = inner) and reads
	// land_blocks[inner + outer*mid_width], and LScape::get_block_order indexes
	// land_blocks[yoff + mid_width*xoff]. So the outer loop is x (east): x-major,
	// like every other AC grid.
	var ring [][2]int
	for i := -1; i <= 1; i++ {
		for j := -1; j <= 1; j++ {
			ring = append(ring, [2]int{pbx + i, pby + j})
		}
	}
	for _, bk := range ring {
		b, ok := blocks[bk]
		if !ok {
			continue // off the world or not in the dat
		}
		for x := 0; x < 8; x++ { // x (east) outer, y inner: docs/dat-format.md §6.3
			for y := 0; y < 8; y++ {
				stb := resolveSTB(b.terrain[9*x+y])
				if stb < 0 {
					continue
				}
				// offset player → SW vertex of the cell, world axes, z included (§8)
				ox := 192*float64(bk[0]-pbx) + 24*float64(x) - px
				oy := 192*float64(bk[1]-pby) + 24*float64(y) - py
				oz := float64(ht[b.height[9*x+y]]) - pz
				d2 := ox*ox + oy*oy + oz*oz
				if d2 > maxDistSq || (o.strictMax && d2 >= maxDistSq) {
					continue
				}
				w := calcWeight(d2)
				if w == 0 {
					continue
				}
				dir := calcDir(ox, oy)
				g.total += w
				g.cells++
				r := math.Sqrt(d2)
				for k := range reg.SoundInfo.STBDescs[stb].AmbientSounds {
					s := find(stb, k)
					s.count += w
					if s.continuous {
						continue
					}
					if dir != 0 {
						s.addDir(dir, r-10, r+10)
					} else {
						// The first reading said only "all eight directions" (docs/retail.md §R12); the order is
						// IntermitSound::AddTo's (Ambient.c, acclient.c:384259):
						// N, S, E, W, NW, NE, SW, SE.
						for _, d := range omniOrder {
							s.addDir(d, 4, 10)
						}
					}
				}
			}
		}
	}
	return g
}
