package dat

// Hand-built Region fixtures: bytes written field by field from docs/dat-format.md §3 with
// the builder, and the struct each must decode to.

const regionID = 0x13000000

// heightAt is the fixture's land height table; deliberately not 2·i (docs/dat-format.md §3.2).
func heightAt(i int) float32 { return float32(i) * 2.5 }

// regionHead writes DID through GameTime (docs/dat-format.md §3.1–§3.3) and records where
// each part starts.
func regionHead(w *builder, marks map[string]int) {
	w.u32(regionID, 1, 3)
	marks["name"] = w.at()
	w.pstr("Dereth")
	marks["landDefs"] = w.at()
	w.u32(255, 255)
	w.f32(24)
	w.u32(8, 1)
	w.f32(200, 1000, 5)
	marks["heightTable"] = w.at()
	for i := 0; i < 256; i++ {
		w.f32(heightAt(i))
	}
	marks["gameTime"] = w.at()
	w.f64(3600.5)
	w.u32(10)
	w.f32(7620)
	w.u32(360)
	w.pstr("P.Y.")
	w.u32(2)
	w.f32(0)
	w.u32(1)
	w.pstr("Darktide")
	w.f32(0.25)
	w.u32(0)
	w.pstr("Dawnsong")
	w.u32(2)
	w.pstr("Snowreap")
	w.pstr("Coldeve")
	w.u32(2)
	w.u32(0)
	w.pstr("Snowreap")
	w.u32(90)
	w.pstr("Leafdawning")
}

func regionHeadStruct(mask uint32) *Region {
	r := &Region{
		ID: regionID, RegionNumber: 1, Version: 3, RegionName: "Dereth",
		LandDefs: LandDefs{
			NumBlockLength: 255, NumBlockWidth: 255, SquareLength: 24, LBlockLength: 8,
			VertexPerCell: 1, MaxObjHeight: 200, SkyHeight: 1000, RoadWidth: 5,
		},
		GameTime: GameTime{
			ZeroTimeOfYear: 3600.5, ZeroYear: 10, DayLength: 7620, DaysPerYear: 360, YearSpec: "P.Y.",
			TimesOfDay: []TimeOfDay{{0, 1, "Darktide"}, {0.25, 0, "Dawnsong"}},
			DaysOfWeek: []WeekDay{{"Snowreap"}, {"Coldeve"}},
			Seasons:    []Season{{0, "Snowreap"}, {90, "Leafdawning"}},
		},
		PartsMask: mask,
	}
	for i := range r.LandDefs.LandHeightTable {
		r.LandDefs.LandHeightTable[i] = heightAt(i)
	}
	return r
}

// fullRegionBytes is a region with every part present (parts_mask 0x21F, the
// value HB reports for EoR) and TexMerge with all four lists.
func fullRegionBytes() ([]byte, map[string]int) {
	var w builder
	marks := map[string]int{}
	regionHead(&w, marks)
	marks["partsMask"] = w.at()
	w.u32(0x21F)

	marks["sky"] = w.at()
	w.f64(1.5)
	w.f64(2.25)
	w.u32(2) // day groups
	// day group 0
	w.f32(0.6)
	w.pstr("Sunny")
	w.u32(2) // sky objects
	w.f32(0.1, 0.9, 10, 170, 0.01, 0)
	w.u32(0x01004C41, 0x33000001, 1)
	w.f32(0, 1, 0, 0, 0, 0.002)
	w.u32(0x01004C42, 0, 2)
	w.u32(2) // sky times
	w.f32(0, 0.4, 90, 45)
	w.u32(0xFF808080)
	w.f32(0.3)
	w.u32(0xFF404060)
	w.f32(100, 400)
	w.u32(0xFF202040, 2)
	w.u32(1) // replaces
	w.u32(0, 0x01004C43)
	w.f32(1.5, 0.5, 0.8, 0.9)
	w.f32(0.5, 1.0, 180, 70)
	w.u32(0xFFFFFFE0)
	w.f32(0.6)
	w.u32(0xFF9090A0)
	w.f32(200, 900)
	w.u32(0xFFC0C0D0, 1)
	w.u32(2)
	w.u32(1, 0x01004C44)
	w.f32(0, 0, 1, 1)
	w.u32(0, 0)
	w.f32(0.25, 1, 0, 0.5)
	// day group 1
	w.f32(0.4)
	w.pstr("Stormy")
	w.u32(0) // sky objects
	w.u32(1) // sky times
	w.f32(0, 0.1, 0, 30)
	w.u32(0xFF303030)
	w.f32(0.2)
	w.u32(0xFF101010)
	w.f32(10, 50)
	w.u32(0xFF202020, 3)
	w.u32(0)

	marks["sound"] = w.at()
	w.u32(2)
	w.u32(0x20000012, 3)
	w.u32(0x46)
	w.f32(0.4, 0, 8, 12)
	w.u32(0x47)
	w.f32(0.3, 0.05, 3, 6)
	w.u32(0x4E)
	w.f32(0.5, 0.1, 1, 2)
	w.u32(0x200000A8, 2)
	w.u32(0x48)
	w.f32(0.25, 0.02, 5, 10)
	w.u32(0x49)
	w.f32(0.6, 0, 15, 15)

	marks["scene"] = w.at()
	w.u32(3)
	w.u32(0, 2, 0x120000A1, 0x120000A2)
	w.u32(None, 1, 0x120000B0)
	w.u32(1, 0)

	marks["terrain"] = w.at()
	w.u32(3)
	w.pstr("BarrenRock")
	w.u32(0xFF7F7F7F, 3, 0, 1, None)
	w.pstr("Grassland")
	w.u32(0xFF00A000, 1, 2)
	w.pstr("Ice")
	w.u32(0xFFE0E0FF, 0)

	marks["landSurf"] = w.at()
	w.u32(0)   // selector: TexMerge
	w.u32(512) // base_tex_size
	w.u32(2, 8, 0x05003A1C, 9, 0x05003A1D)
	w.u32(1, 4, 0x05003A20)
	w.u32(2, 0x100, 0x05003A30, 0x200, 0x05003A31)
	w.u32(2)
	w.u32(0, 0x05001000, 1, 255, 0, 100, 0, 360, 0, 4, 0x05002000)
	w.u32(1, 0x05001001, 2, 200, 10, 90, 5, 180, 20, 8, 0x05002001)

	marks["misc"] = w.at()
	w.u32(1, 0x0600127D, 0x06000261, 4, 0x01000FDE, 0x01001612)
	return w.b, marks
}

func fullRegion() *Region {
	r := regionHeadStruct(0x21F)
	r.SkyInfo = &SkyDesc{
		TickSize: 1.5, LightTickSize: 2.25,
		DayGroups: []DayGroup{
			{
				ChanceOfOccur: 0.6, DayName: "Sunny",
				SkyObjects: []SkyObject{
					{0.1, 0.9, 10, 170, 0.01, 0, 0x01004C41, 0x33000001, 1},
					{0, 1, 0, 0, 0, 0.002, 0x01004C42, 0, 2},
				},
				SkyTimes: []SkyTimeOfDay{
					{0, 0.4, 90, 45, 0xFF808080, 0.3, 0xFF404060, 100, 400, 0xFF202040, 2,
						[]SkyObjectReplace{{0, 0x01004C43, 1.5, 0.5, 0.8, 0.9}}},
					{0.5, 1.0, 180, 70, 0xFFFFFFE0, 0.6, 0xFF9090A0, 200, 900, 0xFFC0C0D0, 1,
						[]SkyObjectReplace{{1, 0x01004C44, 0, 0, 1, 1}, {0, 0, 0.25, 1, 0, 0.5}}},
				},
			},
			{
				ChanceOfOccur: 0.4, DayName: "Stormy",
				SkyObjects: []SkyObject{},
				SkyTimes: []SkyTimeOfDay{
					{0, 0.1, 0, 30, 0xFF303030, 0.2, 0xFF101010, 10, 50, 0xFF202020, 3, []SkyObjectReplace{}},
				},
			},
		},
	}
	r.SoundInfo = &SoundDesc{STBDescs: []AmbientSTBDesc{
		{0x20000012, []AmbientSoundDesc{{0x46, 0.4, 0, 8, 12}, {0x47, 0.3, 0.05, 3, 6}, {0x4E, 0.5, 0.1, 1, 2}}},
		{0x200000A8, []AmbientSoundDesc{{0x48, 0.25, 0.02, 5, 10}, {0x49, 0.6, 0, 15, 15}}},
	}}
	r.SceneInfo = &SceneDesc{SceneTypes: []SceneType{
		{0, []DID{0x120000A1, 0x120000A2}},
		{None, []DID{0x120000B0}},
		{1, []DID{}},
	}}
	r.TerrainInfo = TerrainDesc{
		TerrainTypes: []TerrainType{
			{"BarrenRock", 0xFF7F7F7F, []uint32{0, 1, None}},
			{"Grassland", 0xFF00A000, []uint32{2}},
			{"Ice", 0xFFE0E0FF, []uint32{}},
		},
		LandSurf: LandSurf{Selector: 0, TexMerge: &TexMerge{
			BaseTexSize:       512,
			CornerTerrainMaps: []TerrainAlphaMap{{8, 0x05003A1C}, {9, 0x05003A1D}},
			SideTerrainMaps:   []TerrainAlphaMap{{4, 0x05003A20}},
			RoadMaps:          []RoadAlphaMap{{0x100, 0x05003A30}, {0x200, 0x05003A31}},
			TerrainDescs: []TMTerrainDesc{
				{0, TerrainTex{0x05001000, 1, 255, 0, 100, 0, 360, 0, 4, 0x05002000}},
				{1, TerrainTex{0x05001001, 2, 200, 10, 90, 5, 180, 20, 8, 0x05002001}},
			},
		}},
	}
	r.RegionMisc = &RegionMisc{1, 0x0600127D, 0x06000261, 4, 0x01000FDE, 0x01001612}
	return r
}

// terrainOnlyRegionBytes: parts_mask 0x004 — no sky, sound, scene or misc;
// terrain is still present and the record ends with its LandSurf.
func terrainOnlyRegionBytes(mask uint32) []byte {
	var w builder
	regionHead(&w, map[string]int{})
	w.u32(mask)
	w.u32(1)
	w.pstr("Ice")
	w.u32(0xFFE0E0FF, 2, 0, None)
	w.u32(0, 256, 0, 0, 0, 0) // TexMerge, four empty lists
	return w.b
}

func terrainOnlyRegion(mask uint32) *Region {
	r := regionHeadStruct(mask)
	r.TerrainInfo = TerrainDesc{
		TerrainTypes: []TerrainType{{"Ice", 0xFFE0E0FF, []uint32{0, None}}},
		LandSurf: LandSurf{TexMerge: &TexMerge{
			BaseTexSize:       256,
			CornerTerrainMaps: []TerrainAlphaMap{}, SideTerrainMaps: []TerrainAlphaMap{},
			RoadMaps: []RoadAlphaMap{}, TerrainDescs: []TMTerrainDesc{},
		}},
	}
	return r
}

// palShiftRegionBytes: a legacy LandSurf (selector 1, docs/dat-format.md §3.9 [P]).
func palShiftRegionBytes() []byte {
	var w builder
	regionHead(&w, map[string]int{})
	w.u32(PartTerrain)
	w.u32(0) // no terrain types
	w.u32(1) // selector: PalShift
	w.u32(2) // entries
	w.u32(0x05000001)
	w.u32(2, 1, 2, 3, 4) // sub-palettes
	w.u32(2, 7, 10, 11, 8, 12, 13)
	w.u32(1, 0x20, 0x21) // terrains
	w.u32(0x05000002)
	w.u32(0)
	w.u32(1, 9)
	w.u32(0)
	return w.b
}

func palShiftRegion() *Region {
	r := regionHeadStruct(PartTerrain)
	r.TerrainInfo = TerrainDesc{
		TerrainTypes: []TerrainType{},
		LandSurf: LandSurf{Selector: 1, PalShift: &PalShift{Entries: []PalShiftEntry{
			{
				TexID:    0x05000001,
				SubPals:  [][2]uint32{{1, 2}, {3, 4}},
				Codes:    []PalCode{{7, []uint32{10, 11}}, {8, []uint32{12, 13}}},
				Terrains: [][2]uint32{{0x20, 0x21}},
			},
			{TexID: 0x05000002, SubPals: [][2]uint32{}, Codes: []PalCode{{9, []uint32{}}}, Terrains: [][2]uint32{}},
		}}},
	}
	return r
}
