package e2e

// The harness of the page tests (page_*_test.go, issue 22 items 4 and 5):
// the demo world with its sounds edited so that what a test measures can
// be heard alone, the demo page opened (Chromium, Firefox) with page_probe.js
// installed, the tap's bursts paired with the play events that made them,
// and the map's canvas read back as pixels.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"maps"
	"math"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/world"
	"acambient/datfetch/source"
	"acambient/server"
)

// The demo's forest (core/demo sounds.go): its SoundTable and the stypes of
// its thrushes and its woodpecker.
const (
	forestTable   = 0x20000102
	stypeThrush   = 0x47 // ambient2
	stypeWoodpeck = 0x49 // ambient4
)

// pageEngines are the engines the page tests run in: Chromium only, to
// keep the package inside go test's ten minutes (they pass in Firefox too:
// ACAMBIENT_E2E_ENGINES=firefox with pageEngines widened). WebKit is left
// out: its driver has no init script (the probe would miss the page's
// first moves and events) and its keys are WebDriver values, not codes.
var pageEngines = []string{"chromium"}

// pageTest runs f in pageEngines, beside the other page tests (each waits
// mostly on real-time audio).
func pageTest(t *testing.T, f func(t *testing.T, spec browserSpec)) {
	t.Parallel()
	forEngines(t, pageEngines, f)
}

// worldEdit changes the demo world's ambient sounds: the region's SoundDesc,
// and the sound tables it asks for by id (decoded once, encoded back).
type worldEdit func(sd *dat.SoundDesc, table func(id uint32) *dat.SoundTable)

// pageServer serves the page (www with a fresh wasm) and the demo world,
// its sounds changed by edit (nil: as built), on a test server.
func pageServer(t *testing.T, edit worldEdit) string {
	t.Helper()
	www, w := site(t)
	portal := maps.Clone(w.Portal)
	if edit != nil {
		r, err := dat.DecodeRegion(dat.RegionID, portal[dat.RegionID])
		if err != nil {
			t.Fatal(err)
		}
		tables := map[uint32]*dat.SoundTable{}
		edit(r.SoundInfo, func(id uint32) *dat.SoundTable {
			if tb := tables[id]; tb != nil {
				return tb
			}
			tb, err := dat.DecodeSoundTable(id, portal[id])
			if err != nil {
				t.Fatal(err)
			}
			tables[id] = tb
			return tb
		})
		portal[dat.RegionID] = r.Encode()
		for id, tb := range tables {
			portal[id] = tb.Encode()
		}
	}
	srv := httptest.NewServer(server.New(server.Options{
		Portal: source.NewMemory(portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// silence sets every ambient sound's authored volume to 0: a constant sound
// then never fires (current_volume < 0.03) and an intermittent one is culled
// (gain 0), retail.md §R4–§R5.
func silence(sd *dat.SoundDesc) {
	for i := range sd.STBDescs {
		for k := range sd.STBDescs[i].AmbientSounds {
			sd.STBDescs[i].AmbientSounds[k].Volume = 0
		}
	}
}

// forestSlot is the forest set's sound of stype st, and that sound's node
// in the forest's table (every variant's probability gate set to 1, so that
// each firing plays).
func forestSlot(t *testing.T, sd *dat.SoundDesc, table func(uint32) *dat.SoundTable, st uint32) *dat.AmbientSoundDesc {
	t.Helper()
	for i := range sd.STBDescs {
		d := &sd.STBDescs[i]
		if uint32(d.STBID) != forestTable {
			continue
		}
		for k := range d.AmbientSounds {
			if a := &d.AmbientSounds[k]; a.SType == st {
				n := table(forestTable).Lookup(st)
				if n == nil {
					t.Fatalf("forest table has no stype 0x%X", st)
				}
				for r := range n.Records {
					n.Records[r].Probability = 1
				}
				return a
			}
		}
	}
	t.Fatalf("no forest sound of stype 0x%X", st)
	return nil
}

// landmark is a demo landmark's POS and cell.
func landmark(t *testing.T, name string) (pos string, cell uint32) {
	t.Helper()
	for _, l := range demo.Landmarks {
		if l.Name == name {
			return fmt.Sprintf("0x%08X/%g,%g,%g", l.ObjCellID, l.X, l.Y, l.Z), l.ObjCellID
		}
	}
	t.Fatalf("no landmark %q", name)
	return "", 0
}

// pageOpen opens the demo page of url at pos (its hash) in the browser
// spec describes, with the probe installed, waits until the player stands
// there with nothing loading, and with audio clicks the start overlay (a
// trusted click) and waits for the context to run and the tap to listen.
func pageOpen(t *testing.T, spec browserSpec, url, pos string, audio bool) *lfBrowser {
	t.Helper()
	probe, err := os.ReadFile("page_probe.js")
	if err != nil {
		t.Fatal(err)
	}
	b := lfLaunch(t, spec)
	b.do("initScript", "source", string(probe))
	b.do("goto", "url", url+"/#"+pos)
	cell := pos[:strings.IndexByte(pos, '/')]
	b.waitFor(`window.__pt.amb && window.ambient === window.__pt.amb && (() => {
		const s = window.ambient.state(); return s.where.objcellId === `+lfJS(cell)+` && s.loading.pending === 0; })()`, 60*time.Second)
	b.eval(nil, `window.__pt.settled()`)
	if audio {
		lfClickElement(b, "#overlay")
		b.waitFor(`window.__pt.ctx && window.__pt.ctx.state === "running" && window.__pt.stats !== null`, 20*time.Second)
	}
	return b
}

// until polls cond every 200 ms until it holds, failing the test after
// timeout with what last says (a wait on what the page reports; the poll
// interval decides nothing).
func until(t *testing.T, timeout time.Duration, what func() string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("not after %v: %s", timeout, what())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ---- the tap and the plays

// ptBurst is a run of sound at the tap between silences (page_probe.js):
// frames on the context's clock, each channel's energy, and the range of
// the per-sample level of right over left (dB) below the limiter's knee.
type ptBurst struct {
	Start int64   `json:"start"`
	End   int64   `json:"end"`
	SL    float64 `json:"sl"`
	SR    float64 `json:"sr"`
	N     int     `json:"n"`
	RMin  float64 `json:"rmin"`
	RMax  float64 `json:"rmax"`
	PeakL float64 `json:"peakL"`
	PeakR float64 `json:"peakR"`
}

// ptPlay is a play event (docs/interfaces.md §1.3).
type ptPlay struct {
	T          float64 `json:"t"`
	STBIndex   int     `json:"stbIndex"`
	SoundIndex int     `json:"soundIndex"`
	SType      int     `json:"sType"`
	Continuous bool    `json:"continuous"`
	Wave       string  `json:"wave"`
	Variant    int     `json:"variant"`
	Gain       float64 `json:"gain"`
	DB         int     `json:"db"`
	Pan        int     `json:"pan"`
	Dir        int     `json:"dir"`
	Dist       float64 `json:"dist"`
}

type ptStats struct {
	Frame   int64   `json:"frame"`
	ZeroRun int64   `json:"zeroRun"`
	Frames  int64   `json:"frames"`
	Nonzero int64   `json:"nonzero"`
	SumL    float64 `json:"sumL"`
	SumR    float64 `json:"sumR"`
	InBurst bool    `json:"inBurst"`
}

// ptAudio is what the tap and the page have recorded so far.
type ptAudio struct {
	Rate   float64   `json:"rate"`
	Bursts []ptBurst `json:"bursts"`
	Plays  []ptPlay  `json:"plays"`
	Stats  ptStats   `json:"stats"`
	Time   float64   `json:"time"` // the engine's clock now
}

func ptTake(b *lfBrowser) ptAudio {
	var a ptAudio
	b.eval(&a, `({ rate: window.__pt.ctx.sampleRate, bursts: window.__pt.bursts, plays: window.__pt.plays,
		stats: window.__pt.stats, time: window.ambient.state().time })`)
	return a
}

// ptPair is a burst and the play that made it.
type ptPair struct {
	B ptBurst
	P ptPlay
}

// pairTolerance: a burst starts this close to its play's time on the tap's
// clock, once the two clocks' offset is known (a wave's first samples may be
// exact zeros; plays in these tests are seconds apart).
const pairTolerance = 0.04

// pairs matches bursts with plays. The tap counts the context's frames,
// the plays the engine's clock, which runs ahead by the output's buffering:
// the offset taken is the one that pairs the most bursts, each with a play
// starting within pairTolerance of it; a burst without one (a sound cut in
// two by a long silence inside it) is left out.
func pairs(a ptAudio) []ptPair {
	at := func(b ptBurst) float64 { return float64(b.Start) / a.Rate }
	paired := func(lag float64) (n int) {
		for _, b := range a.Bursts {
			for _, p := range a.Plays {
				if math.Abs(at(b)-p.T-lag) <= pairTolerance {
					n++
					break
				}
			}
		}
		return n
	}
	best, lag := 0, 0.0
	for _, b := range a.Bursts {
		for _, p := range a.Plays {
			if n := paired(at(b) - p.T); n > best {
				best, lag = n, at(b)-p.T
			}
		}
	}
	if best < 2 {
		return nil // one pair proves no offset
	}
	var out []ptPair
	used := map[int]bool{}
	for _, b := range a.Bursts {
		k, d := -1, pairTolerance
		for j, p := range a.Plays {
			if e := math.Abs(at(b) - p.T - lag); e <= d && !used[j] {
				k, d = j, e
			}
		}
		if k >= 0 {
			used[k] = true
			out = append(out, ptPair{b, a.Plays[k]})
		}
	}
	return out
}

// rightOverLeft is a burst's level difference, right − left (dB), and its
// spread over the burst's samples (0 for one voice alone).
func (b ptBurst) rightOverLeft() (db, spread float64) {
	return (b.RMin + b.RMax) / 2, b.RMax - b.RMin
}

// ---- the canvas

// mapShot is the map's canvas as drawn from state (page_probe.js snapshot).
type mapShot struct {
	img   *image.NRGBA
	State pageState
	Hash  string
}

// pageState is the part of ambient.state() the page tests read.
type pageState struct {
	Where struct {
		ObjcellID string  `json:"objcellId"`
		X         float64 `json:"X"`
		Y         float64 `json:"Y"`
		LX        float64 `json:"x"`
		LY        float64 `json:"y"`
		Z         float64 `json:"z"`
	} `json:"where"`
	Time            float64   `json:"time"`
	Outdoorish      bool      `json:"outdoorish"`
	TotalSoundCount float64   `json:"totalSoundCount"`
	Contributing    int       `json:"contributingCells"`
	Held            int       `json:"heldInstances"`
	Next            []float64 `json:"next"`
	Sounds          []struct {
		STBIndex      int     `json:"stbIndex"`
		STBID         string  `json:"stbId"`
		SoundIndex    int     `json:"soundIndex"`
		Continuous    bool    `json:"continuous"`
		SoundCount    float64 `json:"soundCount"`
		Share         float64 `json:"share"`
		CurrentVolume float64 `json:"currentVolume"`
		PlayChance    float64 `json:"playChance"`
	} `json:"sounds"`
	Voices []struct {
		ptPlay
		End  float64 `json:"end"`
		Slot int     `json:"slot"`
	} `json:"voices"`
	Cells []struct {
		ObjcellID uint32  `json:"objcellId"`
		STBIndex  int     `json:"stbIndex"`
		Weight    float64 `json:"weight"`
		Dir       int     `json:"dir"`
		Dist      float64 `json:"dist"`
	} `json:"cells"`
}

func snapshot(t *testing.T, b *lfBrowser) mapShot {
	t.Helper()
	var r struct {
		PNG   string    `json:"png"`
		State pageState `json:"state"`
		Hash  string    `json:"hash"`
	}
	b.eval(&r, `window.__pt.snapshot()`)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.PNG, "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	n := image.NewNRGBA(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			n.Set(x, y, m.At(x, y))
		}
	}
	return mapShot{img: n, State: r.State, Hash: r.Hash}
}

// rgb is a pixel's colour.
type rgb [3]float64

func (s mapShot) at(x, y int) rgb {
	c := s.img.NRGBAAt(x, y)
	return rgb{float64(c.R), float64(c.G), float64(c.B)}
}

func (c rgb) dist(d rgb) float64 {
	return math.Sqrt((c[0]-d[0])*(c[0]-d[0]) + (c[1]-d[1])*(c[1]-d[1]) + (c[2]-d[2])*(c[2]-d[2]))
}

// over is src drawn over c at opacity a (canvas source-over).
func (c rgb) over(src rgb, a float64) rgb {
	return rgb{src[0]*a + c[0]*(1-a), src[1]*a + c[1]*(1-a), src[2]*a + c[2]*(1-a)}
}

// view is how the map places global metres on its canvas: the player's
// marker at (MX, MY) px stands for the player's global (X, Y); Scale px a
// metre, north up.
type view struct {
	Scale, MX, MY, X, Y float64
}

func (v view) screen(X, Y float64) (float64, float64) {
	return v.MX + (X-v.X)*v.Scale, v.MY - (Y-v.Y)*v.Scale
}

func (v view) world(x, y float64) (float64, float64) {
	return v.X + (x-v.MX)/v.Scale, v.Y - (y-v.MY)/v.Scale
}

// gridLines finds the landblock lines mapcanvas.js draws (1 px of
// #00000066: the pixel under one is 0.6 of its neighbour's colour) in a
// band of the canvas clear of the overlay: the columns, from rows y0..y1,
// and the rows, from columns x0..x1.
func (s mapShot) gridLines(y0, y1, x0, x1 int) (xs, ys []int) {
	dark := func(p, q rgb) bool {
		if q[0]+q[1]+q[2] < 90 {
			return false
		}
		for k := range 3 {
			if math.Abs(p[k]-0.6*q[k]) > 2.5 {
				return false
			}
		}
		return true
	}
	scan := func(n, m0, m1 int, at func(i, m int) rgb) []int {
		var out []int
		for i := 1; i < n-1; i++ {
			hits, tried := 0, 0
			for m := m0; m <= m1; m += 2 {
				tried++
				if p := at(i, m); dark(p, at(i-1, m)) || dark(p, at(i+1, m)) {
					hits++
				}
			}
			if hits*5 >= tried*4 {
				out = append(out, i)
			}
		}
		return out
	}
	r := s.img.Bounds()
	xs = scan(r.Dx(), y0, y1, func(x, y int) rgb { return s.at(x, y) })
	ys = scan(r.Dy(), x0, x1, func(y, x int) rgb { return s.at(x, y) })
	return xs, ys
}

// scale is the map's px per metre from the spacing of landblock lines
// (192 m apart), fitted over all of them; it fails on fewer than three or
// on uneven spacing.
func scale(t *testing.T, lines []int) float64 {
	t.Helper()
	if len(lines) < 3 {
		t.Fatalf("landblock lines at %v: want three or more", lines)
	}
	// A least-squares line through (k, x_k).
	n := float64(len(lines))
	var sk, sx, skk, skx float64
	for k, x := range lines {
		sk += float64(k)
		sx += float64(x)
		skk += float64(k * k)
		skx += float64(k * x)
	}
	step := (n*skx - sk*sx) / (n*skk - sk*sk)
	for k, x := range lines {
		if math.Abs(float64(x)-(sx/n+step*(float64(k)-sk/n))) > 1.01 {
			t.Fatalf("landblock lines at %v are not evenly spaced", lines)
		}
	}
	return step / world.BlockLength
}

// marker finds the player's marker (a disc of #f0b44c, radius 7 px) within
// r px of (x, y): the centroid of the pixels whose 5×5 neighbourhood is all
// that colour; ok false when there is none.
func (s mapShot) marker(x, y, r float64) (mx, my float64, ok bool) {
	gold := rgb{240, 180, 76}
	is := func(px, py int) bool { return s.at(px, py).dist(gold) <= 4 }
	b := s.img.Bounds()
	var sx, sy, n float64
	for py := max(2, int(y-r)); py <= min(b.Dy()-3, int(y+r)); py++ {
		for px := max(2, int(x-r)); px <= min(b.Dx()-3, int(x+r)); px++ {
			all := true
			for dy := -2; dy <= 2 && all; dy++ {
				for dx := -2; dx <= 2 && all; dx++ {
					all = is(px+dx, py+dy)
				}
			}
			if all {
				sx, sy, n = sx+float64(px), sy+float64(py), n+1
			}
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	return sx / n, sy / n, true
}

// calibrate reads the map's view off a shot taken with the player's marker
// near the canvas centre: the scale from the landblock lines in the bands
// along the top and the left edge (the overlay around the player reaches
// neither at the page's zoom), the anchor from the marker.
func calibrate(t *testing.T, s mapShot) view {
	t.Helper()
	return calibrateIn(t, s, 4, 80, 4, 60)
}

// calibrateIn is calibrate with the landblock lines read in other bands:
// the columns along rows y0..y1, the rows along columns x0..x1.
func calibrateIn(t *testing.T, s mapShot, y0, y1, x0, x1 int) view {
	t.Helper()
	b := s.img.Bounds()
	xs, ys := s.gridLines(y0, y1, x0, x1)
	sc := scale(t, xs)
	if sy := scale(t, ys); math.Abs(sy-sc) > 0.01*sc {
		t.Fatalf("the map's scale is %.4f px/m across and %.4f down", sc, sy)
	}
	mx, my, ok := s.marker(float64(b.Dx())/2, float64(b.Dy())/2, 60)
	if !ok {
		t.Fatalf("no player marker near the canvas centre")
	}
	return view{Scale: sc, MX: mx, MY: my, X: s.State.Where.X, Y: s.State.Where.Y}
}

// sortedKeys lists a map's keys in order (for messages).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
