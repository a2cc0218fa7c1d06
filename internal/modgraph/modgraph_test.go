package modgraph

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestReferences(t *testing.T) {
	for _, c := range []struct {
		file, src string
		want      []string
	}{
		{"index.html", `<link rel="stylesheet" href="app.css"><link rel="icon" href="data:,">
<link rel="preload" href="ambient.wasm" as="fetch" crossorigin><link rel="modulepreload" href="page/dom.js">
<a href="https://example.com/x.js">x</a><a href="//cdn.example/y.js">y</a><a href="#top">top</a>
<script type="module" src="./app.js?v=2"></script><img src="/img/a.png"><a href="../up.html">up</a>`,
			[]string{"app.css", "ambient.wasm", "page/dom.js", "app.js", "img/a.png"}},
		{"page/panel.js", `import { el } from "./dom.js";
import("../geo.js");
await import("./lazy.js");
import { y } from "../../outside.js";
const u = new URL("./glyph.png", import.meta.url);
import { x } from "leaflet";`,
			[]string{"page/dom.js", "geo.js", "page/lazy.js", "page/glyph.png"}},
		{"ambient.d.ts", `export * from "./leaflet-ambient"; import type { CellAt } from "./geo.js";`,
			[]string{"leaflet-ambient.d.ts", "geo.d.ts"}},
		{"app.css", `@import "x.css";`, nil},
	} {
		if got := References(c.file, c.src); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %q; want %q", c.file, got, c.want)
		}
	}
}

// Walk follows the page's graph through modules in subfolders, lists a
// named file the folder lacks without failing, and leaves out what nothing
// names.
func TestWalk(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html":    `<link href="app.css" rel="stylesheet"><script type="module" src="app.js"></script>`,
		"app.css":       ``,
		"app.js":        `import "./page/panel.js"; import { A } from "./ambient.js";`,
		"page/panel.js": `import { el } from "./dom.js"; import { CELL } from "../geo.js";`,
		"geo.js":        ``,
		"ambient.js":    `const u = new URL("./ambient.wasm", import.meta.url); await import("./wasm_exec.js"); import "./ambient.js";`,
		"wasm_exec.js":  ``,
		"unnamed.js":    ``,
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Walk(dir, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{"ambient.js", "app.js", false}, {"ambient.wasm", "ambient.js", true}, {"app.css", "index.html", false},
		{"app.js", "index.html", false}, {"geo.js", "page/panel.js", false}, {"index.html", "", false},
		{"page/dom.js", "page/panel.js", true}, {"page/panel.js", "app.js", false}, {"wasm_exec.js", "ambient.js", false}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Walk: %v; want %v (page/dom.js and ambient.wasm named though missing; unnamed.js left out)", got, want)
	}
}
