package e2e

// Issue 20 in the browser: the demo page's caption strip and sound-zone
// layer, and bindLeaflet's zones and captions options in a map whose CRS is
// a copy of L.CRS.Simple with its own pixel scale.

import (
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"acambient/core/demo"
)

// TestPageCaptions: the demo page's caption strip is an aria-live="polite"
// region, empty while nothing is heard (and amb.on("caption") silent),
// that fills at the river once the audio runs: the bed's caption event is
// the river's (running water, all around, near, its SoundTable, no wave),
// and the strip shows its text. Its toggle hides it (and no line is added while off, though
// captions come), and the choice is remembered across a reload. In every
// engine: whether a caption is emitted hangs on the engine's audio state.
func TestPageCaptions(t *testing.T) { forEngines(t, allEngines, pageCaptions) }

func pageCaptions(t *testing.T, spec browserSpec) {
	datURL, _ := lfServers(t, nil)
	b := lfLaunch(t, spec)
	b.do("goto", "url", datURL+"/")
	b.waitFor(`window.ambient && window.ambient.state().sounds.length > 0`, 60*time.Second)
	b.eval(nil, `window.caps = []; window.ambient.on("caption", (c) => window.caps.push(c)); null`)
	var live string
	b.eval(&live, `document.getElementById("captions").getAttribute("aria-live")`)
	if live != "polite" {
		t.Errorf("the caption strip's aria-live is %q, want polite", live)
	}
	// The engine's clock runs before the click, and what it decides then is
	// heard by no one: to the meadow and back to the river, two changes of
	// bed two seconds of that clock each, and no caption event.
	lfWatchRebuilds(b, "window.ambient")
	for _, name := range []string{"meadow", "river"} {
		clickSeen(b, fmt.Sprintf(`#landmarks button[data-name=%q]`, name))
		b.waitFor(fmt.Sprintf(`(() => { const a = window.ambient, rb = a.__rebuilds.filter((r) => r.objcellId === %q).pop();
			return rb && a.state().time >= rb.t + 2; })()`, fmt.Sprintf("0x%08X", landmarkCell(t, name))), 30*time.Second)
	}
	var early []string
	var before int
	b.eval(&early, `window.caps.map((c) => c.text)`)
	b.eval(&before, `document.querySelectorAll("#captions p").length`)
	if len(early) != 0 || before != 0 {
		t.Errorf("before the audio runs: caption events %q, %d lines in the strip; want none", early, before)
	}
	clickSeen(b, "#overlay")
	b.waitFor(`window.caps.some((c) => c.kind === "bed")`, 30*time.Second)
	var bed struct {
		Text, Kind, Direction, Table string
		Wave                         *string
		Near                         bool
		Shown                        bool
	}
	b.eval(&bed, `(() => { const c = window.caps.find((c) => c.kind === "bed");
		return { ...c, Shown: [...document.querySelectorAll("#captions p")].some((p) => p.textContent === c.text) }; })()`)
	if !strings.HasPrefix(bed.Text, "running water, all around") || bed.Direction != "all around" ||
		!bed.Near || bed.Table != "0x20000103" || bed.Wave != nil {
		t.Errorf("the bed's caption at the river: %+v; want \"running water, all around…\", near, table 0x20000103, wave null", bed)
	}
	if !bed.Shown {
		t.Errorf("the strip has no line %q", bed.Text)
	}

	// Off: hidden, emptied, and it stays empty while captions come (a move
	// to the meadow brings its bed's).
	b.eval(nil, `window.heard = 0; window.ambient.on("caption", () => window.heard++); null`)
	clickSeen(b, "#captionsOn")
	var off struct {
		Checked, Hidden bool
		Lines           int
		Shown           bool
	}
	b.eval(&off, `(() => { const s = document.getElementById("captions");
		return { Checked: document.getElementById("captionsOn").checked, Hidden: s.hidden, Lines: s.childElementCount, Shown: s.offsetParent !== null }; })()`)
	if off.Checked || !off.Hidden || off.Lines != 0 || off.Shown {
		t.Errorf("after the toggle: %+v; want unchecked, hidden, empty, not shown", off)
	}
	clickSeen(b, `#landmarks button[data-name="meadow"]`)
	b.waitFor(`window.heard > 0`, 30*time.Second)
	var lines int
	b.eval(&lines, `document.getElementById("captions").childElementCount`)
	if lines != 0 {
		t.Errorf("captions off: %d lines after a caption came; want none", lines)
	}

	// Remembered: after a reload the toggle is off and the strip hidden.
	b.do("goto", "url", datURL+"/")
	b.waitFor(`window.ambient && window.ambient.state().sounds.length > 0`, 60*time.Second)
	b.eval(&off, `(() => { const s = document.getElementById("captions");
		return { Checked: document.getElementById("captionsOn").checked, Hidden: s.hidden, Lines: s.childElementCount, Shown: s.offsetParent !== null }; })()`)
	if off.Checked || !off.Hidden {
		t.Errorf("after a reload: %+v; want the toggle off and the strip hidden", off)
	}
	lfNoErrors(t, b)
}

// zonesIndex is the part of zones.json the tests read.
type zonesIndex struct {
	Bounds [2][2]float64 `json:"bounds"`
	Width  int           `json:"width"`
	Height int           `json:"height"`
	Cells  int           `json:"cells"`
	Silent int           `json:"silent"`
	Sets   []struct {
		STBIndex int    `json:"stbIndex"`
		Color    string `json:"color"`
		Cells    int    `json:"cells"`
	} `json:"sets"`
}

// zonesPixel is zones.png's colour at global metres (X, Y), fetched from
// the sound server.
func zonesPixel(t *testing.T, datURL string, idx zonesIndex, X, Y float64) [3]int {
	t.Helper()
	resp, err := http.Get(datURL + "/zones.png")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	img, err := png.Decode(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	col := int((X - idx.Bounds[0][1]) / 24)
	row := int((idx.Bounds[1][0] - Y) / 24)
	r, g, bl, a := img.At(col, row).RGBA()
	if a != 0xFFFF {
		t.Fatalf("zones.png at (%v, %v), pixel (%d, %d), is not opaque", X, Y, col, row)
	}
	return [3]int{int(r >> 8), int(g >> 8), int(bl >> 8)}
}

// TestPageZones: the demo page's sound-zone toggle (shown for this server)
// draws zones.png over the tiles at the cells it covers — a canvas pixel
// 400 m west of the river becomes 0.6 of the layer's colour there over 0.4
// of the tile's — with a legend whose counts add up to the land cells, and
// turning it off brings the tile back; the acdatservice source has no
// layer, and no toggle.
func TestPageZones(t *testing.T) { forEngines(t, allEngines, pageZones) }

func pageZones(t *testing.T, spec browserSpec) {
	datURL, _ := lfServers(t, nil)
	b := lfLaunch(t, spec)
	b.do("goto", "url", datURL+"/")
	b.waitFor(`window.ambient && window.ambient.state().sounds.length > 0 && !document.getElementById("zonesBox").hidden`, 60*time.Second)
	// The start overlay covers the map and its tools until the first click.
	lfClickElement(b, "#overlay")
	b.waitFor(`window.ambient.running && document.getElementById("overlay").classList.contains("hidden")`, 10*time.Second)
	// Global metres only: where's x and y are landblock-local, and Go's
	// decoder folds case (the engine's key order would pick the winner).
	var w struct{ GX, GY float64 }
	b.eval(&w, `(() => { const w = window.ambient.state().where; return { GX: w.X, GY: w.Y }; })()`)
	X, Y := math.Floor((w.GX-400)/24)*24+12, math.Floor(w.GY/24)*24+12 // a cell's centre, outside the ring and heat map
	pixel := fmt.Sprintf(`(() => { const [x, y] = window.mapCanvas.screenOf(%v, %v), c = document.getElementById("map"), r = devicePixelRatio || 1;
		return [...c.getContext("2d").getImageData(Math.round(x * r), Math.round(y * r), 1, 1).data].slice(0, 3); })()`, X, Y)
	// The tile is drawn (not the background, not "pending").
	b.waitFor(`(() => { const p = `+pixel+`; return p.join() !== "14,17,22" && p.join() !== "26,31,39"; })()`, 30*time.Second)
	var base [3]int
	b.eval(&base, pixel)

	idx := getZonesIndex(t, datURL)
	z := zonesPixel(t, datURL, idx, X, Y)
	var want [3]int
	for i := range want {
		want[i] = int(math.Round(0.6*float64(z[i]) + 0.4*float64(base[i])))
	}
	clickSeen(b, "#zonesOn")
	waitPixel(t, b, pixel, want, "the layer shown (zones.png's "+lfJSON3(z)+" at 0.6 over the tile's "+lfJSON3(base)+")")
	var legend struct{ Sum, Cells, Silent, N int }
	b.eval(&legend, `(() => { const l = document.getElementById("zoneLegend"), s = [...l.querySelectorAll("[data-cells]")];
		return { Sum: s.reduce((a, e) => a + Number(e.dataset.cells), 0), Cells: Number(l.dataset.cells), Silent: Number(l.dataset.silent), N: s.length, Hidden: l.hidden }; })()`)
	if legend.N != len(idx.Sets) || legend.Sum+legend.Silent != legend.Cells || legend.Cells != idx.Cells {
		t.Errorf("legend: %+v; want %d sets whose cells and the silent add up to the %d land cells", legend, len(idx.Sets), idx.Cells)
	}
	clickSeen(b, "#zonesOn")
	waitPixel(t, b, pixel, base, "the layer hidden (the tile's)")
	lfNoErrors(t, b)

	// acdatservice: no layer to toggle.
	b.do("goto", "url", datURL+"/?server="+datURL+"&api=acdatservice")
	b.waitFor(`window.ambient && window.ambient.state().sounds.length > 0`, 60*time.Second)
	var hidden bool
	b.eval(&hidden, `document.getElementById("zonesBox").hidden`)
	if !hidden {
		t.Error("with the acdatservice source the zones toggle is shown; it has no layer")
	}
}

// lfCRSPage is a map of Dereth in a copy of L.CRS.Simple with its own
// pixel scale (1 px per 16 m at zoom 0, y from the north edge), as the
// community's map builds it, that loads the sound module and binds it with
// the zones layer and captions.
const lfCRSPage = `<!doctype html>
<meta charset="utf-8"><title>zones on a map of Dereth</title>
<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css">
<script src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"></script>
<style>html, body, #map { height: 100%; margin: 0 }</style>
<div id="map"></div>
<button id="start" style="position: absolute; z-index: 1000; top: 8px; left: 60px">start</button>
<script type="module">
  const server = new URLSearchParams(location.search).get("server");
  const crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(1 / 16, 0, -1 / 16, 48960 / 16) });
  const map = L.map("map", { crs, minZoom: -4, maxZoom: 8 }).setView([34848, 32568], 3);
  const { AmbientAudio } = await import(server + "/ambient.js");
  const { bindLeaflet } = await import(server + "/leaflet-ambient.js");
  const amb = await AmbientAudio.load({ server });
  const unbind = bindLeaflet(map, amb, { follow: "center", zones: server + "/zones.json", captions: true });
  document.getElementById("start").onclick = () => amb.start();
  Object.assign(window, { map, ambient: amb, unbind });
</script>
`

// TestLeafletZones: bindLeaflet(map, amb, {zones, captions}) on a map whose
// CRS is a copy of L.CRS.Simple with another pixel scale: the overlay's
// image covers exactly the container points of the demo world's bounds (at
// two zooms), at one pixel per land cell, unsmoothed; its legend's counts
// add up to the land cells; its checkbox removes and restores it; the
// captions control is aria-live and says the river's bed once the audio
// runs; unbind removes both controls and the overlay.
func TestLeafletZones(t *testing.T) { forEngines(t, leafletEngines, leafletZones) }

func leafletZones(t *testing.T, spec browserSpec) {
	datURL, pageURL := lfServers(t, map[string]string{"crs.html": lfCRSPage})
	b := lfOpen(t, spec)
	b.do("goto", "url", pageURL+"/extra/crs.html?server="+datURL)
	b.waitFor(`window.unbind && (() => { const i = document.querySelector("img.ac-zones-image"); return i && i.complete && i.naturalWidth > 0; })()`, 60*time.Second)

	idx := getZonesIndex(t, datURL)
	for _, zoom := range []int{3, 1} {
		b.eval(nil, fmt.Sprintf(`map.setZoom(%d, { animate: false }); null`, zoom))
		// Leaflet places the image on zoomend/viewreset; ask for its box once the map says the zoom.
		var box struct {
			Img, Want struct{ X, Y, W, H float64 }
			Natural   struct{ W, H int }
			Render    string
			Scale     float64
		}
		b.waitFor(fmt.Sprintf(`map.getZoom() === %d`, zoom), 10*time.Second)
		b.eval(&box, fmt.Sprintf(`(() => { const i = document.querySelector("img.ac-zones-image"), c = map.getContainer().getBoundingClientRect(), r = i.getBoundingClientRect();
			const sw = map.latLngToContainerPoint([%v, %v]), ne = map.latLngToContainerPoint([%v, %v]);
			return { Img: { X: r.x - c.x, Y: r.y - c.y, W: r.width, H: r.height }, Want: { X: sw.x, Y: ne.y, W: ne.x - sw.x, H: sw.y - ne.y },
				Natural: { W: i.naturalWidth, H: i.naturalHeight }, Render: getComputedStyle(i).imageRendering,
				Scale: map.options.crs.scale(map.getZoom()) }; })()`, idx.Bounds[0][0], idx.Bounds[0][1], idx.Bounds[1][0], idx.Bounds[1][1]))
		d := math.Max(math.Max(math.Abs(box.Img.X-box.Want.X), math.Abs(box.Img.Y-box.Want.Y)), math.Max(math.Abs(box.Img.W-box.Want.W), math.Abs(box.Img.H-box.Want.H)))
		if d > 1 || box.Want.W <= 0 {
			t.Errorf("zoom %d: the overlay's box %+v, the bounds' container box %+v (off by %.2f px)", zoom, box.Img, box.Want, d)
		}
		// The CRS copy is not Simple's scale: 1 px per 16 m at zoom 0.
		if math.Abs(box.Want.W-float64(idx.Width)*24*math.Pow(2, float64(zoom))/16) > 1 {
			t.Errorf("zoom %d: the bounds span %.1f px; the CRS copy's scale makes it %.1f", zoom, box.Want.W, float64(idx.Width)*24*math.Pow(2, float64(zoom))/16)
		}
		if box.Natural.W != idx.Width || box.Natural.H != idx.Height || box.Render != "pixelated" {
			t.Errorf("zoom %d: image %dx%d rendered %q; want %dx%d (a pixel a land cell), pixelated", zoom, box.Natural.W, box.Natural.H, box.Render, idx.Width, idx.Height)
		}
	}
	var legend struct{ Sum, Cells, Silent, N int }
	b.eval(&legend, `(() => { const l = document.querySelector(".ac-zones"), s = [...l.shadowRoot.querySelectorAll("li[data-cells]")];
		return { Sum: s.reduce((a, e) => a + Number(e.dataset.cells), 0), Cells: Number(l.dataset.cells), Silent: Number(l.dataset.silent), N: s.length }; })()`)
	if legend.N != len(idx.Sets) || legend.Sum+legend.Silent != legend.Cells || legend.Cells != idx.Cells {
		t.Errorf("legend: %+v; want %d sets whose cells and the silent add up to the %d land cells", legend, len(idx.Sets), idx.Cells)
	}
	lfClickElement(b, ".ac-zones >> input")
	b.waitFor(`!document.querySelector("img.ac-zones-image")`, 10*time.Second)
	lfClickElement(b, ".ac-zones >> input")
	b.waitFor(`document.querySelector("img.ac-zones-image")`, 10*time.Second)

	// Captions: the river's bed once the audio runs.
	var live string
	b.eval(&live, lfQ(".ac-captions >> [aria-live]")+`.getAttribute("aria-live")`)
	if live != "polite" {
		t.Errorf("the captions control's aria-live is %q, want polite", live)
	}
	lfClickElement(b, "#start")
	b.waitFor(`[...document.querySelector(".ac-captions").shadowRoot.querySelectorAll("p")].some((p) => p.textContent.startsWith("running water, all around"))`, 30*time.Second)

	b.eval(nil, `unbind()`)
	if n := lfCount(b, ".ac-zones, .ac-captions, img.ac-zones-image"); n != 0 {
		t.Errorf("after unbind %d zone and caption elements remain", n)
	}
	lfNoErrors(t, b)
	// Leaving aborts what is loading (waves of the river's sets), which the
	// next page's log would report: let it finish.
	b.waitFor(`ambient.state().loading.pending === 0`, 30*time.Second)

	// The example page with ?zones&captions draws the layer too.
	b.do("goto", "url", pageURL+"/embed-example.html?zones&captions&server="+datURL)
	b.waitFor(`window.unbind && (() => { const i = document.querySelector("img.ac-zones-image"); return i && i.complete && i.naturalWidth > 0; })() && document.querySelector(".ac-captions")`, 60*time.Second)
	lfNoErrors(t, b)
}

// landmarkCell is the demo landmark's objcell.
func landmarkCell(t *testing.T, name string) uint32 {
	t.Helper()
	for _, l := range demo.Landmarks {
		if l.Name == name {
			return l.ObjCellID
		}
	}
	t.Fatalf("no demo landmark %q", name)
	return 0
}

// waitPixel waits until the canvas pixel (an expression) is want, within 3
// of each channel (the blend's rounding), and fails saying what it is.
func waitPixel(t *testing.T, b *lfBrowser, pixel string, want [3]int, what string) {
	t.Helper()
	cond := fmt.Sprintf(`(() => { const p = %s, w = %s; return p.every((v, i) => Math.abs(v - w[i]) <= 3); })()`, pixel, lfJSON3(want))
	if err := b.call(nil, lfCmd("waitFor", []any{"expr", cond, "timeoutMs", 30000})); err != nil {
		var got [3]int
		b.eval(&got, pixel)
		t.Fatalf("the map's pixel is %v, want %v: %s (%v)", got, want, what, err)
	}
}

// clickSeen scrolls an element into view and clicks its middle with a
// trusted click.
func clickSeen(b *lfBrowser, sel string) {
	b.t.Helper()
	b.eval(nil, `document.querySelector(`+lfJS(sel)+`).scrollIntoView({ block: "center" })`)
	lfClickElement(b, sel)
}

// getZonesIndex is the sound server's zones.json.
func getZonesIndex(t *testing.T, datURL string) zonesIndex {
	t.Helper()
	resp, err := http.Get(datURL + "/zones.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s/zones.json: %s", datURL, resp.Status)
	}
	var idx zonesIndex
	if err := json.NewDecoder(resp.Body).Decode(&idx); err != nil {
		t.Fatalf("%s/zones.json: %v", datURL, err)
	}
	return idx
}

func lfJSON3(c [3]int) string { return fmt.Sprintf("[%d,%d,%d]", c[0], c[1], c[2]) }
