package dat

// RegionVersion is the only version CRegionDesc::UnPack accepts (docs/dat-format.md §3.1).
const RegionVersion = 3

// DecodeRegion decodes a Region record (docs/dat-format.md §3): DID, region number,
// version, name, LandDefs, GameTime, parts_mask, then Sky, Sound, Scene
// (each iff its mask bit), Terrain (always) and Misc (iff its bit), ending
// exactly at the record's end.
func DecodeRegion(id uint32, b []byte) (*Region, error) {
	d := newDecoder(KindRegion, id, b)
	r := &Region{ID: DID(id)}
	r.RegionNumber = d.u32()
	at := d.off
	r.Version = d.u32()
	if d.err == nil && r.Version != RegionVersion {
		d.failf(at, ErrMalformed, "version %d, retail reads only version %d", r.Version, RegionVersion)
	}
	r.RegionName = d.pstring("region name")
	d.enter("land defs", -1)
	d.landDefs(&r.LandDefs)
	d.leave()
	d.enter("game time", -1)
	d.gameTime(&r.GameTime)
	d.leave()
	r.PartsMask = d.u32()

	// On-disk order is Sky, Sound, Scene, Terrain, Misc (docs/dat-format.md §3.1, §10.6),
	// not the order of the mask bits.
	if r.PartsMask&PartSky != 0 {
		r.SkyInfo = new(SkyDesc)
		d.enter("sky", -1)
		d.skyDesc(r.SkyInfo)
		d.leave()
	}
	if r.PartsMask&PartSound != 0 {
		r.SoundInfo = new(SoundDesc)
		d.enter("sound", -1)
		d.soundDesc(r.SoundInfo)
		d.leave()
	}
	if r.PartsMask&PartScene != 0 {
		r.SceneInfo = new(SceneDesc)
		d.enter("scene", -1)
		d.sceneDesc(r.SceneInfo)
		d.leave()
	}
	// Terrain is read whatever bit 0x004 says: retail UnPack never tests it (docs/dat-format.md §3.4).
	d.enter("terrain", -1)
	d.terrainDesc(&r.TerrainInfo)
	d.leave()
	if r.PartsMask&PartMisc != 0 {
		r.RegionMisc = new(RegionMisc)
		d.enter("misc", -1)
		d.regionMisc(r.RegionMisc)
		d.leave()
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	r.rawStrings = d.raws
	return r, nil
}

// Encode packs the region. Each optional part is written iff its PartsMask bit
// is set, as retail Pack does; a set bit with a nil part writes that part
// empty (zero counts), and a part whose bit is clear is not written. The
// LandSurf payload follows its Selector the same way.
func (r *Region) Encode() []byte {
	e := newEncoder(r.ID, 4096)
	e.raws = r.rawStrings
	e.u32(r.RegionNumber)
	e.u32(r.Version)
	e.pstring(r.RegionName)
	e.landDefs(&r.LandDefs)
	e.gameTime(&r.GameTime)
	e.u32(r.PartsMask)
	if r.PartsMask&PartSky != 0 {
		e.skyDesc(orZero(r.SkyInfo))
	}
	if r.PartsMask&PartSound != 0 {
		e.soundDesc(orZero(r.SoundInfo))
	}
	if r.PartsMask&PartScene != 0 {
		e.sceneDesc(orZero(r.SceneInfo))
	}
	e.terrainDesc(&r.TerrainInfo)
	if r.PartsMask&PartMisc != 0 {
		e.regionMisc(orZero(r.RegionMisc))
	}
	return e.b
}

// STBDesc follows the ambient resolution chain of docs/dat-format.md §3.11 for a terrain
// word's type and scene ordinal: TerrainTypes[t].SceneTypes[s] → SceneTypes[i].STBIndex
// → an index into SoundInfo.STBDescs. Retail checks no bound on either index
// (docs/dat-format.md §10.9); here 0xFFFFFFFF or an out-of-range index at any hop, or a
// missing Scene or Sound part, means no ambient sound set: ok is false.
func (r *Region) STBDesc(terrainType, scene uint32) (stbIndex int, ok bool) {
	types := r.TerrainInfo.TerrainTypes
	if terrainType >= uint32(len(types)) {
		return 0, false
	}
	sceneTypes := types[terrainType].SceneTypes
	if scene >= uint32(len(sceneTypes)) {
		return 0, false
	}
	st := sceneTypes[scene]
	if st == None || r.SceneInfo == nil || st >= uint32(len(r.SceneInfo.SceneTypes)) {
		return 0, false
	}
	stb := r.SceneInfo.SceneTypes[st].STBIndex
	if stb == None || r.SoundInfo == nil || stb >= uint32(len(r.SoundInfo.STBDescs)) {
		return 0, false
	}
	return int(stb), true
}

// HeightZ is the absolute z in metres of a landblock height byte (docs/dat-format.md §6.4).
func (r *Region) HeightZ(h uint8) float32 { return r.LandDefs.LandHeightTable[h] }

// landDefs: 8 scalars and the 256-entry height table, 1056 bytes (docs/dat-format.md §3.2).
// The scalars are kept as stored although retail ignores them (LandDefs::get_vars
// hardcodes 255, 255, 24, 8, 1, 200, 1000, 5).
func (d *decoder) landDefs(l *LandDefs) {
	l.NumBlockLength = d.i32()
	l.NumBlockWidth = d.i32()
	l.SquareLength = d.f32()
	l.LBlockLength = d.i32()
	l.VertexPerCell = d.i32()
	l.MaxObjHeight = d.f32()
	l.SkyHeight = d.f32()
	l.RoadWidth = d.f32()
	for i := range l.LandHeightTable {
		l.LandHeightTable[i] = d.f32()
	}
}

func (e *encoder) landDefs(l *LandDefs) {
	e.i32(l.NumBlockLength)
	e.i32(l.NumBlockWidth)
	e.f32(l.SquareLength)
	e.i32(l.LBlockLength)
	e.i32(l.VertexPerCell)
	e.f32(l.MaxObjHeight)
	e.f32(l.SkyHeight)
	e.f32(l.RoadWidth)
	for _, h := range l.LandHeightTable {
		e.f32(h)
	}
}

// gameTime (docs/dat-format.md §3.3).
func (d *decoder) gameTime(g *GameTime) {
	g.ZeroTimeOfYear = d.f64()
	g.ZeroYear = d.u32()
	g.DayLength = d.f32()
	g.DaysPerYear = d.u32()
	g.YearSpec = d.pstring("year spec")

	// Minimum sizes: a PString is at least its 2-byte length.
	g.TimesOfDay = make([]TimeOfDay, d.count("time of day", 4+4+2))
	for i := range g.TimesOfDay {
		t := &g.TimesOfDay[i]
		d.enter("time of day", i)
		t.Begin = d.f32()
		t.IsNight = d.u32()
		t.Name = d.pstring("name")
		d.leave()
	}
	g.DaysOfWeek = make([]WeekDay, d.count("day of week", 2))
	for i := range g.DaysOfWeek {
		d.enter("day of week", i)
		g.DaysOfWeek[i].Name = d.pstring("name")
		d.leave()
	}
	g.Seasons = make([]Season, d.count("season", 4+2))
	for i := range g.Seasons {
		s := &g.Seasons[i]
		d.enter("season", i)
		s.Begin = d.u32()
		s.Name = d.pstring("name")
		d.leave()
	}
}

func (e *encoder) gameTime(g *GameTime) {
	e.f64(g.ZeroTimeOfYear)
	e.u32(g.ZeroYear)
	e.f32(g.DayLength)
	e.u32(g.DaysPerYear)
	e.pstring(g.YearSpec)
	e.count(len(g.TimesOfDay))
	for _, t := range g.TimesOfDay {
		e.f32(t.Begin)
		e.u32(t.IsNight)
		e.pstring(t.Name)
	}
	e.count(len(g.DaysOfWeek))
	for _, w := range g.DaysOfWeek {
		e.pstring(w.Name)
	}
	e.count(len(g.Seasons))
	for _, s := range g.Seasons {
		e.u32(s.Begin)
		e.pstring(s.Name)
	}
}

// regionMisc: 24 bytes (docs/dat-format.md §3.10).
func (d *decoder) regionMisc(m *RegionMisc) {
	m.Version = d.u32()
	m.GameMapID = d.did()
	m.AutotestMapID = d.did()
	m.AutotestMapSize = d.u32()
	m.ClearCellID = d.did()
	m.ClearMonsterID = d.did()
}

func (e *encoder) regionMisc(m *RegionMisc) {
	e.u32(m.Version)
	e.did(m.GameMapID)
	e.did(m.AutotestMapID)
	e.u32(m.AutotestMapSize)
	e.did(m.ClearCellID)
	e.did(m.ClearMonsterID)
}

// orZero lets Encode write a part whose mask bit is set but which is nil.
func orZero[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}
