package demo

import (
	"acambient/core/demo/spots"
	"math"

	"acambient/core/dat"
)

// The map: 12×12 landblocks, bx 0xA4..0xAF (west → east) and by 0xAF..0xBA
// (south → north), 96×96 land cells of 24 m, 2304 m a side. Holtburg's
// landblock 0xA9B4 sits a little south-west of the middle.
//
// Every vertex's height and terrain is a function of its global vertex
// coordinates (gx, gy) = (8·bx + x, 8·by + y) alone, so the shared edge of
// two landblocks is computed once and agrees on both sides.
const (
	blockX0, blockY0 = spots.BlockX0, spots.BlockY0
	blocksX, blocksY = spots.BlocksX, spots.BlocksY
	vertsX, vertsY   = 8*blocksX + 1, 8*blocksY + 1
)

// Terrain types used (docs/dat-format.md §9.2).
const (
	ttBarrenRock      = 0x00
	ttGrassland       = 0x01
	ttIce             = 0x02
	ttLushGrass       = 0x03
	ttMarsh           = 0x04
	ttMudRichDirt     = 0x05
	ttPackedDirt      = 0x07
	ttPatchyDirt      = 0x08
	ttPatchyGrassland = 0x09
	ttSandYellow      = 0x0A
	ttSandGrey        = 0x0B
	ttSandRockStrewn  = 0x0C
	ttSedimentaryRock = 0x0D
	ttSemiBarrenRock  = 0x0E
	ttSnow            = 0x0F
	ttWaterRunning    = 0x10
	ttWaterStanding   = 0x11
	ttWaterShallowSea = 0x12
	ttWaterStillSea   = 0x13
	ttWaterDeepSea    = 0x14
	ttForestFloor     = 0x15
)

// vertex is one terrain vertex: height in metres, terrain type, scene
// ordinal and road bits.
type vertex struct {
	z         float64
	tt, scene uint32
	road      uint32
}

// word packs the terrain word (docs/dat-format.md §6.2): road bits 0–1, type bits 2–6,
// scene ordinal bits 11–15.
func (v vertex) word() uint16 { return uint16(v.road | v.tt<<2 | v.scene<<11) }

// Feature geometry in local vertex units (u = gx − 8·0xA4, v = gy − 8·0xAF,
// 0..96, one unit 24 m).
var (
	peak        = [2]float64{6, 90}                                                                        // the snowy mountain, north-west
	hills       = [][4]float64{{74, 40, 72, 5.5}, {84, 47, 80, 5.5}, {66, 50, 58, 5.5}, {78, 30, 45, 5.5}} // u, v, height (m), radius
	bluff       = [4]float64{55, 45.5, 58, 1.8}                                                            // a steep knoll on the river's east bank
	seaCentre   = [2]float64{103, -5}                                                                      // the bay, south-east
	marshCentre = [2]float64{47, 13}
	riverCtl    = [][2]float64{{12, 82}, {20, 73}, {30, 64}, {40, 55}, {49, 48}, {55, 38}, {61, 28}, {69, 19}, {78, 12}, {88, 5}}
	village     = [2]float64{44, 42} // the cottage's vertex, in Holtburg's block 0xA9B4
)

const (
	seaRadius     = 30.0 // the shore, in vertex units from seaCentre
	beachWidth    = 2.2
	riverHalf     = 0.85 // half the river's width: one vertex across, sometimes two
	snowLine      = 190.0
	rockLine      = 115.0
	hillRockAbove = 52.0
)

// land holds the whole map's vertices, index gx·vertsY + gy (local units).
type land struct {
	v     []vertex
	river [][2]float64 // the river's centre line, densely sampled
}

func newLand() *land {
	l := &land{v: make([]vertex, vertsX*vertsY), river: catmullRom(riverCtl, 24)}
	for u := 0; u < vertsX; u++ {
		for v := 0; v < vertsY; v++ {
			l.v[u*vertsY+v] = l.compute(float64(u), float64(v))
		}
	}
	return l
}

// at is the vertex at local (u, v).
func (l *land) at(u, v int) vertex { return l.v[u*vertsY+v] }

// compute is the height and terrain of one vertex, from the features above
// plus value noise for natural variety.
func (l *land) compute(u, v float64) vertex {
	n1 := fbm(u/14, v/14, 1)   // broad variety
	n2 := fbm(u/5, v/5, 2)     // patchiness
	n3 := fbm(u/3.5, v/3.5, 3) // fine variety

	// Lowland meadows roll gently around 20 m.
	z := 20 + 10*n1
	// The mountain: a broad cone with a ragged crest.
	dm := math.Hypot(u-peak[0], v-peak[1])
	z += 340 * math.Pow(math.Max(0, 1-dm/38), 1.7) * (0.88 + 0.24*n3)
	// The hills: round tops east of the river.
	for _, h := range hills {
		d2 := (u-h[0])*(u-h[0]) + (v-h[1])*(v-h[1])
		z += h[2] * math.Exp(-d2/(2*h[3]*h[3]))
	}
	// The desert, south-west, is a raised plain of low dunes.
	desert := Smooth01((1.08 - math.Max(u/30, v/34) + 0.12*n2) / 0.12)
	z += desert * (12 + 5*math.Abs(math.Sin(u*0.9+2*n3)))
	// The marsh sits in a flat, wet hollow.
	dmarsh := math.Hypot(u-marshCentre[0], (v-marshCentre[1])*1.3)/11 + 0.15*n2
	marsh := Smooth01((1 - dmarsh) / 0.2)
	z = z*(1-marsh) + (5+2*n3)*marsh
	// The sea: the land slopes into the bay.
	dsea := math.Hypot(u-seaCentre[0], v-seaCentre[1]) + 2.5*n1 - seaRadius // < 0 in the sea
	if dsea < 8 {
		z = math.Min(z, 1+math.Max(dsea, 0)*2.5)
	}
	// The river carves its valley: within 3.5 vertices (84 m) the land is
	// drawn down towards the water level, which falls from the mountain to
	// the bay.
	dr, s := l.riverDistance(u, v)
	level := 2 + 150*math.Pow(1-s, 2.4)
	if z > level {
		k := Smooth01(dr / 3.5)
		z = level + (z-level)*(0.15+0.85*k)
	}

	// The bluff rises straight from the bank, after the carving, so its top
	// stands 60-odd metres over water barely 70 m away: a place that hears
	// less of the river than the bank below, since ambient distance is 3D.
	if dr >= riverHalf {
		d2 := (u-bluff[0])*(u-bluff[0]) + (v-bluff[1])*(v-bluff[1])
		z += bluff[2] * math.Exp(-d2/(2*bluff[3]*bluff[3]))
	}

	x := vertex{z: math.Max(z, 0)}
	switch {
	case dsea < -9:
		x.tt, x.z = ttWaterDeepSea, 0
	case dsea < -4:
		x.tt, x.z = ttWaterStillSea, 0
	case dsea < 0:
		x.tt, x.z = ttWaterShallowSea, 0.5
	case dr < riverHalf:
		x.tt = ttWaterRunning
	case dsea < beachWidth:
		x.tt = ttSandGrey
	case z > snowLine+12*n2:
		x.tt = ttSnow
		if n3 > 0.55 {
			x.tt = ttIce
		}
	case z > rockLine+10*n2:
		x.tt = ttBarrenRock
		if n3 > 0.2 {
			x.tt = ttSedimentaryRock
		}
	case marsh > 0.5:
		x.tt = ttMarsh
		switch {
		case dmarsh < 0.35:
			x.tt = ttWaterStanding // the pond
		case marsh < 0.65:
			x.tt = ttMudRichDirt
		}
	case desert > 0.5:
		x.tt = ttSandYellow
		if n3 > 0.35 {
			x.tt = ttSandRockStrewn
		}
	case l.hillRock(u, v, z):
		x.tt = ttSemiBarrenRock
	case u+4*n1 > 54 && v+4*n2 > 58:
		x.tt = ttForestFloor
		if n3 > 0.62 {
			x.tt = ttLushGrass // a clearing
		}
	default:
		x.tt = ttGrassland
		switch {
		case n3 > 0.45:
			x.tt = ttLushGrass
		case n3 < -0.45:
			x.tt = ttPatchyGrassland
		case n2 > 0.6:
			x.tt = ttPatchyDirt
		}
		// Two scene ordinals: the lively meadow (0) and, in broad patches, a
		// quiet one (1) with fewer birds.
		if n1 < -0.15 {
			x.scene = 1
		}
	}
	if road(u, v) && x.tt != ttWaterRunning {
		x.tt, x.road, x.scene = ttPackedDirt, 1, 0
		if math.Hypot(u-village[0], v-village[1]) < 4 {
			x.scene = 2 // the village street: ordinal 2 names no sound set
		}
	}
	return x
}

// hillRock: bare rock crowns the hills above hillRockAbove metres.
func (l *land) hillRock(u, v, z float64) bool {
	for _, h := range append(hills, bluff) {
		if math.Hypot(u-h[0], v-h[1]) < 1.5*h[3] && z > hillRockAbove {
			return true
		}
	}
	return false
}

// road is the track from the west edge through the village to the river
// ford, following a gentle curve.
func road(u, v float64) bool {
	if u < 4 || u > 52 {
		return false
	}
	centre := 42 + 3*math.Sin(u/9)
	return math.Abs(v-centre) < 0.5
}

// riverDistance is the distance (vertex units) from (u, v) to the river's
// centre line and the position s ∈ [0, 1] along it of the nearest point.
func (l *land) riverDistance(u, v float64) (d, s float64) {
	d2 := math.Inf(1)
	n := len(l.river) - 1
	for i := 0; i < n; i++ {
		a, b := l.river[i], l.river[i+1]
		dx, dy := b[0]-a[0], b[1]-a[1]
		t := ((u-a[0])*dx + (v-a[1])*dy) / (dx*dx + dy*dy)
		t = min(max(t, 0), 1)
		ex, ey := u-a[0]-t*dx, v-a[1]-t*dy
		if e := ex*ex + ey*ey; e < d2 {
			d2, s = e, (float64(i)+t)/float64(n)
		}
	}
	return math.Sqrt(d2), s
}

// catmullRom samples the Catmull–Rom spline through pts, steps per span.
func catmullRom(pts [][2]float64, steps int) [][2]float64 {
	var out [][2]float64
	p := func(i int) [2]float64 { return pts[min(max(i, 0), len(pts)-1)] }
	for i := 0; i < len(pts)-1; i++ {
		p0, p1, p2, p3 := p(i-1), p(i), p(i+1), p(i+2)
		for k := 0; k < steps; k++ {
			t := float64(k) / float64(steps)
			var q [2]float64
			for c := 0; c < 2; c++ {
				q[c] = 0.5 * (2*p1[c] + (-p0[c]+p2[c])*t + (2*p0[c]-5*p1[c]+4*p2[c]-p3[c])*t*t + (-p0[c]+3*p1[c]-3*p2[c]+p3[c])*t*t*t)
			}
			out = append(out, q)
		}
	}
	return append(out, pts[len(pts)-1])
}

// ---- value noise ----

// hash2 is a 32-bit integer hash of a lattice point and seed, mapped to
// [−1, 1].
func hash2(x, y int, seed uint32) float64 {
	h := uint32(x)*0x8DA6B343 ^ uint32(y)*0xD8163841 ^ seed*0xCB1AB31F
	h ^= h >> 13
	h *= 0x5BD1E995
	h ^= h >> 15
	return float64(h)/float64(1<<31) - 1
}

// noise is smooth value noise: lattice values blended by smoothstep.
func noise(x, y float64, seed uint32) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := Smooth01(x-x0), Smooth01(y-y0)
	ix, iy := int(x0), int(y0)
	a := hash2(ix, iy, seed) + (hash2(ix+1, iy, seed)-hash2(ix, iy, seed))*fx
	b := hash2(ix, iy+1, seed) + (hash2(ix+1, iy+1, seed)-hash2(ix, iy+1, seed))*fx
	return a + (b-a)*fy
}

// fbm sums three octaves of value noise, roughly in [−1, 1].
func fbm(x, y float64, seed uint32) float64 {
	return (noise(x, y, seed) + 0.5*noise(2*x, 2*y, seed+17) + 0.25*noise(4*x, 4*y, seed+31)) / 1.75
}

// Smooth01 is the cubic smoothstep of x clamped to [0, 1].
func Smooth01(x float64) float64 {
	x = math.Min(math.Max(x, 0), 1)
	return x * x * (3 - 2*x)
}

// ---- heights ----

// heightTable is the region's land height table: z(i) = i/2 + i³/40000
// metres. Half a metre a step in the lowlands, where rivers, shores and
// marshes need fine steps, growing to 5.4 m a step at the top; the highest
// entry is 542 m, inside retail's [0, 800] acceptance (LandDefs::
// set_height_table) and enough for the 350 m peak.
func heightTable() [256]float32 {
	var t [256]float32
	for i := range t {
		x := float64(i)
		t[i] = float32(x/2 + x*x*x/40000)
	}
	return t
}

// heightByte is the table entry nearest z.
func heightByte(t *[256]float32, z float64) uint8 {
	best := 0
	for i := range t {
		if math.Abs(float64(t[i])-z) < math.Abs(float64(t[best])-z) {
			best = i
		}
	}
	return uint8(best)
}

// landBlocks builds every LandBlock record of the map.
func (l *land) landBlocks(objects map[uint32]bool) []*dat.LandBlock {
	t := heightTable()
	var out []*dat.LandBlock
	for i := 0; i < blocksX; i++ {
		for j := 0; j < blocksY; j++ {
			id := uint32(blockX0+i)<<24 | uint32(blockY0+j)<<16 | 0xFFFF
			lb := &dat.LandBlock{ID: dat.DID(id)}
			if objects[id] {
				lb.HasObjects = 1
			}
			for x := 0; x <= 8; x++ {
				for y := 0; y <= 8; y++ {
					v := l.at(8*i+x, 8*j+y)
					lb.Terrain[9*x+y] = v.word()
					lb.Height[9*x+y] = heightByte(&t, v.z)
				}
			}
			out = append(out, lb)
		}
	}
	return out
}
