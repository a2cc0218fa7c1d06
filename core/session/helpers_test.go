package session

// complete reports whether the last rebuild had every record it reads.
func (h *Host) complete() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.placed && !h.rebuild.lacking()
}

// idle reports whether no background load is running.
func (h *Host) idle() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.load.running()
}

// wantsTables reports whether a load has asked for a SoundTable (one is in
// flight).
func (l *loader) fetching() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats.Pending > 0
}
