// Command build is the one wasm build recipe (issue 7): build.sh runs it,
// and `serve` and `export` run the same code (wasmbuild.WasmBuild) when the
// wasm is stale. It builds ./wasm into WWW/ambient.wasm and copies the
// toolchain's wasm_exec.js beside it.
//
//	go run ./wasm/build [-www DIR]
package main

import (
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"acambient/internal/wasmbuild"
)

func main() {
	www := flag.String("www", "www", "folder to write ambient.wasm and wasm_exec.js to")
	flag.Parse()
	module, err := os.Getwd()
	if err == nil {
		module, err = findModule(module)
	}
	if err == nil {
		fmt.Printf("+ %s\n", wasmbuild.WasmBuildCommand)
		err = wasmbuild.WasmBuild{Module: module, WWW: *www}.Build(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	raw, gz, err := sizes(filepath.Join(*www, "ambient.wasm"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	fmt.Printf("build: %s/ambient.wasm %d bytes (%d gzipped), wasm_exec.js from %s\n", *www, raw, gz, runtime.Version())
}

// findModule walks up from dir to the folder holding go.mod.
func findModule(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// sizes is the file's size and its size gzipped at the best level.
func sizes(path string) (raw, gz int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var c counter
	zw, _ := gzip.NewWriterLevel(&c, gzip.BestCompression)
	raw, err = io.Copy(zw, f)
	if err == nil {
		err = zw.Close()
	}
	return raw, c.n, err
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
