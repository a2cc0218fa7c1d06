package cli

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"runtime"

	"acambient/internal/wasmbuild"
)

// EnsureWasm builds the page's wasm when stale. A failed build is logged
// loudly but does not stop the server: the records are still worth serving.
func EnsureWasm(ctx context.Context, www string, logger *log.Logger) {
	module := ModuleDir()
	if module == "" {
		logger.Printf("wasm: not building: the module's source folder is not found")
		return
	}
	b := wasmbuild.WasmBuild{Module: module, WWW: www}
	if err := b.Ensure(ctx, logger.Printf); err != nil {
		logger.Printf("wasm: BUILD FAILED, serving the files www already holds: %v", err)
		return
	}
	go func() {
		if err := b.Precompress(logger.Printf); err != nil {
			logger.Printf("wasm: brotli: %v (clients get gzip)", err)
		}
	}()
}

// ModuleDir is the folder holding this module's go.mod: the nearest above
// where this file was compiled from (`go run .` keeps the path), else the
// working folder. "" when neither has go.mod above it (an installed binary
// run elsewhere).
func ModuleDir() string {
	var dirs []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dirs = append(dirs, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	for _, d := range dirs {
		for ; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				return d
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return ""
}

// DefaultWWW is www next to the source, so `go run .` from anywhere serves the page.
func DefaultWWW() string {
	if m := ModuleDir(); m != "" {
		return filepath.Join(m, "www")
	}
	return "www"
}
