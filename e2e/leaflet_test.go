package e2e

// Tests of the map binding (issue 11, docs/interfaces.md §4): leaflet-ambient.js's
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
	"acambient/datfetch/source"
	"acambient/internal/export"
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
	www, w := site(t) // www with a fresh ambient.wasm, and the demo world
	return lfServersWith(t, www, server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell),
		Name: "demo world", WWW: www, CORS: "*",
	}), extra)
}

// lfServersWith is lfServers with the sound server's handler given; the
// page server serves www.
// wrap, when given, wraps the page server's handler (a request log).
func lfServersWith(t *testing.T, www string, soundServer http.Handler, extra map[string]string, wrap ...func(http.Handler) http.Handler) (datURL, pageURL string) {
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
	var h http.Handler = mux
	for _, f := range wrap {
		h = f(h)
	}
	page := httptest.NewServer(h)
	t.Cleanup(page.Close)
	return dat.URL, page.URL
}

// lfOpen launches the browser with the CDN answered from npm's Leaflet and
// the audio probe installed before any page script.
func lfOpen(t *testing.T, spec browserSpec, initScripts ...string) *lfBrowser {
	b := lfLaunch(t, spec)
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
func TestLeafletExample(t *testing.T) { forEngines(t, leafletEngines, leafletExample) }

func leafletExample(t *testing.T, spec browserSpec) {
	datURL, pageURL := lfServers(t, nil)
	b := lfOpen(t, spec)
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
	forEngines(t, leafletEngines, leafletExampleStaticExport)
}

func leafletExampleStaticExport(t *testing.T, spec browserSpec) {
	www, w := site(t)
	out := t.TempDir()
	if _, err := export.Write(context.Background(), export.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, Out: out,
		Hints: true, // as `export` writes them by default
	}); err != nil {
		t.Fatal(err)
	}
	mime.AddExtensionType(".wasm", "application/wasm")
	files := http.FileServer(http.Dir(out))
	datURL, pageURL := lfServersWith(t, www, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		files.ServeHTTP(w, r)
	}), nil)
	b := lfOpen(t, spec)
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
func TestLeafletUserscript(t *testing.T) { forEngines(t, leafletEngines, leafletUserscript) }

func leafletUserscript(t *testing.T, spec browserSpec) {
	datURL, pageURL := lfServers(t, map[string]string{"plain.html": lfPlainPage})
	us, err := os.ReadFile(filepath.Join(lfWWW, "ambient.user.js"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("window.acAmbientConfig = { server: %q };", datURL)
	b := lfOpen(t, spec, cfg, string(us))
	b.do("goto", "url", pageURL+"/extra/plain.html")
	b.waitFor(`window.acAmbient && window.acAmbient.amb`, 60*time.Second)
	// The hook bound the page's own map, and window.L is Leaflet again.
	var same bool
	b.eval(&same, `window.acAmbient.map === window.themap && L.version === "1.9.4" && Object.getOwnPropertyDescriptor(window, "L").writable === true`)
	if !same {
		t.Fatal("the userscript did not bind the page's map, or left window.L an accessor")
	}
	lfRecordSends(b, "window.acAmbient.amb")
	lfClickElement(b, lfStartButton)
	b.waitFor(lfQ(lfStartButton)+`.textContent.includes("on")`, 10*time.Second)
	for _, s := range lfSpots {
		lfHoverAndCheck(t, b, "window.acAmbient.amb", s)
	}
	lfCheckUnbind(t, b, "window.acAmbient.amb", "window.acAmbient.unbind()")
	lfNoErrors(t, b)
}

// lfRecordSends wraps amb.setPlayer to keep what the binding sends, and
// starts keeping amb's rebuilds (lfWatchRebuilds).
func lfRecordSends(b *lfBrowser, amb string) {
	b.eval(nil, `(() => { const a = `+amb+`, f = a.setPlayer;
		window.sent = []; a.setPlayer = function (p) { window.sent.push(p); return f.apply(this, arguments); }; })()`)
	lfWatchRebuilds(b, amb)
}

// lfWatchRebuilds keeps amb's rebuild events on amb itself (__rebuilds), so
// that an instance replaced by another has its own.
func lfWatchRebuilds(b *lfBrowser, amb string) {
	b.eval(nil, `(() => { const a = `+amb+`;
		if (!a.__rebuilds) { a.__rebuilds = []; a.on("rebuild", (ev) => a.__rebuilds.push(ev)); } })()`)
}

// lfSoundsHere waits until the sound at amb's destination is the spot at
// cell's alone, then until it is audible (rms, an expression, above 1e-4).
// Voices from the last spot play on to their end (as in retail), so first
// every voice sounding must have started at the cell's last rebuild or
// after (lfWatchRebuilds), as drive.mjs's soundsHere; then the audio clock
// must run past what the output held before and one analyser window
// (lfProbe's 32768 frames, and as many for oto's and the ScriptProcessor's
// buffers).
func lfSoundsHere(t *testing.T, b *lfBrowser, amb string, cell uint32, rms string) {
	t.Helper()
	b.waitFor(fmt.Sprintf(`(() => { const a = %s, rb = a.__rebuilds.filter((r) => r.objcellId === %q).pop();
		const v = a.state().voices;
		return rb && v.length > 0 && v.every((x) => x.t >= rb.t); })()`, amb, fmt.Sprintf("0x%08X", cell)), 40*time.Second)
	var t0 float64
	b.eval(&t0, amb+`.audioContext.currentTime`)
	b.waitFor(fmt.Sprintf(`%s.audioContext.currentTime >= %v`, amb, t0+2*32768.0/48000), 30*time.Second)
	b.waitFor(rms+` > 1e-4`, 15*time.Second)
}

// lfClickElement clicks the middle of a page element (lfQ's selector) with
// a trusted click (a user gesture, which audio needs).
func lfClickElement(b *lfBrowser, sel string) {
	var r struct{ X, Y float64 }
	b.eval(&r, `(() => { const r = `+lfQ(sel)+`.getBoundingClientRect();
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
	// Let the approach's move land before the last one. Two setPlayer calls
	// whose landblock is still loading can be applied in either order (the
	// listener then stays in the earlier cell: seen in Firefox, a fault of
	// the module's, not the binding's, reported apart); the binding is
	// tested here.
	b.waitFor(fmt.Sprintf(`(() => { const a = %s, s = a.state(), p = window.sent[window.sent.length - 1];
		if (window.sent.length <= %d) return true;
		if (s.loading.pending !== 0) return false;
		const gx = Math.floor((p.ew * 10 + 1019.5)), gy = Math.floor((p.ns * 10 + 1019.5));
		const id = ((gx >> 3) << 24 | (gy >> 3) << 16 | (8 * (gx & 7) + (gy & 7) + 1)) >>> 0;
		return parseInt(s.player.objcellId, 16) === id; })()`, amb, n), 30*time.Second)
	start := time.Now()
	b.do("move", "x", px.X, "y", px.Y, "steps", 5)
	// The binding sends the spot's cell within its throttle (100 ms) of the
	// mouse arriving; until then the listener may still stand in the spot's
	// cell from before the approach (the clean-clone CI saw Firefox's
	// listener there while the last send was the step before the spot's).
	b.waitFor(fmt.Sprintf(`(() => { const p = window.sent[window.sent.length - 1];
		if (window.sent.length <= %d || !p) return false;
		const gx = Math.floor((p.ew * 10 + 1019.5)), gy = Math.floor((p.ns * 10 + 1019.5));
		return ((gx >> 3) << 24 | (gy >> 3) << 16 | (8 * (gx & 7) + (gy & 7) + 1)) >>> 0 === %d; })()`, n, s.cell), 10*time.Second)
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
	// Sound at the destination from this spot's voices: the probe's RMS
	// over the last 0.7 s.
	lfSoundsHere(t, b, amb, s.cell, `window.probe.rms()`)
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
	// A send the moves left pending sits on a binding timer set with at most
	// the throttle's window to run. Timers fire in deadline order (HTML
	// §8.6, ties in the order set), so one of the full window set now fires
	// after any of them: once it has, every send the moves could cause has
	// come, however slowly the page runs.
	b.eval(nil, fmt.Sprintf(`new Promise((r) => setTimeout(r, %d))`, lfDefaultThrottleMs))
	var after string
	b.eval(&after, `JSON.stringify(`+amb+`.state().player)`)
	if m := lfSent(b); m != n || after != before {
		t.Errorf("after unbind: %d sends (was %d), listener %s (was %s)", m, n, after, before)
	}
}

// lfDefaultThrottleMs is bindLeaflet's throttleMs when not given
// (docs/interfaces.md §4), as the example page and the userscript bind.
const lfDefaultThrottleMs = 100

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
	lfNoErrorsIn(t, b.logs())
}

// lfNoErrorsIn is lfNoErrors over lines already taken from the page.
func lfNoErrorsIn(t *testing.T, lines []string) {
	t.Helper()
	var bad, missing []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "http 404 ") && strings.HasSuffix(l, "/favicon.ico"):
			// Firefox asks for the icon of a page that names none; not the page's.
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
// AnalyserNode (installed before any page script, as docs/browser-testing.md
// §4's probe); probe.rms() is the RMS of its last 32768 samples.
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
	h, err := session.New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell),
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
func TestLeafletModes(t *testing.T) { forEngines(t, leafletEngines, leafletModes) }

func leafletModes(t *testing.T, spec browserSpec) {
	datURL, pageURL := lfServers(t, nil)
	b := lfOpen(t, spec)
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

	// Cursor mode, a fast sweep: 240 pointermoves over 40 cells 4 ms apart (a
	// flick of the mouse; dispatched in the page, as driver input is too
	// slow to flick) on a clock of the test's own (lfSweep), so that the
	// pace is the same on any machine: the binding coalesces the moves into
	// sends at least throttleMs (100) apart, fewer than the cells crossed,
	// the last one the cell the mouse stopped in.
	b.do("goto", "url", pageURL+"/embed-example.html?server="+datURL)
	b.waitFor(`window.ambient && window.map`, 60*time.Second)
	b.eval(nil, `map.setView([34656, 32544], 0, { animate: false })`) // 1 px a metre: 960 px is 40 cells
	var sw struct {
		Sends []struct {
			T      float64 `json:"t"`
			NS, EW float64
		} `json:"sends"`
		Cells []string `json:"cells"` // the cells the mouse entered, in order
		Span  float64  `json:"span"`  // of the sweep's clock, ms
		Real  float64  `json:"real"`  // wall time the sweep took, ms
	}
	b.eval(&sw, lfSweep)
	minGap := math.Inf(1)
	for i := 1; i < len(sw.Sends); i++ {
		minGap = math.Min(minGap, sw.Sends[i].T-sw.Sends[i-1].T)
	}
	t.Logf("sweep over %d cells in %.0f ms of its clock (%.0f ms of wall time): %d sends, least gap %.1f ms",
		len(sw.Cells), sw.Span, sw.Real, len(sw.Sends), minGap)
	if n := len(sw.Sends); n < 2 || n >= len(sw.Cells) || float64(n) > sw.Span/100+1 || minGap < 100 {
		t.Errorf("sweep: %d sends over %.0f ms, least gap %.1f ms; want 2 or more, fewer than the %d cells, at most one per 100 ms",
			n, sw.Span, minGap, len(sw.Cells))
	} else if last := sw.Sends[n-1]; lfCellOfMap(last.NS, last.EW) != sw.Cells[len(sw.Cells)-1] {
		t.Errorf("sweep: the last send is in %s; the mouse stopped in %s", lfCellOfMap(last.NS, last.EW), sw.Cells[len(sw.Cells)-1])
	}
	// The last send, passed on after the sweep, loads its ring: let it end
	// before the next page (leaving would abort its fetches).
	lfSettled(b, "ambient", sw.Cells[len(sw.Cells)-1])
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

// lfSweep moves the mouse across the map in the page, 240 moves 4 px
// apart, 4 ms apart on a clock of its own: while it runs, performance.now
// and the timers (all the binding's clock) are the sweep's, which advances
// 4 ms a move and runs the timers that fall due, in order; then 500 ms more
// for the binding's last, throttled send. The loop never yields, so no
// other script sees the sweep's clock. The binding's sends are kept, not
// passed on (setPlayer's wasm must not see the clock jump back); the last
// is passed on after the sweep.
const lfSweep = `(() => {
  const el = map.getContainer(), r = el.getBoundingClientRect(), a = ambient, setPlayer = a.setPlayer;
  const real = { now: performance.now, setTimeout: window.setTimeout, clearTimeout: window.clearTimeout };
  const t0 = performance.now(), wall0 = Date.now();
  let now = t0, nextID = 1;
  const timers = new Map();
  const sends = [], cells = [];
  const runUntil = (to) => {
    for (;;) {
      let due = null;
      for (const [id, tm] of timers) if (tm.at <= to && (!due || tm.at < due.tm.at)) due = { id, tm };
      if (!due) break;
      timers.delete(due.id);
      now = due.tm.at;
      due.tm.f(...due.tm.args);
    }
    now = to;
  };
  performance.now = () => now;
  window.setTimeout = (f, ms, ...args) => { const id = nextID++; timers.set(id, { at: now + Math.max(0, Number(ms) || 0), f, args }); return id; };
  window.clearTimeout = (id) => { timers.delete(id); };
  a.setPlayer = (p) => { sends.push({ t: now - t0, NS: p.ns, EW: p.ew }); return Promise.resolve(); };
  try {
    for (let i = 0; i <= 240; i++) {
      if (i) runUntil(now + 4);
      const ev = new PointerEvent("pointermove", { bubbles: true, pointerType: "mouse", clientX: r.x + 20 + 4 * i, clientY: r.y + 400 });
      el.dispatchEvent(ev);
      const ll = map.mouseEventToLatLng(ev), gx = Math.floor(ll.lng / 24), gy = Math.floor(ll.lat / 24);
      // The land cell's id (docs/interfaces.md §1.1): bx<<24 | by<<16 | (8·cx + cy + 1).
      const id = "0x" + (((gx >> 3) << 24 | (gy >> 3) << 16 | (8 * (gx & 7) + (gy & 7) + 1)) >>> 0).toString(16).toUpperCase().padStart(8, "0");
      if (cells[cells.length - 1] !== id) cells.push(id);
    }
    runUntil(now + 500);
  } finally {
    delete performance.now;
    if (performance.now !== real.now) performance.now = real.now;
    window.setTimeout = real.setTimeout;
    window.clearTimeout = real.clearTimeout;
    a.setPlayer = setPlayer;
    // What other scripts scheduled meanwhile runs now, on the real clock.
    for (const tm of timers.values()) real.setTimeout.call(window, tm.f, 0, ...tm.args);
  }
  if (sends.length) setPlayer.call(a, { ns: sends[sends.length - 1].NS, ew: sends[sends.length - 1].EW });
  return { sends, cells, span: now - t0, real: Date.now() - wall0 };
})()`

// lfSettled waits until amb's listener is in cell (a "0x…" id) with
// nothing loading, and then until the engine's clock (state().time) has
// run 0.1 s more with nothing loading: a move's fetches begin at the tick
// after it, so "nothing pending" alone can be read before they do (as
// drive.mjs's settled).
func lfSettled(b *lfBrowser, amb, cell string) {
	b.t.Helper()
	var t0 float64
	for deadline := time.Now().Add(30 * time.Second); ; {
		b.waitFor(fmt.Sprintf(`(() => { const s = %s.state(); return s.loading.pending === 0 && s.player.objcellId === %s; })()`, amb, lfJS(cell)), time.Until(deadline))
		b.eval(&t0, amb+`.state().time`)
		var r string
		b.waitFor(fmt.Sprintf(`(() => { const s = %s.state(); return s.loading.pending !== 0 || s.time >= %v; })()`, amb, t0+0.1), time.Until(deadline))
		b.eval(&r, fmt.Sprintf(`%s.state().loading.pending === 0 ? "ok" : "busy"`, amb))
		if r == "ok" {
			return
		}
	}
}

// lfCellOfMap is the land cell of map coordinates, as "0x…".
func lfCellOfMap(ns, ew float64) string {
	X, Y := world.FromMap(ns, ew)
	p, err := world.FromGlobal(X, Y, 0)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("0x%08X", p.ObjCellID)
}

// lfPoint centres the map 40 m from spot at 2 pixels a metre (zoom 1 in
// L.CRS.Simple; the zoom that gives it in a CRS copy with its own scale)
// and returns the spot's page coordinates.
func lfPoint(b *lfBrowser, s lfSpot) (px struct{ X, Y float64 }) {
	b.eval(&px, fmt.Sprintf(`(() => { const m = window.acAmbient ? window.acAmbient.map : window.map;
		const perMetre = Math.abs(m.project([0, 1], 0).x - m.project([0, 0], 0).x);
		m.setView([%v, %v], Math.log2(2 / perMetre), { animate: false });
		const p = m.latLngToContainerPoint([%v, %v]), r = m.getContainer().getBoundingClientRect();
		return { X: r.x + p.x, Y: r.y + p.y }; })()`, s.Y+40, s.X+40, s.Y, s.X))
	return px
}

// lfWaitCell waits until amb's listener is in cell.
func lfWaitCell(b *lfBrowser, amb string, cell uint32) {
	b.t.Helper()
	err := b.call(nil, lfCmd("waitFor", []any{"expr", fmt.Sprintf(`(() => { const s = %s.state(), id = s.player && s.player.objcellId;
		return id !== undefined && (typeof id === "number" ? "0x" + (id >>> 0).toString(16).toUpperCase().padStart(8, "0") : String(id).toUpperCase().replace("0X", "0x")) === %q; })()`, amb, fmt.Sprintf("0x%08X", cell)),
		"timeoutMs", 30000}))
	if err != nil {
		var at string
		b.call(&at, lfCmd("eval", []any{"expr", `JSON.stringify({ sent: (window.sent || []).slice(-3), player: ` + amb + `.state().player, loading: ` + amb + `.state().loading })`}))
		b.t.Fatalf("the listener did not reach 0x%08X: %v\nsent last, player, loading: %s\npage log:\n%s", cell, err, at, strings.Join(b.logs(), "\n"))
	}
}

// lfStartButton is the start control's button (lfQ's selector): the
// project's controls keep their content in a shadow root.
const lfStartButton = ".ac-ambient-button >> button"

// lfQ is a page expression for the element sel selects: a CSS selector,
// or "HOST >> INNER", INNER in the open shadow root of the element HOST
// selects.
func lfQ(sel string) string {
	host, inner, ok := strings.Cut(sel, " >> ")
	if !ok {
		return `document.querySelector(` + lfJS(sel) + `)`
	}
	return `document.querySelector(` + lfJS(host) + `).shadowRoot.querySelector(` + lfJS(inner) + `)`
}

func lfCount(b *lfBrowser, sel string) int {
	var n int
	b.eval(&n, `document.querySelectorAll(`+lfJS(sel)+`).length`)
	return n
}
