// Package wasmbuild is the one recipe that builds www/ambient.wasm (issue
// 7): build.sh runs it through ./wasm/build, and serve, export and npm run
// it when the wasm is stale.
package wasmbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// WasmBuild is the one build of www/ambient.wasm from the module's wasm
// main (build.sh runs it through ./wasm/build; serve and export run it when
// the wasm is stale): WasmBuildCommand, plus wasm_exec.js copied from the Go
// toolchain.
//
// The js build carries no net/http (records come through the browser's
// fetch) and -s -w: the wasm is what every first visit downloads.
type WasmBuild struct {
	Module string // the folder holding go.mod
	WWW    string // where ambient.wasm and wasm_exec.js go
	Go     string // the go command; "" = "go" on PATH
}

// wasmBuildFlags are the go build flags of the js build.
var wasmBuildFlags = []string{"-trimpath", "-ldflags=-s -w"}

// WasmBuildCommand is the build as a shell line, for logs and docs.
const WasmBuildCommand = "GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o www/ambient.wasm ./wasm"

// Stale reports whether the wasm must be built, and why. With no wasm main
// (no non-test .go file in Module/wasm) there is nothing to build. Otherwise
// it is stale when ambient.wasm or wasm_exec.js is missing, or when any .go
// file, go.mod or go.sum of the module is newer than ambient.wasm (the whole
// module, as the wasm main may import any package of it).
func (b WasmBuild) Stale() (stale bool, why string, err error) {
	mains, err := filepath.Glob(filepath.Join(b.Module, "wasm", "*.go"))
	if err != nil {
		return false, "", err
	}
	hasMain := false
	for _, m := range mains {
		if !strings.HasSuffix(m, "_test.go") {
			hasMain = true
		}
	}
	if !hasMain {
		return false, "no wasm main (wasm/*.go) yet", nil
	}
	out, err := os.Stat(filepath.Join(b.WWW, "ambient.wasm"))
	if errors.Is(err, fs.ErrNotExist) {
		return true, "www/ambient.wasm is missing", nil
	}
	if err != nil {
		return false, "", err
	}
	if _, err := os.Stat(filepath.Join(b.WWW, "wasm_exec.js")); errors.Is(err, fs.ErrNotExist) {
		return true, "www/wasm_exec.js is missing", nil
	}
	newer, err := newestSource(b.Module, b.WWW, out.ModTime())
	if err != nil {
		return false, "", err
	}
	if newer != "" {
		return true, newer + " is newer than www/ambient.wasm", nil
	}
	return false, "www/ambient.wasm is up to date", nil
}

// newestSource returns a source file of the module modified after t, or "".
// It skips what the go command skips (folders starting with "." or "_",
// testdata) and the www folder.
func newestSource(module, www string, t time.Time) (string, error) {
	wwwAbs, _ := filepath.Abs(www)
	found := ""
	errFound := errors.New("found")
	err := filepath.WalkDir(module, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != module && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if abs, _ := filepath.Abs(p); abs == wwwAbs {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") && name != "go.mod" && name != "go.sum" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(t) {
			found, _ = filepath.Rel(module, p)
			return errFound
		}
		return nil
	})
	if err != nil && err != errFound {
		return "", err
	}
	return found, nil
}

// Build runs the build: the wasm goes to a temporary file renamed into place,
// so a server answering meanwhile never sends half a module.
func (b WasmBuild) Build(ctx context.Context) error {
	gocmd := b.Go
	if gocmd == "" {
		gocmd = "go"
	}
	if err := os.MkdirAll(b.WWW, 0o755); err != nil {
		return err
	}
	wwwAbs, err := filepath.Abs(b.WWW)
	if err != nil {
		return err
	}
	tmp := filepath.Join(wwwAbs, ".ambient.wasm.tmp")
	defer os.Remove(tmp)
	cmd := exec.CommandContext(ctx, gocmd, append(append([]string{"build"}, wasmBuildFlags...), "-o", tmp, "./wasm")...)
	cmd.Dir = b.Module
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build ./wasm: %v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	if err := os.Rename(tmp, filepath.Join(wwwAbs, "ambient.wasm")); err != nil {
		return err
	}
	return b.copyWasmExec(ctx, gocmd, wwwAbs)
}

// copyWasmExec copies the JS glue matching the toolchain that built the wasm:
// $GOROOT/lib/wasm/wasm_exec.js since Go 1.24, misc/wasm before.
func (b WasmBuild) copyWasmExec(ctx context.Context, gocmd, www string) error {
	cmd := exec.CommandContext(ctx, gocmd, "env", "GOROOT")
	cmd.Dir = b.Module
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, rel := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		src := filepath.Join(goroot, rel)
		if _, err := os.Stat(src); err == nil {
			b, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(www, "wasm_exec.js"), b, 0o644)
		}
	}
	return fmt.Errorf("wasm_exec.js not found under GOROOT %s (lib/wasm or misc/wasm)", goroot)
}

// Ensure builds when Stale says so, reporting what it did through logf.
func (b WasmBuild) Ensure(ctx context.Context, logf func(format string, args ...any)) error {
	stale, why, err := b.Stale()
	if err != nil {
		return fmt.Errorf("wasm staleness check: %w", err)
	}
	if !stale {
		logf("wasm: not building: %s", why)
		return nil
	}
	logf("wasm: building www/ambient.wasm: %s", why)
	start := time.Now()
	if err := b.Build(ctx); err != nil {
		return err
	}
	logf("wasm: built in %v", time.Since(start).Round(time.Millisecond))
	return nil
}

// brotliQuality is the quality of the precompressed wasm: 11, brotli's best,
// takes ~18 s for the 4.6 MB module in pure Go but makes it 0.94 MB, against
// 1.27 MB for gzip -9 (the page's largest download, cached by browsers).
const brotliQuality = 11

// Precompress writes www/ambient.wasm.br when it is missing or older than
// ambient.wasm, for clients that accept br (static.serve sends it). It is
// slow, so serve runs it in the background: until it is written, clients get
// gzip.
func (b WasmBuild) Precompress(logf func(format string, args ...any)) error {
	src := filepath.Join(b.WWW, "ambient.wasm")
	dst := src + ".br"
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if br, err := os.Stat(dst); err == nil && !br.ModTime().Before(st.ModTime()) {
		return nil
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	start := time.Now()
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotliQuality, LGWin: 24})
	w.Write(raw) // a bytes.Buffer does not fail
	if err := w.Close(); err != nil {
		return err
	}
	tmp := filepath.Join(b.WWW, ".ambient.wasm.br.tmp")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	// Stamped with the wasm's own time: the pair is one version, whatever
	// the clock did while compressing.
	if err := os.Chtimes(tmp, st.ModTime(), st.ModTime()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	logf("wasm: www/ambient.wasm.br written (%d bytes from %d, in %v)", buf.Len(), len(raw), time.Since(start).Round(time.Millisecond))
	return nil
}
