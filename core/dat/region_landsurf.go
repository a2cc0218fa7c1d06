package dat

// LandSurf (docs/dat-format.md §3.9): a selector word, then TexMerge when it is 0 and the
// legacy PalShift otherwise (retail CLandSurf::UnPack). Every selector value
// decodes; only its zero-ness picks the payload, and it is kept as stored.

const (
	terrainAlphaMapSize = 8  // tcode, texture DID
	roadAlphaMapSize    = 8  // rcode, texture DID
	tmTerrainDescSize   = 44 // terrain_type + 40-byte TerrainTex
)

func (d *decoder) landSurf(l *LandSurf) {
	l.Selector = d.u32()
	if l.Selector == 0 {
		l.TexMerge = new(TexMerge)
		d.enter("tex merge", -1)
		d.texMerge(l.TexMerge)
	} else {
		l.PalShift = new(PalShift)
		d.enter("pal shift", -1)
		d.palShift(l.PalShift)
	}
	d.leave()
}

// Encode writes the payload the selector names; the other pointer is ignored.
func (e *encoder) landSurf(l *LandSurf) {
	e.u32(l.Selector)
	if l.Selector == 0 {
		e.texMerge(orZero(l.TexMerge))
	} else {
		e.palShift(orZero(l.PalShift))
	}
}

func (d *decoder) texMerge(t *TexMerge) {
	t.BaseTexSize = d.u32()
	t.CornerTerrainMaps = d.terrainAlphaMaps("corner terrain map")
	t.SideTerrainMaps = d.terrainAlphaMaps("side terrain map")
	t.RoadMaps = make([]RoadAlphaMap, d.count("road map", roadAlphaMapSize))
	for i := range t.RoadMaps {
		t.RoadMaps[i] = RoadAlphaMap{RCode: d.u32(), RoadTexGID: d.did()}
	}
	t.TerrainDescs = make([]TMTerrainDesc, d.count("terrain desc", tmTerrainDescSize))
	for i := range t.TerrainDescs {
		td := &t.TerrainDescs[i]
		td.TerrainType = d.u32()
		x := &td.TerrainTex
		x.TexGID = d.did()
		x.TexTiling = d.u32()
		x.MaxVertBright = d.u32()
		x.MinVertBright = d.u32()
		x.MaxVertSaturate = d.u32()
		x.MinVertSaturate = d.u32()
		x.MaxVertHue = d.u32()
		x.MinVertHue = d.u32()
		x.DetailTexTiling = d.u32()
		x.DetailTexGID = d.did()
	}
}

func (d *decoder) terrainAlphaMaps(what string) []TerrainAlphaMap {
	m := make([]TerrainAlphaMap, d.count(what, terrainAlphaMapSize))
	for i := range m {
		m[i] = TerrainAlphaMap{TCode: d.u32(), TexGID: d.did()}
	}
	return m
}

func (e *encoder) texMerge(t *TexMerge) {
	e.u32(t.BaseTexSize)
	e.terrainAlphaMaps(t.CornerTerrainMaps)
	e.terrainAlphaMaps(t.SideTerrainMaps)
	e.count(len(t.RoadMaps))
	for _, m := range t.RoadMaps {
		e.u32(m.RCode)
		e.did(m.RoadTexGID)
	}
	e.count(len(t.TerrainDescs))
	for _, td := range t.TerrainDescs {
		e.u32(td.TerrainType)
		x := &td.TerrainTex
		e.did(x.TexGID)
		e.u32(x.TexTiling)
		e.u32(x.MaxVertBright)
		e.u32(x.MinVertBright)
		e.u32(x.MaxVertSaturate)
		e.u32(x.MinVertSaturate)
		e.u32(x.MaxVertHue)
		e.u32(x.MinVertHue)
		e.u32(x.DetailTexTiling)
		e.did(x.DetailTexGID)
	}
}

func (e *encoder) terrainAlphaMaps(m []TerrainAlphaMap) {
	e.count(len(m))
	for _, a := range m {
		e.u32(a.TCode)
		e.did(a.TexGID)
	}
}

// palShift: u32 n; per entry a texture DID, s sub-palette pairs, r codes each
// with s values, t terrain pairs (docs/dat-format.md §3.9, RE CPalShift.c, [P]).
func (d *decoder) palShift(p *PalShift) {
	p.Entries = make([]PalShiftEntry, d.count("entry", 4+4+4+4))
	for i := range p.Entries {
		en := &p.Entries[i]
		d.enter("entry", i)
		en.TexID = d.did()
		en.SubPals = d.pairs("sub-palette")
		s := len(en.SubPals)
		en.Codes = make([]PalCode, d.count("code", 4+4*s))
		for j := range en.Codes {
			c := &en.Codes[j]
			c.Code = d.u32()
			c.Values = make([]uint32, s)
			for k := range c.Values {
				c.Values[k] = d.u32()
			}
		}
		en.Terrains = d.pairs("terrain")
		d.leave()
	}
}

func (d *decoder) pairs(what string) [][2]uint32 {
	p := make([][2]uint32, d.count(what, 8))
	for i := range p {
		p[i] = [2]uint32{d.u32(), d.u32()}
	}
	return p
}

// A code's value count is not stored: it is the entry's sub-palette count, so
// Encode writes exactly len(SubPals) values per code, zero-filling a short
// Values and dropping the excess of a long one.
func (e *encoder) palShift(p *PalShift) {
	e.count(len(p.Entries))
	for _, en := range p.Entries {
		e.did(en.TexID)
		e.pairs(en.SubPals)
		e.count(len(en.Codes))
		for _, c := range en.Codes {
			e.u32(c.Code)
			for k := range en.SubPals {
				var v uint32
				if k < len(c.Values) {
					v = c.Values[k]
				}
				e.u32(v)
			}
		}
		e.pairs(en.Terrains)
	}
}

func (e *encoder) pairs(p [][2]uint32) {
	e.count(len(p))
	for _, v := range p {
		e.u32(v[0])
		e.u32(v[1])
	}
}
