package session

import (
	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/dat"
	"acambient/core/world"
)

// Snapshot is the host at one instant, taken under one lock: everything
// the page's state() shows (docs/interfaces.md §3.2).
type Snapshot struct {
	// The engine as of its last rebuild, in the shape `gather` prints:
	// player, outdoorish, totalSoundCount, contributingCells, and sounds —
	// what gather reports at this position, in its order.
	ambient.State
	// HeldInstances is how many instances the engine holds: those of every
	// position it was at (retail keeps them, at count 0), the listed ones
	// included.
	HeldInstances int `json:"heldInstances"`
	// Voices are the voices sounding at the last tick, by slot: each the
	// play that took it (docs/interfaces.md §1.3's keys), its end and its slot.
	Voices []ambient.Voice `json:"voices"`
	// Loading is what the host fetched and holds.
	Loading Stats `json:"loading"`
	// Where is the engine's player (State.Player) in every form.
	Where world.Where `json:"where"`
	// Cells are the land cells that weighted the last rebuild, in AddSound's
	// order (the page's heat map, a voice's origin).
	Cells []ambient.CellWeight `json:"cells"`
	// Next is, per sound, when it next fires (audio-clock seconds), −1 when
	// it is not queued.
	Next []float64 `json:"next"`
	// Time is the audio clock: the time of the last Tick, in seconds.
	Time float64 `json:"time"`
}

// Snapshot reports the host as of its last tick.
func (h *Host) Snapshot() Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.eng.State()
	cells := h.eng.Cells()
	if cells == nil {
		cells = []ambient.CellWeight{}
	}
	return Snapshot{
		State:         st,
		HeldInstances: h.eng.Instances(),
		Voices:        h.eng.Voices(h.now),
		Loading:       h.statsLocked(),
		Where:         world.WhereOf(st.Player),
		Cells:         cells,
		Next:          h.eng.NextPlays(),
		Time:          h.now,
	}
}

// Region is the region record the host loaded at New (the page's map
// colours and legend come from it). It must not be modified.
func (h *Host) Region() *dat.Region { return h.ld.region }

// Land is the cell source as the host reads it: it remembers which
// landblocks the source lacks. A map drawing tiles should read through it,
// so that neither asks for a missing landblock the other already asked for.
func (h *Host) Land() *Landblocks { return h.ld.cell }

// Landblock reports whether the cell source holds landblock (bx, by), as
// far as the host knows: from a fetch, a not-found, or the listing.
func (h *Host) Landblock(bx, by int) Presence { return h.ld.cell.Presence(bx, by) }

// Landblocks writes what the host knows of every landblock into dst, unless
// nothing changed since the call that returned since (Landblocks.PresenceAll;
// 0 asks for the first time).
func (h *Host) Landblocks(dst []byte, since uint64) (uint64, bool) {
	return h.ld.cell.PresenceAll(dst, since)
}

// PCM is a decoded wave the host holds, or nil.
func (h *Host) PCM(wave uint32) *audio.PCM { return h.ld.pcm(wave) }

// Retained reports whether the host still holds the wave; once it does not,
// a mixer may drop its resampled copy.
func (h *Host) Retained(wave uint32) bool { return h.ld.retained(wave) }
