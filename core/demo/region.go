package demo

import (
	"acambient/core/dat"
	"acambient/core/demo/spots"
)

// Scene types (SceneDesc indices): one per STB, then a silent one.
const (
	sceneSilent = numSTBs // a scene type whose STB index is 0xFFFFFFFF: no sound set
	numScenes   = numSTBs + 1
)

// terrainNames are the 32 terrain types' names (docs/dat-format.md §9.2).
var terrainNames = [32]string{
	"BarrenRock", "Grassland", "Ice", "LushGrass", "MarshSparseSwamp", "MudRichDirt",
	"ObsidianPlain", "PackedDirt", "PatchyDirt", "PatchyGrassland", "SandYellow", "SandGrey",
	"SandRockStrewn", "SedimentaryRock", "SemiBarrenRock", "Snow", "WaterRunning",
	"WaterStandingFresh", "WaterShallowSea", "WaterShallowStillSea", "WaterDeepSea",
	"ForestFloor", "FauxWaterRunning", "SeaSlime", "Argila", "Volcano1", "Volcano2",
	"BlueIce", "Moss", "DarkMoss", "Olthoi", "DesolateLands",
}

// terrainScenes maps each terrain type's scene ordinals to scene types. The
// grasses have two ordinals (lively and quiet meadow); PackedDirt has a third
// naming no scene type (dat.None), used by the village street.
// DesolateLands names none at all, and the volcanic and Olthoi ground the
// silent scene type: both paths end in "no sound set".
var terrainScenes = [32][]uint32{
	0x00: {stbRock},
	0x01: {stbMeadowLively, stbMeadowQuiet},
	0x02: {stbSnow},
	0x03: {stbMeadowLively, stbMeadowQuiet},
	0x04: {stbMarsh},
	0x05: {stbMarsh},
	0x06: {stbRock},
	0x07: {stbMeadowLively, stbMeadowQuiet, dat.None},
	0x08: {stbMeadowLively, stbMeadowQuiet},
	0x09: {stbMeadowLively, stbMeadowQuiet},
	0x0A: {stbDesert},
	0x0B: {stbCoast}, // grey sand: the beach, where the surf is
	0x0C: {stbDesert},
	0x0D: {stbRock},
	0x0E: {stbRock},
	0x0F: {stbSnow},
	0x10: {stbRiver},
	0x11: {stbMarsh}, // the marsh pond
	0x12: {stbCoast},
	0x13: {stbCoast},
	0x14: {stbCoast},
	0x15: {stbForest},
	0x16: {stbRiver},
	0x17: {stbMarsh},
	0x18: {stbRock},
	0x19: {sceneSilent},
	0x1A: {sceneSilent},
	0x1B: {stbSnow},
	0x1C: {stbForest},
	0x1D: {stbForest},
	0x1E: {sceneSilent},
	0x1F: {dat.None},
}

// terrainColors are map colours (ARGB) per terrain type.
var terrainColors = [32]uint32{
	0xFF7F7F78, 0xFF5E8C3A, 0xFFCFE8F0, 0xFF4E9A2E, 0xFF4F6B45, 0xFF6B5232,
	0xFF2A2630, 0xFF9C8460, 0xFF8C7A50, 0xFF7A9450, 0xFFE3C878, 0xFFB8B09A,
	0xFFC4A870, 0xFF8C7868, 0xFF8A8A70, 0xFFF4F6F8, 0xFF3A78C0, 0xFF4A70A0,
	0xFF3A88B0, 0xFF3A80A8, 0xFF1E4E88, 0xFF2E5A24, 0xFF3A78C0, 0xFF4A6A3A,
	0xFFA06848, 0xFF502820, 0xFF602818, 0xFF98C8E8, 0xFF4A7A3A, 0xFF2E4A28,
	0xFF6A5A48, 0xFF5A5048,
}

// RegionName names the demo region, so a page can tell the demo world from
// retail data (its landmarks apply only to the demo).
const RegionName = spots.RegionName

// region builds Region 0x13000000 around the given SoundDesc.
func region(sound *dat.SoundDesc) *dat.Region {
	r := &dat.Region{
		ID:           dat.RegionID,
		RegionNumber: 1,
		Version:      dat.RegionVersion,
		RegionName:   RegionName,
		LandDefs: dat.LandDefs{
			// The scalars retail hardcodes in LandDefs::get_vars (docs/dat-format.md §3.2).
			NumBlockLength: 255, NumBlockWidth: 255, SquareLength: 24, LBlockLength: 8,
			VertexPerCell: 1, MaxObjHeight: 200, SkyHeight: 1000, RoadWidth: 5,
			LandHeightTable: heightTable(),
		},
		GameTime:  gameTime(),
		PartsMask: dat.PartSound | dat.PartScene | dat.PartTerrain | 0x008 | dat.PartSky | dat.PartMisc, // 0x21F as EoR (docs/dat-format.md §3.4)
		SkyInfo:   sky(),
		SoundInfo: sound,
		SceneInfo: &dat.SceneDesc{},
		TerrainInfo: dat.TerrainDesc{
			LandSurf: dat.LandSurf{Selector: 0, TexMerge: texMerge()},
		},
		// EoR's values (docs/dat-format.md §3.10).
		RegionMisc: &dat.RegionMisc{Version: 1, GameMapID: 0x0600127D, AutotestMapID: 0x06000261,
			AutotestMapSize: 4, ClearCellID: 0x01000FDE, ClearMonsterID: 0x01001612},
	}
	for i := 0; i < numScenes; i++ {
		st := dat.SceneType{STBIndex: uint32(i), Scenes: []dat.DID{}}
		if i == sceneSilent {
			st.STBIndex = dat.None
		}
		r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, st)
	}
	for t, name := range terrainNames {
		r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes, dat.TerrainType{
			TerrainName: name, TerrainColor: terrainColors[t], SceneTypes: terrainScenes[t],
		})
	}
	return r
}

// gameTime is Dereth's calendar as players know it: a 7620-second day of 16
// named hours, 360 days a year in P.Y. (Portal Years), the clock's zero at
// Morntide-and-Half of 10 P.Y. The week days are the demo's own.
func gameTime() dat.GameTime {
	hours := []string{"Darktide", "Darktide-and-Half", "Foredawn", "Foredawn-and-Half",
		"Dawnsong", "Dawnsong-and-Half", "Morntide", "Morntide-and-Half",
		"Midsong", "Midsong-and-Half", "Warmtide", "Warmtide-and-Half",
		"Evensong", "Evensong-and-Half", "Gloaming", "Gloaming-and-Half"}
	g := dat.GameTime{ZeroTimeOfYear: 3600, ZeroYear: 10, DayLength: 7620, DaysPerYear: 360, YearSpec: "P.Y."}
	for i, h := range hours {
		night := uint32(0)
		if i < 4 || i >= 14 {
			night = 1
		}
		g.TimesOfDay = append(g.TimesOfDay, dat.TimeOfDay{Begin: float32(i) / 16, IsNight: night, Name: h})
	}
	for _, d := range []string{"Morningday", "Toilday", "Marketday", "Songday", "Feastday", "Restday"} {
		g.DaysOfWeek = append(g.DaysOfWeek, dat.WeekDay{Name: d})
	}
	// The year begins in Snowreap, deep winter.
	for i, s := range []string{"Winter", "Spring", "Summer", "Autumn"} {
		g.Seasons = append(g.Seasons, dat.Season{Begin: uint32(90 * i), Name: s})
	}
	return g
}

// sky is a small sky: one day group with a sun and a moon crossing, and
// four lighting keys (night, dawn, noon, dusk).
func sky() *dat.SkyDesc {
	return &dat.SkyDesc{TickSize: 5, LightTickSize: 5, DayGroups: []dat.DayGroup{{
		ChanceOfOccur: 100,
		DayName:       "Clear",
		SkyObjects: []dat.SkyObject{
			{BeginTime: 0.25, EndTime: 0.75, BeginAngle: 0, EndAngle: 180, DefaultGfxObject: 0x01004C30},
			{BeginTime: 0.75, EndTime: 0.25, BeginAngle: 0, EndAngle: 180, DefaultGfxObject: 0x01004C31},
		},
		SkyTimes: []dat.SkyTimeOfDay{
			{Begin: 0, DirBright: 0.2, DirHeading: 0, DirPitch: 60, DirColor: 0xFF404A70, AmbBright: 0.3, AmbColor: 0xFF303850, MinWorldFog: 60, MaxWorldFog: 300, WorldFogColor: 0xFF101828, SkyObjReplace: []dat.SkyObjectReplace{}},
			{Begin: 0.25, DirBright: 0.7, DirHeading: 90, DirPitch: 10, DirColor: 0xFFFFB080, AmbBright: 0.5, AmbColor: 0xFF806860, MinWorldFog: 120, MaxWorldFog: 600, WorldFogColor: 0xFFC09080, SkyObjReplace: []dat.SkyObjectReplace{}},
			{Begin: 0.5, DirBright: 1, DirHeading: 180, DirPitch: 70, DirColor: 0xFFFFF8E8, AmbBright: 0.6, AmbColor: 0xFF8090A0, MinWorldFog: 200, MaxWorldFog: 1000, WorldFogColor: 0xFFB0C0D8, SkyObjReplace: []dat.SkyObjectReplace{}},
			{Begin: 0.75, DirBright: 0.6, DirHeading: 270, DirPitch: 10, DirColor: 0xFFFF9060, AmbBright: 0.45, AmbColor: 0xFF705868, MinWorldFog: 120, MaxWorldFog: 600, WorldFogColor: 0xFFA07070, SkyObjReplace: []dat.SkyObjectReplace{}},
		},
	}}}
}

// texMerge is a plausible TexMerge land surface: corner, side and road alpha
// maps, and a texture for every terrain type. The textures are not in the
// demo dat (the ambient engine draws nothing).
func texMerge() *dat.TexMerge {
	tm := &dat.TexMerge{BaseTexSize: 512}
	for i := uint32(0); i < 4; i++ {
		tm.CornerTerrainMaps = append(tm.CornerTerrainMaps, dat.TerrainAlphaMap{TCode: 8 << i, TexGID: dat.DID(0x05003A00 + i)})
		tm.SideTerrainMaps = append(tm.SideTerrainMaps, dat.TerrainAlphaMap{TCode: 9 << i, TexGID: dat.DID(0x05003A10 + i)})
	}
	for i := uint32(0); i < 2; i++ {
		tm.RoadMaps = append(tm.RoadMaps, dat.RoadAlphaMap{RCode: 5 << i, RoadTexGID: dat.DID(0x05003A20 + i)})
	}
	for t := uint32(0); t < 32; t++ {
		tm.TerrainDescs = append(tm.TerrainDescs, dat.TMTerrainDesc{TerrainType: t, TerrainTex: dat.TerrainTex{
			TexGID: dat.DID(0x05003B00 + t), TexTiling: 3, MaxVertBright: 230, MinVertBright: 110,
			MaxVertSaturate: 200, MinVertSaturate: 90, MaxVertHue: 20, MinVertHue: 0,
			DetailTexTiling: 12, DetailTexGID: dat.DID(0x05003C00 + t%4),
		}})
	}
	return tm
}
