package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `npm -out DIR` writes the package of docs/interfaces.md §5 from www's
// modules (here with a stand-in wasm: -build=false; the build is
// internal/wasmbuild/wasmbuild_test.go's), with the -version given or, without one, the
// checkout's.
func TestNPMCommand(t *testing.T) {
	www := t.TempDir()
	for _, f := range []string{"ambient.js", "ambient.d.ts", "ambient.worker.js", "ambient.worklet.js", "leaflet-ambient.js", "leaflet-ambient.d.ts", "geo.js", "geo.d.ts", "map-controls.js", "map-controls.d.ts",
		"walk.js", "walk.d.ts", "ac-ambience.js", "ac-ambience.d.ts", "ambient-wasm.js", "ambient-wasm.d.ts"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "www", f))
		if os.IsNotExist(err) && strings.HasPrefix(f, "geo.") {
			continue // before www/geo.js
		}
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(www, f), b, 0o644)
	}
	os.WriteFile(filepath.Join(www, "ambient.wasm"), []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	os.WriteFile(filepath.Join(www, "wasm_exec.js"), []byte(`globalThis.Go = class {};`), 0o644)

	out := filepath.Join(t.TempDir(), "pkg")
	stdout, stderr, code := runCmd(t, "npm", "-out", out, "-www", www, "-build=false", "-version", "1.2.3")
	if code != 0 || !strings.HasPrefix(stdout, "wrote npm package acambient@1.2.3 to "+out) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var pkg struct {
		Name, Version string
		Files         []string
	}
	b, err := os.ReadFile(filepath.Join(out, "package.json"))
	if err != nil || json.Unmarshal(b, &pkg) != nil {
		t.Fatalf("package.json: %v\n%s", err, b)
	}
	if pkg.Name != "acambient" || pkg.Version != "1.2.3" {
		t.Errorf("package.json: %+v", pkg)
	}
	for _, f := range append(pkg.Files, "README.md") {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	// No -version: the checkout's commit (this test runs in one).
	stdout, stderr, code = runCmd(t, "npm", "-out", out, "-www", www, "-build=false")
	if code != 0 || !regexp.MustCompile(`^wrote npm package acambient@(\d+\.\d+\.\d+|0\.0\.0-\d{14}-[0-9a-f]{12}) `).MatchString(stdout) {
		t.Errorf("no -version: exit %d\n%s%s", code, stdout, stderr)
	}

	// What it refuses: no -out, a version npm would not take, a www without the wasm.
	os.Remove(filepath.Join(www, "ambient.wasm"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"npm"}, "want -out DIR"},
		{[]string{"npm", "-out", out, "-www", www, "-build=false", "-version", "1.2"}, `version "1.2" is not a semantic version`},
		{[]string{"npm", "-out", out, "-www", www, "-build=false", "-version", "1.2.4"}, "ambient-wasm.js names ambient.wasm, which " + www + " lacks"},
	} {
		if _, stderr, code := runCmd(t, c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want an error with %q", c.args, code, stderr, c.want)
		}
	}
}
