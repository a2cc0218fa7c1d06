package e2e

// Tests of the map binding (issue 11, contracts §4): leaflet-ambient.js's
// logic and the userscript's hook under node, the types under tsc, and in
// headless Chromium the example page (against serve and against export's
// tree on a static host) and the userscript driving the real module across
// origins, with Leaflet's CDN URL answered from npm's copy.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/demo"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/server"
)

const lfWWW = "../www"

// TestLeafletUnit runs e2e/leaflet_unit.test.mjs (cell arithmetic, throttle,
// unbind, the userscript's hook) under node's test runner.
func TestLeafletUnit(t *testing.T) {
	nodeTest(t, "leaflet_unit.test.mjs")
}

// TestLeafletTypes typechecks a viewer's TypeScript (testdata/embed.ts)
// against www's typings and @types/leaflet, strict.
func TestLeafletTypes(t *testing.T) {
	node, mods := lfNode(t), lfModules(t)
	abs, err := filepath.Abs("testdata/embed.ts")
	if err != nil {
		t.Fatal(err)
	}
	tscCheck(t, node, mods, map[string]any{
		"strict": true, "lib": []string{"es2022", "dom"},
		"typeRoots": []string{filepath.Join(mods, "@types")},
		"paths":     map[string][]string{"leaflet": {filepath.Join(mods, "@types/leaflet/index.d.ts")}},
	}, []string{abs})
}

// lfSpot is a place to hover: a point inside a demo landmark's cell.
type lfSpot struct {
	name string
	cell uint32  // the land cell the point lies in
	X, Y float64 // global metres
}

// lfSpots are the river and the desert landmarks (core/demo), 5 m east and
// 7 m north of their cells' SW corners: very different sound sets.
var lfSpots = func() []lfSpot {
	var out []lfSpot
	for _, name := range []string{"river", "desert"} {
		for _, l := range demo.Landmarks {
			if l.Name == name {
				X, Y, _ := world.Position{ObjCellID: l.ObjCellID, X: l.X, Y: l.Y}.Global()
				out = append(out, lfSpot{name, l.ObjCellID, X + 5, Y + 7})
			}
		}
	}
	return out
}()

// lfServers starts the dat server (records and the module, CORS *) and, on a
// second port, hence another origin, a plain file server for the map pages:
// www plus extra files.
func lfServers(t *testing.T, extra map[string]string) (datURL, pageURL string) {
	t.Helper()
	need(t)
	www, w := site(t) // www with a fresh ambient.wasm, and the demo world
	return lfServersWith(t, www, server.New(server.Options{
		Portal: datfetch.NewMemory(w.Portal), Cell: datfetch.NewMemory(w.Cell),
		Name: "demo world", WWW: www, CORS: "*",
	}), extra)
}

// lfServersWith is lfServers with the sound server's handler given; the
// page server serves www.
func lfServersWith(t *testing.T, www string, soundServer http.Handler, extra map[string]string) (datURL, pageURL string) {
	t.Helper()
	dat := httptest.NewServer(soundServer)
	t.Cleanup(dat.Close)
	pages := t.TempDir()
	for name, body := range extra {
		if err := os.WriteFile(filepath.Join(pages, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/extra/", http.StripPrefix("/extra/", http.FileServer(http.Dir(pages))))
	mux.Handle("/", http.FileServer(http.Dir(www)))
	page := httptest.NewServer(mux)
	t.Cleanup(page.Close)
	return dat.URL, page.URL
}

// lfOpen launches Chromium with the CDN answered from npm's Leaflet and the
// audio probe installed before any page script.
func lfOpen(t *testing.T, initScripts ...string) *lfBrowser {
	b := lfLaunch(t, false)
	b.do("route", "prefix", "https://unpkg.com/leaflet@1.9.4/", "dir", filepath.Join(lfModules(t), "leaflet"))
	b.do("initScript", "source", lfProbe)
	for _, s := range initScripts {
		b.do("initScript", "source", s)
	}
	return b
}

// TestLeafletExample: embed-example.html on one origin, the dat server on
// another; hovering the river and the desert puts the listener in the cell
// the map position implies, with gather's instances, and sound reaches the
// destination; after unbind the cursor no longer moves the listener.
func TestLeafletExample(t *testing.T) {
	datURL, pageURL := lfServers(t, nil)
	b := lfOpen(t)
	b.do("goto", "url", pageURL+"/embed-example.html?server="+datURL)
	b.waitFor(`window.ambient && window.map && window.unbind`, 60*time.Second)
	lfRecordSends(b, "window.ambient")
	lfClickElement(b, "#start")
	b.waitFor(`document.getElementById("start").textContent.includes("playing")`, 10*time.Second)
	for _, s := range lfSpots {
		lfHoverAndCheck(t, b, "window.ambient", s)
	}
	lfCheckUnbind(t, b, "window.ambient", "window.unbind()")
	lfNoErrors(t, b)
}

// TestLeafletExampleStaticExport: the same with the sound from `export`'s
// tree on a plain static file host that sends the one header the README
// asks of it, Access-Control-Allow-Origin.
func TestLeafletExampleStaticExport(t *testing.T) {
	need(t)
	www, w := site(t)
	out := t.TempDir()
	if _, err := server.Export(context.Background(), server.ExportOptions{
		Portal: datfetch.NewMemory(w.Portal), Cell: datfetch.NewMemory(w.Cell), Name: "demo world", WWW: www, Out: out,
	}); err != nil {
		t.Fatal(err)
	}
	mime.AddExtensionType(".wasm", "application/wasm")
	files := http.FileServer(http.Dir(out))
	datURL, pageURL := lfServersWith(t, www, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		files.ServeHTTP(w, r)
	}), nil)
	b := lfOpen(t)
	b.do("goto", "url", pageURL+"/embed-example.html?server="+datURL)
	b.waitFor(`window.ambient && window.map && window.unbind`, 60*time.Second)
	lfRecordSends(b, "window.ambient")
	lfClickElement(b, "#start")
	b.waitFor(`document.getElementById("start").textContent.includes("playing")`, 10*time.Second)
	lfHoverAndCheck(t, b, "window.ambient", lfSpots[0])
	lfNoErrors(t, b)
}

// lfPlainPage is a Leaflet map of Dereth that knows nothing of ambience.
const lfPlainPage = `<!doctype html>
<meta charset="utf-8"><title>a map of Dereth</title>
<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css">
<script src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"></script>
<style>html, body, #map { height: 100%; margin: 0 }</style>
<div id="map"></div>
<script>
  var themap = L.map("map", { crs: L.CRS.Simple, minZoom: -7, maxZoom: 3 }).setView([34656, 32544], -1);
  L.rectangle([[0, 0], [48960, 48960]], { fill: false }).addTo(themap);
</script>
`

// TestLeafletUserscript: the same on a plain Leaflet page with the userscript
// injected at document-start, as a userscript manager does.
func TestLeafletUserscript(t *testing.T) {
	datURL, pageURL := lfServers(t, map[string]string{"plain.html": lfPlainPage})
	us, err := os.ReadFile(filepath.Join(lfWWW, "ambient.user.js"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("window.acAmbientConfig = { server: %q };", datURL)
	b := lfOpen(t, cfg, string(us))
	b.do("goto", "url", pageURL+"/extra/plain.html")
	b.waitFor(`window.acAmbient && window.acAmbient.amb`, 60*time.Second)
	// The hook bound the page's own map, and window.L is Leaflet again.
	var same bool
	b.eval(&same, `window.acAmbient.map === window.themap && L.version === "1.9.4" && Object.getOwnPropertyDescriptor(window, "L").writable === true`)
	if !same {
		t.Fatal("the userscript did not bind the page's map, or left window.L an accessor")
	}
	lfRecordSends(b, "window.acAmbient.amb")
	lfClickElement(b, ".ac-ambient-button")
	b.waitFor(`document.querySelector(".ac-ambient-button").textContent.includes("on")`, 10*time.Second)
	for _, s := range lfSpots {
		lfHoverAndCheck(t, b, "window.acAmbient.amb", s)
	}
	lfCheckUnbind(t, b, "window.acAmbient.amb", "window.acAmbient.unbind()")
	lfNoErrors(t, b)
}

// lfRecordSends wraps amb.setPlayer to keep what the binding sends.
func lfRecordSends(b *lfBrowser, amb string) {
	b.eval(nil, `(() => { const a = `+amb+`, f = a.setPlayer;
		window.sent = []; a.setPlayer = function (p) { window.sent.push(p); return f.apply(this, arguments); }; })()`)
}

// lfClickElement clicks the middle of a page element with a trusted click
// (a user gesture, which audio needs).
func lfClickElement(b *lfBrowser, sel string) {
	var r struct{ X, Y float64 }
	b.eval(&r, `(() => { const r = document.querySelector(`+lfJS(sel)+`).getBoundingClientRect();
		return { X: r.x + r.width / 2, Y: r.y + r.height / 2 }; })()`)
	b.do("click", "x", r.X, "y", r.Y)
}

// lfPageState is the part of amb.state() compared here.
type lfPageState struct {
	Player struct {
		ObjcellID any     `json:"objcellId"`
		X         float64 `json:"x"`
		Y         float64 `json:"y"`
		Z         float64 `json:"z"`
	} `json:"player"`
	Outdoorish        bool             `json:"outdoorish"`
	TotalSoundCount   float64          `json:"totalSoundCount"`
	ContributingCells int              `json:"contributingCells"`
	Sounds            []map[string]any `json:"sounds"`
}

// lfSummary is what gather prints, in a form both sides fill.
type lfSummary struct {
	Outdoorish        bool             `json:"outdoorish"`
	TotalSoundCount   float64          `json:"totalSoundCount"`
	ContributingCells int              `json:"contributingCells"`
	Sounds            []map[string]any `json:"sounds"`
}

func (s lfPageState) Summary() lfSummary {
	return lfSummary{s.Outdoorish, s.TotalSoundCount, s.ContributingCells, s.Sounds}
}

// lfAudible keeps the instances with a sound count.
func lfAudible(s lfSummary) lfSummary {
	var keep []map[string]any
	for _, snd := range s.Sounds {
		if c, _ := snd["soundCount"].(float64); c != 0 {
			keep = append(keep, snd)
		}
	}
	s.Sounds = keep
	return s
}

// lfJSON turns gather's sounds into the page's generic form.
func lfJSON(v any) []map[string]any {
	b, _ := json.Marshal(v)
	var out []map[string]any
	json.Unmarshal(b, &out)
	return out
}

// lfHoverAndCheck centres the map near spot, moves the mouse onto it and
// checks the listener and its instances against gather there, and that
// sound reaches the destination.
func lfHoverAndCheck(t *testing.T, b *lfBrowser, amb string, s lfSpot) {
	t.Helper()
	px := lfPoint(b, s)
	n := lfSent(b)
	b.do("move", "x", px.X-30, "y", px.Y-30)
	start := time.Now()
	b.do("move", "x", px.X, "y", px.Y, "steps", 5)
	lfWaitCell(b, amb, s.cell)
	moved := time.Since(start)

	// What the binding sent last lies in the spot's cell: it sends on
	// entering a cell (retail rebuilds on a cell change), not each step.
	var sent []struct{ NS, EW float64 }
	b.eval(&sent, `window.sent`)
	if len(sent) <= n {
		t.Fatalf("%s: the binding sent nothing", s.name)
	}
	last := sent[len(sent)-1]
	X, Y := world.FromMap(last.NS, last.EW)
	p, err := world.FromGlobal(X, Y, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.ObjCellID != s.cell {
		t.Errorf("%s: sent (%.2f, %.2f) global, in 0x%08X; the mouse is at (%.2f, %.2f) in 0x%08X", s.name, X, Y, p.ObjCellID, s.X, s.Y, s.cell)
	}

	// Once its records are in, the page's instances are gather's at the
	// listener's position (the page keeps silent instances of earlier spots:
	// only those with a sound count compare).
	var st lfPageState
	var diff string
	for deadline := time.Now().Add(30 * time.Second); ; {
		b.eval(&st, amb+`.state()`)
		if lfID(st.Player.ObjcellID) != s.cell {
			t.Fatalf("%s: listener in %v, want 0x%08X", s.name, st.Player.ObjcellID, s.cell)
		}
		want := lfGather(t, fmt.Sprintf("0x%08X/%v,%v,%v", s.cell, st.Player.X, st.Player.Y, st.Player.Z))
		if len(want.Sounds) == 0 {
			t.Fatalf("%s: gather has no sounds here; pick another spot", s.name)
		}
		got, _ := json.Marshal(lfAudible(st.Summary()))
		exp, _ := json.Marshal(lfAudible(lfSummary{want.Outdoorish, float64(want.TotalSoundCount), want.ContributingCells, lfJSON(want.Sounds)}))
		if diff = lfDiff(got, exp); diff == "" {
			t.Logf("%s: listener in the cell %v after the mouse arrived, instances equal gather's after %v", s.name, moved.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page's instances stay unlike gather's: %s\npage   %s\ngather %s", s.name, diff, got, exp)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// z is the terrain's: what Resolve gives the map coordinates sent.
	sp, err := lfHost(t).Resolve(fmt.Sprintf("%.9f%s,%.9f%s", math.Abs(last.NS), lfHemi(last.NS, "N", "S"), math.Abs(last.EW), lfHemi(last.EW, "E", "W")))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(st.Player.Z-float64(sp.Pos.Z)) > 1e-3 || math.Abs(st.Player.Z) < 1 {
		t.Errorf("%s: listener z %v, terrain z %v", s.name, st.Player.Z, sp.Pos.Z)
	}
	// Sound at the destination: the probe's RMS over the last 0.7 s.
	b.waitFor(`window.probe && window.probe.rms() > 1e-4`, 15*time.Second)
}

// lfCheckUnbind: after unbind, the mouse over other cells sends nothing and
// the listener stays.
func lfCheckUnbind(t *testing.T, b *lfBrowser, amb, unbind string) {
	t.Helper()
	var before string
	b.eval(&before, `JSON.stringify(`+amb+`.state().player)`)
	n := lfSent(b)
	b.eval(nil, unbind)
	for i := 0; i < 5; i++ {
		b.do("move", "x", 100+150*i, "y", 200+60*i, "steps", 3)
	}
	b.eval(nil, `new Promise((r) => setTimeout(r, 500))`)
	var after string
	b.eval(&after, `JSON.stringify(`+amb+`.state().player)`)
	if m := lfSent(b); m != n || after != before {
		t.Errorf("after unbind: %d sends (was %d), listener %s (was %s)", m, n, after, before)
	}
}

func lfSent(b *lfBrowser) int {
	var n int
	b.eval(&n, `window.sent.length`)
	return n
}

// lfNoErrors fails on page errors, console errors and failed requests. A
// 404 for a landblock is not one: the ring reaches past the demo world's
// land, and the engine skips missing landblocks as retail does.
func lfNoErrors(t *testing.T, b *lfBrowser) {
	t.Helper()
	var bad, missing []string
	for _, l := range b.logs() {
		switch {
		case strings.HasPrefix(l, "http 404 ") && strings.Contains(l, "/cell/files/") && strings.HasSuffix(strings.ToUpper(l), "FFFF"):
			missing = append(missing, l)
		case strings.HasPrefix(l, "error: Failed to load resource: the server responded with a status of 404"):
			missing = append(missing, l)
		case strings.HasPrefix(l, "error"), strings.HasPrefix(l, "pageerror"), strings.HasPrefix(l, "requestfailed"), strings.HasPrefix(l, "http "),
			strings.HasPrefix(l, "warning: bindLeaflet"): // a setPlayer that failed
			bad = append(bad, l)
		}
	}
	// Every console 404 line must be one of the landblock 404s.
	var landblocks, consoles int
	for _, l := range missing {
		if strings.HasPrefix(l, "http ") {
			landblocks++
		} else {
			consoles++
		}
	}
	if landblocks > 0 {
		t.Logf("%d landblocks outside the demo world's land answered 404", landblocks)
	}
	if consoles > landblocks {
		bad = append(bad, fmt.Sprintf("%d console 404s for %d landblock 404s", consoles, landblocks))
	}
	for _, l := range bad {
		t.Errorf("page: %s", l)
	}
}

// lfProbe taps whatever is connected to the audio destination into an
// AnalyserNode (installed before any page script, as the browser-testing
// guide's probe); probe.rms() is the RMS of its last 32768 samples.
const lfProbe = `(() => {
  const probe = window.probe = { analysers: [] };
  const connect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    const r = connect.call(this, dest, ...rest);
    if (dest instanceof AudioDestinationNode) {
      const ctx = this.context;
      if (!ctx.__probe) { ctx.__probe = new AnalyserNode(ctx, { fftSize: 32768 }); probe.analysers.push(ctx.__probe); }
      connect.call(this, ctx.__probe);
    }
    return r;
  };
  probe.rms = () => {
    let best = 0;
    for (const an of probe.analysers) {
      const td = new Float32Array(an.fftSize);
      an.getFloatTimeDomainData(td);
      let ss = 0; for (const v of td) ss += v * v;
      best = Math.max(best, Math.sqrt(ss / td.length));
    }
    return best;
  };
})();`

// lfHost is a synchronous host over the demo world, as `gather` opens.
func lfHost(t *testing.T) *session.Host {
	t.Helper()
	_, w := site(t)
	h, err := session.New(context.Background(), datfetch.NewMemory(w.Portal), datfetch.NewMemory(w.Cell),
		session.Options{Config: ambient.DefaultConfig(), Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// lfGather is `gather -player pos` on the demo world (gather.go's path).
func lfGather(t *testing.T, pos string) ambient.State {
	t.Helper()
	h := lfHost(t)
	sp, err := h.Resolve(pos)
	if err != nil {
		t.Fatal(err)
	}
	h.Move(sp.Pos)
	h.Tick(0)
	return h.Snapshot().State
}

// lfDiff compares two JSON documents, numbers to 1e-6 relative (the page's
// float32s arrive as float64s), and names the first difference.
func lfDiff(a, b []byte) string {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return err.Error()
	}
	return lfDiffAt("$", x, y)
}

func lfDiffAt(at string, x, y any) string {
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		if !ok || math.Abs(xv-yv) > 1e-6*math.Max(1, math.Abs(yv)) {
			return fmt.Sprintf("%s: %v vs %v", at, x, y)
		}
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s: %d items vs %v", at, len(xv), y)
		}
		for i := range xv {
			if d := lfDiffAt(fmt.Sprintf("%s[%d]", at, i), xv[i], yv[i]); d != "" {
				return d
			}
		}
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object vs %v", at, y)
		}
		for k := range yv {
			if d := lfDiffAt(at+"."+k, xv[k], yv[k]); d != "" {
				return d
			}
		}
	default:
		if fmt.Sprint(x) != fmt.Sprint(y) {
			return fmt.Sprintf("%s: %v vs %v", at, x, y)
		}
	}
	return ""
}

// lfID reads an id the page reports as a number or a "0x…" string.
func lfID(v any) uint32 {
	switch id := v.(type) {
	case float64:
		return uint32(id)
	case string:
		var n uint32
		fmt.Sscanf(strings.ToLower(id), "0x%x", &n)
		return n
	}
	return 0
}

func lfHemi(v float64, pos, neg string) string {
	if v < 0 {
		return neg
	}
	return pos
}

func lfJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func lfCopy(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLeafletModes: the example with follow=click and the overlay (a click
// puts the marker and the listener there; the overlay draws the engine's
// 3×3 ring, its contributing cells and the listener's cell), a fast sweep
// of the cursor in cursor mode (sends throttled), and follow=center.
func TestLeafletModes(t *testing.T) {
	datURL, pageURL := lfServers(t, nil)
	b := lfOpen(t)
	b.do("goto", "url", pageURL+"/embed-example.html?follow=click&overlay&server="+datURL)
	b.waitFor(`window.ambient && window.map`, 60*time.Second)
	s := lfSpots[0]
	px := lfPoint(b, s)
	b.do("click", "x", px.X, "y", px.Y)
	lfWaitCell(b, "window.ambient", s.cell)
	if n := lfCount(b, ".leaflet-marker-icon"); n != 1 {
		t.Errorf("follow=click: %d markers, want 1", n)
	}
	// The overlay follows the engine's state events: wait for it to match
	// the settled state, then count its layers.
	b.waitFor(`(() => { const s = ambient.state();
		return s.loading.pending === 0 && s.contributingCells > 0
			&& document.querySelectorAll("path.ac-cell").length === s.cells.length; })()`, 30*time.Second)
	var cells int
	b.eval(&cells, `ambient.state().contributingCells`)
	if r, c, p := lfCount(b, "path.ac-ring"), lfCount(b, "path.ac-cell"), lfCount(b, "path.ac-player"); r != 9 || c != cells || p != 1 {
		t.Errorf("overlay: %d ring blocks, %d cells, %d player cell; want 9, %d, 1", r, c, p, cells)
	}
	b.eval(nil, `unbind()`)
	if n := lfCount(b, ".leaflet-marker-icon, path.ac-ring, path.ac-cell, path.ac-player"); n != 0 {
		t.Errorf("after unbind %d marker and overlay layers remain", n)
	}
	lfNoErrors(t, b)

	// Cursor mode, a fast sweep: 240 mousemoves over 40 cells 4 ms apart (a
	// flick of the mouse; dispatched in the page, as CDP input is too slow to
	// flick): sends are throttleMs (100) apart, fewer than the cells crossed.
	b.do("goto", "url", pageURL+"/embed-example.html?server="+datURL)
	b.waitFor(`window.ambient && window.map`, 60*time.Second)
	b.eval(nil, `(() => { const a = ambient, f = a.setPlayer; window.sent = [];
		a.setPlayer = function (p) { window.sent.push(performance.now()); return f.apply(this, arguments); }; })()`)
	b.eval(nil, `map.setView([34656, 32544], 0, { animate: false })`) // 1 px a metre: 960 px is 40 cells
	b.eval(nil, `(async () => { const el = map.getContainer(), r = el.getBoundingClientRect();
		for (let i = 0; i <= 240; i++) {
			el.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: r.x + 20 + 4 * i, clientY: r.y + 400 }));
			await new Promise((ok) => setTimeout(ok, 4));
		}
		await new Promise((ok) => setTimeout(ok, 300)); })()`)
	var times []float64
	b.eval(&times, `window.sent`)
	minGap := math.Inf(1)
	for i := 1; i < len(times); i++ {
		minGap = math.Min(minGap, times[i]-times[i-1])
	}
	t.Logf("sweep over 40 cells in %.0f ms: %d sends, least gap %.1f ms", times[len(times)-1]-times[0], len(times), minGap)
	if span := times[len(times)-1] - times[0]; len(times) < 2 || len(times) >= 40 || float64(len(times)) > span/100+1 || minGap < 95 {
		t.Errorf("sweep: %d sends over %.0f ms, least gap %.1f ms; want fewer than the 40 cells, at most one per 100 ms", len(times), span, minGap)
	}
	lfNoErrors(t, b)

	// follow=center: the listener is at the map's centre, moved with it.
	b.do("goto", "url", pageURL+"/embed-example.html?follow=center&server="+datURL)
	b.waitFor(`window.ambient && window.map`, 60*time.Second)
	d := lfSpots[1]
	b.eval(nil, fmt.Sprintf(`map.setView([%v, %v], 0, { animate: false })`, d.Y, d.X))
	lfWaitCell(b, "window.ambient", d.cell)
	lfNoErrors(t, b)

	// A sound server that is not there: the panel says so.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	b.do("goto", "url", pageURL+"/embed-example.html?server="+dead.URL)
	b.waitFor(`document.getElementById("where").textContent.startsWith("⚠ `+dead.URL+`")`, 30*time.Second)
	b.logs()
}

// lfPoint centres the map 40 m from spot at zoom 1 and returns the spot's
// page coordinates.
func lfPoint(b *lfBrowser, s lfSpot) (px struct{ X, Y float64 }) {
	b.eval(&px, fmt.Sprintf(`(() => { const m = window.acAmbient ? window.acAmbient.map : window.map;
		m.setView([%v, %v], 1, { animate: false });
		const p = m.latLngToContainerPoint([%v, %v]), r = m.getContainer().getBoundingClientRect();
		return { X: r.x + p.x, Y: r.y + p.y }; })()`, s.Y+40, s.X+40, s.Y, s.X))
	return px
}

// lfWaitCell waits until amb's listener is in cell.
func lfWaitCell(b *lfBrowser, amb string, cell uint32) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf(`(() => { const s = %s.state(), id = s.player && s.player.objcellId;
		return id !== undefined && (typeof id === "number" ? "0x" + (id >>> 0).toString(16).toUpperCase().padStart(8, "0") : String(id).toUpperCase().replace("0X", "0x")) === %q; })()`, amb, fmt.Sprintf("0x%08X", cell)), 30*time.Second)
}

func lfCount(b *lfBrowser, sel string) int {
	var n int
	b.eval(&n, `document.querySelectorAll(`+lfJS(sel)+`).length`)
	return n
}
