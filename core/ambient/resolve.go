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
	noSTB         = -1
)

// Chain is the region's terrain → scene → STB → SoundTable chain (§3.11,
// dat.Region.STBDesc) resolved once for every (terrain type, scene ordinal)
// a terrain word can hold, so that CTerrainDesc::GetSTBDesc (0x00502400)
// becomes one table lookup per cell. It depends on the region alone and
// never changes once built: an engine holds one, and so does a host's
// loader, which fetches the SoundTables a ring's terrain names before the
// rebuild that reads them; either may read it from any goroutine.
type Chain struct {
	stb    [terrainTypes][sceneOrdinals]int32 // STB index, or noSTB
	tables []uint32                           // per STB index: its SoundTable id (0: INVALID_DID)
}

// NewChain resolves r's chain. 0xFFFFFFFF and any out-of-range index are
// "none" at every hop; retail resolves the indices to pointers at
// CRegionDesc::UnPack (0x004FF440) without a bounds check (dat-format
// §10.9). A nil region (or one without sound info) names nothing.
func NewChain(r *dat.Region) *Chain {
	c := &Chain{}
	for t := range c.stb {
		for s := range c.stb[t] {
			c.stb[t][s] = noSTB
			if r == nil {
				continue
			}
			if k, ok := r.STBDesc(uint32(t), uint32(s)); ok {
				c.stb[t][s] = int32(k)
			}
		}
	}
	if r != nil && r.SoundInfo != nil {
		for _, d := range r.SoundInfo.STBDescs {
			c.tables = append(c.tables, uint32(d.STBID))
		}
	}
	return c
}

// STB is the STB index a terrain word names, or −1.
func (c *Chain) STB(word uint16) int { return int(c.stb[(word>>2)&0x1F][word>>11]) }

// Table is the SoundTable id a terrain word names, the lookup stbDesc makes
// without loading anything: a host loads exactly these before a rebuild.
func (c *Chain) Table(word uint16) (uint32, bool) {
	k := c.STB(word)
	if k == noSTB || k >= len(c.tables) || c.tables[k] == 0 {
		return 0, false
	}
	return c.tables[k], true
}

// stbDesc is CRegionDesc::GetSTBDesc (0x004FEAB0) for one terrain word: the
// STB index, or −1 when the chain is empty or its SoundTable is not (yet)
// available, in which case retail adds nothing for the cell.
func (e *Engine) stbDesc(word uint16) int {
	k := e.chain.STB(word)
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
