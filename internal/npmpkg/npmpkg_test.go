package npmpkg

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"acambient/internal/modgraph"
)

// fakeWWW writes a www folder shaped as the real one: the two entries, a
// module both import, the wasm and its glue, their types, and page files
// the package must leave out.
func fakeWWW(t *testing.T, skip string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"ambient.js": `// import { AmbientAudio } from "./ambient.js";
import { hexId } from "./geo.js";
/** @param {import("./ambient").LoadOptions} [opts] */
const u = new URL("./ambient.wasm", import.meta.url);
await import("./wasm_exec.js");
await import(/* @vite-ignore */ other);`,
		"leaflet-ambient.js":   `import { cellAt } from "./geo.js";` + "\n" + `export { CELL } from "./geo.js";`,
		"geo.js":               `export const CELL = 24;`,
		"ac-ambience.js":       `import { AmbientAudio } from "./ambient.js";`,
		"ac-ambience.d.ts":     `import type { AmbientAudio } from "./ambient";`,
		"ambient.wasm":         "\x00asm",
		"wasm_exec.js":         `"use strict"; (() => { globalThis.Go = class {}; })();`,
		"ambient.d.ts":         `export * from "./leaflet-ambient";`,
		"leaflet-ambient.d.ts": `import type { CellAt } from "./geo";`,
		"geo.d.ts":             `export const CELL: 24;`,
		"app.js":               `import { AmbientAudio } from "./ambient.js"; import "./page/panel.js";`,
		"page/panel.js":        ``,
		"index.html":           ``,
		"ambient.user.js":      ``,
	}
	for name, body := range files {
		if name == skip {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestWrite(t *testing.T) {
	out := t.TempDir()
	res, err := Write(Options{WWW: fakeWWW(t, ""), Out: out, Version: "0.0.0-20260102030405-abcdefabcdef"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ac-ambience.d.ts", "ac-ambience.js", "ambient.d.ts", "ambient.js", "ambient.wasm", "geo.d.ts", "geo.js", "leaflet-ambient.d.ts", "leaflet-ambient.js", "wasm_exec.js"}
	if !slices.Equal(res.Files, want) {
		t.Errorf("files %q, want %q", res.Files, want)
	}
	for _, f := range append(want, "package.json", "README.md") {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("package lacks %s", f)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Name, Version, Type string
		Exports             map[string]json.RawMessage
		Files               []string
		PublishConfig       *struct{ Tag string }
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Name != "acambient" || pkg.Type != "module" || pkg.Version != "0.0.0-20260102030405-abcdefabcdef" {
		t.Errorf("name %q type %q version %q", pkg.Name, pkg.Type, pkg.Version)
	}
	if !slices.Equal(pkg.Files, want) {
		t.Errorf(`"files" %q, want %q`, pkg.Files, want)
	}
	// Each export's conditions in order, "types" first (TypeScript reads the
	// first that matches).
	for sub, exp := range map[string]string{
		".":         `{"types":"./ambient.d.ts","default":"./ambient.js"}`,
		"./leaflet": `{"types":"./leaflet-ambient.d.ts","default":"./leaflet-ambient.js"}`,
		"./element": `{"types":"./ac-ambience.d.ts","default":"./ac-ambience.js"}`,
	} {
		if got := strings.Join(strings.Fields(string(pkg.Exports[sub])), ""); got != exp {
			t.Errorf("exports[%q] = %s, want %s", sub, got, exp)
		}
	}
	if pkg.PublishConfig == nil || pkg.PublishConfig.Tag != "next" {
		t.Errorf("a prerelease's publishConfig %+v, want the tag next", pkg.PublishConfig)
	}

	// A release: no dist-tag of its own (npm's "latest").
	if _, err := Write(Options{WWW: fakeWWW(t, ""), Out: out, Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(filepath.Join(out, "package.json"))
	if strings.Contains(string(raw), "publishConfig") {
		t.Errorf("release 1.2.3 has a publishConfig:\n%s", raw)
	}
}

func TestWriteRefusesABrokenPackage(t *testing.T) {
	for _, c := range []struct{ skip, version, want string }{
		{"ambient.wasm", "1.0.0", "ambient.js names ambient.wasm, which"},
		{"geo.js", "1.0.0", "names geo.js, which"},
		{"leaflet-ambient.d.ts", "1.0.0", "leaflet-ambient.d.ts is not in"},
		{"ac-ambience.d.ts", "1.0.0", "ac-ambience.d.ts is not in"},
		{"", "1.0", `version "1.0" is not a semantic version`},
		{"", "v1.0.0", `version "v1.0.0" is not`},
		{"", "1.0.0-01", `is not`},
	} {
		_, err := Write(Options{WWW: fakeWWW(t, c.skip), Out: t.TempDir(), Version: c.version})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("without %q, version %q: %v, want an error with %q", c.skip, c.version, err, c.want)
		}
	}
}

// The package's files from the real www: the modules, what they import, and
// their types (ambient.wasm and wasm_exec.js are built, not kept, so they are
// only checked by name, as some module of the entries' graph names them:
// ambient-wasm.js names the wasm, imported on demand by ambient.js).
func TestRealWWW(t *testing.T) {
	www := filepath.Join("..", "..", "www")
	var entries, names []string
	for _, e := range Entries {
		entries = append(entries, e.Module)
	}
	files, err := modgraph.Walk(www, entries...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		names = append(names, f.Name)
	}
	for _, want := range []string{"ambient.wasm", "wasm_exec.js"} {
		if !slices.Contains(names, want) {
			t.Errorf("the modules do not name %s in a form bundlers follow (they name %q)", want, names)
		}
	}
}

// The README lists every setting the userscript reads from acAmbientConfig.
func TestReadmeListsTheUserscriptSettings(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "www", "ambient.user.js"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)const config = Object\.assign\(\{(.*?)\}, window\.acAmbientConfig\)`).FindSubmatch(src)
	if block == nil {
		t.Fatal("ambient.user.js: no `const config = Object.assign({…}, window.acAmbientConfig)`")
	}
	keys := regexp.MustCompile(`(?m)^\s{4}(\w+):`).FindAllSubmatch(block[1], -1)
	if len(keys) < 5 {
		t.Fatalf("found %d settings in ambient.user.js", len(keys))
	}
	readme := Readme("1.0.0")
	for _, k := range keys {
		if !strings.Contains(readme, "| `"+string(k[1])+"` |") {
			t.Errorf("the package README has no row for the userscript's setting %s", k[1])
		}
	}
	if !strings.HasPrefix(readme, "# acambient 1.0.0\n") {
		t.Errorf("README starts %q", readme[:40])
	}
}

func TestGitVersion(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no git on PATH: the package's version from git goes untested")
		}
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
			"GIT_COMMITTER_DATE=2026-01-02T03:04:05Z", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, _, err := GitVersion(dir); err == nil {
		t.Error("a folder that is no checkout gave a version")
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, "f"), []byte("1"), 0o644)
	git("add", "f")
	git("commit", "-qm", "one")
	hash := git("rev-parse", "HEAD")
	v, dirty, err := GitVersion(dir)
	if err != nil || v != "0.0.0-20260102030405-"+hash[:12] || dirty {
		t.Errorf("untagged: %q dirty %v %v; want 0.0.0-20260102030405-%s, clean", v, dirty, err, hash[:12])
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte("2"), 0o644)
	if _, dirty, _ := GitVersion(dir); !dirty {
		t.Error("a changed tracked file is not dirty")
	}
	git("checkout", "-q", "f")
	git("tag", "v1.4.0")
	if v, _, err := GitVersion(dir); v != "1.4.0" || err != nil {
		t.Errorf("tagged v1.4.0: %q %v", v, err)
	}
}

// The README's bindLeaflet lines are ones a map maintainer can paste: every
// option they pass is one leaflet-ambient.d.ts's BindOptions declares, and
// the sound-zone layer is among them (issue 20: the line a map maintainer adds).
func TestReadmeBindLinesUseDeclaredOptions(t *testing.T) {
	dts, err := os.ReadFile(filepath.Join("..", "..", "www", "leaflet-ambient.d.ts"))
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)interface BindOptions \{(.*?)\n\}`).FindSubmatch(dts)
	if body == nil {
		t.Fatal("leaflet-ambient.d.ts: no interface BindOptions")
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(\w+)\?:`).FindAllSubmatch(body[1], -1) {
		declared[string(m[1])] = true
	}
	readme := Readme("1.0.0")
	calls := regexp.MustCompile(`bindLeaflet\(map, amb, \{([^}]*)\}\)`).FindAllStringSubmatch(readme, -1)
	used := map[string]bool{}
	for _, c := range calls {
		for _, m := range regexp.MustCompile(`(?:^|,)\s*(\w+):`).FindAllStringSubmatch(c[1], -1) {
			used[m[1]] = true
			if !declared[m[1]] {
				t.Errorf("the README passes bindLeaflet an option %q that BindOptions does not declare", m[1])
			}
		}
	}
	for _, want := range []string{"follow", "zones", "captions"} {
		if !used[want] {
			t.Errorf("no bindLeaflet line in the README passes %q", want)
		}
	}
}
