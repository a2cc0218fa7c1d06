package ambient

import (
	"acambient/core/dat"
	"acambient/core/world"
)

// State is the engine after its last rebuild, in the shape of docs/interfaces.md §1.2.
type State struct {
	Player            world.Position `json:"player"` // Ambient::player_pos of the last rebuild
	Outdoorish        bool           `json:"outdoorish"`
	TotalSoundCount   float32        `json:"totalSoundCount"`
	ContributingCells int            `json:"contributingCells"`
	// Sounds are the instances the last rebuild's gather reached, in the
	// order it first reached them: what `gather` reports at this position,
	// in its order (a fresh engine creates its instances in that order).
	// Instances earlier rebuilds made, which retail keeps at count 0, are
	// not listed (Engine.Instances counts them).
	Sounds []SoundState `json:"sounds"`
}

// SoundState is one instance.
type SoundState struct {
	STBIndex      int       `json:"stbIndex"`
	STBID         dat.DID   `json:"stbId"`
	SoundIndex    int       `json:"soundIndex"`
	SType         uint32    `json:"sType"`
	Continuous    bool      `json:"continuous"`
	SoundCount    float32   `json:"soundCount"`
	Share         float64   `json:"share"`         // soundCount / totalSoundCount, 0 when the total is 0
	CurrentVolume float32   `json:"currentVolume"` // ConstantSound only, else 0
	PlayChance    float32   `json:"playChance"`    // IntermitSound only, else 0
	Authored      Authored  `json:"authored"`
	Dirs          []DirBand `json:"dirs"` // IntermitSound bands in registration order; [] for constant
}

// Authored is the region's AmbientSoundDesc.
type Authored struct {
	Volume     float32 `json:"volume"`
	BaseChance float32 `json:"baseChance"`
	MinRate    float32 `json:"minRate"`
	MaxRate    float32 `json:"maxRate"`
}

// DirBand is one IntermitSound direction (1..8, LandDefs::Direction) and its
// placement band in metres.
type DirBand struct {
	Dir int     `json:"dir"`
	Min float32 `json:"min"`
	Max float32 `json:"max"`
}

// State reports the engine as of its last rebuild.
func (e *Engine) State() State {
	s := State{
		Player:            e.playerPos,
		Outdoorish:        e.outdoorish,
		TotalSoundCount:   e.total,
		ContributingCells: e.cells,
		Sounds:            make([]SoundState, 0, len(e.live)),
	}
	for _, n := range e.live {
		in := &e.sounds[n]
		ss := SoundState{
			STBIndex:   in.stb,
			STBID:      e.stbs[in.stb].desc.STBID,
			SoundIndex: in.idx,
			SType:      in.desc.SType,
			Continuous: in.constant,
			SoundCount: in.soundCount,
			Authored: Authored{
				Volume: in.desc.Volume, BaseChance: in.desc.BaseChance,
				MinRate: in.desc.MinRate, MaxRate: in.desc.MaxRate,
			},
			Dirs: []DirBand{},
		}
		if e.total != 0 {
			ss.Share = float64(in.soundCount) / float64(e.total)
		}
		if in.constant {
			ss.CurrentVolume = in.currentVolume
		} else {
			ss.PlayChance = in.playChance
			for d := 0; d < in.numDir; d++ {
				ss.Dirs = append(ss.Dirs, DirBand{Dir: int(in.dirs[d]), Min: in.minDist[d], Max: in.maxDist[d]})
			}
		}
		s.Sounds = append(s.Sounds, ss)
	}
	return s
}
