package session

import (
	"acambient/core/ambient"
	"acambient/core/dat"
)

// Region is the region record the host loaded at New (the page's map
// colours and legend come from it). It must not be modified.
func (h *Host) Region() *dat.Region { return h.ld.region }

// Cells lists the land cells that weighted the last rebuild (the page's heat
// map and each voice's origin).
func (h *Host) Cells() []ambient.CellWeight {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.eng.Cells()
}

// Now is the time of the last Tick.
func (h *Host) Now() float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// NextPlays is when each instance next fires (−1: not queued), in the order
// of State().Sounds.
func (h *Host) NextPlays() []float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.eng.NextPlays()
}
