package dat

import (
	"fmt"
	"testing"
)

// Decode throughput on records sized like EoR's: a region with 37 STBs, 32
// terrain types and 20 day groups (docs/dat-format.md §3.5, §3.6; HB counts), a 50-child
// SoundTable, a 100 KB wave, a landblock and an envcell.

func benchRegion() *Region {
	r := regionHeadStruct(0x21F)
	r.GameTime.TimesOfDay = nil
	for i := range 16 {
		r.GameTime.TimesOfDay = append(r.GameTime.TimesOfDay, TimeOfDay{float32(i) / 16, uint32(i / 8), fmt.Sprintf("Hour %d", i)})
	}
	sky := &SkyDesc{TickSize: 60, LightTickSize: 30}
	for g := range 20 {
		dg := DayGroup{ChanceOfOccur: 0.05, DayName: fmt.Sprintf("Weather %d", g)}
		for o := range 12 {
			dg.SkyObjects = append(dg.SkyObjects, SkyObject{BeginTime: float32(o) / 12, EndTime: 1, DefaultGfxObject: DID(0x01004C00 + o)})
		}
		for s := range 10 {
			st := SkyTimeOfDay{Begin: float32(s) / 10, DirBright: 1, DirColor: 0xFFFFFFFF}
			for k := range 3 {
				st.SkyObjReplace = append(st.SkyObjReplace, SkyObjectReplace{ObjectIndex: uint32(k), GfxObjID: 0x01004D00})
			}
			dg.SkyTimes = append(dg.SkyTimes, st)
		}
		sky.DayGroups = append(sky.DayGroups, dg)
	}
	r.SkyInfo = sky
	r.SoundInfo = &SoundDesc{}
	for i := range 37 {
		stb := AmbientSTBDesc{STBID: DID(0x20000010 + i)}
		for k := range 6 {
			stb.AmbientSounds = append(stb.AmbientSounds, AmbientSoundDesc{uint32(0x46 + k), 0.4, 0.05, 3, 9})
		}
		r.SoundInfo.STBDescs = append(r.SoundInfo.STBDescs, stb)
	}
	r.SceneInfo = &SceneDesc{}
	for i := range 90 {
		st := SceneType{STBIndex: uint32(i % 37)}
		for k := range 8 {
			st.Scenes = append(st.Scenes, DID(0x12000000+8*i+k))
		}
		r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, st)
	}
	tm := &TexMerge{BaseTexSize: 512}
	for i := range 32 {
		tt := TerrainType{TerrainName: fmt.Sprintf("Terrain %d", i), TerrainColor: 0xFF808080}
		for k := range 16 {
			tt.SceneTypes = append(tt.SceneTypes, uint32((i+k)%90))
		}
		r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes, tt)
		tm.CornerTerrainMaps = append(tm.CornerTerrainMaps, TerrainAlphaMap{uint32(i), 0x05003A00})
		tm.SideTerrainMaps = append(tm.SideTerrainMaps, TerrainAlphaMap{uint32(i), 0x05003B00})
		tm.TerrainDescs = append(tm.TerrainDescs, TMTerrainDesc{uint32(i), TerrainTex{TexGID: 0x05001000}})
	}
	for i := range 6 {
		tm.RoadMaps = append(tm.RoadMaps, RoadAlphaMap{uint32(i), 0x05003C00})
	}
	r.TerrainInfo.LandSurf = LandSurf{TexMerge: tm}
	r.RegionMisc = &RegionMisc{1, 0x0600127D, 0x06000261, 4, 0x01000FDE, 0x01001612}
	return r
}

func benchSoundTable() *SoundTable {
	t := &SoundTable{ID: 0x20000001, Root: SoundNode{Records: []SoundRecord{{0, 0, 1, 1}}}}
	for i := range 50 {
		n := SoundNode{HashKey: uint32(i)}
		for k := range 3 {
			n.Records = append(n.Records, SoundRecord{DID(0x0A000000 + 3*i + k), 0.7, 1, 1})
		}
		t.Root.Children = append(t.Root.Children, n)
	}
	return t
}

func benchDecode(b *testing.B, kind Kind, id uint32, rec []byte) {
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(kind, id, rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRegion(b *testing.B) {
	benchDecode(b, KindRegion, regionID, benchRegion().Encode())
}

func BenchmarkDecodeSoundTable(b *testing.B) {
	benchDecode(b, KindSoundTable, 0x20000001, benchSoundTable().Encode())
}

func BenchmarkDecodeWave(b *testing.B) {
	w := &Wave{ID: 0x0A000002, Header: pcmWaveBytes()[12:30], Data: make([]byte, 100<<10)}
	benchDecode(b, KindWave, 0x0A000002, w.Encode())
}

func BenchmarkDecodeLandBlock(b *testing.B) {
	benchDecode(b, KindLandBlock, 0x9AB1FFFF, landBlockBytes())
}

func BenchmarkDecodeEnvCell(b *testing.B) {
	c := &EnvCell{ID: 0x7D64010D, Flags: 3, CellID: 0x7D64010D, Rest: make([]byte, 200)}
	benchDecode(b, KindEnvCell, 0x7D64010D, c.Encode())
}

func BenchmarkEncodeRegion(b *testing.B) {
	r := benchRegion()
	b.SetBytes(int64(len(r.Encode())))
	b.ReportAllocs()
	for b.Loop() {
		r.Encode()
	}
}
