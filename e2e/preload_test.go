package e2e

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"testing"
)

// The page's index.html asks for every module app.js reaches (and the
// wasm's glue, which ambient.js imports dynamically) at once: a module left
// off waits for the one importing it, a round trip deeper, and the wasm's
// compile and the early requests wait for the whole graph (issue 18).
func TestIndexPreloadsEveryModule(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	www := filepath.Join(filepath.Dir(filepath.Dir(file)), "www")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(www, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	imports := regexp.MustCompile(`(?m)^import\s[^;]*?from\s+"(\.{1,2}/[^"]+\.js)"|await import\("(\./[^"]+\.js)"\)`)
	reached := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		if name == "wasm_exec.js" {
			return // Go's glue, copied in by the build
		}
		for _, m := range imports.FindAllStringSubmatch(read(name), -1) {
			walk(path.Join(path.Dir(name), m[1]+m[2]))
		}
	}
	walk("app.js")
	delete(reached, "app.js") // the page's script itself

	preloads := map[string]bool{}
	for _, m := range regexp.MustCompile(`<link rel="modulepreload" href="([^"]+)">`).FindAllStringSubmatch(read("index.html"), -1) {
		preloads[m[1]] = true
	}
	var missing, extra []string
	for m := range reached {
		if !preloads[m] {
			missing = append(missing, m)
		}
	}
	for m := range preloads {
		if !reached[m] {
			extra = append(extra, m)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("app.js reaches %q, which index.html does not modulepreload", missing)
	}
	if len(extra) > 0 {
		t.Errorf("index.html modulepreloads %q, which app.js does not reach", extra)
	}
	if !reached["wasm_exec.js"] || !reached["page/zones.js"] || !reached["leaflet-ambient.js"] {
		t.Errorf("the walk found %v: it misses imports it should see", reached)
	}
}
