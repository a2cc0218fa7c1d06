package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/world"
	"acambient/datfetch/source"
)

const (
	tableID = 0x20000001
	waveID  = 0x0A000001
	badWave = 0x0A000002
	lostTab = 0x20000002
)

// fixture is a region whose grassland (type 1) plays STB 0 (table 0x20000001:
// one constant sound) and whose sand (type 10) names a table that is missing.
func fixture(t *testing.T) (portal, cell *source.Memory) {
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
	portal = source.NewMemory(map[uint32][]byte{
		dat.RegionID: r.Encode(),
		tableID:      table.Encode(),
		waveID:       pcmWave(waveID, 22050, 22050).Encode(),                        // one second
		badWave:      append(pcmWave(badWave, 22050, 10).Encode()[:12+18], 1, 2, 3), // data size lies
	})
	cell = source.NewMemory(map[uint32][]byte{})
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
	return &dat.Wave{ID: dat.DID(id), Header: dat.PCMHeader(rate, 1, 16), Data: make([]byte, 2*frames)}
}

// newHost is a Sync host over the fixture with errors collected.
func newHost(t *testing.T, portal, cell source.Source, syncMode bool) (*Host, *[]string) {
	t.Helper()
	var mu sync.Mutex
	errs := &[]string{}
	h, err := New(context.Background(), portal, cell, Options{Config: ambient.DefaultConfig(), Sync: syncMode,
		OnError: func(err error) { mu.Lock(); *errs = append(*errs, err.Error()); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	return h, errs
}

func TestHostLoadsWhatARebuildReads(t *testing.T) {
	portal, cell := fixture(t)
	h, errs := newHost(t, portal, cell, true)
	h.Move(world.Position{ObjCellID: 0x80800024, X: 100, Y: 100, Z: 10})
	evs := h.Tick(0)
	if len(evs) == 0 || evs[0].Kind != ambient.KindRebuild || evs[0].ObjCellID != 0x80800024 {
		t.Fatalf("first tick events %+v, want a rebuild at 0x80800024 first", evs)
	}
	if tb, st := h.ld.SoundTable(tableID); st != ambient.Loaded || tb == nil {
		t.Errorf("table 0x%08X status %v, want Loaded", tableID, st)
	}
	if _, st := h.ld.SoundTable(lostTab); st != ambient.NotFound {
		t.Errorf("missing table status %v, want NotFound (retail stb_not_found)", st)
	}
	if d, ok := h.ld.Wave(waveID); !ok || d != 1 {
		t.Errorf("Wave(0x%08X) = %v, %v; want 1 s", waveID, d, ok)
	}
	if _, ok := h.ld.Wave(badWave); ok {
		t.Error("a wave whose data size lies decoded")
	}
	if len(*errs) != 1 || !strings.Contains((*errs)[0], "0x0A000002") {
		t.Errorf("OnError got %q, want one error naming wave 0x0A000002", *errs)
	}
	// Region + 2 landblocks + 1 table + 2 waves fetched (missing ones are not records).
	if st := h.Snapshot().Loading; st.Records != 6 || st.Pending != 0 {
		t.Errorf("fetched %d records (%d pending), want 6 (0)", st.Records, st.Pending)
	}
	state := h.Snapshot()
	if len(state.Sounds) != 1 || state.Sounds[0].STBIndex != 0 || state.TotalSoundCount <= 0 {
		t.Errorf("state after rebuild: %+v", state.State)
	}
	if len(state.Voices) != 1 || state.Voices[0].Play.Wave != waveID || state.Voices[0].End != 1 {
		t.Errorf("voices %+v, want the 1 s wave on one voice", state.Voices)
	}
	if !h.complete() {
		t.Error("the rebuild had every record it reads, but Complete is false")
	}
}

func TestSeenOutsideCellIsFetched(t *testing.T) {
	portal, cell := fixture(t)
	h, _ := newHost(t, portal, cell, true)
	h.Move(world.Position{ObjCellID: 0x80800100, X: 96, Y: 96, Z: 10})
	h.Tick(0)
	if c := h.ld.EnvCell(0x80800100); c == nil || !c.SeenOutside() {
		t.Fatalf("EnvCell not loaded: %+v", c)
	}
	if st := h.Snapshot(); !st.Outdoorish || len(st.Sounds) == 0 {
		t.Errorf("a seen_outside cell should hear the outdoor set: %+v", st.State)
	}
}

func TestResolveRejectsAMissingEnvCell(t *testing.T) {
	portal, cell := fixture(t)
	h, _ := newHost(t, portal, cell, true)
	if _, err := h.Resolve("0x80800150/1,1,1"); err == nil || !strings.Contains(err.Error(), "envcell 0x80800150 does not exist") {
		t.Errorf("Resolve of a missing EnvCell: err = %v", err)
	}
	if sp, err := h.Resolve("0x80800100/96,96,10"); err != nil || sp.Pos.ObjCellID != 0x80800100 {
		t.Errorf("Resolve of an existing EnvCell: %+v, %v", sp, err)
	}
}

func TestMissingRegionIsFatal(t *testing.T) {
	_, cell := fixture(t)
	_, err := New(context.Background(), source.NewMemory(nil), cell, Options{Config: ambient.DefaultConfig()})
	if err == nil || !strings.Contains(err.Error(), "0x13000000") {
		t.Errorf("New without a region: %v", err)
	}
}

// flaky fails every Get of the ids in fail until healed.
type flaky struct {
	source.Source
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

// TestNetworkBlipStillPlays is the case: in the demo forest every
// Wave's first fetch fails (a network blip). The first rebuild finds no
// loaded table; the host fetches the waves again and rebuilds at the same
// cell without being moved, and the forest plays.
func TestNetworkBlipStillPlays(t *testing.T) {
	w := demoWorld(t)
	portal := &blip{Source: source.NewMemory(w.Portal), seen: map[uint32]bool{}}
	h, errs := newHost(t, portal, source.NewMemory(w.Cell), true)
	forest := landmark(t, "forest")
	h.Move(forest)
	if evs := h.Tick(0); len(evs) != 1 || evs[0].Instances != 0 {
		t.Fatalf("first rebuild: %+v, want a rebuild with no instances (every wave failed)", evs)
	}
	if len(*errs) == 0 || h.complete() {
		t.Fatalf("errors %d, complete %v: the blip should be reported and the rebuild incomplete", len(*errs), h.complete())
	}
	// A second Move at the same cell, as the page sends on every mouse move.
	h.Move(forest)
	plays, rebuildAt := 0, -1.0
	for k := 1; k <= 60*30; k++ {
		now := float64(k) / 30
		for _, ev := range h.Tick(now) {
			switch ev.Kind {
			case ambient.KindPlay:
				plays++
			case ambient.KindRebuild:
				if rebuildAt < 0 {
					rebuildAt = now
				}
				if ev.Instances == 0 {
					t.Errorf("t=%v: rebuild with no instances after the waves arrived", now)
				}
			}
		}
	}
	if rebuildAt < 0 || rebuildAt > 1.1 {
		t.Errorf("the host rebuilt at t=%v, want within about a second of the blip", rebuildAt)
	}
	if plays < 10 || !h.complete() {
		t.Errorf("60 s after the blip: %d plays, complete %v; want the forest playing", plays, h.complete())
	}
}

// blip fails the first Get of every Wave.
type blip struct {
	source.Source
	mu   sync.Mutex
	seen map[uint32]bool
}

func (b *blip) Get(ctx context.Context, id uint32) ([]byte, error) {
	b.mu.Lock()
	first := !b.seen[id]
	b.seen[id] = true
	b.mu.Unlock()
	if first && id>>24 == 0x0A {
		return nil, errors.New("connection reset by peer")
	}
	return b.Source.Get(ctx, id)
}

// slow delays every Get until released, like a page's first requests.
type slow struct {
	source.Source
	gate chan struct{}
}

func (s *slow) Get(ctx context.Context, id uint32) ([]byte, error) {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Source.Get(ctx, id)
}

// TestBackgroundLoadRebuildsOnArrival: in the page's mode Tick never waits;
// the first rebuild has nothing, and the rebuild after the records arrive
// plays.
func TestBackgroundLoadRebuildsOnArrival(t *testing.T) {
	w := demoWorld(t)
	gate := make(chan struct{})
	h, err := New(context.Background(), source.NewMemory(w.Portal),
		&slow{Source: source.NewMemory(w.Cell), gate: gate}, Options{Config: ambient.DefaultConfig()})
	if err != nil {
		t.Fatal(err)
	}
	h.Move(landmark(t, "river"))
	if evs := h.Tick(0); len(evs) != 1 || evs[0].Instances != 0 || h.idle() {
		t.Fatalf("first tick %+v idle=%v, want an empty rebuild while the ring loads", evs, h.idle())
	}
	close(gate)
	for deadline := time.Now().Add(10 * time.Second); !h.idle(); {
		if time.Now().After(deadline) {
			t.Fatal("the background load did not finish")
		}
		time.Sleep(time.Millisecond)
	}
	evs := h.Tick(1.0 / 30)
	if len(evs) == 0 || evs[0].Kind != ambient.KindRebuild || evs[0].Instances == 0 {
		t.Fatalf("tick after arrival: %+v, want a rebuild with the river's instances", evs)
	}
	if !h.complete() {
		t.Error("after arrival the rebuild is still incomplete")
	}
}

// TestLandmarksHaveNoPendingLookups: at every demo landmark, after loading,
// no table the engine asks for is Pending — the host loaded exactly what the
// engine reads.
func TestLandmarksHaveNoPendingLookups(t *testing.T) {
	w := demoWorld(t)
	for _, lm := range demo.Landmarks {
		h, _ := newHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), true)
		lib := &pendingCounter{loader: h.ld}
		h.eng = ambient.New(h.ld.region, h.ld, lib, ambient.DefaultConfig())
		h.Move(world.Position{ObjCellID: lm.ObjCellID, X: lm.X, Y: lm.Y, Z: lm.Z})
		h.Tick(0)
		if lib.pending != 0 || !h.complete() {
			t.Errorf("%s: %d Pending answers to the engine, complete %v", lm.Name, lib.pending, h.complete())
		}
	}
}

// pendingCounter is the loader as the engine's Library, counting the
// SoundTable answers that were Pending.
type pendingCounter struct {
	*loader
	pending int
}

func (p *pendingCounter) SoundTable(id uint32) (*dat.SoundTable, ambient.Status) {
	t, st := p.loader.SoundTable(id)
	if st == ambient.Pending {
		p.pending++
	}
	return t, st
}

// TestSweepKeepsMemoryBounded walks the player over every demo landblock:
// what the host holds stays that of one ring, not of the world.
func TestSweepKeepsMemoryBounded(t *testing.T) {
	w := demoWorld(t)
	h, _ := newHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), true)
	var maxBlocks, maxWaves int
	var maxHeld int64
	sweepDemo(h, func() {
		h.ld.mu.Lock()
		maxBlocks = max(maxBlocks, len(h.ld.blocks))
		maxWaves = max(maxWaves, len(h.ld.waves))
		maxHeld = max(maxHeld, h.ld.stats.HeldBytes)
		h.ld.mu.Unlock()
	})
	if maxBlocks > 9 {
		t.Errorf("held up to %d landblocks, want at most the 9 of a ring", maxBlocks)
	}
	total := 0
	for id := range w.Portal {
		if id>>24 == 0x0A {
			total++
		}
	}
	if maxWaves >= total {
		t.Errorf("held up to %d of the world's %d waves: nothing was let go", maxWaves, total)
	}
	t.Logf("sweep of 144 landblocks: at most %d landblocks, %d waves, %.1f MiB of decoded samples held",
		maxBlocks, maxWaves, float64(maxHeld)/(1<<20))
}

// sweepDemo moves h to the centre of each of the demo's 144 landblocks in
// turn, one tick each, calling each after every tick.
func sweepDemo(h *Host, each func()) {
	now := 0.0
	for bx := 0xA3; bx <= 0xAE; bx++ {
		for by := 0xAF; by <= 0xBA; by++ {
			h.Move(world.Position{ObjCellID: world.OutdoorCellID(bx, by, 4, 4), X: 96, Y: 96, Z: 20})
			h.Tick(now)
			now += 1.0 / 30
			each()
		}
	}
}

func demoWorld(t testing.TB) *demo.World {
	t.Helper()
	w, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var demoOnce = sync.OnceValues(demo.Build)

func landmark(t *testing.T, name string) world.Position {
	for _, lm := range demo.Landmarks {
		if lm.Name == name {
			return world.Position{ObjCellID: lm.ObjCellID, X: lm.X, Y: lm.Y, Z: lm.Z}
		}
	}
	t.Fatalf("no landmark %q", name)
	return world.Position{}
}

func TestResolveZ(t *testing.T) {
	portal, cell := fixture(t)
	h, _ := newHost(t, portal, cell, true)
	sp := world.Spec{Pos: world.Position{ObjCellID: 0x80800001, X: 5, Y: 5}, NeedsZ: true}
	if err := h.ld.resolveZ(context.Background(), &sp); err != nil {
		t.Fatal(err)
	}
	if sp.Pos.Z != 10 || sp.NeedsZ {
		t.Errorf("z = %v (needs %v), want 10 from the flat height table", sp.Pos.Z, sp.NeedsZ)
	}
	sp = world.Spec{Pos: world.Position{ObjCellID: 0x10100001}, NeedsZ: true}
	if err := h.ld.resolveZ(context.Background(), &sp); err == nil || !strings.Contains(err.Error(), "0x1010FFFF") {
		t.Errorf("missing landblock: err = %v", err)
	}
}

// TestFailedTableIsRetriedAndMissingOneIsNot: a network failure leaves the
// table Pending (retried with backoff while the player stays), a 404 is
// retail's stb_not_found and is never asked for again.
func TestFailedTableIsRetriedAndMissingOneIsNot(t *testing.T) {
	portal, cell := fixture(t)
	fp := &flaky{Source: portal, fail: map[uint32]bool{tableID: true}, hits: map[uint32]int{}}
	h, _ := newHost(t, fp, cell, true)
	h.Move(world.Position{ObjCellID: 0x80800024, X: 100, Y: 100, Z: 10})
	h.Tick(0)
	if _, st := h.ld.SoundTable(tableID); st != ambient.Pending || h.complete() {
		t.Fatalf("after a network failure the table is %v (complete %v), want Pending", st, h.complete())
	}
	fp.mu.Lock()
	fp.fail[tableID] = false
	fp.mu.Unlock()
	for k := 1; k <= 90; k++ { // 3 s of ticks
		h.Tick(float64(k) / 30)
	}
	if _, st := h.ld.SoundTable(tableID); st != ambient.Loaded || !h.complete() {
		t.Fatalf("after recovery the table is %v (complete %v), want Loaded", st, h.complete())
	}
	if got := fp.hits[lostTab]; got != 1 {
		t.Errorf("a 404 table was fetched %d times, want 1 (not retried)", got)
	}
	if got := fp.hits[tableID]; got != 2 {
		t.Errorf("the failed table was fetched %d times in 3 s, want 2 (one retry after 1 s)", got)
	}
}
