package session

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch"
)

const (
	tableID = 0x20000001
	waveID  = 0x0A000001
	badWave = 0x0A000002
	lostTab = 0x20000002
)

// fixture is a region whose grassland (type 1) plays STB 0 (table 0x20000001:
// one constant sound) and whose sand (type 10) names a table that is missing.
func fixture(t *testing.T) (portal, cell *datfetch.Memory) {
	t.Helper()
	r := &dat.Region{
		ID: dat.RegionID, RegionNumber: 1, Version: 3, RegionName: "Test",
		PartsMask: dat.PartSound | dat.PartScene,
		SoundInfo: &dat.SoundDesc{STBDescs: []dat.AmbientSTBDesc{
			{STBID: tableID, AmbientSounds: []dat.AmbientSoundDesc{{SType: 0x46, Volume: 0.5, MinRate: 4, MaxRate: 4}}},
			{STBID: lostTab, AmbientSounds: []dat.AmbientSoundDesc{{SType: 0x46, Volume: 0.5, MinRate: 4, MaxRate: 4}}},
		}},
		SceneInfo: &dat.SceneDesc{SceneTypes: []dat.SceneType{{STBIndex: 0}, {STBIndex: 1}}},
	}
	for i := 0; i < 32; i++ {
		tt := dat.TerrainType{TerrainName: dat.TerrainTypeName(uint32(i)), SceneTypes: []uint32{dat.None}}
		switch i {
		case 1:
			tt.SceneTypes = []uint32{0}
		case 10:
			tt.SceneTypes = []uint32{1}
		}
		r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes, tt)
	}
	r.TerrainInfo.LandSurf.TexMerge = &dat.TexMerge{}
	for i := range r.LandDefs.LandHeightTable {
		r.LandDefs.LandHeightTable[i] = float32(i)
	}
	table := &dat.SoundTable{ID: tableID, Root: dat.SoundNode{
		Records: []dat.SoundRecord{{Probability: 1, Volume: 1}},
		Children: []dat.SoundNode{{HashKey: 0x46, Records: []dat.SoundRecord{
			{WaveID: waveID, Probability: 1, Volume: 1}, {WaveID: badWave, Probability: 1, Volume: 1}}}},
	}}
	portal = datfetch.NewMemory(map[uint32][]byte{
		dat.RegionID: r.Encode(),
		tableID:      table.Encode(),
		waveID:       pcmWave(waveID, 22050, 22050).Encode(),                        // one second
		badWave:      append(pcmWave(badWave, 22050, 10).Encode()[:12+18], 1, 2, 3), // data size lies
	})
	cell = datfetch.NewMemory(map[uint32][]byte{})
	// Landblock 0x8080 grassland, 0x8180 sand; the rest of the ring is missing.
	for _, b := range []struct {
		bx, by int
		typ    uint16
	}{{0x80, 0x80, 1}, {0x81, 0x80, 10}} {
		lb := &dat.LandBlock{ID: dat.DID(world.LandBlockID(b.bx, b.by))}
		for i := range lb.Terrain {
			lb.Terrain[i] = b.typ << 2
			lb.Height[i] = 10
		}
		cell.Put(uint32(lb.ID), lb.Encode())
	}
	cell.Put(0x80800100, (&dat.EnvCell{ID: 0x80800100, Flags: dat.EnvCellSeenOutside, CellID: 0x80800100}).Encode())
	return portal, cell
}

func pcmWave(id uint32, rate, frames int) *dat.Wave {
	h := make([]byte, 18)
	binary.LittleEndian.PutUint16(h[0:], dat.FormatPCM)
	binary.LittleEndian.PutUint16(h[2:], 1)
	binary.LittleEndian.PutUint32(h[4:], uint32(rate))
	binary.LittleEndian.PutUint32(h[8:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[12:], 2)
	binary.LittleEndian.PutUint16(h[14:], 16)
	return &dat.Wave{ID: dat.DID(id), Header: h, Data: make([]byte, 2*frames)}
}

func TestPrepareLoadsWhatARebuildReads(t *testing.T) {
	portal, cell := fixture(t)
	var errs []string
	s, err := New(context.Background(), portal, cell, ambient.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s.OnError = func(err error) { errs = append(errs, err.Error()) }
	pos := world.Position{ObjCellID: 0x80800024, X: 100, Y: 100, Z: 10}
	rebuilt, err := s.SetPlayer(context.Background(), 0, pos)
	if err != nil || !rebuilt {
		t.Fatalf("SetPlayer = %v, %v", rebuilt, err)
	}
	if tb, st := s.SoundTable(tableID); st != ambient.Loaded || tb == nil {
		t.Errorf("table 0x%08X status %v, want Loaded", tableID, st)
	}
	if _, st := s.SoundTable(lostTab); st != ambient.NotFound {
		t.Errorf("missing table status %v, want NotFound (retail stb_not_found)", st)
	}
	if d, ok := s.Wave(waveID); !ok || d != 1 {
		t.Errorf("Wave(0x%08X) = %v, %v; want 1 s", waveID, d, ok)
	}
	if _, ok := s.Wave(badWave); ok {
		t.Error("a wave whose data size lies decoded")
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "0x0A000002") {
		t.Errorf("OnError got %q, want one error naming wave 0x0A000002", errs)
	}
	// Region + 2 landblocks + 1 table + 2 waves fetched (missing ones are not records).
	if st := s.Stats(); st.Records != 6 {
		t.Errorf("fetched %d records, want 6", st.Records)
	}
	state := s.Engine.State()
	if len(state.Sounds) != 1 || state.Sounds[0].STBIndex != 0 || state.TotalSoundCount <= 0 {
		t.Errorf("state after rebuild: %+v", state)
	}
}

func TestSeenOutsideCellIsFetched(t *testing.T) {
	portal, cell := fixture(t)
	s, err := New(context.Background(), portal, cell, ambient.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetPlayer(context.Background(), 0, world.Position{ObjCellID: 0x80800100, X: 96, Y: 96, Z: 10}); err != nil {
		t.Fatal(err)
	}
	if c := s.EnvCell(0x80800100); c == nil || !c.SeenOutside() {
		t.Fatalf("EnvCell not loaded: %+v", c)
	}
	if st := s.Engine.State(); !st.Outdoorish || len(st.Sounds) == 0 {
		t.Errorf("a seen_outside cell should hear the outdoor set: %+v", st)
	}
}

func TestMissingRegionIsFatal(t *testing.T) {
	_, err := New(context.Background(), datfetch.NewMemory(nil), datfetch.NewMemory(nil), ambient.DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), "region 0x13000000") || !errors.Is(err, datfetch.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

// flaky fails every Get of the ids in fail until healed.
type flaky struct {
	datfetch.Source
	mu   sync.Mutex
	fail map[uint32]bool
	hits map[uint32]int
}

func (f *flaky) Get(ctx context.Context, id uint32) ([]byte, error) {
	f.mu.Lock()
	f.hits[id]++
	bad := f.fail[id]
	f.mu.Unlock()
	if bad {
		return nil, errors.New("connection refused")
	}
	return f.Source.Get(ctx, id)
}

func TestTransientFailureIsRetriedNextPrepare(t *testing.T) {
	portal, cell := fixture(t)
	fp := &flaky{Source: portal, fail: map[uint32]bool{tableID: true}, hits: map[uint32]int{}}
	s, err := New(context.Background(), fp, cell, ambient.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pos := world.Position{ObjCellID: 0x80800024, X: 100, Y: 100, Z: 10}
	if err := s.Prepare(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if _, st := s.SoundTable(tableID); st != ambient.Pending {
		t.Fatalf("after a network failure the table is %v, want Pending (not stb_not_found)", st)
	}
	fp.mu.Lock()
	fp.fail[tableID] = false
	fp.mu.Unlock()
	if err := s.Prepare(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if _, st := s.SoundTable(tableID); st != ambient.Loaded {
		t.Fatalf("after recovery the table is %v, want Loaded", st)
	}
	if got := fp.hits[lostTab]; got != 1 {
		t.Errorf("a 404 table was fetched %d times, want 1 (not retried)", got)
	}
}

func TestResolveZ(t *testing.T) {
	portal, cell := fixture(t)
	s, err := New(context.Background(), portal, cell, ambient.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sp := world.Spec{Pos: world.Position{ObjCellID: 0x80800001, X: 5, Y: 5}, NeedsZ: true}
	if err := s.ResolveZ(context.Background(), &sp); err != nil {
		t.Fatal(err)
	}
	if sp.Pos.Z != 10 || sp.NeedsZ {
		t.Errorf("z = %v (needs %v), want 10 from the flat height table", sp.Pos.Z, sp.NeedsZ)
	}
	sp = world.Spec{Pos: world.Position{ObjCellID: 0x10100001}, NeedsZ: true}
	if err := s.ResolveZ(context.Background(), &sp); err == nil || !strings.Contains(err.Error(), "0x1010FFFF") {
		t.Errorf("missing landblock: err = %v", err)
	}
}
