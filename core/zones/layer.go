// Package zones computes the sound-zone layer (docs/interfaces.md §1, `zones`): for
// every land cell, the ambient sound set (STB) that dominates a listener
// standing at the cell's centre — the STB with the largest share of the
// retail gather's total weight there — drawn as an image of one pixel per
// land cell that a Leaflet map overlays by its bounds, with a legend.
//
// The numbers are the engine's own: the chain is ambient.ResolveChain, the
// weight of each land cell is ambient.AddSoundWeight (what Ambient::AddSound
// adds), and the cells are visited in the gather's order, so each STB's sum
// is, bit for bit, the soundCount `gather` reports for its sounds there.
// What is shared between neighbouring listeners is what the retail math
// leaves independent of the listener: each landblock's STB and vertex height
// per cell, decoded once for the nine listener blocks that read it, and the
// horizontal offsets from a listener cell to the source cells within 120 m,
// made once for the 64 cell positions of a landblock.
package zones

import (
	"fmt"
	"slices"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/world"
)

// Layer decides the dominant STB of listeners in one region's land.
type Layer struct {
	chain   ambient.Chain // ResolveChain, with the STBs whose table does not load made NoSTB
	audible []bool        // per STB: it has sounds, so a gather lists it
	heights [256]float32  // world.HeightTable of the region
	sums    []float32     // per STB, the weight gathered for the current listener
	touched []int16       // STBs with a non-zero sum
}

// NewLayer prepares region r's chain. tableLoads reports whether STB k's
// SoundTable loads (AmbientSTBDesc::InitSoundTable succeeds); a cell whose
// STB's table does not load adds nothing to a gather, as
// CRegionDesc::GetSTBDesc returns NULL for it (0x004FEAB0).
func NewLayer(r *dat.Region, tableLoads func(stbIndex int) bool) *Layer {
	l := &Layer{chain: ambient.ResolveChain(r), heights: world.HeightTable(r)}
	if r != nil && r.SoundInfo != nil {
		descs := r.SoundInfo.STBDescs
		l.audible = make([]bool, len(descs))
		for k := range descs {
			l.audible[k] = len(descs[k].AmbientSounds) > 0
		}
	}
	l.sums = make([]float32, len(l.audible))
	for t := range l.chain {
		for s, k := range l.chain[t] {
			// An STB id of 0 is INVALID_DID: InitSoundTable fails.
			if k != ambient.NoSTB && (r.SoundInfo.STBDescs[k].STBID == 0 || !tableLoads(int(k))) {
				l.chain[t][s] = ambient.NoSTB
			}
		}
	}
	return l
}

// Block is a landblock as the layer reads it: the STB each land cell names
// (through its SW vertex's terrain word, as CLandBlock::add_ambient_sounds
// 0x00530310 reads it) and the height that vertex sounds from.
type Block struct {
	lb  *dat.LandBlock
	stb [64]int16   // cell 8·x + y: STB index, or NoSTB
	z   [64]float32 // cell 8·x + y: its SW vertex's z
}

// Prepare reads lb for the layer.
func (l *Layer) Prepare(lb *dat.LandBlock) *Block {
	b := &Block{lb: lb}
	for x := range world.CellsPerBlock {
		for y := range world.CellsPerBlock {
			v := 9*x + y
			w := lb.Terrain[v]
			b.stb[8*x+y] = int16(l.chain[(w>>2)&0x1F][w>>11])
			b.z[8*x+y] = l.heights[lb.Height[v]]
		}
	}
	return b
}

// Ring is the 3×3 landblocks around a listener's block, Ring[dx+1][dy+1] for
// the block dx east and dy north of it; nil where a block is missing or
// beyond the world's edge (LScape skips a NULL land block).
type Ring [3][3]*Block

// Dominant is the STB that dominates a listener standing at the centre of
// land cell (cx, cy) of ring[1][1], at the terrain's height there (as a
// map-coordinate POS gets its z): the STB with the largest gathered weight
// among those with sounds, ties to the lower index; ok is false when the
// gather finds nothing.
func (l *Layer) Dominant(ring *Ring, cx, cy int) (stb int, ok bool, err error) {
	if err := l.gather(ring, cx, cy); err != nil {
		return 0, false, err
	}
	stb, best := -1, float32(0)
	for _, k := range l.touched {
		s := l.sums[k]
		l.sums[k] = 0
		if !l.audible[k] {
			continue
		}
		if s > best || (s == best && int(k) < stb) {
			stb, best = int(k), s
		}
	}
	l.touched = l.touched[:0]
	return stb, stb >= 0, nil
}

// gather adds, for each STB, the weights AddSound gives the land cells
// around the listener, in the gather's order, into l.sums (listing in
// l.touched the STBs it touches): each sum is the soundCount a gather
// reports for that STB's sounds.
func (l *Layer) gather(ring *Ring, cx, cy int) error {
	centre := ring[1][1]
	if centre == nil {
		return fmt.Errorf("zones: no landblock under the listener")
	}
	zc, err := world.TerrainZIn(&l.heights, centre.lb, world.CellLength*float32(cx)+world.CellLength/2,
		world.CellLength*float32(cy)+world.CellLength/2)
	if err != nil {
		return err
	}
	for _, c := range nearby[8*cx+cy] {
		b := ring[c.rx][c.ry]
		if b == nil {
			continue
		}
		k := b.stb[c.cell]
		if k < 0 {
			continue
		}
		// world.Offset's z: to.Z − from.Z, a float subtraction.
		w := ambient.AddSoundWeight(world.Vec3{X: c.dx, Y: c.dy, Z: b.z[c.cell] - zc})
		if w == 0 {
			continue
		}
		if l.sums[k] == 0 {
			l.touched = append(l.touched, k)
		}
		l.sums[k] += w // a float sum, in AddSound's order, as soundCount += w
	}
	return nil
}

// nearCell is one land cell that may weigh on a listener: ring block
// Ring[rx][ry], cell 8·x + y, and the horizontal offset from the listener
// to it.
type nearCell struct {
	rx, ry, cell int8
	dx, dy       float32
}

// nearby lists, for a listener at the centre of each of a block's 64 cells
// (index 8·cx + cy), the source cells within 120 m horizontally, in the
// gather's order: ring blocks west to east, south to north within each
// column (LScape::add_ambient_sounds), then cells x-major
// (CLandBlock::add_ambient_sounds). A cell farther than 120 m horizontally
// fails AddSound's distance test whatever the heights: the offsets are whole
// multiples of 12 m, so x² + y² is exact and ≥ 14544 there, and adding z²
// cannot round it below 14400.
var nearby = func() (out [64][]nearCell) {
	for cx := range world.CellsPerBlock {
		for cy := range world.CellsPerBlock {
			listener := world.Position{ObjCellID: world.OutdoorCellID(1, 1, cx, cy),
				X: world.CellLength*float32(cx) + world.CellLength/2, Y: world.CellLength*float32(cy) + world.CellLength/2}
			var list []nearCell
			for dx := -1; dx <= 1; dx++ {
				for dy := -1; dy <= 1; dy++ {
					for x := range world.CellsPerBlock {
						for y := range world.CellsPerBlock {
							src := world.Position{ObjCellID: world.OutdoorCellID(1+dx, 1+dy, x, y),
								X: world.CellLength * float32(x), Y: world.CellLength * float32(y)}
							off := world.Offset(listener, src)
							if float64(off.X)*float64(off.X)+float64(off.Y)*float64(off.Y) > maxDistSq {
								continue
							}
							list = append(list, nearCell{rx: int8(dx + 1), ry: int8(dy + 1), cell: int8(8*x + y), dx: off.X, dy: off.Y})
						}
					}
				}
			}
			out[8*cx+cy] = slices.Clip(list)
		}
	}
	return out
}()

// maxDistSq is Ambient::ambient_sound_max_dist_sq (0x0081F154): 120 m.
const maxDistSq = 14400
