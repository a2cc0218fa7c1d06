package e2e

// The npm package in a Nuxt 3 app built as Asheron's Atlas builds itself
// (issue 28, docs/interfaces.md §5): `nuxi build`, served by the Nitro
// server the build writes, the map a component inside <ClientOnly> on a
// catch-all page that imports Leaflet and the package. Nuxt renders a
// `<link rel="prefetch">` for every asset of the chunks a page uses; a wasm
// named by the module itself was one, and then downloaded twice (the
// prefetch and the module's own fetch). The app here has no hook or setting
// for the package: the wasm must be fetched once, and the map must play.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/datfetch/source"
	"acambient/internal/npmpkg"
	"acambient/server"
)

// nxPackages are what the Nuxt test installs into a cache folder of its
// own (the app is built inside it, so that it finds them).
var nxPackages = map[string]string{
	"nuxt":    "3.21.11",
	"leaflet": "1.9.4",
}

// nxApp is the app's source: Atlas's shape (app.vue with NuxtPage, a
// catch-all page and the root, the map in a component under <ClientOnly>, Leaflet
// imported from npm, Atlas's CRS) with bindLeaflet's start control and no
// L passed: the binding finds the map's own Leaflet.
var nxApp = map[string]string{
	"nuxt.config.ts":              "export default defineNuxtConfig({ devtools: { enabled: false }, telemetry: false });\n",
	"app.vue":                     "<template><div id=\"app\"><NuxtPage /></div></template>\n",
	"pages/[...locationPath].vue": nxPage,
	"pages/index.vue":             nxPage,
	"components/DerethMap.vue": `<template><div id="map-container" ref="el" style="height: 100%; background: #242b4d"></div></template>
<script setup>
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { AmbientAudio } from "acambient";
import { bindLeaflet } from "acambient/leaflet";

const el = ref(null);
onMounted(async () => {
  const size = 48960, k = 256 / size;
  const projection = L.extend({}, L.Projection.LonLat, { bounds: L.bounds([[0, 0], [size, size]]) });
  const crs = L.extend({}, L.CRS.Simple, { projection, transformation: new L.Transformation(k, 0, -k, 0), infinite: false });
  const map = L.map(el.value, { crs, minZoom: 0, maxZoom: 11, zoomControl: false, attributionControl: false,
    maxBounds: [[-4000, -4000], [size + 4000, size + 4000]], maxBoundsViscosity: 1 }).setView([34656, 32544], 7);
  L.control.zoom({ position: "bottomright" }).addTo(map);
  window.map = map;
  try {
    const amb = await AmbientAudio.load({ server: new URLSearchParams(location.search).get("server") });
    window.unbind = bindLeaflet(map, amb, { start: true });
    window.ambient = amb;
  } catch (e) {
    window.failed = String(e && e.message || e);
  }
});
</script>
`,
}

// nxPage is a page of the app: the map, client-side only. Two pages show
// it (the root and every deep route), so Vite puts the map's component
// and the package in a chunk of their own that both pages import, as
// Atlas's build does: the chunk whose assets Nuxt hints.
const nxPage = `<template>
  <div id="atlas" style="height: 100vh; position: relative">
    <ClientOnly><DerethMap /></ClientOnly>
  </div>
</template>
`

// TestEmbedNuxtApp: the package in a Nuxt 3 build on a deep route: the
// page names no wasm to prefetch, the browser fetches the wasm once, and
// the river and the desert play as gather says, started from the binding's
// own start control.
func TestEmbedNuxtApp(t *testing.T) {
	node := lfNode(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		e2eMissing(t, "npm is not installed")
	}
	timed := func(what string, f func()) {
		t.Helper()
		start := time.Now()
		f()
		t.Logf("%s: %v", what, time.Since(start).Round(time.Millisecond))
	}
	var mods string
	timed("npm install nuxt (cached after the first run)", func() { mods = nxModules(t, npm) })
	www, w := site(t)
	work := t.TempDir()

	// The app, inside the cache folder so that it finds nuxt; the package
	// packed and installed into it as a user installs it.
	app, err := os.MkdirTemp(filepath.Dir(mods), "app-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(app) })
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
		for name, body := range nxApp {
			vtWrite(t, filepath.Join(app, name), body)
		}
		vtWrite(t, filepath.Join(app, "package.json"), `{"name": "dereth-nuxt", "private": true, "type": "module"}`)
		vtRun(t, app, npm, "install", "--no-audit", "--no-fund", "--offline", filepath.Join(work, packed[0].Filename))
	})
	timed("nuxi build", func() {
		vtRun(t, app, node, filepath.Join(mods, "@nuxt", "cli", "bin", "nuxi.mjs"), "build")
	})
	wasms, _ := filepath.Glob(filepath.Join(app, ".output", "public", "_nuxt", "*.wasm"))
	if len(wasms) != 1 {
		t.Fatalf("nuxi build emitted %d wasm files (%q), want ambient.wasm's one", len(wasms), wasms)
	}
	wasmPath := "/_nuxt/" + filepath.Base(wasms[0])

	// The build's own server, behind a proxy that counts the wasm's downloads.
	nitro := nxServe(t, node, app)
	// The engines run at once: each download is kept under the browser's
	// User-Agent, with the request's fetch destination, purpose and range.
	var (
		mu       sync.Mutex
		wasmGets = map[string][]string{}
	)
	proxy := httputil.NewSingleHostReverseProxy(nitro)
	host := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wasmPath {
			mu.Lock()
			ua := r.Header.Get("User-Agent")
			wasmGets[ua] = append(wasmGets[ua], fmt.Sprintf("%s %s (dest %q, purpose %q, range %q)", r.Method, r.URL.Path,
				r.Header.Get("Sec-Fetch-Dest"), r.Header.Get("Sec-Purpose")+r.Header.Get("Purpose"), r.Header.Get("Range")))
			mu.Unlock()
		}
		proxy.ServeHTTP(rw, r)
	}))
	t.Cleanup(host.Close)
	dat := httptest.NewServer(server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	}))
	t.Cleanup(dat.Close)

	// The page as served names the wasm in no resource hint.
	r, err := http.Get(host.URL + viteRoute)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if links := regexp.MustCompile(`<link[^>]*\.wasm[^>]*>`).FindAllString(string(html), -1); len(links) > 0 {
		t.Errorf("the page names the wasm in %q: the browser downloads it for the hint and again for the module", links)
	}

	forEngines(t, leafletEngines, func(t *testing.T, spec browserSpec) {
		b := lfLaunch(t, spec)
		b.do("initScript", "source", lfProbe)
		b.do("initScript", "source", nxFetchWatch)
		b.do("goto", "url", host.URL+viteRoute+"?server="+url.QueryEscape(dat.URL))
		b.waitFor(`window.ambient || window.failed`, 60*time.Second)
		var failed string
		b.eval(&failed, `window.failed || ""`)
		if failed != "" {
			t.Fatalf("the Nuxt app did not load: %s\npage log:\n%s", failed, strings.Join(b.logs(), "\n"))
		}
		lfRecordSends(b, "window.ambient")
		rmPlay(t, b, "window.ambient", lfStartButton, "on", nil)
		var fetched int
		b.eval(&fetched, `performance.getEntriesByType("resource").filter((e) => new URL(e.name).pathname.endsWith(".wasm")).length`)
		var ua string
		b.eval(&ua, `navigator.userAgent`)
		mu.Lock()
		gets := slices.Clone(wasmGets[ua])
		mu.Unlock()
		// The page fetches the wasm once, to compile it (ambient.js
		// compileHere), and the worker none: a prefetch or preload of it
		// would be a second entry, and a second download.
		if len(gets) != 1 || fetched != 1 {
			var calls []string
			b.eval(&calls, `window.wasmFetches`)
			t.Errorf("the wasm was downloaded %d times (the page's resource entries: %d), want once, by the page's compile:\n%s\nthe page's fetch calls for it:\n%s",
				len(gets), fetched, strings.Join(gets, "\n"), strings.Join(calls, "\n"))
		}
		lfNoErrors(t, b)
	})
}

// nxFetchWatch keeps where each fetch of a .wasm came from (window.wasmFetches:
// the call's stack), for a report when the wasm downloads more than once.
const nxFetchWatch = `(() => {
  const f = window.fetch;
  window.wasmFetches = [];
  window.fetch = function (input) {
    const u = String(input && input.url || input);
    if (u.endsWith(".wasm")) window.wasmFetches.push(u + "\n" + new Error().stack);
    return f.apply(this, arguments);
  };
})()`

var (
	nxModulesOnce sync.Once
	nxModulesDir  string
	nxModulesErr  error
)

// nxModules installs nxPackages (once per cache folder) and returns the
// node_modules folder.
func nxModules(t *testing.T, npm string) string {
	t.Helper()
	nxModulesOnce.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		nxModulesDir, nxModulesErr = npmInstallTo(npm, filepath.Join(cache, "acambient", "e2e-nuxt"), "acambient-e2e-nuxt", nxPackages)
	})
	if nxModulesErr != nil {
		t.Fatal(nxModulesErr)
	}
	return nxModulesDir
}

// npmInstallTo installs packages (name → exact version) into dir unless
// they are there already, and returns dir's node_modules.
func npmInstallTo(npm, dir, name string, packages map[string]string) (string, error) {
	mods := filepath.Join(dir, "node_modules")
	ok := true
	for p, version := range packages {
		var pj struct{ Version string }
		b, err := os.ReadFile(filepath.Join(mods, p, "package.json"))
		if err != nil || json.Unmarshal(b, &pj) != nil || pj.Version != version {
			ok = false
		}
	}
	if ok {
		return mods, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	deps, _ := json.Marshal(packages)
	pkg := `{"name": "` + name + `", "private": true, "dependencies": ` + string(deps) + "}\n"
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", dir)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install in %s: %v\n%s", dir, err, out)
	}
	return mods, nil
}

// nxServe starts the build's Nitro server on a free port of 127.0.0.1 and
// returns its URL once it answers; the test's end stops it.
func nxServe(t *testing.T, node, app string) *url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(app, ".output", "server", "index.mjs"))
	cmd.Dir = app
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port), "HOST=127.0.0.1", "NITRO_HOST=127.0.0.1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cancel() // SIGTERM to the group (ownGroup)
		killGroup(cmd)
		<-exited
	})
	u := &url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if r, err := http.Get(u.String() + "/"); err == nil {
			r.Body.Close()
			return u
		}
		select {
		case <-exited:
			t.Fatalf("the Nitro server exited:\n%s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Nitro server did not answer in 30 s:\n%s", out.String())
		}
	}
}
