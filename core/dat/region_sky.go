package dat

// Sizes of the fixed sky structs (docs/dat-format.md §3.5).
const (
	skyObjectSize        = 36
	skyTimeOfDayFixed    = 44 // before the replace count
	skyObjectReplaceSize = 24
)

// skyDesc (docs/dat-format.md §3.5). The pad4 after the two f64s is a no-op: everything
// before it is a multiple of 4 from the DID.
func (d *decoder) skyDesc(s *SkyDesc) {
	s.TickSize = d.f64()
	s.LightTickSize = d.f64()
	d.pad4()
	// A day group is at least chance (4), an empty name (2) and two counts (8).
	s.DayGroups = make([]DayGroup, d.count("day group", 4+2+4+4))
	for i := range s.DayGroups {
		d.enter("day group", i)
		d.dayGroup(&s.DayGroups[i])
		d.leave()
	}
}

func (d *decoder) dayGroup(g *DayGroup) {
	g.ChanceOfOccur = d.f32()
	g.DayName = d.pstring("day name")
	g.SkyObjects = make([]SkyObject, d.count("sky object", skyObjectSize))
	for i := range g.SkyObjects {
		o := &g.SkyObjects[i]
		o.BeginTime = d.f32()
		o.EndTime = d.f32()
		o.BeginAngle = d.f32()
		o.EndAngle = d.f32()
		o.TexVelocityX = d.f32()
		o.TexVelocityY = d.f32()
		o.DefaultGfxObject = d.did()
		o.DefaultPesObject = d.did()
		o.Properties = d.u32()
	}
	g.SkyTimes = make([]SkyTimeOfDay, d.count("sky time", skyTimeOfDayFixed+4))
	for i := range g.SkyTimes {
		d.enter("sky time", i)
		d.skyTimeOfDay(&g.SkyTimes[i])
		d.leave()
	}
}

func (d *decoder) skyTimeOfDay(t *SkyTimeOfDay) {
	t.Begin = d.f32()
	t.DirBright = d.f32()
	t.DirHeading = d.f32()
	t.DirPitch = d.f32()
	t.DirColor = d.u32()
	t.AmbBright = d.f32()
	t.AmbColor = d.u32()
	t.MinWorldFog = d.f32()
	t.MaxWorldFog = d.f32()
	t.WorldFogColor = d.u32()
	t.WorldFog = d.u32()
	t.SkyObjReplace = make([]SkyObjectReplace, d.count("sky object replace", skyObjectReplaceSize))
	for i := range t.SkyObjReplace {
		o := &t.SkyObjReplace[i]
		o.ObjectIndex = d.u32()
		o.GfxObjID = d.did()
		o.Rotate = d.f32()
		o.Transparent = d.f32()
		o.Luminosity = d.f32()
		o.MaxBright = d.f32()
	}
}

func (e *encoder) skyDesc(s *SkyDesc) {
	e.f64(s.TickSize)
	e.f64(s.LightTickSize)
	e.pad4()
	e.count(len(s.DayGroups))
	for i := range s.DayGroups {
		e.dayGroup(&s.DayGroups[i])
	}
}

func (e *encoder) dayGroup(g *DayGroup) {
	e.f32(g.ChanceOfOccur)
	e.pstring(g.DayName)
	e.count(len(g.SkyObjects))
	for _, o := range g.SkyObjects {
		e.f32(o.BeginTime)
		e.f32(o.EndTime)
		e.f32(o.BeginAngle)
		e.f32(o.EndAngle)
		e.f32(o.TexVelocityX)
		e.f32(o.TexVelocityY)
		e.did(o.DefaultGfxObject)
		e.did(o.DefaultPesObject)
		e.u32(o.Properties)
	}
	e.count(len(g.SkyTimes))
	for i := range g.SkyTimes {
		e.skyTimeOfDay(&g.SkyTimes[i])
	}
}

func (e *encoder) skyTimeOfDay(t *SkyTimeOfDay) {
	e.f32(t.Begin)
	e.f32(t.DirBright)
	e.f32(t.DirHeading)
	e.f32(t.DirPitch)
	e.u32(t.DirColor)
	e.f32(t.AmbBright)
	e.u32(t.AmbColor)
	e.f32(t.MinWorldFog)
	e.f32(t.MaxWorldFog)
	e.u32(t.WorldFogColor)
	e.u32(t.WorldFog)
	e.count(len(t.SkyObjReplace))
	for _, o := range t.SkyObjReplace {
		e.u32(o.ObjectIndex)
		e.did(o.GfxObjID)
		e.f32(o.Rotate)
		e.f32(o.Transparent)
		e.f32(o.Luminosity)
		e.f32(o.MaxBright)
	}
}
