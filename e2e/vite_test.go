package e2e

// The npm package in a bundled app (issue 17, docs/interfaces.md §5): `npm`'s
// folder packed by `npm pack`, installed into a Vite 6 app of the
// community map's shape, `vite build`, served by a plain static host that
// answers every unknown path with the app's index.html (a single-page app)
// and opened on a deep route, playing from our server on another origin
// with no wasm options; then the same app with the userscript instead.

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"acambient/datfetch/source"
	"acambient/internal/npmpkg"
	"acambient/server"
)

// viteRoute is the deep route the app is opened on, as the community map's
// links are: a position in the path.
const viteRoute = "/maps/dereth/@43.3N,33.8E"

// viteApp is the app's source: Leaflet as the page's global from a classic
// script before the app, the app's own CRS (a copy of L.CRS.Simple, 1 px
// per 16 m at zoom 0, y from the north edge), a full-height transparent
// sidebar over the map's left edge with the start button in its card, the
// view from the route. ?plain leaves ambience out (a map that knows nothing
// of it: the userscript's case).
var viteApp = map[string]string{
	"index.html": `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dereth</title>
<link rel="stylesheet" href="/leaflet/leaflet.css">
<script src="/leaflet/leaflet.js"></script>
<style>` + rmSidebarCSS + `
</style>
</head>
<body>
<div id="map"></div>
<aside id="sidebar"><div class="card"><button id="start" hidden>▶ ambient sound</button> <span id="where"></span></div></aside>
<script type="module" src="/src/main.js"></script>
</body>
</html>
`,
	"src/main.js": `import { AmbientAudio } from "acambient";
import { bindLeaflet, hexId } from "acambient/leaflet";
import { AcAmbience } from "acambient/element";

const L = window.L;
const crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(1 / 16, 0, -1 / 16, 48960 / 16) });

// The route names the view: @NS,EW in map coordinates; X = (10·EW + 1019.5)·24.
const m = /@(\d+(?:\.\d+)?)([NS]),(\d+(?:\.\d+)?)([EW])/.exec(decodeURIComponent(location.pathname));
const ns = m ? (m[2] === "S" ? -m[1] : +m[1]) : 0, ew = m ? (m[4] === "W" ? -m[3] : +m[3]) : 0;
const map = L.map("map", { crs, minZoom: -4, maxZoom: 8 }).setView([(10 * ns + 1019.5) * 24, (10 * ew + 1019.5) * 24], 2);
window.map = map;
window.AcAmbience = AcAmbience; // the element's export resolves in a bundle, and defines <ac-ambience>

const q = new URLSearchParams(location.search);
if (!q.has("plain")) {
  embed(q.get("server")).catch((e) => { document.getElementById("where").textContent = "⚠ " + e.message; });
}

async function embed(server) {
  const amb = await AmbientAudio.load({ server });
  const where = document.getElementById("where");
  window.unbind = bindLeaflet(map, amb, { onMove: (p) => { where.textContent = hexId(p.objcellId); } });
  const start = document.getElementById("start");
  start.hidden = false;
  start.onclick = () => amb.start().then(() => { start.textContent = "♪ playing"; });
  window.ambient = amb;
}
`,
}

// TestEmbedViteApp: the package in a Vite build on a deep route of a
// single-page app, then the userscript in the same app, each hovering the
// river and the desert as the plain example does (the listener's cell,
// gather's instances, sound at the destination).
func TestEmbedViteApp(t *testing.T) {
	node, mods := lfNode(t), lfModules(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		e2eMissing(t, "npm is not installed")
	}
	www, w := site(t)
	work := t.TempDir()
	timed := func(what string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
	}

	// The package, packed and installed as a user installs it.
	var tarball string
	timed("npm package, npm pack, npm install", func() {
		pkg := filepath.Join(work, "acambient")
		if _, err := npmpkg.Write(npmpkg.Options{WWW: www, Out: pkg, Version: "0.0.0-e2e"}); err != nil {
			t.Fatal(err)
		}
		out := vtRun(t, work, npm, "pack", "--json", "--pack-destination", work, pkg)
		var packed []struct{ Filename string }
		if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
			t.Fatalf("npm pack --json: %v\n%s", err, out)
		}
		tarball = filepath.Join(work, packed[0].Filename)
		app := filepath.Join(work, "app")
		for name, body := range viteApp {
			vtWrite(t, filepath.Join(app, name), body)
		}
		for _, f := range []string{"leaflet.js", "leaflet.css"} {
			lfCopy(t, filepath.Join(mods, "leaflet", "dist", f), filepath.Join(app, "public", "leaflet", f))
		}
		vtWrite(t, filepath.Join(app, "package.json"), `{"name": "dereth-map", "private": true, "type": "module"}`)
		vtRun(t, app, npm, "install", "--no-audit", "--no-fund", "--offline", tarball)
	})
	app := filepath.Join(work, "app")
	timed("vite build", func() {
		vtRun(t, app, node, filepath.Join(mods, "vite", "bin", "vite.js"), "build", "--logLevel", "warn")
	})
	dist := filepath.Join(app, "dist")
	wasms, _ := filepath.Glob(filepath.Join(dist, "assets", "*.wasm"))
	if len(wasms) != 1 {
		t.Fatalf("vite build emitted %d wasm files (%q), want ambient.wasm's one", len(wasms), wasms)
	}

	// The app's host: dist as it is, and index.html for every other path.
	mime.AddExtensionType(".wasm", "application/wasm")
	files := http.FileServer(http.Dir(dist))
	distHandler := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if st, err := os.Stat(filepath.Join(dist, filepath.FromSlash(path.Clean(r.URL.Path)))); err != nil || st.IsDir() {
			http.ServeFile(rw, r, filepath.Join(dist, "index.html"))
			return
		}
		files.ServeHTTP(rw, r)
	})
	host := httptest.NewServer(distHandler)
	t.Cleanup(host.Close)
	// The records, on another origin.
	dat := httptest.NewServer(server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	}))
	t.Cleanup(dat.Close)

	// 1. The packaged modules, bundled: no route and no early init script
	// needed (the probe patches AudioContext before start() makes it), so
	// in every engine.
	t.Run("bundled", func(t *testing.T) {
		forEngines(t, allEngines, func(t *testing.T, spec browserSpec) {
			// A host of its own, whose log is this engine's: the page's
			// requests and its worker's (the page's resource timing lists
			// only its own).
			log := &seenLog{}
			host := httptest.NewServer(log.wrap(distHandler))
			t.Cleanup(host.Close)
			b := lfLaunch(t, spec)
			b.do("initScript", "source", lfProbe)
			b.do("goto", "url", host.URL+viteRoute+"?server="+dat.URL)
			b.waitFor(`window.ambient || document.getElementById("where").textContent.startsWith("⚠")`, 60*time.Second)
			var failed string
			b.eval(&failed, `document.getElementById("where").textContent`)
			if strings.HasPrefix(failed, "⚠") {
				t.Fatalf("the bundled app did not load: %s\npage log:\n%s", failed, strings.Join(b.logs(), "\n"))
			}
			var defined bool
			b.eval(&defined, `customElements.get("ac-ambience") === window.AcAmbience`)
			if !defined {
				t.Error(`acambient/element did not define <ac-ambience> in the bundle`)
			}
			var centre struct{ Lat, Lng float64 }
			b.eval(&centre, `map.getCenter()`)
			if X, Y := (10*33.8+1019.5)*24, (10*43.3+1019.5)*24; centre.Lat != Y || centre.Lng != X {
				t.Errorf("the deep route's view is (%v, %v), want (%v, %v): the app did not get its route", centre.Lat, centre.Lng, Y, X)
			}
			var fetched, workers []string
			for _, r := range log.take() {
				if strings.HasSuffix(r.path, ".wasm") {
					fetched = append(fetched, r.path)
				}
				if strings.Contains(r.path, "worker") {
					workers = append(workers, r.path)
				}
			}
			if want := "/assets/" + filepath.Base(wasms[0]); !slices.Equal(fetched, []string{want}) {
				t.Errorf("the app fetched its wasm as %q, want the build's %q alone", fetched, want)
			}
			if len(workers) != 1 || !strings.HasPrefix(workers[0], "/assets/") {
				t.Errorf("the app fetched its engine's worker as %q, want the build's one, once", workers)
			}
			lfRecordSends(b, "window.ambient")
			rmPlay(t, b, "window.ambient", "#start", "playing", nil)
			lfNoErrors(t, b)
		})
	})

	// 2. The same app knowing nothing of ambience, with the userscript
	// (which needs its init script before the page's: not in WebKit).
	t.Run("userscript", func(t *testing.T) {
		forEngines(t, leafletEngines, func(t *testing.T, spec browserSpec) {
			b := lfLaunch(t, spec)
			b.do("initScript", "source", lfProbe)
			b.do("initScript", "source", fmt.Sprintf("window.acAmbientConfig = { server: %q };", dat.URL))
			b.do("initScript", "source", rmUserscript(t))
			b.do("goto", "url", host.URL+viteRoute+"?plain")
			b.waitFor(`window.acAmbient && window.acAmbient.amb`, 60*time.Second)
			var same bool
			b.eval(&same, `window.acAmbient.map === window.map && !window.ambient`)
			if !same {
				t.Fatal("the userscript did not bind the app's map, or the app bound its own")
			}
			lfRecordSends(b, "window.acAmbient.amb")
			rmPlay(t, b, "window.acAmbient.amb", lfStartButton, "on", nil)
			lfNoErrors(t, b)
		})
	})
}

// vtRun runs a command in dir and returns its stdout; a failure fails the test.
func vtRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

func vtWrite(t *testing.T, file, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
