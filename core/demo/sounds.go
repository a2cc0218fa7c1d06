package demo

import (
	"acambient/core/dat"
	"acambient/core/demo/internal/synth"
)

// Ambient sound slots (docs/dat-format.md §9.1): SoundTable child keys and AmbientSoundDesc
// stypes. Retail's region keys its ambient sets by these.
const (
	ambient1 = 0x46 + iota
	ambient2
	ambient3
	ambient4
	ambient5
)

// variant is a SoundTable record: a wave and its probability gate. Priority
// and volume are stored too but retail's ambient path reads neither
// (docs/retail.md §R5), so every variant carries priority 0 and volume 1.
type variant struct {
	wave uint32
	prob float32
}

// slot is one AmbientSoundDesc and the SoundTable child it plays. A slot
// with chance 0 is a constant bed: retail re-fires it every min_rate seconds
// as a one-shot (docs/retail.md §R4), so min_rate is the bed's length less its
// cross-fade and the firings tile.
type slot struct {
	stype            uint32
	volume, chance   float32
	minRate, maxRate float32
	variants         []variant
}

// stb is an AmbientSTBDesc with its SoundTable.
type stb struct {
	name  string
	table uint32
	slots []slot
}

// bed is a constant slot for a bed wave; min_rate is filled in from the
// wave's length when the world is built (max_rate is unused for constant
// sounds and set equal).
func bed(volume float32, wave uint32) slot {
	return slot{stype: ambient1, volume: volume, variants: []variant{{wave, 1}}}
}

// Every child with more than one real variant repeats its first variant
// last: retail picks index trunc((N−1)·u), so the last record of a child with
// N ≥ 2 is never played (docs/retail.md §R5), and a duplicate keeps all real ones
// in play. A child of one record always plays it.

// STB indices into the region's SoundDesc (and SceneTypes, one each).
const (
	stbMeadowLively = iota
	stbMeadowQuiet
	stbForest
	stbRiver
	stbCoast
	stbSnow
	stbDesert
	stbMarsh
	stbRock
	numSTBs
)

// SoundTable ids.
const (
	tMeadow = 0x20000101 + iota
	tForest
	tRiver
	tCoast
	tSnow
	tDesert
	tMarsh
	tRock
)

var (
	songbirds = []variant{{wSongbirdA, 0.9}, {wSongbirdB, 0.8}, {wSongbirdC, 0.75}, {wSongbirdA, 0.9}}
	crickets  = []variant{{wCricketsA, 0.8}, {wCricketsB, 0.7}, {wCricketsA, 0.8}}
	wolves    = []variant{{wWolfHowlA, 0.8}, {wWolfHowlB, 0.8}, {wWolfHowlA, 0.8}}
	splashes  = []variant{{wSplashA, 0.8}, {wSplashB, 0.7}, {wSplashA, 0.8}}
	gusts     = []variant{{wGustA, 0.85}, {wGustB, 0.75}, {wGustA, 0.85}}
)

// stbs is the demo's SoundDesc, in order. Volumes follow docs/retail.md §R6: a bed
// plays at volume × its share of the nearby cells (and fires only while that
// is ≥ 0.03); a one-shot at 25·volume/r² from its placement r metres away, so
// one-shot volumes are high and their waves near full scale.
var stbs = [numSTBs]stb{
	stbMeadowLively: {"meadow (lively)", tMeadow, []slot{
		bed(0.55, wMeadowBreeze),
		{ambient2, 0.9, 0.6, 4, 10, songbirds},
		{ambient3, 0.6, 0.35, 6, 14, crickets},
	}},
	stbMeadowQuiet: {"meadow (quiet)", tMeadow, []slot{
		bed(0.45, wMeadowBreeze),
		{ambient2, 0.75, 0.25, 8, 20, songbirds},
	}},
	stbForest: {"forest", tForest, []slot{
		bed(0.6, wForestLeaves),
		{ambient2, 0.85, 0.5, 5, 12, []variant{{wThrushA, 0.85}, {wThrushB, 0.75}, {wThrushA, 0.85}}},
		{ambient3, 0.7, 0.25, 10, 25, []variant{{wCuckoo, 0.7}}},
		{ambient4, 0.75, 0.2, 12, 30, []variant{{wWoodpecker, 0.6}}},
		{ambient5, 0.9, 0.1, 20, 45, wolves},
	}},
	stbRiver: {"river", tRiver, []slot{
		bed(1.0, wRiverFlow), // a river is narrow (one or two vertices): full volume so the water leads when you stand in it
		{ambient2, 0.8, 0.4, 6, 14, splashes},
		{ambient3, 0.7, 0.15, 10, 20, []variant{{wFrog, 0.6}, {wBullfrog, 0.5}, {wFrog, 0.6}}},
	}},
	stbCoast: {"coast", tCoast, []slot{
		bed(0.85, wSurf),
		{ambient2, 0.9, 0.5, 5, 15, []variant{{wGullA, 0.9}, {wGullB, 0.8}, {wGullA, 0.9}}},
		{ambient3, 0.7, 0.2, 8, 16, splashes},
	}},
	stbSnow: {"snowfield", tSnow, []slot{
		bed(0.7, wColdWind),
		{ambient2, 0.8, 0.6, 4, 10, gusts},
		{ambient3, 0.9, 0.15, 15, 40, wolves},
	}},
	stbDesert: {"desert", tDesert, []slot{
		bed(0.6, wDesertWind),
		{ambient2, 0.7, 0.5, 5, 12, gusts},
		{ambient3, 0.85, 0.2, 12, 30, []variant{{wHawk, 0.8}}},
	}},
	stbMarsh: {"marsh", tMarsh, []slot{
		bed(0.7, wMarshHum),
		{ambient2, 0.85, 0.8, 3, 8, []variant{{wFrog, 0.8}, {wBullfrog, 0.7}, {wFrog, 0.8}}},
		{ambient3, 0.6, 0.4, 5, 12, crickets},
		{ambient4, 0.6, 0.25, 8, 20, []variant{{wPlop, 0.7}}},
	}},
	stbRock: {"rock", tRock, []slot{
		bed(0.6, wHollowWind),
		{ambient2, 0.7, 0.4, 6, 14, gusts},
		{ambient3, 0.85, 0.3, 8, 20, []variant{{wRavenA, 0.8}, {wRavenB, 0.75}, {wRavenA, 0.8}}},
		{ambient4, 0.9, 0.1, 20, 40, wolves},
	}},
}

// soundDesc builds the region's SoundDesc; bedLen gives each bed wave's
// decoded length in seconds.
func soundDesc(bedLen map[uint32]float64) *dat.SoundDesc {
	sd := &dat.SoundDesc{}
	for _, s := range stbs {
		d := dat.AmbientSTBDesc{STBID: dat.DID(s.table)}
		for _, sl := range s.slots {
			a := dat.AmbientSoundDesc{SType: sl.stype, Volume: sl.volume, BaseChance: sl.chance, MinRate: sl.minRate, MaxRate: sl.maxRate}
			if sl.chance == 0 {
				a.MinRate = float32(bedLen[sl.variants[0].wave] - synth.BedFade)
				a.MaxRate = a.MinRate
			}
			d.AmbientSounds = append(d.AmbientSounds, a)
		}
		sd.STBDescs = append(sd.STBDescs, d)
	}
	return sd
}

// soundTables builds each SoundTable once (the two meadow sets share one):
// root hash_key 0 with retail's placeholder record {0, 0, 1, 1} (docs/dat-format.md §4),
// then one child per stype.
func soundTables() []*dat.SoundTable {
	var out []*dat.SoundTable
	seen := map[uint32]bool{}
	for _, s := range stbs {
		if seen[s.table] {
			// A later STB on the same table may use only slots the first
			// defined; the test of the built world checks every stype resolves.
			continue
		}
		seen[s.table] = true
		t := &dat.SoundTable{ID: dat.DID(s.table), Root: dat.SoundNode{
			Records:  []dat.SoundRecord{{WaveID: 0, Priority: 0, Probability: 1, Volume: 1}},
			Children: []dat.SoundNode{},
		}}
		for _, sl := range s.slots {
			n := dat.SoundNode{HashKey: sl.stype, Children: []dat.SoundNode{}}
			for _, v := range sl.variants {
				n.Records = append(n.Records, dat.SoundRecord{WaveID: dat.DID(v.wave), Probability: v.prob, Volume: 1})
			}
			t.Root.Children = append(t.Root.Children, n)
		}
		out = append(out, t)
	}
	return out
}
