package ambient

import (
	"acambient/core/dat"
	"acambient/core/world"
)

// Small hand-built worlds for the tests: STB k is reached from terrain type
// k with scene ordinal 0, so the terrain word word(k) names it; terrain type
// 31 names nothing. Height byte b is z = b metres.

func word(k int) uint16 { return uint16(k << 2) }

const noneWord = 31 << 2

func testRegion(stbs ...dat.AmbientSTBDesc) *dat.Region {
	r := &dat.Region{ID: dat.RegionID, Version: 3}
	for i := range r.LandDefs.LandHeightTable {
		r.LandDefs.LandHeightTable[i] = float32(i)
	}
	r.SoundInfo = &dat.SoundDesc{STBDescs: stbs}
	r.SceneInfo = &dat.SceneDesc{}
	for k := range stbs {
		r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, dat.SceneType{STBIndex: uint32(k)})
		r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes, dat.TerrainType{SceneTypes: []uint32{uint32(k)}})
	}
	return r
}

// stb is an STB naming table id with the given sounds.
func stb(id uint32, sounds ...dat.AmbientSoundDesc) dat.AmbientSTBDesc {
	return dat.AmbientSTBDesc{STBID: dat.DID(id), AmbientSounds: sounds}
}

// constant and intermit are authored sounds of stype 0x46 (Ambient1).
func constant(volume, minRate float32) dat.AmbientSoundDesc {
	return dat.AmbientSoundDesc{SType: 0x46, Volume: volume, MinRate: minRate, MaxRate: minRate}
}

func intermit(volume, chance, minRate, maxRate float32) dat.AmbientSoundDesc {
	return dat.AmbientSoundDesc{SType: 0x46, Volume: volume, BaseChance: chance, MinRate: minRate, MaxRate: maxRate}
}

// table is a SoundTable whose child 0x46 holds the given variants, each with
// probability 1.
func table(id uint32, waves ...uint32) *dat.SoundTable {
	recs := make([]dat.SoundRecord, len(waves))
	for i, w := range waves {
		recs[i] = dat.SoundRecord{WaveID: dat.DID(w), Priority: 0, Probability: 1, Volume: 1}
	}
	return &dat.SoundTable{ID: dat.DID(id), Root: dat.SoundNode{
		Records:  []dat.SoundRecord{{Probability: 1, Volume: 1}},
		Children: []dat.SoundNode{{HashKey: 0x46, Records: recs}},
	}}
}

// flatBlock is landblock (bx, by) whose every vertex has word w and height 0.
func flatBlock(bx, by int, w uint16) *dat.LandBlock {
	lb := &dat.LandBlock{ID: dat.DID(world.LandBlockID(bx, by))}
	for i := range lb.Terrain {
		lb.Terrain[i] = w
	}
	return lb
}

// sparseBlock names nothing except the listed vertices {x, y, word}.
func sparseBlock(bx, by int, cells ...[3]int) *dat.LandBlock {
	lb := flatBlock(bx, by, noneWord)
	for _, c := range cells {
		lb.Terrain[9*c[0]+c[1]] = uint16(c[2])
	}
	return lb
}

type testLand struct {
	blocks map[[2]int]*dat.LandBlock
	cells  map[uint32]*dat.EnvCell
	asked  [][2]int // every LandBlock call, in order, unless quiet
	quiet  bool
}

func newLand(blocks ...*dat.LandBlock) *testLand {
	l := &testLand{blocks: map[[2]int]*dat.LandBlock{}, cells: map[uint32]*dat.EnvCell{}}
	for _, b := range blocks {
		id := uint32(b.ID)
		l.blocks[[2]int{world.BlockX(id), world.BlockY(id)}] = b
	}
	return l
}

func (l *testLand) LandBlock(bx, by int) *dat.LandBlock {
	if !l.quiet {
		l.asked = append(l.asked, [2]int{bx, by})
	}
	return l.blocks[[2]int{bx, by}]
}

func (l *testLand) EnvCell(id uint32) *dat.EnvCell { return l.cells[id] }

type testLib struct {
	tables map[uint32]*dat.SoundTable
	status map[uint32]Status // default Loaded when the table exists, else NotFound
	waves  map[uint32]float64
	calls  map[uint32]int
}

func newLib(tables ...*dat.SoundTable) *testLib {
	l := &testLib{tables: map[uint32]*dat.SoundTable{}, status: map[uint32]Status{},
		waves: map[uint32]float64{}, calls: map[uint32]int{}}
	for _, t := range tables {
		l.tables[uint32(t.ID)] = t
		for _, c := range t.Root.Children {
			for _, r := range c.Records {
				l.waves[uint32(r.WaveID)] = 2
			}
		}
	}
	return l
}

func (l *testLib) SoundTable(id uint32) (*dat.SoundTable, Status) {
	l.calls[id]++
	if s, ok := l.status[id]; ok && s != Loaded {
		return nil, s
	}
	if t := l.tables[id]; t != nil {
		return t, Loaded
	}
	return nil, NotFound
}

func (l *testLib) Wave(id uint32) (float64, bool) {
	d, ok := l.waves[id]
	return d, ok
}

// at is an outdoor position in landblock (bx, by) at local (x, y, z).
func at(bx, by int, x, y, z float32) world.Position {
	p, err := world.FromGlobal(float64(bx)*192+float64(x), float64(by)*192+float64(y), float64(z))
	if err != nil {
		panic(err)
	}
	return p
}

func kinds(evs []Event) map[string]int {
	m := map[string]int{}
	for _, ev := range evs {
		k := string(ev.Kind)
		if ev.Kind == KindSkip {
			k += ":" + string(ev.Reason)
		}
		m[k]++
	}
	return m
}

// childOf is a SoundTable child for stype with one variant of probability 1.
func childOf(stype, wave uint32) dat.SoundNode {
	return dat.SoundNode{HashKey: stype, Records: []dat.SoundRecord{{WaveID: dat.DID(wave), Probability: 1, Volume: 1}}}
}

func sceneType(stbIndex uint32) dat.SceneType { return dat.SceneType{STBIndex: stbIndex} }

func terrainType(sceneIndices ...uint32) dat.TerrainType {
	return dat.TerrainType{SceneTypes: sceneIndices}
}

func envCell(id, flags uint32) *dat.EnvCell {
	return &dat.EnvCell{ID: dat.DID(id), Flags: flags, CellID: dat.DID(id)}
}

// posIn is a position with an explicit objcell id (an EnvCell, say).
func posIn(objcell uint32, x, y, z float32) world.Position {
	return world.Position{ObjCellID: objcell, X: x, Y: y, Z: z}
}

// decisions is the last rebuild's events after its opening rebuild event:
// the plays, skips and dequeues of its UpdatePlayQueue.
func decisions(e *Engine) []Event {
	evs := e.Events()
	if len(evs) > 0 && evs[0].Kind == KindRebuild {
		return evs[1:]
	}
	return evs
}
