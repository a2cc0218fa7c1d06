package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The page's modules keep their state in the objects that own it and build
// their DOM from elements (docs/architecture.md §3, www/): no module-level
// `let` or `var`, no HTML strings handed to innerHTML/outerHTML or
// insertAdjacentHTML. Go's wasm_exec.js is copied in by the build, not ours.
func TestPageModulesHoldNoModuleState(t *testing.T) {
	www := lfWWW
	var files []string
	for _, pat := range []string{"*.js", "page/*.js"} {
		m, err := filepath.Glob(filepath.Join(www, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	moduleVar := regexp.MustCompile(`(?m)^(?:export\s+)?(?:let|var)\s+\w+`)
	htmlString := regexp.MustCompile(`\.(?:innerHTML|outerHTML)\s*=|insertAdjacentHTML\(`)
	checked := 0
	for _, f := range files {
		if filepath.Base(f) == "wasm_exec.js" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(www, f)
		for _, m := range moduleVar.FindAllString(string(b), -1) {
			t.Errorf("www/%s: module-level %q: hold it in the object that owns it", filepath.ToSlash(rel), strings.TrimSpace(m))
		}
		if loc := htmlString.FindStringIndex(string(b)); loc != nil {
			t.Errorf("www/%s: %q: build the DOM with elements", filepath.ToSlash(rel), string(b)[loc[0]:loc[1]])
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked %d modules in %s; the page has more", checked, www)
	}
}
