// Package layers holds the test that keeps the module's imports pointing
// one way: the layer table of docs/architecture.md §3.1 against what
// `go list -deps` says each package imports.
package layers

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "acambient"

// table is the layer table: a package's layer by its path in the module
// ("." the root), and the folders whose every package has one layer
// ("bench/").
type table struct {
	exact  map[string]int
	prefix map[string]int
}

// layer is pkg's layer (pkg relative to the module, "." the root).
func (t table) layer(pkg string) (int, bool) {
	if l, ok := t.exact[pkg]; ok {
		return l, true
	}
	for p, l := range t.prefix {
		if strings.HasPrefix(pkg, p) {
			return l, true
		}
	}
	return 0, false
}

var (
	rowRE  = regexp.MustCompile(`^\|\s*(\d+)\s*\|(.*)\|\s*$`)
	spanRE = regexp.MustCompile("`([^`]+)`")
)

// readTable reads the table under "### §3.1 Layers" in architecture.md.
func readTable(doc []byte) (table, error) {
	t := table{exact: map[string]int{}, prefix: map[string]int{}}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "### §3.1 "):
			in = true
			continue
		case in && strings.HasPrefix(line, "#"):
			in = false
		}
		m := rowRE.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		l, _ := strconv.Atoi(m[1])
		for _, s := range spanRE.FindAllStringSubmatch(m[2], -1) {
			if p, ok := strings.CutSuffix(s[1], "…"); ok {
				t.prefix[p] = l
			} else {
				t.exact[s[1]] = l
			}
		}
	}
	if len(t.exact) == 0 {
		return t, fmt.Errorf("no layer table under §3.1")
	}
	return t, sc.Err()
}

// check returns every import of graph (package → what it imports, module
// paths relative to the module) the table does not allow, and every
// package it does not place.
func check(t table, graph map[string][]string) []string {
	var bad []string
	for _, pkg := range slices.Sorted(maps.Keys(graph)) {
		lp, ok := t.layer(pkg)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in no layer of docs/architecture.md §3.1", pkg))
			continue
		}
		for _, imp := range graph[pkg] {
			li, ok := t.layer(imp)
			switch {
			case !ok:
				continue // reported as a package of its own
			case strings.HasPrefix(imp, "internal/testkit/") && !strings.HasPrefix(pkg, "internal/testkit/") && !strings.HasPrefix(pkg, "bench/"):
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s: only tests, bench/ and internal/testkit/ may", pkg, lp, imp))
			case li >= lp:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports go to a lower layer", pkg, lp, imp, li))
			}
		}
	}
	return bad
}

// goList is the module's import graph as `go list -deps` gives it for
// goos/goarch, paths relative to the module.
func goList(t *testing.T, root, goos, goarch string) map[string][]string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(gobin, "list", "-e", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (%s/%s): %v", goos, goarch, err)
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	graph := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg, ok := rel(f[0])
		if !ok {
			continue
		}
		graph[pkg] = []string{}
		for _, imp := range f[1:] {
			if r, ok := rel(imp); ok {
				graph[pkg] = append(graph[pkg], r)
			}
		}
	}
	return graph
}

// The module's imports, native and GOOS=js (the wasm main and the fetch
// transport are only there), go where docs/architecture.md §3.1 says.
func TestImportsFollowTheLayers(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := readTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		graph := goList(t, root, target[0], target[1])
		if len(graph) < 20 {
			t.Fatalf("%s/%s: go list found %d packages of the module", target[0], target[1], len(graph))
		}
		for _, b := range check(tab, graph) {
			t.Errorf("%s/%s: %s", target[0], target[1], b)
		}
	}
}

// The checker itself: an import up or across a layer, an import of the
// testkit from the product, and a package the table does not place are
// each reported; imports down are not.
func TestCheckReportsWhatTheTableForbids(t *testing.T) {
	tab, err := readTable([]byte("### §3.1 Layers\n\n| layer | packages |\n|---|---|\n" +
		"| 0 | `core/dat`, `internal/testkit/fake` |\n| 1 | `core/world`, `datfetch` |\n| 2 | `.`, `bench/…` |\n\n## §4\n| 0 | `nope` |\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{"down", map[string][]string{".": {"core/world", "core/dat"}, "core/world": {"core/dat"}, "bench/x": {"internal/testkit/fake"}}, nil},
		{"up", map[string][]string{"core/dat": {"core/world"}}, []string{"core/dat (layer 0) imports core/world (layer 1): imports go to a lower layer"}},
		{"across", map[string][]string{"datfetch": {"core/world"}}, []string{"datfetch (layer 1) imports core/world (layer 1): imports go to a lower layer"}},
		{"testkit", map[string][]string{"core/world": {"internal/testkit/fake"}}, []string{"core/world (layer 1) imports internal/testkit/fake: only tests, bench/ and internal/testkit/ may"}},
		{"unplaced", map[string][]string{"nope": nil}, []string{"nope is in no layer of docs/architecture.md §3.1"}},
	} {
		if got := check(tab, tc.graph); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
