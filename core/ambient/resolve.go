package ambient

import "acambient/core/dat"

// stbState is the runtime half of retail AmbientSTBDesc (acclient.h struct
// 3763): the lazily resolved SoundTable, the stb_not_found negative cache and
// the per-rebuild play_count. Retail shares one per region entry, so every
// cell naming the STB shares this state.
type stbState struct {
	desc      *dat.AmbientSTBDesc
	table     *dat.SoundTable // sound_table, nil until InitSoundTable succeeds
	notFound  bool            // stb_not_found: set once, never reset
	playCount uint32          // play_count: sounds of this STB audible this rebuild
	pendingAt uint64          // the rebuild in which the host last answered Pending
	inst      []int32         // instance index per ambient sound, −1 = not yet created
}

// sceneOrdinals is the 5-bit range of a terrain word's scene ordinal (w >> 11)
// and terrainTypes the 5-bit range of its type ((w >> 2) & 0x1F), docs/dat-format.md §6.2.
const (
	terrainTypes  = 32
	sceneOrdinals = 32
	noSTB         = NoSTB
)

// NoSTB marks a (terrain type, scene ordinal) of Chain that names no sound set.
const NoSTB = -1

// Chain is the docs/dat-format.md §3.11 chain resolved for every terrain word: Chain[type][ordinal]
// is an index into the region's SoundDesc, or NoSTB.
type Chain = [terrainTypes][sceneOrdinals]int32

// ResolveChain precomputes the docs/dat-format.md §3.11 chain (dat.Region.STBDesc) for every
// (terrain type, scene ordinal) a terrain word can hold, so that
// CTerrainDesc::GetSTBDesc (0x00502400) becomes one table lookup per cell.
// 0xFFFFFFFF and any out-of-range index are "none" at every hop; retail
// resolves the indices to pointers at CRegionDesc::UnPack (0x004FF440)
// without a bounds check (docs/dat-format.md §10.9).
func ResolveChain(r *dat.Region) (chain Chain) {
	for t := range chain {
		for s := range chain[t] {
			chain[t][s] = noSTB
			if r == nil {
				continue
			}
			if k, ok := r.STBDesc(uint32(t), uint32(s)); ok {
				chain[t][s] = int32(k)
			}
		}
	}
	return chain
}

// Tables is the region's chain through to the SoundTable each terrain word
// names: ResolveChain's STB index and that STB's table id. It depends on the
// region alone and never changes once built: an engine holds one, and so
// does a host's loader, which fetches the SoundTables a ring's terrain names
// before the rebuild that reads them; either may read it from any goroutine.
type Tables struct {
	chain Chain
	ids   []uint32 // per STB index: its SoundTable id (0: INVALID_DID)
}

// NewTables resolves r's chain (ResolveChain) and its STBs' table ids. A nil
// region, or one without sound info, names nothing.
func NewTables(r *dat.Region) *Tables {
	t := &Tables{chain: ResolveChain(r)}
	if r != nil && r.SoundInfo != nil {
		for _, d := range r.SoundInfo.STBDescs {
			t.ids = append(t.ids, uint32(d.STBID))
		}
	}
	return t
}

// STB is the STB index a terrain word names, or NoSTB.
func (t *Tables) STB(word uint16) int { return int(t.chain[(word>>2)&0x1F][word>>11]) }

// Table is the SoundTable id a terrain word names, the lookup stbDesc makes
// without loading anything: a host loads exactly these before a rebuild.
func (t *Tables) Table(word uint16) (uint32, bool) {
	k := t.STB(word)
	if k == noSTB || k >= len(t.ids) || t.ids[k] == 0 {
		return 0, false
	}
	return t.ids[k], true
}

// stbDesc is CRegionDesc::GetSTBDesc (0x004FEAB0) for one terrain word: the
// STB index, or −1 when the chain is empty or its SoundTable is not (yet)
// available, in which case retail adds nothing for the cell.
func (e *Engine) stbDesc(word uint16) int {
	k := e.tables.STB(word)
	if k == noSTB {
		return noSTB
	}
	st := &e.stbs[k]
	if st.table == nil && !e.initSoundTable(st) {
		return noSTB
	}
	return k
}

// HeldTables calls fn with the id of every SoundTable the engine holds (loaded
// and not yet dropped by ReleaseSoundTables): the host must keep their waves.
func (e *Engine) HeldTables(fn func(id uint32)) {
	for i := range e.stbs {
		if e.stbs[i].table != nil {
			fn(uint32(e.stbs[i].desc.STBID))
		}
	}
}

// initSoundTable is AmbientSTBDesc::InitSoundTable (0x004FEA60): a table that
// was not found is never asked for again; a Pending one is absent for the
// rest of this rebuild and is asked for again in the next.
func (e *Engine) initSoundTable(st *stbState) bool {
	if st.notFound || st.desc.STBID == 0 || st.pendingAt == e.rebuilds { // 0 is INVALID_DID
		return false
	}
	if e.lib == nil {
		return false
	}
	t, status := e.lib.SoundTable(uint32(st.desc.STBID))
	switch {
	case status == Loaded && t != nil:
		st.table = t
		return true
	case status == NotFound:
		st.notFound = true
	default:
		st.pendingAt = e.rebuilds
	}
	return false
}

// lookup is CSoundTable::Lookup (cstable.c:402): only the root's direct
// children, by hash key; it does not recurse.
func lookup(t *dat.SoundTable, stype uint32) *dat.SoundNode {
	for i := range t.Root.Children {
		if t.Root.Children[i].HashKey == stype {
			return &t.Root.Children[i]
		}
	}
	return nil
}
