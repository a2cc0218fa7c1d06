package mix

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch/source"
)

// These tests drive the mixer with the real engine behind core/session's
// host, over a small world held in memory: landblock 0x8080 and its ring
// all grassland (terrain type 1), whose STB 0 names table 0x20000001.

const testTable = 0x20000001

// wave16 is a 16-bit mono PCM wave of frames frames at rate, every sample v.
func wave16(id uint32, rate, frames int, v int16) []byte {
	h := dat.PCMHeader(rate, 1, 16)
	data := make([]byte, 2*frames)
	for i := 0; i < frames; i++ {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
	}
	return (&dat.Wave{ID: dat.DID(id), Header: h, Data: data}).Encode()
}

type testWave struct {
	id            uint32
	rate, frames  int
	value         int16
	stype         uint32
	probabilities float32
}

// world builds the sources: STB 0 holds sounds, the table one child per
// stype with the given waves as its variants.
func testWorld(t *testing.T, sounds []dat.AmbientSoundDesc, waves []testWave) (portal, cell *source.Memory) {
	t.Helper()
	r := &dat.Region{
		ID: dat.RegionID, RegionNumber: 1, Version: 3, RegionName: "Mix",
		PartsMask: dat.PartSound | dat.PartScene,
		SoundInfo: &dat.SoundDesc{STBDescs: []dat.AmbientSTBDesc{{STBID: testTable, AmbientSounds: sounds}}},
		SceneInfo: &dat.SceneDesc{SceneTypes: []dat.SceneType{{STBIndex: 0}}},
	}
	for i := 0; i < 32; i++ {
		tt := dat.TerrainType{TerrainName: dat.TerrainTypeName(uint32(i)), SceneTypes: []uint32{dat.None}}
		if i == 1 {
			tt.SceneTypes = []uint32{0}
		}
		r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes, tt)
	}
	r.TerrainInfo.LandSurf.TexMerge = &dat.TexMerge{}
	for i := range r.LandDefs.LandHeightTable {
		r.LandDefs.LandHeightTable[i] = float32(i)
	}
	table := &dat.SoundTable{ID: testTable, Root: dat.SoundNode{Records: []dat.SoundRecord{{Probability: 1, Volume: 1}}}}
	recs := map[uint32][]byte{dat.RegionID: nil}
	children := map[uint32]int{}
	for _, w := range waves {
		k, ok := children[w.stype]
		if !ok {
			k = len(table.Root.Children)
			children[w.stype] = k
			table.Root.Children = append(table.Root.Children, dat.SoundNode{HashKey: w.stype})
		}
		table.Root.Children[k].Records = append(table.Root.Children[k].Records,
			dat.SoundRecord{WaveID: dat.DID(w.id), Probability: w.probabilities, Volume: 1})
		recs[w.id] = wave16(w.id, w.rate, w.frames, w.value)
	}
	recs[dat.RegionID] = r.Encode()
	recs[testTable] = table.Encode()
	portal = source.NewMemory(recs)
	cell = source.NewMemory(map[uint32][]byte{})
	for bx := 0x7F; bx <= 0x81; bx++ {
		for by := 0x7F; by <= 0x81; by++ {
			lb := &dat.LandBlock{ID: dat.DID(world.LandBlockID(bx, by))}
			for i := range lb.Terrain {
				lb.Terrain[i] = 1 << 2
			}
			cell.Put(uint32(lb.ID), lb.Encode())
		}
	}
	return portal, cell
}

func testHost(t *testing.T, portal, cell source.Source, seed uint32) *session.Host {
	t.Helper()
	cfg := ambient.DefaultConfig()
	cfg.Seed = seed
	h, err := session.New(context.Background(), portal, cell, session.Options{Config: cfg, Sync: true,
		OnError: func(err error) { t.Error(err) }})
	if err != nil {
		t.Fatal(err)
	}
	p, err := world.FromGlobal(0x80*192+96, 0x80*192+96, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.Move(p)
	return h
}

// TestSeventeenthIsSilent: a constant sound fired every 0.1 s with a 3 s
// wave of DC 1/32 fills all 16 voices; the engine drops every further fire
// (skip: voices) until a wave ends, and the output never exceeds 16/32.
func TestSeventeenthIsSilent(t *testing.T) {
	portal, cell := testWorld(t,
		[]dat.AmbientSoundDesc{{SType: 0x46, Volume: 1, MinRate: 0.1, MaxRate: 0.1}},
		[]testWave{{id: 0x0A000001, rate: 48000, frames: 3 * 48000, value: 1024, stype: 0x46, probabilities: 1}})
	plays, dropped := 0, 0
	m, w := watch(t, testHost(t, portal, cell, 1), Options{OnEvents: func(_ float64, evs []ambient.Event) {
		for _, ev := range evs {
			switch {
			case ev.Kind == ambient.KindPlay:
				plays++
				if ev.DB != 0 || ev.Pan != 0 {
					t.Fatalf("play at %v dB, pan %v; the fixture wants 0, 0", ev.DB, ev.Pan)
				}
			case ev.Kind == ambient.KindSkip && ev.Reason == ambient.ReasonVoices:
				dropped++
			}
		}
	}})
	out := render(m, 8*48000, 1000)
	peak := float32(0)
	for _, s := range out {
		peak = max(peak, s)
	}
	if dropped == 0 || plays < 17 {
		t.Fatalf("%d plays, %d dropped: the fixture did not saturate the pool", plays, dropped)
	}
	if peak != 16.0/32 {
		t.Errorf("peak %v, want exactly %v (16 voices of 1/32)", peak, 16.0/32)
	}
	if w.cuts != 0 || w.late != 0 {
		t.Errorf("%d plays on a sounding voice, %d voices sounding past the engine's end", w.cuts, w.late)
	}
}

// TestSlotsFollowTheEngine: a minute of many intermittent sounds over waves
// of awkward lengths and rates (and some lasting whole ticks) keeps the
// pool busy; at both output rates no
// play lands on a voice still sounding and no voice sounds on after the
// engine has freed its slot.
func TestSlotsFollowTheEngine(t *testing.T) {
	var sounds []dat.AmbientSoundDesc
	for i := 0; i < 6; i++ {
		sounds = append(sounds, dat.AmbientSoundDesc{SType: 0x46 + uint32(i%3), Volume: 1, BaseChance: 1, MinRate: 0.05, MaxRate: 0.4})
	}
	waves := []testWave{
		// Whole numbers of ticks: the engine frees these on a tick exactly
		// at their end, the edge where a voice one frame too long would show.
		// (First in each child: retail never picks a table's last variant.)
		{0x0A00000A, 48000, 1600 * 7, 300, 0x46, 1},
		{0x0A00000B, 22050, 735 * 11, 300, 0x47, 1},
		{0x0A00000C, 44100, 1470 * 5, 300, 0x48, 1},
		{0x0A000001, 22050, 10001, 300, 0x46, 1},
		{0x0A000002, 11025, 3333, 300, 0x46, 1},
		{0x0A000003, 44100, 77777, 300, 0x46, 1},
		{0x0A000004, 8000, 12345, 300, 0x47, 1},
		{0x0A000005, 48000, 4801, 300, 0x47, 1},
		{0x0A000006, 22222, 22223, 300, 0x47, 1},
		{0x0A000007, 32000, 1, 300, 0x48, 1},
		{0x0A000008, 16000, 16001, 300, 0x48, 1},
		{0x0A000009, 24000, 7, 300, 0x48, 1},
	}
	portal, cell := testWorld(t, sounds, waves)
	for _, rate := range []int{48000, 44100} {
		plays := 0
		m, w := watch(t, testHost(t, portal, cell, 7), Options{Rate: rate, OnEvents: func(_ float64, evs []ambient.Event) {
			for _, ev := range evs {
				if ev.Kind == ambient.KindPlay {
					plays++
				}
			}
		}})
		render(m, 60*rate, 4096)
		if plays < 500 {
			t.Fatalf("rate %d: only %d plays", rate, plays)
		}
		if w.cuts != 0 || w.late != 0 {
			t.Errorf("rate %d: %d plays on a sounding voice, %d voices sounding past the engine's end (%d plays)",
				rate, w.cuts, w.late, plays)
		}
	}
}

// TestRealDeterministic: the same seed renders the same samples; another
// seed does not.
func TestRealDeterministic(t *testing.T) {
	portal, cell := testWorld(t,
		[]dat.AmbientSoundDesc{{SType: 0x46, Volume: 0.5, BaseChance: 0.7, MinRate: 0.2, MaxRate: 1}},
		[]testWave{{0x0A000001, 22050, 5000, 8000, 0x46, 1}, {0x0A000002, 11025, 9000, -8000, 0x46, 1}, {0x0A000003, 44100, 100, 1, 0x46, 1}})
	run := func(seed uint32) []float32 {
		return render(newMixer(t, testHost(t, portal, cell, seed), Options{}), 10*48000, 2048)
	}
	a, b, c := run(3), run(3), run(4)
	if !equal(a, b) {
		t.Error("seed 3 twice: different samples")
	}
	if equal(a, c) {
		t.Error("seeds 3 and 4: the same samples")
	}
	if rms(a) == 0 || math.IsNaN(rms(a)) {
		t.Errorf("silent render (rms %v)", rms(a))
	}
}
