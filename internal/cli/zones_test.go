package cli

import (
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/world"
	"acambient/core/zones"
)

type zonesOut struct {
	idx zones.Index
	img *image.NRGBA
	png []byte
}

func runZones(t *testing.T, args ...string) zonesOut {
	t.Helper()
	dir := t.TempDir()
	out, errs, code := runCmd(t, append([]string{"zones", "-out", dir}, args...)...)
	if code != 0 {
		t.Fatalf("zones %v: exit %d: %s", args, code, errs)
	}
	if !strings.Contains(out, "zones.json") || errs != "" {
		t.Errorf("stdout %q, stderr %q", out, errs)
	}
	var z zonesOut
	b, err := os.ReadFile(filepath.Join(dir, "zones.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &z.idx); err != nil {
		t.Fatal(err)
	}
	if z.png, err = os.ReadFile(filepath.Join(dir, "zones.png")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(dir, "zones.png"))
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	if z.img, ok = m.(*image.NRGBA); !ok {
		t.Fatalf("zones.png is %T, want 8-bit RGBA", m)
	}
	return z
}

// TestZonesAreGathers: at the centre of each demo landmark's cell, and of
// a spread of other cells, the pixel of `zones` is the colour zones.json
// gives the STB that `gather` there makes dominant (the largest soundCount,
// ties to the lower STB index); and the legend's counts add up to the land
// cells present.
func TestZonesAreGathers(t *testing.T) {
	z := runZones(t)
	w, err := DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	region, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	colors := map[int]string{}
	sum := z.idx.Silent
	for _, s := range z.idx.Sets {
		colors[s.STBIndex] = s.Color
		sum += s.Cells
	}
	if z.idx.Cells != 144*64 || sum != z.idx.Cells {
		t.Errorf("cells %d, legend and silent add up to %d; the demo has %d", z.idx.Cells, sum, 144*64)
	}
	type cell struct{ bx, by, cx, cy int }
	var cells []cell
	for _, lm := range demo.Landmarks {
		if cx, cy, ok := world.CellXY(lm.ObjCellID); ok {
			cells = append(cells, cell{world.BlockX(lm.ObjCellID), world.BlockY(lm.ObjCellID), cx, cy})
		}
	}
	for gx := 3; gx < 96; gx += 13 {
		for gy := 5; gy < 96; gy += 13 {
			cells = append(cells, cell{0xA4 + gx/8, 0xAF + gy/8, gx % 8, gy % 8})
		}
	}
	for _, c := range cells {
		id := world.LandBlockID(c.bx, c.by)
		lb, err := dat.DecodeLandBlock(id, w.Cell[id])
		if err != nil {
			t.Fatal(err)
		}
		x, y := float32(24*c.cx+12), float32(24*c.cy+12)
		zt, err := world.TerrainZ(region, lb, x, y)
		if err != nil {
			t.Fatal(err)
		}
		pos := fmt.Sprintf("0x%08X/%v,%v,%v", world.OutdoorCellID(c.bx, c.by, c.cx, c.cy), x, y, zt)
		g := gather(t, "-player", pos)
		best, k := float32(0), -1
		for _, s := range g.Sounds {
			i, count := int(s["stbIndex"].(float64)), float32(s["soundCount"].(float64))
			if count > best || (count == best && count > 0 && i < k) {
				best, k = count, i
			}
		}
		col, row := 8*(c.bx-0xA4)+c.cx, 95-(8*(c.by-0xAF)+c.cy)
		px := z.img.NRGBAAt(col, row)
		got := fmt.Sprintf("#%02x%02x%02x", px.R, px.G, px.B)
		switch {
		case k < 0 && px.A != 0:
			t.Errorf("%s: gather finds nothing, pixel %s", pos, got)
		case k >= 0 && (px.A != 0xFF || colors[k] != got):
			t.Errorf("%s: pixel %s (alpha %d), gather's dominant STB %d is %s", pos, got, px.A, k, colors[k])
		}
	}
}

// TestZonesOverServer: the same layer from a dat server (-server) as from
// the built-in world, byte for byte.
func TestZonesOverServer(t *testing.T) {
	local := runZones(t)
	var n atomic.Int64
	s := ourDemoServer(t, identity, &n)
	remote := runZones(t, "-server", s.URL)
	if string(remote.png) != string(local.png) || fmt.Sprint(remote.idx) != fmt.Sprint(local.idx) {
		t.Errorf("over -server the layer differs: %d vs %d PNG bytes", len(remote.png), len(local.png))
	}
	if n.Load() == 0 {
		t.Error("no request reached the server")
	}
}

func TestZonesFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the line stderr ends with
	}{
		{[]string{"zones"}, "zones: want -out DIR"},
		{[]string{"zones", "-out", t.TempDir(), "extra"}, `zones: unexpected argument "extra": want -out DIR and flags only`},
		{[]string{"zones", "-out", t.TempDir(), "-cell", "/nonexistent.dat"}, "zones: give both -portal and -cell (or -dats DIR)"},
		{[]string{"zones", "-out", t.TempDir(), "-portal", "/nonexistent.dat", "-cell", "/nonexistent.dat"}, "zones: stat /nonexistent.dat: no such file or directory"},
	} {
		if _, errs, code := runCmd(t, tc.args...); code == 0 || !strings.HasSuffix(strings.TrimSpace(errs), "\n"+tc.want) && strings.TrimSpace(errs) != tc.want {
			t.Errorf("%v: exit %d, stderr %q; want it to end with %q", tc.args, code, errs, tc.want)
		}
	}
}
