package e2e

// The userscript on a map of the community's shape (issue 17): a CRS that
// is a copy of L.CRS.Simple with its own pixel scale, a full-height
// transparent sidebar laid over the map's left edge, and a second map in
// another CRS (an inset) the script must leave alone with one line saying
// so.

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/world"
	"acambient/datfetch/source"
	"acambient/server"
)

// rmAtlasPage is a map of Dereth as the community's map builds it: Leaflet
// as the page's global from a classic script, a CRS copied from
// L.CRS.Simple with 1 px per 16 m at zoom 0 and y counted from the north
// edge, a sidebar over the left 320 px that takes the pointer (transparent
// but for its card), and an inset map in Leaflet's default CRS.
const rmAtlasPage = `<!doctype html>
<meta charset="utf-8"><title>a map of Dereth, as the community's</title>
<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css">
<script src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"></script>
<style>` + rmSidebarCSS + `
  #inset { position: absolute; z-index: 1000; right: 10px; top: 10px; width: 120px; height: 80px }
</style>
<div id="map"></div>
<aside id="sidebar"><div class="card">Dereth</div></aside>
<div id="inset"></div>
<script>
  var inset = L.map("inset", { zoomControl: false, attributionControl: false }).setView([0, 0], 1);
  var crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(1 / 16, 0, -1 / 16, 48960 / 16) });
  var themap = L.map("map", { crs: crs, minZoom: -4, maxZoom: 8 }).setView([34656, 32544], 2);
  L.rectangle([[0, 0], [48960, 48960]], { fill: false }).addTo(themap);
</script>
`

// rmSidebarCSS lays a full-height sidebar over the map's left 320 px that
// is transparent but for its card, and takes the pointer all the same.
const rmSidebarCSS = `
  html, body, #map { height: 100%; margin: 0 }
  #sidebar { position: absolute; z-index: 1000; left: 0; top: 0; bottom: 0; width: 320px; background: transparent }
  #sidebar .card { margin: 10px; padding: 8px; background: #fff; font: 13px system-ui }`

// TestUserscriptCommunityMap: on rmAtlasPage the userscript binds the map
// in the CRS copy (and says why it skips the inset); asked for the
// bottom-left corner, which the sidebar covers, it moves its button where
// a real mouse click at the button's centre starts the audio; at every
// point of a grid over the demo world the listener's cell is the cell the
// map shows under the mouse; at the river and the desert the instances are
// gather's and sound plays; pointer moves over the button never move the
// listener.
func TestUserscriptCommunityMap(t *testing.T) {
	forEngines(t, leafletEngines, userscriptCommunityMap)
}

func userscriptCommunityMap(t *testing.T, spec browserSpec) {
	datURL, pageURL := lfServers(t, map[string]string{"atlas.html": rmAtlasPage})
	cfg := fmt.Sprintf("window.acAmbientConfig = { server: %q, corner: \"bottomleft\" };", datURL)
	b := lfOpen(t, spec, cfg, rmUserscript(t))
	b.do("goto", "url", pageURL+"/extra/atlas.html")
	b.waitFor(`window.acAmbient && window.acAmbient.amb`, 60*time.Second)
	var same bool
	b.eval(&same, `window.acAmbient.map === window.themap`)
	if !same {
		t.Fatal("the userscript bound another map than the page's map of Dereth")
	}
	rmRecordSends(b, "window.acAmbient.amb")

	// The button left the covered corner: what lies under its centre is the
	// button, and a real click there starts the audio.
	b.waitFor(`(() => { const r = document.querySelector(".ac-ambient-button").getBoundingClientRect();
		return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).closest(".ac-ambient-button") !== null; })()`, 10*time.Second)
	rmPlay(t, b, "window.acAmbient.amb", lfStartButton, "on", func() {
		rmSweep(t, b, "window.acAmbient.amb", "window.acAmbient.map")
	})
	rmControlMoves(t, b, "window.acAmbient.amb", lfStartButton, lfSpots[len(lfSpots)-1].cell)

	logs := b.logs()
	for _, want := range []string{
		"info: ambient.user.js: not binding the map in div#inset: its CRS wraps longitude or latitude",
		"info: leaflet-ambient.js: the start button in the bottomleft corner is under aside#sidebar; moved it to bottomright",
	} {
		n := 0
		for _, l := range logs {
			if strings.HasPrefix(l, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d console lines %q, want 1; the page's log:\n%s", n, want, strings.Join(logs, "\n"))
		}
	}
	lfNoErrorsIn(t, logs)
}

// rmUserscript is ambient.user.js's source.
func rmUserscript(t *testing.T) string {
	t.Helper()
	us, err := os.ReadFile(filepath.Join(lfWWW, "ambient.user.js"))
	if err != nil {
		t.Fatal(err)
	}
	return string(us)
}

// rmPlay starts the audio with a real mouse click at the centre of the
// start control, waits for it to say so (its text holds playing), runs
// then (nil: nothing), and hovers the river and the desert as the plain
// example's test does (lfHoverAndCheck).
func rmPlay(t *testing.T, b *lfBrowser, amb, control, playing string, then func()) {
	t.Helper()
	lfClickElement(b, control)
	b.waitFor(lfQ(control)+`.textContent.includes(`+lfJS(playing)+`)`, 10*time.Second)
	if then != nil {
		then()
	}
	for _, s := range lfSpots {
		lfHoverAndCheck(t, b, amb, s)
	}
}

// rmRecordSends wraps amb.setPlayer to keep what the binding sends and
// when (window.sent: {ns, ew, at}), as lfRecordSends with the page's time,
// and starts keeping amb's rebuilds (lfWatchRebuilds).
func rmRecordSends(b *lfBrowser, amb string) {
	b.eval(nil, `(() => { const a = `+amb+`, f = a.setPlayer;
		window.sent = []; a.setPlayer = function (p) { window.sent.push({ ...p, at: performance.now() }); return f.apply(this, arguments); }; })()`)
	lfWatchRebuilds(b, amb)
}

// rmSweep shows the whole demo world east of the sidebar and moves the
// mouse over a 7×7 grid across its landblocks: at each point the listener
// comes to the land cell of the map position under the mouse, as the map
// itself computes it (containerPointToLatLng at the pixel the mouse is on).
func rmSweep(t *testing.T, b *lfBrowser, amb, mapExpr string) {
	t.Helper()
	const x0, y0, side = 0xA4 * world.BlockLength, 0xAF * world.BlockLength, 12 * world.BlockLength
	// A quarter pixel a metre, the world's centre 165 px right of the map's.
	var view struct{ PerMetre float64 }
	b.eval(&view, fmt.Sprintf(`(() => { const m = %s, perMetre = Math.abs(m.project([0, 1], 0).x - m.project([0, 0], 0).x);
		m.setView([%v, %v], Math.log2(0.25 / perMetre), { animate: false });
		return { PerMetre: Math.abs(m.project([0, 1]).x - m.project([0, 0]).x) }; })()`, mapExpr, y0+side/2, x0+side/2-165*4))
	if math.Abs(view.PerMetre-0.25) > 1e-9 {
		t.Fatalf("the sweep's view has %v px a metre, want 0.25", view.PerMetre)
	}
	checked := 0
	for i := 0; i < 7; i++ {
		for j := 0; j < 7; j++ {
			X := x0 + side*(0.05+0.9*float64(i)/6)
			Y := y0 + side*(0.05+0.9*float64(j)/6)
			var at struct{ X, Y, Lat, Lng float64 }
			b.eval(&at, fmt.Sprintf(`(() => { const m = %s, r = m.getContainer().getBoundingClientRect();
				const p = m.latLngToContainerPoint([%v, %v]).round(), ll = m.containerPointToLatLng(p);
				return { X: r.x + p.x, Y: r.y + p.y, Lat: ll.lat, Lng: ll.lng }; })()`, mapExpr, Y, X))
			hovered, err := world.FromGlobal(at.Lng, at.Lat, 0)
			if err != nil {
				t.Fatal(err)
			}
			b.do("move", "x", at.X, "y", at.Y)
			if err := b.call(nil, lfCmd("waitFor", []any{"expr", rmCellIs(amb, hovered.ObjCellID), "timeoutMs", 30000})); err != nil {
				var got any
				b.eval(&got, amb+`.state().player`)
				t.Fatalf("mouse at (%v, %v) px over (%.2f, %.2f) m, the map's cell 0x%08X: the listener stays at %v", at.X, at.Y, at.Lng, at.Lat, hovered.ObjCellID, got)
			}
			checked++
		}
	}
	t.Logf("sweep: the listener's cell was the hovered cell at all %d points", checked)
}

// rmControlMoves: with the listener in cell and the throttle's window
// past (so a move to another cell would be sent at once, inside the event),
// mouse moves onto and across the control send nothing and leave the
// listener where it is, although Leaflet reports them as map mousemoves
// over other cells; moving back onto the map moves it again.
func rmControlMoves(t *testing.T, b *lfBrowser, amb, control string, cell uint32) {
	t.Helper()
	b.waitFor(rmCellIs(amb, cell), 30*time.Second)
	b.waitFor(`window.sent.length > 0 && performance.now() - window.sent[window.sent.length - 1].at > 250`, 10*time.Second)
	b.eval(nil, `window.seen = 0; document.addEventListener("mousemove", () => { window.seen++; }, true)`)
	var r struct{ X, Y, W float64 }
	b.eval(&r, `(() => { const r = `+lfQ(control)+`.getBoundingClientRect();
		return { X: r.x + r.width / 2, Y: r.y + r.height / 2, W: r.width }; })()`)
	n := lfSent(b)
	for k, dx := range []float64{0, -r.W / 3, r.W / 3, 0} {
		b.do("move", "x", r.X+dx, "y", r.Y) // one mousemove, at the point
		b.waitFor(fmt.Sprintf(`window.seen >= %d`, k+1), 10*time.Second)
		if m := lfSent(b); m != n {
			var sent any
			b.eval(&sent, `window.sent.slice(`+fmt.Sprint(n)+`)`)
			t.Fatalf("a pointer move over the control sent the listener away: %v", sent)
		}
	}
	var id any
	b.eval(&id, amb+`.state().player.objcellId`)
	if lfID(id) != cell {
		t.Fatalf("after moves over the control the listener is in %v, want 0x%08X", id, cell)
	}
	// Back on the map, 100 px left of the control: it follows again.
	var back struct{ Lat, Lng float64 }
	b.eval(&back, fmt.Sprintf(`(() => { const m = window.acAmbient.map, r = m.getContainer().getBoundingClientRect();
		const ll = m.containerPointToLatLng([%v - r.x, %v - r.y]); return { Lat: ll.lat, Lng: ll.lng }; })()`, r.X-r.W/2-100, r.Y))
	p, err := world.FromGlobal(back.Lng, back.Lat, 0)
	if err != nil {
		t.Fatal(err)
	}
	b.do("move", "x", r.X-r.W/2-100, "y", r.Y)
	b.waitFor(rmCellIs(amb, p.ObjCellID), 30*time.Second)
}

// rmCellIs is a page expression: amb's listener is in cell.
func rmCellIs(amb string, cell uint32) string {
	return fmt.Sprintf(`(() => { const s = %s.state(), id = s.player && s.player.objcellId;
		return id !== undefined && id !== null && (typeof id === "number" ? id >>> 0 : parseInt(id, 16)) === %d; })()`, amb, cell)
}

// rmOptionsPage loads the module from the sound server but its wasm and
// Go's glue from this page's own folder, by the wasm and wasmExec options
// (which a bundled app no longer needs, but an app serving the two files
// elsewhere does).
const rmOptionsPage = `<!doctype html>
<meta charset="utf-8"><title>wasm options</title>
<link rel="icon" href="data:,">
<script type="module">
  const server = new URLSearchParams(location.search).get("server");
  const { AmbientAudio } = await import(server + "/ambient.js");
  window.ambient = await AmbientAudio.load({ server, wasm: "alt.wasm", wasmExec: new URL("glue.js", location.href).href });
</script>
`

// TestEmbedWasmOptions: load() takes the wasm and the glue from where the
// options say, and fetches neither beside the module. The page needs no
// Leaflet (no route), so it runs in every engine.
func TestEmbedWasmOptions(t *testing.T) { forEngines(t, allEngines, embedWasmOptions) }

func embedWasmOptions(t *testing.T, spec browserSpec) {
	www, w := site(t)
	wasm, err := os.ReadFile(filepath.Join(www, "ambient.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	glue, err := os.ReadFile(filepath.Join(www, "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	// The servers see every request: the page's, and its worker's (which
	// the page's resource timing does not list).
	dat, pages := &seenLog{}, &seenLog{}
	datURL, pageURL := lfServersWith(t, www, dat.wrap(server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	})), map[string]string{"options.html": rmOptionsPage, "alt.wasm": string(wasm), "glue.js": string(glue)}, pages.wrap)
	b := lfLaunch(t, spec)
	b.do("goto", "url", pageURL+"/extra/options.html?server="+datURL)
	b.waitFor(`window.ambient`, 60*time.Second)
	var got []string
	for _, l := range []struct {
		base string
		log  *seenLog
	}{{datURL, dat}, {pageURL, pages}} {
		for _, r := range l.log.take() {
			if strings.HasSuffix(r.path, ".wasm") || strings.HasSuffix(r.path, ".js") {
				got = append(got, l.base+r.path)
			}
		}
	}
	want := []string{datURL + "/ambient.js", pageURL + "/extra/alt.wasm", pageURL + "/extra/glue.js"}
	for _, u := range want {
		if !slices.Contains(got, u) {
			t.Errorf("load did not fetch %s; it fetched %q", u, got)
		}
	}
	for _, u := range got {
		if strings.HasSuffix(u, "/ambient.wasm") || strings.HasSuffix(u, "/wasm_exec.js") {
			t.Errorf("load fetched %s, which the options replace", u)
		}
	}
	b.eval(nil, `ambient.setPlayer("0xA9B4001F/72,144,22.2")`)
	b.waitFor(rmCellIs("window.ambient", 0xA9B4001F), 30*time.Second)
	lfNoErrors(t, b)
}

// TestLeafletOffData: the demo world inside a map of all Dereth. From the
// river the mouse goes west past the world's edge onto landblocks the
// source lacks: the listener is nowhere (state().offData names the
// landblock), its sound fades to silence (before the voices sounding then
// would have ended: rmFadesOut), the overlay (the example) or the
// button (the userscript) says there is no data here, each missing
// landblock is asked for at most once (never, when the source lists its
// landblocks), and no move logs a warning; back at the river the sound
// returns, with gather's instances.
func TestLeafletOffData(t *testing.T) {
	for _, c := range []struct {
		name    string
		listing bool   // the source answers landblocks.txt
		page    string // "example" (overlay) or "userscript" (the button)
	}{
		{"example, listing", true, "example"},
		{"userscript, no listing", false, "userscript"},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEngines(t, leafletEngines, func(t *testing.T, spec browserSpec) { rmOffData(t, spec, c.listing, c.page) })
		})
	}
}

func rmOffData(t *testing.T, spec browserSpec, listing bool, page string) {
	www, w := site(t)
	var log reqLog
	var sound http.Handler = server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	})
	if !listing {
		inner := sound
		sound = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/landblocks.txt") {
				rw.Header().Set("Access-Control-Allow-Origin", "*")
				http.NotFound(rw, r) // a source that keeps no listing
				return
			}
			inner.ServeHTTP(rw, r)
		})
	}
	datURL, pageURL := lfServersWith(t, www, log.wrap(sound), map[string]string{"plain.html": lfPlainPage})

	var b *lfBrowser
	amb, mapExpr := "window.ambient", "window.map"
	if page == "example" {
		b = lfOpen(t, spec)
		b.do("goto", "url", pageURL+"/embed-example.html?overlay&server="+datURL)
		b.waitFor(`window.ambient && window.map`, 60*time.Second)
		lfRecordSends(b, amb)
		lfClickElement(b, "#start")
		b.waitFor(`document.getElementById("start").textContent.includes("playing")`, 10*time.Second)
	} else {
		b = lfOpen(t, spec, fmt.Sprintf("window.acAmbientConfig = { server: %q };", datURL), rmUserscript(t))
		b.do("goto", "url", pageURL+"/extra/plain.html")
		b.waitFor(`window.acAmbient && window.acAmbient.amb`, 60*time.Second)
		amb, mapExpr = "window.acAmbient.amb", "window.acAmbient.map"
		lfRecordSends(b, amb)
		lfClickElement(b, lfStartButton)
		b.waitFor(lfQ(lfStartButton)+`.textContent.includes("on")`, 10*time.Second)
	}
	river := lfSpots[0]
	lfHoverAndCheck(t, b, amb, river)

	// A quarter pixel a metre, the river 100 px right of the map's centre:
	// the world's west edge (bx 0xA4) and the landblocks past it in view.
	b.eval(nil, fmt.Sprintf(`(() => { const m = %s, perMetre = Math.abs(m.project([0, 1], 0).x - m.project([0, 0], 0).x);
		m.setView([%v, %v], Math.log2(0.25 / perMetre), { animate: false }); })()`, mapExpr, river.Y, river.X-400))
	at := func(X, Y float64) (px struct{ X, Y float64 }) {
		b.eval(&px, fmt.Sprintf(`(() => { const m = %s, r = m.getContainer().getBoundingClientRect();
			const p = m.latLngToContainerPoint([%v, %v]); return { X: r.x + p.x, Y: r.y + p.y }; })()`, mapExpr, Y, X))
		return px
	}
	p := at(river.X, river.Y)
	b.do("move", "x", p.X, "y", p.Y)
	b.waitFor(rmCellIs(amb, river.cell), 30*time.Second)
	b.waitFor(`window.probe.rms() > 1e-4`, 15*time.Second)
	b.logs() // what came before is the plain example's, checked there

	// West onto 0xA3B5 (the world's land starts at 0xA4), through six of its
	// cells, then onto 0xA2B5: two landblocks the source lacks.
	const missingA, missingB = 0xA3B5FFFF, 0xA2B5FFFF
	by := float64(0xB5 * world.BlockLength)
	var path [][2]float64
	for _, cx := range []float64{1, 2, 3, 5, 6, 7} {
		path = append(path, [2]float64{0xA3*world.BlockLength + 24*cx + 12, by + 24*float64(int(cx)%8) + 12})
	}
	path = append(path, [2]float64{0xA2*world.BlockLength + 100, by + 100})
	offAt := func(lb uint32) string {
		return fmt.Sprintf(`(() => { const o = %s.state().offData; return !!o && parseInt(o.landblock, 16) === %d; })()`, amb, lb)
	}
	rmFadesOut(t, b, amb, func() {
		q := at(path[0][0], path[0][1])
		b.do("move", "x", q.X, "y", q.Y, "steps", 4)
		b.waitFor(offAt(missingA), 30*time.Second)
	}, func() {
		p := at(river.X, river.Y)
		b.do("move", "x", p.X, "y", p.Y, "steps", 4)
		b.waitFor(`!`+amb+`.state().offData`, 30*time.Second)
		b.waitFor(`window.probe.rms() > 1e-4`, 15*time.Second)
	})
	for i, pt := range path[1:] {
		q := at(pt[0], pt[1])
		b.do("move", "x", q.X, "y", q.Y, "steps", 4)
		want := uint32(missingA)
		if i == len(path)-2 {
			want = missingB
		}
		b.waitFor(offAt(want), 30*time.Second)
	}
	// Nowhere: the sound has faded to silence, and the page says so.
	b.waitFor(`window.probe.rms() < 1e-6`, 15*time.Second)
	if page == "example" {
		b.waitFor(`(() => { const l = document.querySelector(".ac-nodata-label");
			return !!l && l.textContent === "no ambient data here" && document.querySelectorAll("path.ac-nodata").length === 1
				&& document.querySelectorAll("path.ac-ring, path.ac-player").length === 0; })()`, 10*time.Second)
		b.waitFor(`document.getElementById("where").textContent.endsWith("no ambient data here")`, 10*time.Second)
	} else {
		b.waitFor(lfQ(lfStartButton)+`.textContent === "♪ no data here"`, 10*time.Second)
	}
	offLogs := b.logs()

	// Back to the river: the sound returns, its first play within a second
	// of the pointer's arrival on the engine's clock (state().time; a bed
	// cut off the data used to wait for its old key, up to its wave's
	// length: docs/divergences.md, 18).
	p = at(river.X, river.Y)
	b.do("move", "x", p.X, "y", p.Y, "steps", 4)
	var arrived float64
	b.eval(&arrived, amb+`.state().time`)
	b.waitFor(`!`+amb+`.state().offData`, 30*time.Second)
	b.waitFor(fmt.Sprintf(`%s.state().voices.some((v) => v.t >= %v)`, amb, arrived), 30*time.Second)
	var first float64
	b.eval(&first, fmt.Sprintf(`Math.min(...%s.state().voices.filter((v) => v.t >= %v).map((v) => v.t))`, amb, arrived))
	t.Logf("back on the data at %.2f s of the engine's clock, the first play at %.2f s", arrived, first)
	if first-arrived > 1 {
		t.Errorf("back on the data at %.2f s of the engine's clock, the first sound played at %.2f s: %.2f s later, want within 1 s", arrived, first, first-arrived)
	}
	lfHoverAndCheck(t, b, amb, river)
	if page == "userscript" {
		b.waitFor(lfQ(lfStartButton)+`.textContent === "♪ ambient on"`, 10*time.Second)
	}

	// Each landblock the source lacks asked for at most once; none at all
	// with the listing.
	asked := map[string]int{}
	var missing int
	log.mu.Lock()
	for _, r := range log.reqs {
		if strings.HasPrefix(r.Path, "/cell/files/0x") && strings.HasSuffix(strings.ToUpper(r.Path), "FFFF") {
			asked[r.Path]++
			if r.Status == http.StatusNotFound {
				missing++
			}
		}
	}
	log.mu.Unlock()
	for path, n := range asked {
		if n > 1 {
			t.Errorf("%s asked for %d times", path, n)
		}
	}
	for _, id := range []uint32{missingA, missingB} {
		if n := asked[fmt.Sprintf("/cell/files/0x%08X", id)]; listing && n != 0 {
			t.Errorf("with the listing, the missing 0x%08X was asked for %d times", id, n)
		}
	}
	if listing && missing != 0 {
		t.Errorf("with the listing, %d landblock requests answered 404", missing)
	}
	t.Logf("landblock requests: %d, of which %d answered 404 (listing %v)", len(asked), missing, listing)
	var warnings []string
	for _, l := range offLogs {
		if strings.HasPrefix(l, "warning:") && !strings.Contains(l, "ScriptProcessorNode") {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) > 0 {
		t.Errorf("moves off the data logged %d warnings:\n%s", len(warnings), strings.Join(warnings, "\n"))
	}
	lfNoErrorsIn(t, append(offLogs, b.logs()...))
}

// rmFadesOut checks that the sound fades out, rather than plays out, as
// the listener goes off the data: with a voice that has 6 s or more of its
// wave to sound (the river's beds are 7–8 s), off() takes the listener off
// the data, and the destination must fall silent while the voices sounding
// then would still be sounding (on the engine's clock, state().time, which
// their ends are on). Without the fade the engine, held disabled, plays no
// more, but what sounds plays to its end. A busy machine can make off()
// land late, leaving too little of the voices to tell the two: then back()
// returns to the data and it tries again (three times in all).
func rmFadesOut(t *testing.T, b *lfBrowser, amb string, off, back func()) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		b.waitFor(`(() => { const s = `+amb+`.state(); return s.voices.some((v) => v.end - s.time > 6); })()`, 30*time.Second)
		// The voices' end is read before off(): once off the data, the
		// state lists no voices (they are cut), and a snapshot taken after
		// may already say so.
		var at struct{ End, Time float64 }
		b.eval(&at.End, `Math.max(...`+amb+`.state().voices.map((v) => v.end))`)
		off()
		b.eval(&at.Time, amb+`.state().time`)
		if at.End-at.Time >= 3 {
			b.waitFor(`window.probe.rms() < 1e-6`, 15*time.Second)
			var silent float64
			b.eval(&silent, amb+`.state().time`)
			t.Logf("off the data at %.2f s of the engine's clock, silent at %.2f, the voices would have ended at %.2f", at.Time, silent, at.End)
			if silent >= at.End {
				t.Errorf("off the data at %.2f s the sound played out to its voices' end (%.2f s) and fell silent at %.2f: it did not fade", at.Time, at.End, silent)
			}
			return
		}
		if attempt == 3 {
			t.Fatalf("three times off the data with under 3 s left of the voices (last: at %.2f s, ending %.2f): cannot tell a fade", at.Time, at.End)
		}
		back()
	}
}

// TestLeafletOffDataOrder: two setPlayer calls that settle out of order —
// the first, on the data, waits for its landblock (held by the server),
// the second, off the data, is refused at once — leave the listener where
// the later call put it: nowhere, not at the first call's place once its
// landblock comes.
func TestLeafletOffDataOrder(t *testing.T) { forEngines(t, leafletEngines, leafletOffDataOrder) }

func leafletOffDataOrder(t *testing.T, spec browserSpec) {
	www, w := site(t)
	river := lfSpots[0]
	held := fmt.Sprintf("/cell/files/0x%08X", river.cell|0xFFFF)
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	inner := server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	})
	datURL, pageURL := lfServersWith(t, www, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == held {
			once.Do(func() { close(arrived) })
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		inner.ServeHTTP(rw, r)
	}), nil)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	b := lfOpen(t, spec)
	b.do("goto", "url", pageURL+"/embed-example.html?server="+datURL)
	b.waitFor(`window.ambient && ambient.landblock(0xA3, 0xB5) === "absent"`, 60*time.Second) // the listing is in
	b.eval(nil, fmt.Sprintf(`(() => { window.ra = window.rb = null;
		ambient.setPlayer({ X: %v, Y: %v }).then(() => "ok", (e) => e.code).then((v) => { window.ra = v; });
		ambient.setPlayer({ X: %v, Y: %v }).then(() => "ok", (e) => e.code).then((v) => { window.rb = v; }); })()`,
		river.X, river.Y, 0xA3*world.BlockLength+50, 0xB5*world.BlockLength+50))
	b.waitFor(`window.rb === "missing-landblock"`, 30*time.Second)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the first setPlayer never asked for its landblock")
	}
	var first any
	b.eval(&first, `window.ra`)
	if first != nil {
		t.Fatalf("the first setPlayer settled (%v) before its landblock came", first)
	}
	close(release)
	b.waitFor(`window.ra === "ok"`, 30*time.Second)
	var st struct {
		OffData *struct{ Landblock string } `json:"offData"`
		Player  *struct {
			ObjcellID any `json:"objcellId"`
		} `json:"player"`
	}
	b.eval(&st, `ambient.state()`)
	if st.OffData == nil || st.OffData.Landblock != "0xA3B5FFFF" {
		t.Errorf("after the earlier call settled last, offData is %+v, want the later call's 0xA3B5FFFF", st.OffData)
	}
	if st.Player != nil && lfID(st.Player.ObjcellID) == river.cell {
		t.Errorf("the earlier call, settling last, moved the listener to 0x%08X", river.cell)
	}
	lfNoErrors(t, b)
}
