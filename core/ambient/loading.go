package ambient

// WaveLoader is a Library that hands out SoundTables before their waves:
// the page's progressive start (docs/divergences.md). Retail decodes every
// wave of a table when the table loads, so a fire never finds its wave
// missing for want of time; here one may. The engine then skips a fire
// whose wave is on its way as "loading" (not "noWave"), and a ConstantSound
// skipped so starts on the first tick its wave is there, rather than a
// whole min_rate later. trace, render and gather use a plain Library, their
// tables whole: none of this happens there.
type WaveLoader interface {
	Library
	// WaveLoading reports whether the wave is still on its way: neither
	// decoded nor known missing or undecodable.
	WaveLoading(id uint32) bool
}

func (e *Engine) waveLoading(id uint32) bool {
	l, ok := e.lib.(WaveLoader)
	return ok && id != 0 && l.WaveLoading(id)
}

// wait notes that a ConstantSound's fire found its wave loading.
func (e *Engine) wait(in *instance, wave uint32) {
	if !in.constant {
		return
	}
	if in.waiting == 0 {
		e.waiting++
	}
	in.waiting = wave
}

// unwait clears it: the sound fires again (and waits again if it must).
func (e *Engine) unwait(in *instance) {
	if in.waiting != 0 {
		in.waiting = 0
		e.waiting--
	}
}

// startArrived plays now every ConstantSound whose wave has arrived since a
// fire found it loading, and re-keys it from now (Ambient::Play's rule).
// One that can no longer be heard, or whose wave turned out missing, is
// left to its queue.
func (e *Engine) startArrived(now float64) {
	for i := range e.sounds {
		in := &e.sounds[i]
		if in.waiting == 0 || e.waveLoading(in.waiting) {
			continue
		}
		_, ok := e.lib.Wave(in.waiting)
		e.unwait(in)
		if !ok || !in.canHear(&e.stbs[in.stb]) {
			continue
		}
		e.queue.remove(int32(i))
		e.play(now, int32(i))
	}
}

// HearingOrder lists the waves of the tables the engine holds in the order
// the instances of the last rebuild will want them, for a host that fetches
// waves as they are needed: first those the ConstantSounds can pick, the
// loudest first (current_volume); then those the IntermitSounds can pick,
// the likeliest first (their share), the nearer first among equals (their
// nearest band); then every other wave of those tables (the last of two or
// more variants, never picked; other sound types). GetSound picks
// trunc((N−1)·RollDice(0, 1)), so of N ≥ 2 variants the first N−1 can be
// picked (docs/retail.md §R5). Each wave is listed once.
func (e *Engine) HearingOrder() []uint32 {
	type cand struct {
		n     int
		share float64
		near  float32
	}
	var constants, intermits []cand
	for i := range e.sounds {
		in := &e.sounds[i]
		st := &e.stbs[in.stb]
		if st.table == nil || !in.canHear(st) {
			continue
		}
		c := cand{n: i}
		if e.total != 0 {
			c.share = float64(in.soundCount) / float64(e.total)
		}
		if in.constant {
			c.share = float64(in.currentVolume)
			constants = append(constants, c)
			continue
		}
		c.near = in.minDist[0]
		for d := 1; d < in.numDir; d++ {
			c.near = min(c.near, in.minDist[d])
		}
		intermits = append(intermits, c)
	}
	// By hand: a dozen instances, and a sort of its own type would cost the
	// browser's wasm 12 KB.
	sortCands := func(cs []cand) {
		before := func(a, b cand) bool {
			if a.share != b.share {
				return a.share > b.share
			}
			if a.near != b.near {
				return a.near < b.near
			}
			return a.n < b.n
		}
		for i := 1; i < len(cs); i++ {
			for j := i; j > 0 && before(cs[j], cs[j-1]); j-- {
				cs[j], cs[j-1] = cs[j-1], cs[j]
			}
		}
	}
	sortCands(constants)
	sortCands(intermits)

	var out []uint32
	seen := map[uint32]bool{}
	add := func(id uint32) {
		if id != 0 && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, c := range append(constants, intermits...) {
		in := &e.sounds[c.n]
		node := lookup(e.stbs[in.stb].table, in.desc.SType)
		if node == nil {
			continue
		}
		picks := max(1, len(node.Records)-1)
		for _, r := range node.Records[:min(picks, len(node.Records))] {
			add(uint32(r.WaveID))
		}
	}
	for k := range e.stbs {
		if t := e.stbs[k].table; t != nil {
			for _, id := range t.WaveIDs() {
				add(id)
			}
		}
	}
	return out
}
