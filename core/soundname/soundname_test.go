package soundname

import (
	"slices"
	"testing"

	"acambient/core/dat"
	"acambient/core/demo"
)

func demoRegion(t *testing.T) *dat.Region {
	t.Helper()
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDemo: the demo's nine sets (core/demo doc: meadow lively and quiet,
// forest, river, coast, snowfield, desert, marsh, rock).
func TestDemo(t *testing.T) {
	want := []struct{ name, label string }{
		{"grassland", "grassland"}, // lively meadow: ordinal 0 of the grasses and dirt
		{"grassland", "grassland (2)"},
		{"forest", "forest"}, // ForestFloor, Moss, DarkMoss
		{"running water", "running water"},
		{"sea", "sea"}, // three seas outweigh the grey-sand beach
		{"snow and ice", "snow and ice"},
		{"sand", "sand"},
		{"marsh", "marsh"},
		{"rock", "rock"},
	}
	sets := Sets(demoRegion(t))
	if len(sets) != len(want) {
		t.Fatalf("%d sets, want %d", len(sets), len(want))
	}
	for k, s := range sets {
		if s.STBIndex != k || s.Name != want[k].name || s.Label != want[k].label {
			t.Errorf("STB %d: %q / %q, want %q / %q", k, s.Name, s.Label, want[k].name, want[k].label)
		}
	}
	// Strongest first: the grasses (1/2 of their two ordinals) before the
	// dirt of three ordinals (1/3); the rivers' terrains in index order.
	if got := sets[0].Terrains; !slices.Equal(got, []string{"Grassland", "LushGrass", "PatchyDirt", "PatchyGrassland", "PackedDirt"}) {
		t.Errorf("meadow terrains %v", got)
	}
	if got := sets[3].Terrains; !slices.Equal(got, []string{"WaterRunning", "FauxWaterRunning"}) {
		t.Errorf("river terrains %v", got)
	}
}

// region builds a region from terrain types given as {name, ordinals...},
// each ordinal naming STB k directly (scene type k → STB k) or −1 for none.
func region(stbs int, terrains ...terrain) *dat.Region {
	r := &dat.Region{SoundInfo: &dat.SoundDesc{}, SceneInfo: &dat.SceneDesc{}}
	for k := range stbs {
		r.SoundInfo.STBDescs = append(r.SoundInfo.STBDescs, dat.AmbientSTBDesc{STBID: dat.DID(0x20000001 + k)})
		r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, dat.SceneType{STBIndex: uint32(k)})
	}
	for _, t := range terrains {
		tt := dat.TerrainType{TerrainName: t.name}
		for _, k := range t.ordinals {
			if k < 0 {
				tt.SceneTypes = append(tt.SceneTypes, dat.None)
			} else {
				tt.SceneTypes = append(tt.SceneTypes, uint32(k))
			}
		}
		r.TerrainInfo.TerrainTypes = append(r.TerrainInfo.TerrainTypes, tt)
	}
	return r
}

type terrain struct {
	name     string
	ordinals []int
}

func tr(name string, ordinals ...int) terrain { return terrain{name, ordinals} }

func TestChoosing(t *testing.T) {
	for _, c := range []struct {
		name  string
		r     *dat.Region
		names []string
	}{
		{"one terrain: its phrase", region(1, tr("WaterRunning", 0)), []string{"running water"}},
		{"two terrains of one phrase", region(1, tr("WaterRunning", 0), tr("FauxWaterRunning", 0)), []string{"running water"}},
		{"one kind, two phrases: the kind", region(1, tr("ForestFloor", 0), tr("Moss", 0)), []string{"forest"}},
		{"a tie of kinds: both, in kind order", region(1, tr("Grassland", 0), tr("ForestFloor", 0)), []string{"forest floor and grassland"}},
		{"runner-up at 3/4: both", region(1, tr("Grassland", 0, 0, 0, 0), tr("Snow", 0, 0, 0, -1)), []string{"grassland and snow"}},
		{"runner-up under 3/4: the first", region(1, tr("Grassland", 0, 0, 0, 0), tr("Snow", 0, 0, -1, -1)), []string{"grassland"}},
		{
			// A terrain of four ordinals gives each a quarter: Snow wholly of
			// STB 1 outweighs Grassland's one ordinal in four.
			"fractions of a terrain's ordinals",
			region(2, tr("Grassland", 0, 0, 0, 1), tr("Snow", 1)),
			[]string{"grassland", "snow"},
		},
		{"a terrain name the table lacks", region(1, tr("CrystalField2", 0)), []string{"crystal field"}},
		{"an empty name: the enum's", region(1, tr("", -1), tr("  ", 0)), []string{"grassland"}}, // type 1 is Grassland
		{"an STB no terrain names", region(2, tr("Snow", 0)), []string{"snow", ""}},
		{"out-of-range and none at every hop", func() *dat.Region {
			r := region(1, tr("Snow", 0, 5, -1))
			r.SceneInfo.SceneTypes = append(r.SceneInfo.SceneTypes, dat.SceneType{STBIndex: 9}, dat.SceneType{STBIndex: dat.None})
			r.TerrainInfo.TerrainTypes[0].SceneTypes = append(r.TerrainInfo.TerrainTypes[0].SceneTypes, 1, 2)
			return r
		}(), []string{"snow"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sets := Sets(c.r)
			var got []string
			for _, s := range sets {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, c.names) {
				t.Errorf("names %q, want %q", got, c.names)
			}
		})
	}
}

// TestOnlyWhatAWordCanHold: terrain types past 31 and ordinals past 31 are
// out of a terrain word's reach (docs/dat-format.md §6.2) and name nothing.
func TestOnlyWhatAWordCanHold(t *testing.T) {
	ts := make([]terrain, 33)
	for i := range ts {
		ts[i] = tr("Snow", -1)
	}
	ts[32] = tr("Grassland", 0) // type 32
	ord := make([]int, 33)
	for i := range ord {
		ord[i] = -1
	}
	ord[32] = 1 // ordinal 32 of type 0
	ts[0] = tr("Snow", ord...)
	sets := Sets(region(2, ts...))
	if sets[0].Name != "" || sets[1].Name != "" {
		t.Errorf("names %q, %q: want none", sets[0].Name, sets[1].Name)
	}
}

func TestLabelsUnique(t *testing.T) {
	sets := Sets(region(4, tr("Snow", 0), tr("Ice", 1), tr("Snow", 2), tr("Snow", 3)))
	var labels []string
	for _, s := range sets {
		labels = append(labels, s.Label)
	}
	if want := []string{"snow", "ice", "snow (2)", "snow (3)"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	if sets[2].Name != "snow" {
		t.Errorf("name %q: a label's number is not in the name", sets[2].Name)
	}
}

func TestNoRegion(t *testing.T) {
	if s := Sets(nil); len(s) != 0 {
		t.Errorf("nil region: %v", s)
	}
	if s := Sets(&dat.Region{}); len(s) != 0 {
		t.Errorf("no sound info: %v", s)
	}
}

func TestPhrase(t *testing.T) {
	for in, want := range map[string]string{
		"WaterRunning": "running water", "ForestFloor": "forest floor", "SandRockStrewn": "rock-strewn sand",
		"Volcano2": "volcanic ground", "HTTPServer": "httpserver", "": "", "dark_moss": "dark moss",
	} {
		if got := Phrase(in); got != want {
			t.Errorf("Phrase(%q) = %q, want %q", in, got, want)
		}
	}
	// Every retail terrain type has a phrase of its own.
	for i := range uint32(32) {
		if _, ok := terrainByName[dat.TerrainTypeName(i)]; !ok {
			t.Errorf("terrain %d %s has no phrase", i, dat.TerrainTypeName(i))
		}
	}
}
