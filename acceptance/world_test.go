package acceptance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"acambient/core/dat"
	"acambient/datfetch/datfile"
)

// The hand-made world.
//
// Region 0x13000000 (docs/dat-format.md §3):
//
//	STBDescs (SoundDesc, §3.6):
//	  0 "A" 0x20000001: [0] stype 0x46 V 0.4 bc 0    rate 8..8   (ConstantSound)
//	                    [1] stype 0x47 V 0.9 bc 0.5  rate 3..7   (IntermitSound)
//	                    [2] stype 0x48 V 0.6 bc 0.25 rate 5..9   (IntermitSound)
//	  1 "B" 0x20000002: [0] stype 0x49 V 0.7 bc 0    rate 5..5
//	                    [1] stype 0x4A V 1.0 bc 0.8  rate 2..4
//	  2 "M" 0x20000099: [0] stype 0x46 V 1.0 bc 0    — SoundTable NOT in the portal dat
//	  3 "E" 0x20000003: []                            — table exists, no sounds
//	  4 "T" 0x20000004: [0] stype 0x46 V 0.5 bc 0    rate 2..2   (trace world)
//	                    [1] stype 0x47 V 1.0 bc 1.0  rate 0.5..1.5
//	SceneTypes (§3.7): stb_index 0,0,1,1,NONE,99,2,3,4 for scene types 0..8
//	TerrainTypes (§3.8), 11 of them:
//	  0 []  1 [0,1]  2 [4]  3 [5]  4 [NONE]  5 [6]  6 [77]  7 [7]  8 [8]  9 [0]  10 [2,3]
//
// World 1: landblocks bx, by ∈ 0..3. Every land cell is grassland (type 1,
// scene 0 → scene type 0 → STB A) except:
//   - block (1,1), cells x ≥ 5: sand (type 10, scene 0 → scene type 2 → STB B)
//   - block (2,1), cells y ≥ 6: sand, scene 1 (→ scene type 3 → STB B)
//   - block (1,1) special cells exercising the resolution chain (specialCells)
//   - row/column 8 vertices (never read, §6.3) are sand: a walk that read
//     them would add STB B weight.
//
// Heights: byte h = (3x + 5y + 7bx + 11by) mod 9 at vertex (x, y), table[h] = 2h,
// so z ∈ {0, 2, …, 16} and the x/y index order of §6.3 matters.
//
// World 2 (trace): landblocks bx, by ∈ 5..7, all terrain type 0 (no scene
// types → silent), heights all byte 10 (z = 20), except block (6,6) cells
// (4,4), (5,4), (7,4): type 8 → STB T.

const (
	stbA = 0x20000001
	stbB = 0x20000002
	stbM = 0x20000099 // missing
	stbE = 0x20000003
	stbT = 0x20000004
)

var specialCells = map[[2]int]uint16{
	{2, 2}: word(1, 5, 0),                  // scene ordinal 5 ≥ len(TerrainTypes[1].SceneTypes)=2 → none
	{2, 3}: word(2, 0, 0),                  // scene type 4 has STBIndex 0xFFFFFFFF → none
	{2, 4}: word(3, 0, 0),                  // scene type 5 has STBIndex 99 (out of range) → none
	{2, 5}: word(4, 0, 0),                  // TerrainTypes[4].SceneTypes[0] = 0xFFFFFFFF → none
	{3, 2}: word(5, 0, 0),                  // STB M: SoundTable missing → none, not even in the total
	{3, 3}: word(6, 0, 0),                  // scene-type index 77 out of range → none
	{4, 2}: word(20, 0, 0),                 // terrain type 20 ≥ 11 TerrainTypes → none
	{4, 3}: word(7, 0, 0),                  // STB E: table present, no sounds → total only
	{4, 4}: word(1, 1, 0) | 0x0780 | 0x3,   // scene 1 → scene type 1 → STB A; unused bits + road set
	{3, 5}: word(9, 0, 0) | 0x2,            // type 9 → scene type 0 → STB A, road bit
	{3, 4}: word(1, 0, 0) | 0x0400 | 0x001, // plain A with stray bits
}

// word builds a terrain word: road bits 0–1, type bits 2–6, scene bits 11–15 (§6.2).
func word(ttype, scene, road uint16) uint16 { return road&3 | (ttype&0x1F)<<2 | scene<<11 }

func heightTable() [256]float32 {
	var t [256]float32
	for i := range t {
		t[i] = 2 * float32(i)
	}
	return t
}

// world1Height is the height byte of vertex (x, y) of block (bx, by) in world 1.
func world1Height(bx, by, x, y int) uint8 { return uint8((3*x + 5*y + 7*bx + 11*by) % 9) }

// world1Word is the terrain word of vertex (x, y) of block (bx, by) in world 1.
func world1Word(bx, by, x, y int) uint16 {
	if x == 8 || y == 8 {
		return word(10, 0, 0) // never read
	}
	if bx == 1 && by == 1 {
		if w, ok := specialCells[[2]int{x, y}]; ok {
			return w
		}
		if x >= 5 {
			return word(10, 0, 0)
		}
	}
	if bx == 2 && by == 1 && y >= 6 {
		return word(10, 1, 0)
	}
	return word(1, 0, 0)
}

func world2Word(bx, by, x, y int) uint16 {
	if bx == 6 && by == 6 && y == 4 && (x == 4 || x == 5 || x == 7) {
		return word(8, 0, 0)
	}
	return word(0, 0, 0)
}

// landBlocks returns every landblock of both worlds, keyed by (bx, by).
type blockData struct {
	terrain [81]uint16
	height  [81]uint8
}

func fixtureBlocks() map[[2]int]*blockData {
	out := map[[2]int]*blockData{}
	for bx := 0; bx <= 3; bx++ {
		for by := 0; by <= 3; by++ {
			b := &blockData{}
			for x := 0; x <= 8; x++ {
				for y := 0; y <= 8; y++ {
					b.terrain[9*x+y] = world1Word(bx, by, x, y)
					b.height[9*x+y] = world1Height(bx, by, x, y)
				}
			}
			out[[2]int{bx, by}] = b
		}
	}
	for bx := 5; bx <= 7; bx++ {
		for by := 5; by <= 7; by++ {
			b := &blockData{}
			for x := 0; x <= 8; x++ {
				for y := 0; y <= 8; y++ {
					b.terrain[9*x+y] = world2Word(bx, by, x, y)
					b.height[9*x+y] = 10
				}
			}
			out[[2]int{bx, by}] = b
		}
	}
	return out
}

func fixtureRegion() *dat.Region {
	snd := func(st uint32, v, bc, lo, hi float32) dat.AmbientSoundDesc {
		return dat.AmbientSoundDesc{SType: st, Volume: v, BaseChance: bc, MinRate: lo, MaxRate: hi}
	}
	sound := &dat.SoundDesc{STBDescs: []dat.AmbientSTBDesc{
		{STBID: stbA, AmbientSounds: []dat.AmbientSoundDesc{
			snd(0x46, 0.4, 0, 8, 8), snd(0x47, 0.9, 0.5, 3, 7), snd(0x48, 0.6, 0.25, 5, 9)}},
		{STBID: stbB, AmbientSounds: []dat.AmbientSoundDesc{
			snd(0x49, 0.7, 0, 5, 5), snd(0x4A, 1.0, 0.8, 2, 4)}},
		{STBID: stbM, AmbientSounds: []dat.AmbientSoundDesc{snd(0x46, 1.0, 0, 3, 3)}},
		{STBID: stbE, AmbientSounds: []dat.AmbientSoundDesc{}},
		{STBID: stbT, AmbientSounds: []dat.AmbientSoundDesc{
			snd(0x46, 0.5, 0, 2, 2), snd(0x47, 1.0, 1.0, 0.5, 1.5)}},
	}}
	scene := &dat.SceneDesc{}
	for _, idx := range []uint32{0, 0, 1, 1, dat.None, 99, 2, 3, 4} {
		scene.SceneTypes = append(scene.SceneTypes, dat.SceneType{STBIndex: idx, Scenes: []dat.DID{}})
	}
	ttScenes := [][]uint32{{}, {0, 1}, {4}, {5}, {dat.None}, {6}, {77}, {7}, {8}, {0}, {2, 3}}
	var tts []dat.TerrainType
	for i, s := range ttScenes {
		tts = append(tts, dat.TerrainType{TerrainName: fmt.Sprintf("T%d", i), TerrainColor: 0xFF000000, SceneTypes: s})
	}
	return &dat.Region{
		ID: dat.RegionID, RegionNumber: 1, Version: 3, RegionName: "Acceptance",
		LandDefs: dat.LandDefs{
			NumBlockLength: 255, NumBlockWidth: 255, SquareLength: 24, LBlockLength: 8,
			VertexPerCell: 1, MaxObjHeight: 200, SkyHeight: 1000, RoadWidth: 5,
			LandHeightTable: heightTable(),
		},
		GameTime:    dat.GameTime{TimesOfDay: []dat.TimeOfDay{}, DaysOfWeek: []dat.WeekDay{}, Seasons: []dat.Season{}},
		PartsMask:   dat.PartSound | dat.PartScene | dat.PartTerrain,
		SoundInfo:   sound,
		SceneInfo:   scene,
		TerrainInfo: dat.TerrainDesc{TerrainTypes: tts, LandSurf: dat.LandSurf{Selector: 0, TexMerge: &dat.TexMerge{}}},
	}
}

// soundTable builds a table whose root holds the usual placeholder record
// and whose children map stype → wave variants (docs/dat-format.md §4).
func soundTable(id uint32, children map[uint32][]uint32, order []uint32) *dat.SoundTable {
	st := &dat.SoundTable{ID: dat.DID(id), Root: dat.SoundNode{
		HashKey: 0, Records: []dat.SoundRecord{{WaveID: 0, Priority: 0, Probability: 1, Volume: 1}},
	}}
	for _, k := range order {
		n := dat.SoundNode{HashKey: k}
		for _, w := range children[k] {
			n.Records = append(n.Records, dat.SoundRecord{WaveID: dat.DID(w), Priority: 0, Probability: 1, Volume: 1})
		}
		st.Root.Children = append(st.Root.Children, n)
	}
	return st
}

// Wave ids of each child (variant order).
var tableChildren = map[uint32]map[uint32][]uint32{
	stbA: {0x46: {0x0A000001}, 0x47: {0x0A000002, 0x0A000003}, 0x48: {0x0A000004, 0x0A000005, 0x0A000006}},
	stbB: {0x49: {0x0A000007}, 0x4A: {0x0A000008, 0x0A000009}},
	stbE: {},
	stbT: {0x46: {0x0A000010}, 0x47: {0x0A000011, 0x0A000012}},
}

// pcmWave is a 16-bit mono 22050 Hz PCM wave of 100 samples (4.5 ms), with an
// 18-byte WAVEFORMATEX header (docs/dat-format.md §5).
func pcmWave(id uint32) *dat.Wave {
	var h bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&h, le, uint16(1))     // wFormatTag PCM
	binary.Write(&h, le, uint16(1))     // nChannels
	binary.Write(&h, le, uint32(22050)) // nSamplesPerSec
	binary.Write(&h, le, uint32(44100)) // nAvgBytesPerSec
	binary.Write(&h, le, uint16(2))     // nBlockAlign
	binary.Write(&h, le, uint16(16))    // wBitsPerSample
	binary.Write(&h, le, uint16(0))     // cbSize
	var d bytes.Buffer
	for i := 0; i < 100; i++ {
		binary.Write(&d, le, int16(8000*math.Sin(float64(i)*0.3)))
	}
	return &dat.Wave{ID: dat.DID(id), Header: h.Bytes(), Data: d.Bytes()}
}

func writeFixtureDats(portal, cell string) error {
	precs := map[uint32][]byte{}
	reg := fixtureRegion()
	precs[dat.RegionID] = reg.Encode()
	if _, err := dat.DecodeRegion(dat.RegionID, precs[dat.RegionID]); err != nil {
		return fmt.Errorf("fixture region does not round-trip: %w", err)
	}
	for id, ch := range tableChildren {
		var order []uint32
		for _, k := range []uint32{0x46, 0x47, 0x48, 0x49, 0x4A} {
			if _, ok := ch[k]; ok {
				order = append(order, k)
			}
		}
		precs[id] = soundTable(id, ch, order).Encode()
		for _, ws := range ch {
			for _, w := range ws {
				precs[w] = pcmWave(w).Encode()
			}
		}
	}
	crecs := map[uint32][]byte{}
	for k, b := range fixtureBlocks() {
		lb := &dat.LandBlock{ID: dat.DID(uint32(k[0])<<24 | uint32(k[1])<<16 | 0xFFFF), Terrain: b.terrain, Height: b.height}
		crecs[uint32(lb.ID)] = lb.Encode()
	}
	// EnvCells in block (1,1): 0x0100 sees outside, 0x0101 does not (docs/dat-format.md §7).
	for _, e := range []*dat.EnvCell{
		{ID: 0x01010100, Flags: dat.EnvCellSeenOutside, CellID: 0x01010100},
		{ID: 0x01010101, Flags: 0, CellID: 0x01010101},
	} {
		crecs[uint32(e.ID)] = e.Encode()
	}
	write := func(path string, set datfile.DataSet, recs map[uint32][]byte) error {
		var buf bytes.Buffer
		if err := datfile.WriteDat(&buf, set, recs); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err := write(portal, datfile.Portal, precs); err != nil {
		return err
	}
	return write(cell, datfile.Cell, crecs)
}
