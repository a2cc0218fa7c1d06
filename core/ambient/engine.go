// Package ambient is the retail Asheron's Call ambient sound engine
// (docs/retail.md;
// §R8 and §R11 say which first reading wins): the gather of sound
// instances from the land cells around the player on a cell change, the
// play queue, placement, gain, pan and the voice pool.
//
// The engine is synchronous and pure. It does no I/O and starts no
// goroutines; the host (core/session) supplies records through Library and
// Land, the time as absolute seconds, and receives the engine's decisions
// as Events. It makes no sound itself: a play event names its wave, its
// whole-dB gain and pan and the voice slot it took, and a mixer (core/mix)
// voices it in that slot. State, Cells, NextPlays and Voices report the
// engine for a page. An Engine is not safe for concurrent use; Tables, a
// value of the region, is.
package ambient

import (
	"math"

	"acambient/core/dat"
	"acambient/core/world"
)

// Status is the host's answer about a SoundTable.
type Status int

const (
	// Pending: not known yet. The STB is absent for this rebuild and is
	// asked for again on the next one (the host rebuilds when it arrives).
	Pending Status = iota
	// Loaded: the table is usable and its waves are decoded, as retail
	// decodes every wave of a table when the table loads (a WaveLoader
	// library, the page's, hands it out before its waves: loading.go).
	Loaded
	// NotFound: retail's stb_not_found. Cached for the engine's life and
	// never asked for again, as retail never resets the flag.
	NotFound
)

// Library gives the engine SoundTables and wave durations.
type Library interface {
	// SoundTable returns the table with id; a Loaded status with a nil table
	// counts as Pending.
	SoundTable(id uint32) (*dat.SoundTable, Status)
	// Wave returns the wave's duration in seconds; ok is false when the wave
	// is missing or undecodable.
	Wave(id uint32) (seconds float64, ok bool)
}

// Land gives the engine landblocks and EnvCells.
type Land interface {
	// LandBlock returns landblock (bx, by), or nil when it is missing; a
	// missing landblock contributes nothing, as retail skips a NULL one.
	LandBlock(bx, by int) *dat.LandBlock
	// EnvCell returns the interior cell, or nil when it is missing; a
	// missing cell counts as one with seen_outside clear.
	EnvCell(id uint32) *dat.EnvCell
}

// Config holds the user's sound options and the random seed. Start from
// DefaultConfig: the zero Config is muted and disabled.
type Config struct {
	Seed    uint32  // seeds both Random::rand (ran2) and the CRT rand() (docs/interfaces.md §1.3)
	Volume  float32 // the ambient slider A in [0, 1]
	Enabled bool    // SoundManager::ambient_sounds_enabled
	Mono    bool    // s_SoundFeatures == 1: retail pans only in stereo
}

// DefaultConfig is retail's default options: slider 1, ambient sounds on,
// stereo (acclient_data.h:6682-6683), seed 0 (ran2 then starts from 1).
func DefaultConfig() Config { return Config{Volume: 1, Enabled: true} }

// Engine is the retail Ambient object plus the parts of CellManager and
// SoundManager the ambient path uses.
type Engine struct {
	land Land
	lib  Library
	mono bool

	volume  float32 // SoundManager::ambient_sound_volume
	enabled bool    // SoundManager::ambient_sounds_enabled

	tables  *Tables      // docs/dat-format.md §3.11 chain with its tables, resolved once
	stbs    []stbState   // per region AmbientSTBDesc
	heights [256]float32 // LandDefs::Land_Height_Table

	// Ambient
	playerPos  world.Position // player_pos, set by InitSounds
	total      float32        // total_sound_count
	sounds     []instance     // sounds[], in creation order; kept for the engine's life
	live       []int32        // the instances the last rebuild's gather reached, in first-reach order
	queue      playQueue      // sound_queue
	outdoorish bool
	cells      int          // land cells that passed AddSound's tests this rebuild
	cellLog    []CellWeight // those cells, for the page's heat map (Cells)

	// CellManager
	loaded   bool   // a rebuild has happened since New or Reset (curr_cell != NULL)
	loadPos  uint32 // load_pos.objcell_id
	rebuilds uint64 // rebuilds so far; 0 is never a rebuild's number

	// SoundManager
	camera        world.Position // player_position_: the listener
	cameraHeading float32        // Frame::get_heading of the listener, compass degrees
	cameraSet     bool           // until SetCamera, the camera follows the player
	voices        voicePool

	waiting int // ConstantSounds waiting for a wave (WaveLoader)

	rand ran2
	crt  crtRand

	rebuildEvents, tickEvents []Event
	sink                      *[]Event
}

// New makes an engine for region. land and lib may be nil (nothing loads).
func New(region *dat.Region, land Land, lib Library, cfg Config) *Engine {
	e := &Engine{
		land:    land,
		lib:     lib,
		mono:    cfg.Mono,
		enabled: cfg.Enabled,
		tables:  NewTables(region),
		heights: world.HeightTable(region),
	}
	e.SetVolume(cfg.Volume)
	if region != nil && region.SoundInfo != nil {
		descs := region.SoundInfo.STBDescs
		e.stbs = make([]stbState, len(descs))
		for k := range descs {
			inst := make([]int32, len(descs[k].AmbientSounds))
			for i := range inst {
				inst[i] = -1
			}
			e.stbs[k] = stbState{desc: &descs[k], inst: inst}
		}
	}
	e.rand.seed(cfg.Seed)
	e.crt.state = cfg.Seed
	e.sink = &e.rebuildEvents
	return e
}

// SetCamera sets the listener that placement and pan use at fire time
// (retail SoundManager::player_position_, set by SmartBox::set_viewer), with
// its compass heading in degrees (0 = north, 90 = east). A camera with a
// coordinate or heading that is not a finite number is ignored.
func (e *Engine) SetCamera(p world.Position, headingDeg float64) {
	if !finite(p.X, p.Y, p.Z, float32(headingDeg)) {
		return
	}
	e.camera, e.cameraHeading, e.cameraSet = p, float32(headingDeg), true
}

// SetVolume sets the ambient slider, clamped to retail's UI range [0, 1].
func (e *Engine) SetVolume(a float32) {
	switch {
	case !(a > 0): // also NaN
		e.volume = 0
	case a > 1:
		e.volume = 1
	default:
		e.volume = a
	}
}

// SetEnabled is the "Ambient Sound Disabled" option. As in retail it only
// gates AddSound, UpdatePlayQueue and UseTime; nothing is rebuilt until the
// next cell change.
func (e *Engine) SetEnabled(on bool) { e.enabled = on }

// Cut is the engine's side of a mixer that cuts every voice at now (mix's
// FadeAll: the listener went off the data, docs/interfaces.md §4): the
// slots those voices held are free from now, and each sound they were
// playing is due again at now, so that it fires at the first tick the
// engine runs after it — the next tick when it is enabled, the first tick
// back on the data when it is held disabled meanwhile. Without it a cut
// continuous sound (a river's bed, re-keyed min_rate ≈ its wave's length
// after it fired) stayed silent until its old key came, up to that wave's
// length after the listener was back. Not retail's: retail never cuts its
// ambient voices (docs/divergences.md, 18).
func (e *Engine) Cut(now float64) {
	for s := range e.voices.slots {
		v := &e.voices.slots[s]
		if !v.used || now >= v.end {
			continue
		}
		v.end = now
		ev := &v.play
		if ev.STBIndex < 0 || ev.STBIndex >= len(e.stbs) || ev.SoundIndex < 0 || ev.SoundIndex >= len(e.stbs[ev.STBIndex].inst) {
			continue
		}
		if n := e.stbs[ev.STBIndex].inst[ev.SoundIndex]; n >= 0 && e.sounds[n].onQueue && e.queue.remove(n) {
			e.queue.insert(now, n)
		}
	}
}

// Events returns the events produced by the last ChangePosition (the plays
// of its UpdatePlayQueue). The slice is reused by the next ChangePosition.
func (e *Engine) Events() []Event { return e.rebuildEvents }

// Instances is the number of sound instances the engine has created and
// holds (retail's GetSound keeps every one for the engine's life; State
// lists only those the last rebuild reached).
func (e *Engine) Instances() int { return len(e.sounds) }

// Voices lists the pool slots still sounding at now, by slot: the one
// record of the sixteen voices, which the page shows and a mixer follows
// (each play event names the slot it took).
func (e *Engine) Voices(now float64) []Voice {
	out := []Voice{}
	for _, v := range e.voices.slots {
		if v.used && now < v.end {
			out = append(out, Voice{Play: v.play, End: v.end})
		}
	}
	return out
}

func (e *Engine) emit(ev Event) { *e.sink = append(*e.sink, ev) }

// heightZ is the vertex height of a height byte (docs/dat-format.md §6.4).
func (e *Engine) heightZ(h uint8) float32 { return e.heights[h] }

// finiteKey guards the play queue: retail re-keys at now + interval, and a
// negative interval would sort before now and make UseTime pop the same
// sound forever; NaN would never compare. Both become 0 (fire next tick).
func finiteKey(interval float64) float64 {
	if !(interval >= 0) {
		return 0
	}
	return interval
}

func finite(vs ...float32) bool {
	for _, v := range vs {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}
