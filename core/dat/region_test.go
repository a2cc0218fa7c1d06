package dat

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestRegionFull(t *testing.T) {
	b, marks := fullRegionBytes()
	// Offsets docs/dat-format.md §3.1 states for EoR-shaped regions.
	for name, want := range map[string]int{"name": 0x0C, "landDefs": 0x14, "heightTable": 0x34, "gameTime": 0x434} {
		if marks[name] != want {
			t.Errorf("%s at 0x%X, spec says 0x%X", name, marks[name], want)
		}
	}
	r, err := DecodeRegion(regionID, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := fullRegion(); !reflect.DeepEqual(r, want) {
		t.Errorf("decoded region differs:\n got %+v\nwant %+v", r, want)
	}
	if r.RegionName != "Dereth" || r.Version != 3 || r.RegionNumber != 1 {
		t.Errorf("head = %d %d %q", r.RegionNumber, r.Version, r.RegionName)
	}
	if got := r.HeightZ(0); got != 0 {
		t.Errorf("HeightZ(0) = %v", got)
	}
	if got := r.HeightZ(255); got != 637.5 {
		t.Errorf("HeightZ(255) = %v, want 637.5", got)
	}
	if got := r.HeightZ(93); got != 232.5 {
		t.Errorf("HeightZ(93) = %v, want 232.5", got)
	}
	if m := *r.RegionMisc; m != (RegionMisc{1, 0x0600127D, 0x06000261, 4, 0x01000FDE, 0x01001612}) {
		t.Errorf("misc = %+v", m)
	}
	if s := r.SoundInfo.STBDescs[0].AmbientSounds; !s[0].IsContinuous() || s[1].IsContinuous() {
		t.Errorf("continuity of STB 0 sounds 0, 1 = %v, %v; want true, false", s[0].IsContinuous(), s[1].IsContinuous())
	}
	if got := r.Encode(); !bytes.Equal(got, b) {
		t.Errorf("Encode differs from the record at offset 0x%X (len %d vs %d)", firstDiff(got, b), len(got), len(b))
	}
	// The hand-built struct encodes to the hand-built bytes.
	if got := fullRegion().Encode(); !bytes.Equal(got, b) {
		t.Errorf("fullRegion().Encode() differs at offset 0x%X", firstDiff(got, b))
	}
}

func TestRegionParts(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want *Region
	}{
		{"terrain only (0x004)", terrainOnlyRegionBytes(PartTerrain), terrainOnlyRegion(PartTerrain)},
		// Retail reads terrain without testing bit 0x004 (docs/dat-format.md §3.4).
		{"empty mask still has terrain", terrainOnlyRegionBytes(0), terrainOnlyRegion(0)},
		// Bit 0x008 has no payload (docs/dat-format.md §3.4).
		{"bit 0x008 reads nothing", terrainOnlyRegionBytes(0x00C), terrainOnlyRegion(0x00C)},
		{"PalShift land surf", palShiftRegionBytes(), palShiftRegion()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := DecodeRegion(regionID, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r, tc.want) {
				t.Errorf("decoded:\n got %+v\nwant %+v", r, tc.want)
			}
			if r.SkyInfo != nil || r.SoundInfo != nil || r.SceneInfo != nil || r.RegionMisc != nil {
				t.Errorf("absent parts decoded: sky %v sound %v scene %v misc %v", r.SkyInfo, r.SoundInfo, r.SceneInfo, r.RegionMisc)
			}
			if got := r.Encode(); !bytes.Equal(got, tc.b) {
				t.Errorf("Encode differs at offset 0x%X", firstDiff(got, tc.b))
			}
			if got := tc.want.Encode(); !bytes.Equal(got, tc.b) {
				t.Errorf("want.Encode differs at offset 0x%X", firstDiff(got, tc.b))
			}
		})
	}
}

// A mask bit with a nil part encodes that part empty; a part without its bit
// is not written.
func TestRegionEncodeMaskRules(t *testing.T) {
	r := terrainOnlyRegion(PartTerrain | PartSky | PartMisc)
	r.SoundInfo = &SoundDesc{STBDescs: []AmbientSTBDesc{{STBID: 0x20000001}}} // bit clear: dropped
	got, err := DecodeRegion(regionID, r.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.SkyInfo == nil || len(got.SkyInfo.DayGroups) != 0 || got.RegionMisc == nil || *got.RegionMisc != (RegionMisc{}) {
		t.Errorf("nil parts with bits set: sky %+v misc %+v", got.SkyInfo, got.RegionMisc)
	}
	if got.SoundInfo != nil {
		t.Errorf("sound written without its bit: %+v", got.SoundInfo)
	}
	want := len(terrainOnlyRegionBytes(PartTerrain)) + 8 + 8 + 4 + 24 // tick sizes, day group count, misc
	if n := len(r.Encode()); n != want {
		t.Errorf("encoded %d bytes, want %d", n, want)
	}
}

// PString forms (docs/dat-format.md §2): the region name at 0x0C is replaced by raw bytes
// that end 4-aligned, so the rest of the record is unchanged.
func TestRegionPStringForms(t *testing.T) {
	base := terrainOnlyRegionBytes(PartTerrain)
	tests := []struct {
		name  string
		raw   []byte // length prefix, text and pad as stored at 0x0C
		value string
	}{
		{"canonical", []byte{6, 0, 'D', 'e', 'r', 'e', 't', 'h'}, "Dereth"},
		{"empty", []byte{0, 0, 0, 0}, ""},
		{"retail quirk: len 1 byte 0 is empty", []byte{1, 0, 0, 0}, ""},
		{"quirk with non-zero pad", []byte{1, 0, 0, 0xCD}, ""},
		{"two NULs are not the quirk", []byte{2, 0, 0, 0}, "\x00\x00"},
		{"u32 escape for a short length", []byte{0xFF, 0xFF, 6, 0, 0, 0, 'D', 'e', 'r', 'e', 't', 'h'}, "Dereth"},
		{"non-zero pad", []byte{5, 0, 'D', 'e', 'r', 'e', 't', 0xAB}, "Deret"},
		{"Windows-1252", []byte{4, 0, 0x80, 0x81, 0xE9, 0x9F, 0, 0}, "€\u0081éŸ"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := append(append(append([]byte(nil), base[:0x0C]...), tc.raw...), base[0x14:]...)
			r, err := DecodeRegion(regionID, b)
			if err != nil {
				t.Fatal(err)
			}
			if r.RegionName != tc.value {
				t.Errorf("name = %q, want %q", r.RegionName, tc.value)
			}
			if got := r.Encode(); !bytes.Equal(got, b) {
				t.Errorf("Encode differs at offset 0x%X", firstDiff(got, b))
			}
			// Once edited, the name takes the canonical form: the record
			// becomes the canonical fixture. (An unchanged value keeps its
			// stored form, so the "Dereth" cases have nothing to edit.)
			if tc.value == "Dereth" {
				return
			}
			r.RegionName = "Dereth"
			if got := r.Encode(); !bytes.Equal(got, base) {
				t.Errorf("edited name: Encode differs from canonical at offset 0x%X", firstDiff(got, base))
			}
		})
	}
}

// A non-canonical string keeps its stored form when an earlier string is edited.
func TestRegionPStringRawSurvivesOtherEdits(t *testing.T) {
	b := terrainOnlyRegionBytes(PartTerrain)
	const padAt = 0x434 + 8 + 4 + 4 + 4 + 2 + 4 // year spec "P.Y." pads at 0x44E
	b[padAt], b[padAt+1] = 0xEE, 0xEE
	r, err := DecodeRegion(regionID, b)
	if err != nil {
		t.Fatal(err)
	}
	r.RegionName = "Dereth!" // 2+7 bytes + 3 pad: everything after moves 4 bytes
	enc := r.Encode()
	if enc[padAt+4] != 0xEE || enc[padAt+5] != 0xEE {
		t.Errorf("year spec pads = % X, want EE EE", enc[padAt+4:padAt+6])
	}
	r2, err := DecodeRegion(regionID, enc)
	if err != nil {
		t.Fatal(err)
	}
	if r2.RegionName != "Dereth!" || r2.GameTime.YearSpec != "P.Y." {
		t.Errorf("re-decoded name %q year spec %q", r2.RegionName, r2.GameTime.YearSpec)
	}
}

// Lengths ≥ 0xFFFF use the u32 escape (docs/dat-format.md §2).
func TestRegionLongPString(t *testing.T) {
	r := terrainOnlyRegion(PartTerrain)
	r.RegionName = strings.Repeat("a", 0x10001)
	b := r.Encode()
	if !bytes.Equal(b[0x0C:0x12], []byte{0xFF, 0xFF, 0x01, 0x00, 0x01, 0x00}) {
		t.Fatalf("long name prefix = % X", b[0x0C:0x12])
	}
	got, err := DecodeRegion(regionID, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.RegionName != r.RegionName {
		t.Errorf("long name: got %d bytes", len(got.RegionName))
	}
	if got.LandDefs.NumBlockLength != 255 {
		t.Errorf("field after the long name misread: %d", got.LandDefs.NumBlockLength)
	}
}

// Runes outside Windows-1252 encode as '?'.
func TestToWindows1252(t *testing.T) {
	if got := string(toWindows1252("a€b✓ÿ")); got != "a\x80b?\xFF" {
		t.Errorf("toWindows1252 = %q", got)
	}
	for c := 0; c < 256; c++ {
		s := fromWindows1252([]byte{byte(c)})
		if back := toWindows1252(s); len(back) != 1 || back[0] != byte(c) {
			t.Errorf("byte 0x%02X → %q → % X", c, s, back)
		}
	}
}

func TestSTBDesc(t *testing.T) {
	r := &Region{
		SoundInfo: &SoundDesc{STBDescs: make([]AmbientSTBDesc, 3)},
		SceneInfo: &SceneDesc{SceneTypes: []SceneType{{STBIndex: 2}, {STBIndex: None}, {STBIndex: 3}, {STBIndex: 0}}},
		TerrainInfo: TerrainDesc{TerrainTypes: []TerrainType{
			{SceneTypes: []uint32{0, 1, 2, None, 4, 3}},
			{SceneTypes: []uint32{}},
		}},
	}
	tests := []struct {
		name        string
		r           *Region
		terr, scene uint32
		want        int
		ok          bool
	}{
		{"resolves", r, 0, 0, 2, true},
		{"resolves to index 0", r, 0, 5, 0, true},
		{"terrain type out of range", r, 2, 0, 0, false},
		{"terrain type 0xFFFFFFFF", r, None, 0, 0, false},
		{"scene ordinal out of range", r, 0, 6, 0, false},
		{"empty scene list", r, 1, 0, 0, false},
		{"scene type index 0xFFFFFFFF", r, 0, 3, 0, false},
		{"scene type index out of range", r, 0, 4, 0, false},
		{"stb index 0xFFFFFFFF", r, 0, 1, 0, false},
		{"stb index out of range", r, 0, 2, 0, false},
		{"no scene part", &Region{SoundInfo: r.SoundInfo, TerrainInfo: r.TerrainInfo}, 0, 0, 0, false},
		{"no sound part", &Region{SceneInfo: r.SceneInfo, TerrainInfo: r.TerrainInfo}, 0, 0, 0, false},
	}
	for _, tc := range tests {
		got, ok := tc.r.STBDesc(tc.terr, tc.scene)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: STBDesc(%d, %d) = %d, %v; want %d, %v", tc.name, tc.terr, tc.scene, got, ok, tc.want, tc.ok)
		}
	}
}

// The full fixture's own chain: Grassland (type 1) scene 0 → scene type 2 → STB 1.
func TestSTBDescFixture(t *testing.T) {
	b, _ := fullRegionBytes()
	r, err := DecodeRegion(regionID, b)
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := r.STBDesc(1, 0); !ok || i != 1 || r.SoundInfo.STBDescs[i].STBID != 0x200000A8 {
		t.Errorf("STBDesc(1, 0) = %d, %v", i, ok)
	}
	if i, ok := r.STBDesc(0, 1); ok {
		t.Errorf("BarrenRock scene 1 (scene type with stb none) = %d, want none", i)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
