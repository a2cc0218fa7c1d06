package dat

// The ambient half of the region: SoundDesc (§3.6), SceneDesc (§3.7) and the
// TerrainType list of TerrainDesc (§3.8). LandSurf is in region_landsurf.go.

const ambientSoundDescSize = 20 // stype, volume, base_chance, min_rate, max_rate

func (d *decoder) soundDesc(s *SoundDesc) {
	s.STBDescs = make([]AmbientSTBDesc, d.count("stb desc", 4+4))
	for i := range s.STBDescs {
		stb := &s.STBDescs[i]
		d.enter("stb desc", i)
		stb.STBID = d.did()
		stb.AmbientSounds = make([]AmbientSoundDesc, d.count("ambient sound", ambientSoundDescSize))
		for j := range stb.AmbientSounds {
			a := &stb.AmbientSounds[j]
			a.SType = d.u32()
			a.Volume = d.f32()
			a.BaseChance = d.f32()
			a.MinRate = d.f32()
			a.MaxRate = d.f32()
		}
		d.leave()
	}
}

func (e *encoder) soundDesc(s *SoundDesc) {
	e.count(len(s.STBDescs))
	for _, stb := range s.STBDescs {
		e.did(stb.STBID)
		e.count(len(stb.AmbientSounds))
		for _, a := range stb.AmbientSounds {
			e.u32(a.SType)
			e.f32(a.Volume)
			e.f32(a.BaseChance)
			e.f32(a.MinRate)
			e.f32(a.MaxRate)
		}
	}
}

// sceneDesc: retail's CRegionDesc::UnPack reads stb_index itself and
// CSceneType::unpack the rest; the bytes are the same either way (docs/dat-format.md §3.7).
func (d *decoder) sceneDesc(s *SceneDesc) {
	s.SceneTypes = make([]SceneType, d.count("scene type", 4+4))
	for i := range s.SceneTypes {
		st := &s.SceneTypes[i]
		d.enter("scene type", i)
		st.STBIndex = d.u32()
		st.Scenes = make([]DID, d.count("scene", 4))
		for j := range st.Scenes {
			st.Scenes[j] = d.did()
		}
		d.leave()
	}
}

func (e *encoder) sceneDesc(s *SceneDesc) {
	e.count(len(s.SceneTypes))
	for _, st := range s.SceneTypes {
		e.u32(st.STBIndex)
		e.count(len(st.Scenes))
		for _, id := range st.Scenes {
			e.did(id)
		}
	}
}

func (d *decoder) terrainDesc(t *TerrainDesc) {
	// A terrain type is at least an empty name (2), a color and a count.
	t.TerrainTypes = make([]TerrainType, d.count("terrain type", 2+4+4))
	for i := range t.TerrainTypes {
		tt := &t.TerrainTypes[i]
		d.enter("terrain type", i)
		tt.TerrainName = d.pstring("name")
		tt.TerrainColor = d.u32()
		tt.SceneTypes = make([]uint32, d.count("scene type index", 4))
		for j := range tt.SceneTypes {
			tt.SceneTypes[j] = d.u32()
		}
		d.leave()
	}
	d.enter("land surf", -1)
	d.landSurf(&t.LandSurf)
	d.leave()
}

func (e *encoder) terrainDesc(t *TerrainDesc) {
	e.count(len(t.TerrainTypes))
	for _, tt := range t.TerrainTypes {
		e.pstring(tt.TerrainName)
		e.u32(tt.TerrainColor)
		e.count(len(tt.SceneTypes))
		for _, idx := range tt.SceneTypes {
			e.u32(idx)
		}
	}
	e.landSurf(&t.LandSurf)
}
