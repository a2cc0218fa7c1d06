package e2e

// The npm package in the two other bundlers the README names (Vite is
// vite_test.go's): the app of vite_test.go built by webpack 5 and by
// Rollup, served by a plain static host on a deep route of a single-page
// app, playing from our server on another origin with no wasm options.
// Each build must carry ambient.wasm, the page fetch it once, and the
// river be heard.

import (
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
	"sync"
	"testing"
	"time"

	"acambient/datfetch/source"
	"acambient/internal/npmpkg"
	"acambient/server"
)

// bdPackages are the bundlers, installed together into a cache folder
// (webpack-cli needs webpack beside it). Rollup resolves a package's bare
// imports only with plugin-node-resolve, and copies what
// `new URL("./ambient.wasm", import.meta.url)` names only with
// rollup-plugin-import-meta-assets: the README names both.
var bdPackages = map[string]string{
	"webpack":                               "5.103.0",
	"webpack-cli":                           "6.0.1",
	"rollup":                                "4.53.3",
	"@rollup/plugin-node-resolve":           "16.0.3",
	"@web/rollup-plugin-import-meta-assets": "2.3.3",
}

var (
	bdOnce sync.Once
	bdDir  string
	bdErr  error
)

// bdModules installs bdPackages (once per cache folder) and returns the
// node_modules folder.
func bdModules(t *testing.T) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		e2eMissing(t, "npm is not installed")
	}
	bdOnce.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "acambient", "e2e-bundlers")
		bdDir = filepath.Join(dir, "node_modules")
		have := true
		for name, version := range bdPackages {
			var pj struct{ Version string }
			b, err := os.ReadFile(filepath.Join(bdDir, name, "package.json"))
			if err != nil || json.Unmarshal(b, &pj) != nil || pj.Version != version {
				have = false
			}
		}
		if have {
			return
		}
		if bdErr = os.MkdirAll(dir, 0o755); bdErr != nil {
			return
		}
		deps, _ := json.Marshal(bdPackages)
		pkg := `{"name": "acambient-e2e-bundlers", "private": true, "dependencies": ` + string(deps) + "}\n"
		if bdErr = os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); bdErr != nil {
			return
		}
		cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			bdErr = fmt.Errorf("npm install in %s: %v\n%s", dir, err, out)
		}
	})
	if bdErr != nil {
		t.Fatal(bdErr)
	}
	return bdDir
}

// bdBundler is one bundler's build of the app: its config file, the
// command that runs it, and the script tag that loads its output.
type bdBundler struct {
	name   string
	config func(tools string) (file, body string)
	build  func(node, tools string) []string
	script string
}

var bdBundlers = []bdBundler{
	{
		name: "webpack",
		config: func(string) (string, string) {
			// publicPath "auto": the chunks and the wasm are found from the
			// script's own URL, on any route.
			return "webpack.config.js", `export default { mode: "production", entry: "./src/main.js",
  output: { path: new URL("./dist", import.meta.url).pathname, filename: "main.js", publicPath: "auto", clean: true } };
`
		},
		build: func(node, tools string) []string {
			return []string{node, filepath.Join(tools, "webpack-cli", "bin", "cli.js"), "--config", "webpack.config.js"}
		},
		script: `<script src="/main.js" defer></script>`,
	},
	{
		name: "rollup",
		config: func(tools string) (string, string) {
			// The plugins by path: the app's own node_modules holds only acambient.
			return "rollup.config.js", fmt.Sprintf(`import { nodeResolve } from %q;
import { importMetaAssets } from %q;
export default { input: "src/main.js", output: { dir: "dist", format: "es" }, plugins: [nodeResolve(), importMetaAssets()] };
`, filepath.Join(tools, "@rollup", "plugin-node-resolve", "dist", "es", "index.js"),
				filepath.Join(tools, "@web", "rollup-plugin-import-meta-assets", "index.mjs"))
		},
		build: func(node, tools string) []string {
			return []string{node, filepath.Join(tools, "rollup", "dist", "bin", "rollup"), "-c", "rollup.config.js"}
		},
		script: `<script type="module" src="/main.js"></script>`,
	},
}

// TestEmbedBundledApps: the package in webpack 5 and Rollup builds of the
// Vite test's app, each on a deep route: the build emits ambient.wasm, the
// page fetches it once, and hovering the river and the desert puts the
// listener there with gather's instances and sound.
func TestEmbedBundledApps(t *testing.T) {
	node, mods, tools := lfNode(t), lfModules(t), bdModules(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		e2eMissing(t, "npm is not installed")
	}
	www, w := site(t)
	work := t.TempDir()
	pkg := filepath.Join(work, "acambient")
	if _, err := npmpkg.Write(npmpkg.Options{WWW: www, Out: pkg, Version: "0.0.0-e2e"}); err != nil {
		t.Fatal(err)
	}
	out := vtRun(t, work, npm, "pack", "--json", "--pack-destination", work, pkg)
	var packed []struct{ Filename string }
	if err := json.Unmarshal([]byte(out), &packed); err != nil || len(packed) != 1 {
		t.Fatalf("npm pack --json: %v\n%s", err, out)
	}
	tarball := filepath.Join(work, packed[0].Filename)
	dat := httptest.NewServer(server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	}))
	t.Cleanup(dat.Close)
	mime.AddExtensionType(".wasm", "application/wasm")

	for _, bd := range bdBundlers {
		t.Run(bd.name, func(t *testing.T) {
			app := filepath.Join(work, bd.name)
			vtWrite(t, filepath.Join(app, "src", "main.js"), viteApp["src/main.js"])
			vtWrite(t, filepath.Join(app, "package.json"), `{"name": "dereth-map", "private": true, "type": "module"}`)
			file, body := bd.config(tools)
			vtWrite(t, filepath.Join(app, file), body)
			vtRun(t, app, npm, "install", "--no-audit", "--no-fund", "--offline", tarball)
			start := time.Now()
			argv := bd.build(node, tools)
			vtRun(t, app, argv[0], argv[1:]...)
			t.Logf("%s build: %v", bd.name, time.Since(start).Round(time.Millisecond))
			dist := filepath.Join(app, "dist")
			var wasms []string
			filepath.WalkDir(dist, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".wasm") {
					rel, _ := filepath.Rel(dist, p)
					wasms = append(wasms, "/"+filepath.ToSlash(rel))
				}
				return err
			})
			if len(wasms) != 1 {
				t.Fatalf("%s emitted %d wasm files (%q), want ambient.wasm's one", bd.name, len(wasms), wasms)
			}
			page := strings.Replace(viteApp["index.html"], `<script type="module" src="/src/main.js"></script>`, bd.script, 1)
			vtWrite(t, filepath.Join(dist, "index.html"), page)
			for _, f := range []string{"leaflet.js", "leaflet.css"} {
				lfCopy(t, filepath.Join(mods, "leaflet", "dist", f), filepath.Join(dist, "leaflet", f))
			}
			// The app's host: dist as it is, index.html for every other path.
			files := http.FileServer(http.Dir(dist))
			// The wasm's downloads, by the browser that asked (the engines run
			// at once): the worker fetches it, which the page's own resource
			// entries do not list.
			var mu sync.Mutex
			wasmGets := map[string][]string{}
			host := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".wasm") {
					mu.Lock()
					wasmGets[r.UserAgent()] = append(wasmGets[r.UserAgent()], r.URL.Path)
					mu.Unlock()
				}
				if st, err := os.Stat(filepath.Join(dist, filepath.FromSlash(path.Clean(r.URL.Path)))); err != nil || st.IsDir() {
					http.ServeFile(rw, r, filepath.Join(dist, "index.html"))
					return
				}
				files.ServeHTTP(rw, r)
			}))
			t.Cleanup(host.Close)

			forEngines(t, allEngines, func(t *testing.T, spec browserSpec) {
				b := lfLaunch(t, spec)
				b.do("initScript", "source", lfProbe)
				b.do("goto", "url", host.URL+viteRoute+"?server="+dat.URL)
				b.waitFor(`window.ambient || document.getElementById("where").textContent.startsWith("⚠")`, 60*time.Second)
				var failed string
				b.eval(&failed, `document.getElementById("where").textContent`)
				if strings.HasPrefix(failed, "⚠") {
					t.Fatalf("the %s app did not load: %s\npage log:\n%s", bd.name, failed, strings.Join(b.logs(), "\n"))
				}
				var ua string
				b.eval(&ua, `navigator.userAgent`)
				mu.Lock()
				fetched := slices.Clone(wasmGets[ua])
				mu.Unlock()
				if !slices.Equal(fetched, wasms) {
					t.Errorf("the %s app fetched its wasm as %q, want the build's %q once", bd.name, fetched, wasms)
				}
				lfRecordSends(b, "window.ambient")
				rmPlay(t, b, "window.ambient", "#start", "playing", nil)
				lfNoErrors(t, b)
			})
		})
	}
}
