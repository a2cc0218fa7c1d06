package session

// HeldStats is what the host holds now, by kind: for long sessions (the
// page's stats(), bench/soak), where what matters is that it stays bounded.
type HeldStats struct {
	Blocks    int   `json:"blocks"`    // landblocks decoded (known missing ones not counted)
	Cells     int   `json:"cells"`     // EnvCells
	Tables    int   `json:"tables"`    // SoundTables
	Waves     int   `json:"waves"`     // decoded waves the tables near the player name
	WaveBytes int64 `json:"waveBytes"` // their samples (Stats.HeldBytes)
	Kept      int   `json:"kept"`      // decoded waves kept after the host let them go (Options.KeepWaveBytes)
	KeptBytes int64 `json:"keptBytes"` // what they cost, as that bound counts it
}

// Stats is what the host fetched and holds (Snapshot's Loading), without
// the rest of the snapshot.
func (h *Host) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.statsLocked()
}

func (h *Host) statsLocked() Stats {
	s := h.ld.snapshot()
	s.Trouble = h.troubleLocked()
	s.LoadingSkips = h.skips
	if h.wavesDue {
		s.Pending++ // the waves of a load that ended are asked for at the next tick
	}
	return s
}

// Held reports what the host holds now.
func (h *Host) Held() HeldStats { return h.ld.held() }

func (l *loader) held() HeldStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := HeldStats{Tables: len(l.tables), WaveBytes: l.stats.HeldBytes, Kept: l.kept.Len(), KeptBytes: l.kept.Bytes()}
	for _, b := range l.blocks {
		if b != nil {
			s.Blocks++
		}
	}
	for _, c := range l.cells {
		if c != nil {
			s.Cells++
		}
	}
	for _, w := range l.waves {
		if w.pcm != nil {
			s.Waves++
		}
	}
	return s
}
