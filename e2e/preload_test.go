package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"acambient/internal/modgraph"
)

// The page's index.html asks for every module app.js reaches (and the
// wasm's glue, which ambient.js imports dynamically) at once: a module left
// off waits for the one importing it, a round trip deeper, and the wasm's
// compile and the early requests wait for the whole graph (issue 18).
func TestIndexPreloadsEveryModule(t *testing.T) {
	www := lfWWW
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(www, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	files, err := modgraph.Walk(www, "app.js")
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f.Name, ".js") && f.Name != "app.js" { // app.js: the page's script itself
			reached[f.Name] = true
		}
	}

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
