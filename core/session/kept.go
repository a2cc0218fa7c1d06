package session

import (
	"acambient/datfetch/source"
)

// The decoded waves a host let go of (evict: the tables near the player no
// longer name them) are kept in a byte-bounded LRU (Options.KeepWaveBytes)
// rather than dropped: a return to a place visited in the last minutes
// then neither fetches them again nor decodes them again. Decoding is the
// cost that matters in the page, where it runs on the one thread the audio
// shares (an MP3 of the demo's takes ~0.15 s natively); the record caches
// below already spare the network. Waves known to be missing or
// undecodable are kept too, at the cost of the entry, so that a return
// does not ask for them again. A kept wave is not Retained: the mixer lets
// its resampled copy go, and resamples it again when it plays again.

// newKept is the LRU of kept waves, nil (keeping nothing) when max ≤ 0.
func newKept(max int64) *source.Cache[waveEntry] {
	return source.NewCache(max, func(w waveEntry) int64 {
		if w.pcm == nil {
			return 0
		}
		return w.pcm.Samples.Bytes() // its blocks (core/samples)
	})
}

// keepLocked keeps a wave evict lets go of.
func (l *loader) keepLocked(id uint32, w waveEntry) {
	l.kept.Put(id, w)
}

// restore takes back from the kept waves those among ids, as if they had
// arrived, and returns the ids still to fetch.
func (l *loader) restore(ids []uint32) []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.restoreLocked(ids)
}

func (l *loader) restoreLocked(ids []uint32) []uint32 {
	if l.kept == nil {
		return ids
	}
	out := ids[:0:0]
	for _, id := range ids {
		w, ok := l.kept.Get(id)
		if !ok {
			out = append(out, id)
			continue
		}
		l.kept.Remove(id)
		if _, known := l.waves[id]; known {
			continue
		}
		l.waves[id] = w
		l.stats.HeldBytes += w.bytes
		l.waved++ // a wave changes no rebuild (loader.setWave)
	}
	return out
}
