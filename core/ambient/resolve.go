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
// and terrainTypes the 5-bit range of its type ((w >> 2) & 0x1F), spec §6.2.
const (
	terrainTypes  = 32
	sceneOrdinals = 32
	noSTB         = NoSTB
)

// NoSTB marks a (terrain type, scene ordinal) of Chain that names no sound set.
const NoSTB = -1

// Chain is the §3.11 chain resolved for every terrain word: Chain[type][ordinal]
// is an index into the region's SoundDesc, or NoSTB.
type Chain = [terrainTypes][sceneOrdinals]int32

// ResolveChain precomputes the §3.11 chain (dat.Region.STBDesc) for every
// (terrain type, scene ordinal) a terrain word can hold, so that
// CTerrainDesc::GetSTBDesc (0x00502400) becomes one table lookup per cell.
// 0xFFFFFFFF and any out-of-range index are "none" at every hop; retail
// resolves the indices to pointers at CRegionDesc::UnPack (0x004FF440)
// without a bounds check (dat-format §10.9).
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

// stbDesc is CRegionDesc::GetSTBDesc (0x004FEAB0) for one terrain word: the
// STB index, or −1 when the chain is empty or its SoundTable is not (yet)
// available, in which case retail adds nothing for the cell.
func (e *Engine) stbDesc(word uint16) int {
	k := int(e.chain[(word>>2)&0x1F][word>>11])
	if k == noSTB {
		return noSTB
	}
	st := &e.stbs[k]
	if st.table == nil && !e.initSoundTable(st) {
		return noSTB
	}
	return k
}

// TableOf is the SoundTable id a terrain word names through the region's
// chain, the same lookup stbDesc makes, without loading anything: the host
// loads exactly these before a rebuild. It reads only what New fixed, so it
// is safe to call from any goroutine.
func (e *Engine) TableOf(word uint16) (uint32, bool) {
	k := int(e.chain[(word>>2)&0x1F][word>>11])
	if k == noSTB || e.stbs[k].desc.STBID == 0 {
		return 0, false
	}
	return uint32(e.stbs[k].desc.STBID), true
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
