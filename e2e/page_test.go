package e2e

// Tests of the demo page's modules without a browser: the pure ones
// (www/geo.js, www/page/movement.js's walking and throttle, the words of
// www/page/source.js) under node's test runner, and the typings of every
// page module under tsc, with app.js checked against them.

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPageUnit runs e2e/page_unit.test.mjs under node --test.
func TestPageUnit(t *testing.T) {
	nodeTest(t, "page_unit.test.mjs")
}

// TestPageTypes typechecks the page's typings strictly (www/app.d.ts, geo.d.ts
// and page/*.d.ts), then app.js itself (checkJs) against them: a call of a
// module that its .d.ts does not declare fails here.
func TestPageTypes(t *testing.T) {
	node, mods := lfNode(t), lfModules(t)
	www, err := filepath.Abs(lfWWW)
	if err != nil {
		t.Fatal(err)
	}
	typings, _ := filepath.Glob(filepath.Join(www, "page", "*.d.ts"))
	typings = append(typings, filepath.Join(www, "geo.d.ts"), filepath.Join(www, "app.d.ts"))
	tsc := func(strict bool, files []string) {
		t.Helper()
		tscCheck(t, node, mods, map[string]any{
			"strict": strict, "lib": []string{"es2022", "dom", "dom.iterable"}, "allowJs": true, "checkJs": true,
		}, files)
	}
	tsc(true, typings)
	// app.js has no annotations beyond a few casts: not strict (implicit
	// any allowed), but every module it calls is typed by its .d.ts.
	tsc(false, append([]string{filepath.Join(www, "app.js")}, typings...))
}

// tscCheck runs tsc --noEmit over files with opts on top of ES2022
// modules resolved as bundlers do and no ambient @types.
func tscCheck(t *testing.T, node, mods string, opts map[string]any, files []string) {
	t.Helper()
	co := map[string]any{"noEmit": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "types": []string{}}
	for k, v := range opts {
		co[k] = v
	}
	dir := t.TempDir()
	b, _ := json.Marshal(map[string]any{"compilerOptions": co, "files": files})
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(mods, "typescript/bin/tsc"), "-p", filepath.Join(dir, "tsconfig.json"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("tsc --noEmit %v: %v\n%s", opts, err, out)
	}
}

// nodeTest runs e2e/NAME under node --test beside a copy of www's modules
// (node reads www/*.js as ES modules only under a package.json saying so).
// TestWorkletUnit runs e2e/worklet_unit.test.mjs under node --test: the
// audio thread's queue (www/ambient.worklet.js).
func TestWorkletUnit(t *testing.T) {
	nodeTest(t, "worklet_unit.test.mjs")
}

func nodeTest(t *testing.T, name string) {
	t.Helper()
	node := lfNode(t)
	dir := t.TempDir()
	err := filepath.WalkDir(lfWWW, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		rel, err := filepath.Rel(lfWWW, p)
		if err == nil {
			lfCopy(t, p, filepath.Join(dir, "www", rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	lfCopy(t, name, filepath.Join(dir, "e2e", name))
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--test", "e2e/"+name)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --test %s: %v\n%s", name, err, out)
	}
}
