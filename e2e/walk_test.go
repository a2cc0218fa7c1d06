package e2e

// Walks (issue 31, docs/interfaces.md §3.2): amb.render's WAV against the
// native render's, and a link with a route replaying the walk.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWalkUnit runs e2e/walk_unit.test.mjs (walk.js: route forms, the
// render path, walks on a stand-in engine; bindLeaflet's walk) under node.
func TestWalkUnit(t *testing.T) {
	nodeTest(t, "walk_unit.test.mjs")
}

// TestAnywhereTypes typechecks a page's use of the element, walks and
// renders (testdata/anywhere.ts) against www's typings, strict.
func TestAnywhereTypes(t *testing.T) {
	node, mods := lfNode(t), lfModules(t)
	abs, err := filepath.Abs("testdata/anywhere.ts")
	if err != nil {
		t.Fatal(err)
	}
	tscCheck(t, node, mods, map[string]any{"strict": true, "lib": []string{"es2022", "dom"}}, []string{abs})
}

// walkEngines: amb.render and walk links need no audio output, so they run
// where the page runs with an init-free driver too.
var walkEngines = []string{"chromium", "firefox"}

// renderCamera is a camera step of the rendered path: an object with a
// heading in the page, "POS/H" in the -path file (docs/interfaces.md §1.1).
const (
	renderCameraJS  = `{ t: 5, camera: { objcellId: 0xA9B5002D, x: 120, y: 96, z: 22.8522, heading: 90 } }`
	renderCameraPOS = "0xA9B5002D/120,96,22.8522/90"
)

// TestWalkRenderIsNative: a walk across the demo world (river → meadow →
// forest's edge at 12 m/s, a camera turned east at 5 s) rendered in the page
// by amb.render has the sha256 of `go run . render -path FILE -seconds N
// -seed S -o -` over the same path; the render leaves the listener where it
// stood and reports its progress to the end.
func TestWalkRenderIsNative(t *testing.T) {
	forEngines(t, walkEngines, func(t *testing.T, spec browserSpec) {
		url := pageServer(t, nil)
		river, _ := landmark(t, "river")
		meadow, _ := landmark(t, "meadow")
		forest, _ := landmark(t, "forest")
		b := lfLaunch(t, spec)
		b.do("goto", "url", url+"/#"+river)
		b.waitFor(`window.ambient && window.ambient.state().loading.pending === 0 && window.ambient.state().where.objcellId === "0xA9B5002D"`, 60*time.Second)
		const seconds, seed = 40.0, 7
		var got struct {
			SHA  string `json:"sha"`
			Size int    `json:"size"`
			Path []struct {
				T      float64 `json:"t"`
				Player string  `json:"player"`
			} `json:"path"`
			Progress []float64 `json:"progress"`
			Before   string    `json:"before"`
			After    string    `json:"after"`
			Ms       float64   `json:"ms"`
			Memory   float64   `json:"memory"`
		}
		b.eval(&got, `(async () => {
			const { walkPath } = await import("./walk.js");
			const amb = window.ambient;
			const path = walkPath([`+lfJS(river)+`, `+lfJS(meadow)+`, `+lfJS(forest)+`], { speed: 12 });
			const progress = [];
			const before = JSON.stringify(amb.state().player);
			const t0 = performance.now();
			const blob = await amb.render({ path: [...path, `+renderCameraJS+`], seconds: `+fmt.Sprint(seconds)+`, seed: `+fmt.Sprint(seed)+`,
				onProgress: (p) => progress.push(p.done / p.total) });
			const ms = performance.now() - t0;
			const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", await blob.arrayBuffer()));
			return { sha: [...sum].map((x) => x.toString(16).padStart(2, "0")).join(""), size: blob.size, path, progress,
				before, after: JSON.stringify(amb.state().player), ms, memory: amb.stats().wasmMemory };
		})()`)
		if len(got.Path) < 100 || got.Path[0].T != 0 {
			t.Fatalf("walkPath: %d steps, first at %v", len(got.Path), got.Path)
		}
		var lines strings.Builder
		for _, st := range got.Path {
			l, _ := json.Marshal(st)
			lines.Write(append(l, '\n'))
		}
		fmt.Fprintf(&lines, "{\"t\": 5, \"camera\": %q}\n", renderCameraPOS)
		file := filepath.Join(t.TempDir(), "walk.jsonl")
		if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		native := nativeRender(t, "-path", file, "-seconds", fmt.Sprint(seconds), "-seed", fmt.Sprint(seed))
		want := fmt.Sprintf("%x", sha256.Sum256(native))
		if got.SHA != want || got.Size != len(native) {
			t.Errorf("amb.render: %d bytes, sha256 %s; render -path: %d bytes, sha256 %s", got.Size, got.SHA, len(native), want)
		}
		if n := len(got.Progress); n < 2 || got.Progress[n-1] != 1 {
			t.Errorf("progress %v: want several reports, the last 1", got.Progress)
		}
		if got.Before != got.After {
			t.Errorf("the render moved the listener: %s → %s", got.Before, got.After)
		}
		t.Logf("%s: %v s rendered in %.0f ms (%.1f× real time), wasm memory %.1f MiB, %d steps",
			spec.Engine, seconds, got.Ms, seconds*1000/got.Ms, got.Memory/(1<<20), len(got.Path))
	})
}

// nativeRender is `go run . render ARGS -o -` over the demo world, the
// records the test servers serve.
func nativeRender(t *testing.T, args ...string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", append(append([]string{"run", ".", "render"}, args...), "-o", "-")...)
	cmd.Dir = filepath.Dir(filepath.Dir(file))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// TestWalkLink: the demo page opened by a walk's link (?walk=POS repeated,
// &speed=) stands at the route's first point, and from the click to listen
// walks the route: every position the engine reports lies on the route,
// in order along it, through the cells between, to its last point; the
// URL keeps the walk, so a copy of it replays the same.
func TestWalkLink(t *testing.T) {
	forEngines(t, walkEngines, func(t *testing.T, spec browserSpec) {
		url := pageServer(t, nil)
		river, riverCell := landmark(t, "river")
		meadow, _ := landmark(t, "meadow")
		holtburg, _ := landmark(t, "holtburg")
		route := []string{river, meadow, holtburg}
		q := neturl.Values{"walk": route, "speed": {"30"}}
		b := lfLaunch(t, spec)
		b.do("goto", "url", url+"/?"+q.Encode())
		b.waitFor(`window.ambient && (() => { const s = window.ambient.state();
			return s.where && s.where.objcellId === `+lfJS(fmt.Sprintf("0x%08X", riverCell))+` && s.loading.pending === 0; })()`, 60*time.Second)
		b.waitFor(`/link holds a walk of 3 points/.test(document.getElementById("overlayMsg").textContent)`, 30*time.Second)
		b.eval(nil, `(() => { window.__walked = []; const amb = window.ambient;
			setInterval(() => { const p = amb.state().player; const l = window.__walked[window.__walked.length - 1];
				if (!l || l.objcellId !== p.objcellId || l.x !== p.x || l.y !== p.y) window.__walked.push(p); }, 50); })()`)
		lfClickElement(b, "#overlay")
		b.waitFor(`/The walk is over/.test(document.getElementById("walkMsg").textContent)`, 90*time.Second)
		// The last move may settle after the walk's end is said, and the
		// sampler above records it at its next turn after that.
		end := routePoints(t, route)
		b.waitFor(fmt.Sprintf(`(() => { const p = window.__walked[window.__walked.length - 1]; const id = parseInt(p.objcellId, 16) >>> 0;
			return Math.hypot(192 * (id >>> 24) + p.x - %v, 192 * ((id >>> 16) & 255) + p.y - %v) < 0.01; })()`, end[2][0], end[2][1]), 10*time.Second)
		var walked []struct {
			ObjcellID string  `json:"objcellId"`
			X         float64 `json:"x"`
			Y         float64 `json:"y"`
		}
		b.eval(&walked, `window.__walked`)
		var href string
		b.eval(&href, `location.href`)
		if u, err := neturl.Parse(href); err != nil || !slices.Equal(u.Query()["walk"], route) || u.Query().Get("speed") != "30" {
			t.Errorf("the URL after the walk %s: want the route and speed kept", href)
		}
		cells := map[string]bool{}
		last := -1.0
		for i, p := range walked {
			var id uint32
			fmt.Sscanf(p.ObjcellID, "0x%X", &id)
			X, Y := 192*float64(id>>24)+p.X, 192*float64(id>>16&0xFF)+p.Y
			d, off := alongRoute(end, X, Y)
			if off > 0.01 {
				t.Errorf("position %d (%s %.2f,%.2f) is %.3f m off the route", i, p.ObjcellID, p.X, p.Y, off)
			}
			if d < last-0.01 {
				t.Errorf("position %d is %.2f m along the route, after %.2f: the walk went back", i, d, last)
			}
			last = d
			cells[p.ObjcellID] = true
		}
		total, _ := alongRoute(end, end[2][0], end[2][1])
		if len(walked) < 10 || len(cells) < 10 || last < total-0.01 {
			t.Errorf("%d positions in %d cells, the last %.1f m along the route of %.1f m: want the whole walk", len(walked), len(cells), last, total)
		}
		lfNoErrors(t, b)
	})
}

// routePoints: the global metres of landmark POS strings (0xXXYYCCCC/x,y,z).
func routePoints(t *testing.T, route []string) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, p := range route {
		var id uint32
		var x, y, z float64
		if _, err := fmt.Sscanf(p, "0x%X/%g,%g,%g", &id, &x, &y, &z); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, [2]float64{192*float64(id>>24) + x, 192*float64(id>>16&0xFF) + y})
	}
	return out
}

// alongRoute: how far along the polyline pts the point nearest (X, Y) lies,
// and how far (X, Y) is from it.
func alongRoute(pts [][2]float64, X, Y float64) (along, off float64) {
	off = math.Inf(1)
	base := 0.0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(dx, dy)
		f := math.Max(0, math.Min(1, ((X-a[0])*dx+(Y-a[1])*dy)/(l*l)))
		if d := math.Hypot(a[0]+f*dx-X, a[1]+f*dy-Y); d < off-1e-9 {
			off, along = d, base+f*l
		}
		base += l
	}
	return along, off
}

// TestWalkRenderLong: a 5-minute walk across the demo world (the
// snowfield → the forest → the coast at 12 m/s), rendered in the page
// while its audio plays, has the native render's sha256; the audio runs on
// throughout and the listener stays put. The figures (time, × real time,
// memory) are logged beside the native render's time.
func TestWalkRenderLong(t *testing.T) {
	forEngines(t, walkEngines, func(t *testing.T, spec browserSpec) {
		url := pageServer(t, nil)
		river, _ := landmark(t, "river")
		snow, _ := landmark(t, "snowfield")
		forest, _ := landmark(t, "forest")
		coast, _ := landmark(t, "coast")
		b := pageOpen(t, spec, url, river, true)
		const seconds, seed = 300.0, 11
		var got struct {
			SHA        string     `json:"sha"`
			Size       int        `json:"size"`
			Path       []pathStep `json:"path"`
			Ms         []float64  `json:"ms"`
			Before     string     `json:"before"`
			After      string     `json:"after"`
			Audio      []float64  `json:"audio"`
			Running    bool       `json:"running"`
			MaxGap     float64    `json:"maxGap"`
			WasmMemory []float64  `json:"wasmMemory"`
			JSHeap     float64    `json:"jsHeap"`
		}
		b.eval(&got, `(async () => {
			const { walkPath } = await import("./walk.js");
			const amb = window.ambient, ctx = amb.audioContext;
			const path = walkPath([`+lfJS(snow)+`, `+lfJS(forest)+`, `+lfJS(coast)+`], { speed: 12 });
			const before = JSON.stringify(amb.state().player), mem0 = amb.stats().wasmMemory, audio0 = ctx.currentTime;
			// The main thread's longest wait while a render runs (the test's own hashing not counted).
			let last = performance.now(), maxGap = 0, rendering = false;
			const id = setInterval(() => { const now = performance.now(); if (rendering) maxGap = Math.max(maxGap, now - last); last = now; }, 10);
			const ms = [];
			let sha = "", size = 0;
			for (let i = 0; i < 2; i++) { // the second: with the code warm
				const t0 = performance.now();
				rendering = true; last = t0;
				const blob = await amb.render({ path, seconds: `+fmt.Sprint(seconds)+`, seed: `+fmt.Sprint(seed)+` });
				rendering = false;
				ms.push(performance.now() - t0);
				const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", await blob.arrayBuffer()));
				const s = [...sum].map((x) => x.toString(16).padStart(2, "0")).join("");
				if (sha && s !== sha) throw new Error("two renders of one walk differ");
				sha = s; size = blob.size;
			}
			clearInterval(id);
			return { sha, size, path, ms, before, after: JSON.stringify(amb.state().player), audio: [audio0, ctx.currentTime],
				running: ctx.state === "running", maxGap, wasmMemory: [mem0, amb.stats().wasmMemory],
				jsHeap: performance.memory ? performance.memory.usedJSHeapSize : 0 };
		})()`)
		var lines strings.Builder
		for _, st := range got.Path {
			l, _ := json.Marshal(st)
			lines.Write(append(l, '\n'))
		}
		file := filepath.Join(t.TempDir(), "walk.jsonl")
		if err := os.WriteFile(file, []byte(lines.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		native := nativeRender(t, "-path", file, "-seconds", fmt.Sprint(seconds), "-seed", fmt.Sprint(seed))
		nativeTime := time.Since(t0)
		if want := fmt.Sprintf("%x", sha256.Sum256(native)); got.SHA != want || got.Size != len(native) {
			t.Errorf("amb.render: %d bytes, sha256 %s; render -path: %d bytes, sha256 %s", got.Size, got.SHA, len(native), want)
		}
		if got.Before != got.After {
			t.Errorf("the render moved the listener: %s → %s", got.Before, got.After)
		}
		if !got.Running || got.Audio[1] <= got.Audio[0] {
			t.Errorf("the audio during the render: running %v, its clock %v → %v", got.Running, got.Audio[0], got.Audio[1])
		}
		t.Logf("%s: %v s (%d steps, %.1f MB) rendered in %.1f s then %.1f s (%.1f× then %.1f× real time); the main thread's longest wait %.0f ms; wasm memory %.1f → %.1f MiB, JS heap %.1f MiB; native render (go run, build cached) %.1f s",
			spec.Engine, seconds, len(got.Path), float64(got.Size)/1e6, got.Ms[0]/1000, got.Ms[1]/1000, seconds*1000/got.Ms[0], seconds*1000/got.Ms[1],
			got.MaxGap, got.WasmMemory[0]/(1<<20), got.WasmMemory[1]/(1<<20), got.JSHeap/(1<<20), nativeTime.Seconds())
	})
}

// pathStep is a step of a walk's render path (walk.js walkPath).
type pathStep struct {
	T      float64 `json:"t"`
	Player string  `json:"player"`
}
