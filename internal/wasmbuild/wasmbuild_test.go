package wasmbuild

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWasmStale(t *testing.T) {
	base := time.Now().Add(-time.Hour)
	at := func(d time.Duration) time.Time { return base.Add(d) }
	type file struct {
		name string
		age  time.Duration // modification time = base + age
	}
	src := []file{{"go.mod", 0}, {"main.go", 0}, {"core/ambient/engine.go", 0}, {"wasm/main.go", 0}}
	built := []file{{"www/ambient.wasm", 10 * time.Minute}, {"www/wasm_exec.js", 10 * time.Minute}}
	for _, tc := range []struct {
		name  string
		files []file
		stale bool
		why   string
	}{
		{"no wasm main", []file{{"go.mod", 0}, {"main.go", 0}}, false, "no wasm main"},
		{"only a test in wasm/", []file{{"go.mod", 0}, {"wasm/x_test.go", 0}}, false, "no wasm main"},
		{"never built", src, true, "www/ambient.wasm is missing"},
		{"up to date", append(src, built...), false, "up to date"},
		{"glue missing", append(src, file{"www/ambient.wasm", 10 * time.Minute}), true, "www/wasm_exec.js is missing"},
		{"a package changed", append(append(src, built...), file{"core/ambient/engine.go", 20 * time.Minute}), true, "core/ambient/engine.go is newer"},
		{"the wasm main changed", append(append(src, built...), file{"wasm/main.go", 11 * time.Minute}), true, "wasm/main.go is newer"},
		{"go.sum changed", append(append(src, built...), file{"go.sum", 30 * time.Minute}), true, "go.sum is newer"},
		// What the go command ignores, and the output folder, do not count.
		{"ignored folders", append(append(src, built...),
			file{"www/page.go", 30 * time.Minute}, file{".git/hook.go", 30 * time.Minute},
			file{"_old/x.go", 30 * time.Minute}, file{"core/testdata/x.go", 30 * time.Minute},
			file{"README.md", 30 * time.Minute}), false, "up to date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(f.name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte("package x\n"), 0o644)
			}
			// Times last: later entries of the list win, as an edit would.
			for _, f := range tc.files {
				os.Chtimes(filepath.Join(dir, filepath.FromSlash(f.name)), at(f.age), at(f.age))
			}
			stale, why, err := WasmBuild{Module: dir, WWW: filepath.Join(dir, "www")}.Stale()
			if err != nil {
				t.Fatal(err)
			}
			if stale != tc.stale || !strings.Contains(why, tc.why) {
				t.Fatalf("Stale() = %v %q, want %v %q", stale, why, tc.stale, tc.why)
			}
		})
	}
}

func TestWasmEnsureNoMain(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644)
	var logs []string
	err := WasmBuild{Module: dir, WWW: filepath.Join(dir, "www"), Go: "/nonexistent/go"}.Ensure(context.Background(), func(f string, a ...any) {
		logs = append(logs, f)
	})
	if err != nil || len(logs) != 1 || !strings.Contains(logs[0], "not building") {
		t.Fatalf("Ensure without a wasm main: %v %q", err, logs)
	}
	if _, err := os.Stat(filepath.Join(dir, "www")); err == nil {
		t.Fatal("Ensure made www/ with nothing to build")
	}
}

// TestWasmBuild runs the real build of a one-line wasm main.
func TestWasmBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles for js/wasm")
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no go command on PATH: the wasm build goes untested")
		}
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n\ngo 1.22\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "wasm"), 0o755)
	os.WriteFile(filepath.Join(dir, "wasm", "main.go"), []byte("package main\n\nfunc main() { println(\"ambient\") }\n"), 0o644)
	b := WasmBuild{Module: dir, WWW: filepath.Join(dir, "www"), Go: gocmd}
	var logs []string
	logf := func(f string, a ...any) { logs = append(logs, f) }
	if err := b.Ensure(context.Background(), logf); err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(filepath.Join(dir, "www", "ambient.wasm"))
	if err != nil || !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Fatalf("ambient.wasm: %v, starts %q", err, wasm[:min(8, len(wasm))])
	}
	glue, err := os.ReadFile(filepath.Join(dir, "www", "wasm_exec.js"))
	if err != nil || !bytes.Contains(glue, []byte("globalThis.Go = class")) {
		t.Fatalf("wasm_exec.js: %v", err)
	}
	if stale, why, _ := b.Stale(); stale {
		t.Fatalf("stale right after the build: %s", why)
	}
	if _, err := os.Stat(filepath.Join(dir, "www", ".ambient.wasm.tmp")); err == nil {
		t.Fatal("the temporary output was left behind")
	}
	// A broken main is an error carrying the compiler's message.
	os.WriteFile(filepath.Join(dir, "wasm", "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644)
	err = b.Build(context.Background())
	if err == nil || !strings.Contains(err.Error(), "undefinedThing") {
		t.Fatalf("broken build: %v", err)
	}
}
