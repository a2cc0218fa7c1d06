package demo

import (
	"bytes"
	"context"
	"encoding/binary"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"acambient/core/audio"
	"acambient/core/dat"
	"acambient/datfetch/datfile"
)

var (
	worldOnce sync.Once
	world     *World
	worldErr  error
)

// built is the world, built once for all tests.
func built(t *testing.T) *World {
	t.Helper()
	worldOnce.Do(func() { world, worldErr = Build() })
	if worldErr != nil {
		t.Fatal(worldErr)
	}
	return world
}

func demoRegion(t *testing.T, w *World) *dat.Region {
	t.Helper()
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBuildDeterministic(t *testing.T) {
	a := built(t)
	b, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string][2]map[uint32][]byte{"portal": {a.Portal, b.Portal}, "cell": {a.Cell, b.Cell}} {
		if !maps.EqualFunc(m[0], m[1], bytes.Equal) {
			t.Errorf("%s records differ between two builds", name)
		}
	}
}

// TestRecordsDecode: every record decodes with core/dat, consuming every
// byte (the decoders insist), and re-encodes to the same bytes.
func TestRecordsDecode(t *testing.T) {
	w := built(t)
	kinds := map[dat.Kind]int{}
	check := func(id uint32, b []byte, k dat.Kind) {
		if id == dat.IterationID {
			checkIteration(t, b)
			return
		}
		kinds[k]++
		v, err := dat.Decode(k, id, b)
		if err != nil {
			t.Errorf("0x%08X: %v", id, err)
			return
		}
		enc, ok := v.(interface{ Encode() []byte })
		if !ok {
			t.Fatalf("0x%08X: %T has no Encode", id, v)
		}
		if !bytes.Equal(enc.Encode(), b) {
			t.Errorf("0x%08X: re-encoding differs", id)
		}
	}
	for id, b := range w.Portal {
		check(id, b, dat.PortalKind(id))
	}
	for id, b := range w.Cell {
		check(id, b, dat.CellKind(id))
	}
	want := map[dat.Kind]int{dat.KindRegion: 1, dat.KindSoundTable: 8, dat.KindWave: len(waves), dat.KindLandBlock: 144, dat.KindEnvCell: 3}
	if !maps.Equal(kinds, want) {
		t.Errorf("record kinds %v, want %v", kinds, want)
	}
	if n := len(w.Portal) + len(w.Cell); n != 1+8+len(waves)+144+3+2 {
		t.Errorf("%d records: some have no known kind", n)
	}
}

// checkIteration parses the iteration list as ACE does: the pairs' negative
// counts must cancel the total exactly.
func checkIteration(t *testing.T, b []byte) {
	if len(b) < 4 || len(b)%4 != 0 {
		t.Fatalf("iteration record of %d bytes", len(b))
	}
	left := int32(binary.LittleEndian.Uint32(b))
	off := 4
	for left > 0 && off+8 <= len(b) {
		left += int32(binary.LittleEndian.Uint32(b[off:]))
		off += 8
	}
	if left != 0 || off != len(b) {
		t.Errorf("iteration record % X does not balance", b)
	}
}

// TestSoundChain follows region → STB → SoundTable → Wave: every table
// exists, every authored stype has a child, every wave exists and decodes.
func TestSoundChain(t *testing.T) {
	w := built(t)
	r := demoRegion(t, w)
	for i, d := range r.SoundInfo.STBDescs {
		tb, err := dat.DecodeSoundTable(uint32(d.STBID), w.Portal[uint32(d.STBID)])
		if err != nil {
			t.Fatalf("STB %d: table %s: %v", i, d.STBID, err)
		}
		root := tb.Root
		if root.HashKey != 0 || len(root.Records) != 1 || root.Records[0] != (dat.SoundRecord{Probability: 1, Volume: 1}) {
			t.Errorf("table %s: root %+v, want hash 0 and the one record {0, 0, 1, 1}", d.STBID, root.Records)
		}
		for _, a := range d.AmbientSounds {
			n := tb.Lookup(a.SType)
			if n == nil {
				t.Errorf("STB %d: table %s has no child 0x%02X", i, d.STBID, a.SType)
				continue
			}
			if len(n.Records) >= 2 && n.Records[len(n.Records)-1] != n.Records[0] {
				t.Errorf("table %s child 0x%02X: last variant %v is not the first repeated; retail never plays it", d.STBID, a.SType, n.Records[len(n.Records)-1].WaveID)
			}
			for _, rec := range n.Records {
				if rec.Probability <= 0 || rec.Probability > 1 {
					t.Errorf("table %s child 0x%02X: probability %v", d.STBID, a.SType, rec.Probability)
				}
				wv, err := dat.DecodeWave(uint32(rec.WaveID), w.Portal[uint32(rec.WaveID)])
				if err != nil {
					t.Fatalf("table %s: wave %s: %v", d.STBID, rec.WaveID, err)
				}
				if _, err := audio.Decode(wv); err != nil {
					t.Errorf("table %s: %v", d.STBID, err)
				}
			}
		}
	}
}

// TestSlotsAuthored: beds are constant (chance 0) and re-fire at their
// wave's length less the cross-fade; one-shots fire with a chance in (0, 1]
// every few seconds; a few children hold variants gated below 1.
func TestSlotsAuthored(t *testing.T) {
	w := built(t)
	r := demoRegion(t, w)
	gated := 0
	for i, d := range r.SoundInfo.STBDescs {
		tb, _ := dat.DecodeSoundTable(uint32(d.STBID), w.Portal[uint32(d.STBID)])
		beds := 0
		for _, a := range d.AmbientSounds {
			if a.SType < 0x46 || a.SType > 0x4D {
				t.Errorf("STB %d: stype 0x%02X outside Ambient1..8", i, a.SType)
			}
			n := tb.Lookup(a.SType)
			if a.IsContinuous() {
				beds++
				wv, _ := dat.DecodeWave(uint32(n.Records[0].WaveID), w.Portal[uint32(n.Records[0].WaveID)])
				p, _ := audio.Decode(wv)
				if got, want := float64(a.MinRate), p.Duration()-0.75; math.Abs(got-want) > 1e-3 || a.MaxRate != a.MinRate {
					t.Errorf("STB %d bed: min_rate %v, want the wave's %.3f s less the 0.75 s fade", i, a.MinRate, p.Duration())
				}
				if a.Volume < 0.3 || a.Volume > 1 {
					t.Errorf("STB %d bed: volume %v", i, a.Volume)
				}
				continue
			}
			if a.BaseChance <= 0 || a.BaseChance > 1 || a.MinRate < 3 || a.MaxRate <= a.MinRate || a.MaxRate > 60 {
				t.Errorf("STB %d: one-shot 0x%02X chance %v rates %v..%v", i, a.SType, a.BaseChance, a.MinRate, a.MaxRate)
			}
			for _, rec := range n.Records {
				if rec.Probability < 1 {
					gated++
					break
				}
			}
		}
		if beds != 1 {
			t.Errorf("STB %d has %d beds, want 1", i, beds)
		}
	}
	if gated < 10 {
		t.Errorf("%d one-shot slots gate their variants below probability 1", gated)
	}
}

// TestWaveFormats: every storage format and rate the brief asks for is used.
func TestWaveFormats(t *testing.T) {
	w := built(t)
	type key struct {
		tag  uint16
		bits uint16
	}
	formats, rates := map[key]int{}, map[uint32]int{}
	total := 0
	for id, b := range w.Portal {
		total += len(b)
		if dat.PortalKind(id) != dat.KindWave {
			continue
		}
		wv, _ := dat.DecodeWave(id, b)
		f, _ := wv.Format()
		formats[key{f.FormatTag, f.BitsPerSample}]++
		rates[f.SamplesPerSec]++
		switch f.FormatTag {
		case dat.FormatMSADPCM:
			if f.CbSize != 32 || binary.LittleEndian.Uint16(f.Extra[2:]) != 7 || !bytes.Equal(f.Extra[4:8], []byte{0, 1, 0, 0}) {
				t.Errorf("0x%08X: MS-ADPCM extra % X, want cbSize 32 and the 7 standard coefficients", id, f.Extra)
			}
		case dat.FormatMP3:
			x := f.Extra
			if len(wv.Header) != 30 || f.CbSize != 12 || binary.LittleEndian.Uint16(x) != 1 || binary.LittleEndian.Uint16(x[8:]) != 1 {
				t.Errorf("0x%08X: MP3 header % X, want H 30 with wID 1 and nFramesPerBlock 1", id, wv.Header)
			}
			if bytes.HasPrefix(wv.Data, []byte("ID3")) || wv.Data[0] != 0xFF {
				t.Errorf("0x%08X: MP3 data does not start with a raw MPEG frame", id)
			}
		}
	}
	for _, k := range []key{{1, 16}, {1, 8}, {2, 4}, {0x55, 0}} {
		if formats[k] == 0 {
			t.Errorf("no wave of format 0x%04X with %d bits (have %v)", k.tag, k.bits, formats)
		}
	}
	for _, r := range []uint32{11025, 22050, 44100} {
		if rates[r] == 0 {
			t.Errorf("no wave at %d Hz", r)
		}
	}
	if total > 5<<20 {
		t.Errorf("portal records total %d bytes, want a few MB at most", total)
	}
	t.Logf("portal records: %d bytes; formats %v; rates %v", total, formats, rates)
}

// TestTerrainClasses: the eight terrain classes resolve through the
// region's chain to eight different sound sets, and the none paths resolve
// to nothing.
func TestTerrainClasses(t *testing.T) {
	r := demoRegion(t, built(t))
	classes := []struct {
		name string
		tt   uint32
		stb  int
	}{
		{"grassland", ttGrassland, stbMeadowLively}, {"forest floor", ttForestFloor, stbForest},
		{"running water", ttWaterRunning, stbRiver}, {"shallow sea", ttWaterShallowSea, stbCoast},
		{"snow", ttSnow, stbSnow}, {"sand", ttSandYellow, stbDesert},
		{"marsh", ttMarsh, stbMarsh}, {"rock", ttBarrenRock, stbRock},
	}
	seen := map[int]string{}
	for _, c := range classes {
		got, ok := r.STBDesc(c.tt, 0)
		if !ok || got != c.stb {
			t.Errorf("%s (type %d): STB %d %v, want %d", c.name, c.tt, got, ok, c.stb)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%s and %s share STB %d", c.name, other, got)
		}
		seen[got] = c.name
	}
	if got, ok := r.STBDesc(ttGrassland, 1); !ok || got != stbMeadowQuiet {
		t.Errorf("grassland ordinal 1: STB %d %v, want the quiet meadow", got, ok)
	}
	for _, c := range [][2]uint32{{ttPackedDirt, 2}, {0x1F, 0}, {0x19, 0}, {ttGrassland, 2}} {
		if got, ok := r.STBDesc(c[0], c[1]); ok {
			t.Errorf("type %d ordinal %d: STB %d, want none", c[0], c[1], got)
		}
	}
	if len(r.TerrainInfo.TerrainTypes) != 32 || r.TerrainInfo.TerrainTypes[0x15].TerrainName != "ForestFloor" {
		t.Errorf("terrain types: %d, [0x15] %q", len(r.TerrainInfo.TerrainTypes), r.TerrainInfo.TerrainTypes[0x15].TerrainName)
	}
}

func landBlock(t *testing.T, w *World, bx, by int) *dat.LandBlock {
	t.Helper()
	id := uint32(bx)<<24 | uint32(by)<<16 | 0xFFFF
	lb, err := dat.DecodeLandBlock(id, w.Cell[id])
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

// TestEdgesAgree: the vertices two neighbouring landblocks share hold the
// same terrain word and height on both sides.
func TestEdgesAgree(t *testing.T) {
	w := built(t)
	for bx := blockX0; bx < blockX0+blocksX; bx++ {
		for by := blockY0; by < blockY0+blocksY; by++ {
			a := landBlock(t, w, bx, by)
			if bx+1 < blockX0+blocksX {
				e := landBlock(t, w, bx+1, by)
				for y := 0; y <= 8; y++ {
					if a.Word(8, y) != e.Word(0, y) || a.HeightAt(8, y) != e.HeightAt(0, y) {
						t.Fatalf("%02X%02X east edge y=%d: %04X/%d vs %04X/%d", bx, by, y, a.Word(8, y), a.HeightAt(8, y), e.Word(0, y), e.HeightAt(0, y))
					}
				}
			}
			if by+1 < blockY0+blocksY {
				n := landBlock(t, w, bx, by+1)
				for x := 0; x <= 8; x++ {
					if a.Word(x, 8) != n.Word(x, 0) || a.HeightAt(x, 8) != n.HeightAt(x, 0) {
						t.Fatalf("%02X%02X north edge x=%d differs", bx, by, x)
					}
				}
			}
		}
	}
}

// TestLandmarks: each outdoor landmark stands on its cell's SW vertex, whose
// terrain resolves to the set its name promises, at that vertex's
// height-table z; the indoor ones are where the EnvCells say.
func TestLandmarks(t *testing.T) {
	w := built(t)
	r := demoRegion(t, w)
	promise := map[string]int{
		"meadow": stbMeadowLively, "pasture": stbMeadowQuiet, "holtburg": stbMeadowLively, "forest": stbForest,
		"river": stbRiver, "riverbank": stbMeadowLively, "bluff": stbRock, "hills": stbRock, "coast": stbCoast,
		"snowfield": stbSnow, "desert": stbDesert, "marsh": stbMarsh,
	}
	names := map[string]bool{}
	for _, lm := range Landmarks {
		names[lm.Name] = true
		bx, by, cell := int(lm.ObjCellID>>24), int(lm.ObjCellID>>16&0xFF), int(lm.ObjCellID&0xFFFF)
		lb := landBlock(t, w, bx, by)
		if cell >= 0x100 {
			c, err := dat.DecodeEnvCell(lm.ObjCellID, w.Cell[lm.ObjCellID])
			if err != nil {
				t.Fatalf("%s: %v", lm.Name, err)
			}
			if want := lm.Name != "cellar"; c.SeenOutside() != want {
				t.Errorf("%s: seen outside %v, want %v", lm.Name, c.SeenOutside(), want)
			}
			origin := c.Rest[2*int(c.NumSurfaces)+4:]
			ox, oy, oz := f32at(origin, 0), f32at(origin, 4), f32at(origin, 8)
			if ox != lm.X || oy != lm.Y || oz != lm.Z {
				t.Errorf("%s: cell origin (%v, %v, %v), landmark (%v, %v, %v)", lm.Name, ox, oy, oz, lm.X, lm.Y, lm.Z)
			}
			ground := r.HeightZ(lb.HeightAt(int(lm.X/24), int(lm.Y/24)))
			if d := lm.Z - ground; d != map[string]float32{"cottage": 0, "loft": loftHeight, "cellar": -cellarDepth}[lm.Name] {
				t.Errorf("%s: %v m from the ground", lm.Name, d)
			}
			continue
		}
		cx, cy := (cell-1)>>3, (cell-1)&7
		if lm.X != float32(24*cx) || lm.Y != float32(24*cy) {
			t.Errorf("%s: (%v, %v) is not cell %d's SW vertex (%d, %d)", lm.Name, lm.X, lm.Y, cell, 24*cx, 24*cy)
		}
		word := lb.Word(cx, cy)
		stb, ok := r.STBDesc(word.Type(), word.Scene())
		want, known := promise[lm.Name]
		if !known || !ok || stb != want {
			t.Errorf("%s: terrain %s ordinal %d gives STB %d (%v), want %d", lm.Name, dat.TerrainTypeName(word.Type()), word.Scene(), stb, ok, want)
		}
		if z := r.HeightZ(lb.HeightAt(cx, cy)); z != lm.Z {
			t.Errorf("%s: z %v, terrain vertex says %v", lm.Name, lm.Z, z)
		}
	}
	for _, n := range []string{"meadow", "forest", "river", "coast", "snowfield", "desert", "marsh", "hills", "cottage", "cellar"} {
		if !names[n] {
			t.Errorf("no landmark %q", n)
		}
	}
}

func f32at(b []byte, off int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))
}

// TestBluffHearsLessRiver: the bluff and the riverbank are equally far from
// the river across the ground, but the bluff stands 60 m up, so the
// retail distance weight (CalcWeight, 400/d² in 3D, none past 120 m,
// docs/retail.md §A4.2) of the river cells around it sums lower.
func TestBluffHearsLessRiver(t *testing.T) {
	w := built(t)
	r := demoRegion(t, w)
	weight := func(name string) (float64, float32) {
		var lm Landmark
		for _, l := range Landmarks {
			if l.Name == name {
				lm = l
			}
		}
		X := float64(192*int(lm.ObjCellID>>24) + int(lm.X))
		Y := float64(192*int(lm.ObjCellID>>16&0xFF) + int(lm.Y))
		sum, nearest := 0.0, float32(1e9)
		for bx := int(lm.ObjCellID>>24) - 1; bx <= int(lm.ObjCellID>>24)+1; bx++ {
			for by := int(lm.ObjCellID>>16&0xFF) - 1; by <= int(lm.ObjCellID>>16&0xFF)+1; by++ {
				lb := landBlock(t, w, bx, by)
				for x := 0; x < 8; x++ {
					for y := 0; y < 8; y++ {
						if lb.Word(x, y).Type() != ttWaterRunning {
							continue
						}
						dx, dy := float64(192*bx+24*x)-X, float64(192*by+24*y)-Y
						dz := float64(r.HeightZ(lb.HeightAt(x, y)) - lm.Z)
						nearest = min(nearest, float32(math.Hypot(dx, dy)))
						d2 := dx*dx + dy*dy + dz*dz
						switch {
						case d2 > 14400:
						case d2 < 400:
							sum++
						default:
							sum += 400 / d2
						}
					}
				}
			}
		}
		return sum, nearest
	}
	bank, bankNear := weight("riverbank")
	bluff, bluffNear := weight("bluff")
	t.Logf("river weight: riverbank %.3f (nearest %.0f m across), bluff %.3f (nearest %.0f m across)", bank, bankNear, bluff, bluffNear)
	if bankNear != bluffNear {
		t.Errorf("the two spots are %v m and %v m across from the river, want equal", bankNear, bluffNear)
	}
	if bluff > 0.6*bank {
		t.Errorf("the bluff hears %.3f of river weight, the bank %.3f: height should cost more", bluff, bank)
	}
}

func TestHeightTable(t *testing.T) {
	h := heightTable()
	for i := 1; i < 256; i++ {
		if h[i] <= h[i-1] {
			t.Fatalf("table not increasing at %d: %v, %v", i, h[i-1], h[i])
		}
	}
	// Gentle low, steep high: 0.5 m a step at the bottom, over 5 m at the top.
	if h[1]-h[0] > 0.51 || h[255]-h[254] < 5 || h[255] > 800 || h[100] == 200 {
		t.Errorf("steps %v … %v, top %v, h[100] %v", h[1]-h[0], h[255]-h[254], h[255], h[100])
	}
	if math.Abs(float64(h[100])-75) > 1e-4 { // 100/2 + 100³/40000
		t.Errorf("h[100] = %v, want 75", h[100])
	}
}

func TestDats(t *testing.T) {
	w := built(t)
	portal, cell, err := w.Dats()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		dat  []byte
		recs map[uint32][]byte
	}{{"client_portal.dat", portal, w.Portal}, {"client_cell_1.dat", cell, w.Cell}} {
		d, err := datfile.NewDat(bytes.NewReader(f.dat), int64(len(f.dat)))
		if err != nil {
			t.Fatal(err)
		}
		ids, err := d.IDs(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if want := slices.Sorted(maps.Keys(f.recs)); !slices.Equal(ids, want) {
			t.Errorf("%s: %d ids, want %d", f.name, len(ids), len(want))
		}
		for _, id := range ids {
			b, err := d.Get(context.Background(), id)
			if err != nil || !bytes.Equal(b, f.recs[id]) {
				t.Errorf("%s: 0x%08X: %v or bytes differ", f.name, id, err)
			}
		}
		d.Close()
	}
}

func TestMap(t *testing.T) {
	m := Map()
	lines := strings.Split(m, "\n")
	if len(lines) < 26 || !strings.Contains(lines[0], "A4") || !strings.Contains(lines[0], "AF") {
		t.Fatalf("map header %q", lines[0])
	}
	for _, c := range ".,=T~swo*^d%H" {
		if !strings.ContainsRune(strings.Join(lines[1:25], ""), c) {
			t.Errorf("map has no %q", c)
		}
	}
	// The package doc shows the same map.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[:25] {
		if !strings.Contains(string(doc), "//\t"+l+"\n") {
			t.Errorf("doc.go's map lacks the line %q: regenerate it from Map()", l)
		}
	}
	// North up: the snowy corner is top left, the sea bottom right.
	if !strings.Contains(lines[1][6:14], "*") || !strings.Contains(lines[24][40:], "w") {
		t.Errorf("map orientation:\n%s", m)
	}
}

func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := Build()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, r := range w.Portal {
			n += len(r)
		}
		b.ReportMetric(float64(n)/1e6, "portalMB")
	}
}
