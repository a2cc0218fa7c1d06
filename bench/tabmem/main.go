// Command tabmem measures what a browser tab's memory does when a server
// lies: it serves a 500 MB "wave" for every record id (chunked, or with
// its Content-Length), loads a page whose wasm (page/main.go) reads n of
// them at once through datfetch's HTTP source over fetch, as the page's
// loader does, in headless Chromium (node + playwright-core, installed as
// e2e installs it), and reports the wasm's linear memory (which never
// shrinks: what the tab keeps), the JS heap (performance.memory) and the
// renderer's peak RSS, before and after, the source's own count of what it
// held (HTTP.Stats' InFlightPeak) and the errors Get returned.
//
//	go run ./bench/tabmem                # this tree's datfetch
//	go run ./bench/tabmem -base main     # datfetch as of a git ref, for comparison
//
// A measurement, not a test: the figures go in reports.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"acambient/internal/testkit/browser"
)

const (
	playwrightVersion = "1.65.1" // what e2e uses
	hugeWave          = 500_000_000
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tabmem:", err)
		os.Exit(1)
	}
}

type tabCase struct {
	Mode string `json:"mode"`
	N    int    `json:"n"`
}

func run() error {
	base := flag.String("base", "", "build the page against datfetch as of this git ref (default: the working tree)")
	ns := flag.String("n", "1,8", "comma-separated counts of waves read at once")
	modes := flag.String("modes", "chunked,length", "chunked (no Content-Length) and/or length (Content-Length: 500000000)")
	flag.Parse()

	chromium, pwDir, err := browser.Chromium(playwrightVersion)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "acambient-tabmem-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	wasm := filepath.Join(dir, "page.wasm")
	if err := buildPage(*base, dir, wasm); err != nil {
		return err
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	ls := &liar{}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(pageHTML))
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	})
	mux.HandleFunc("/page.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		http.ServeFile(w, r, wasm)
	})
	mux.HandleFunc("/chunked/files/", func(w http.ResponseWriter, r *http.Request) { ls.send(w, false) })
	mux.HandleFunc("/length/files/", func(w http.ResponseWriter, r *http.Request) { ls.send(w, true) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	var cases []tabCase
	for _, m := range strings.Split(*modes, ",") {
		for _, s := range strings.Split(*ns, ",") {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > 64 {
				return fmt.Errorf("-n %q: want counts from 1 to 64", s)
			}
			cases = append(cases, tabCase{m, n})
		}
	}
	casesJSON, _ := json.Marshal(cases)
	drive := exec.Command("node", filepath.Join(sourceDir(), "drive.mjs"), pwDir, chromium, "http://"+ln.Addr().String(), string(casesJSON))
	drive.Stderr = os.Stderr
	out, err := drive.Output()
	if err != nil {
		return fmt.Errorf("drive.mjs: %w", err)
	}
	return report(*base, out, ls.sent.Load())
}

// liar answers every record id with hugeWave bytes that start like the
// record, counting what the connections took.
type liar struct{ sent atomic.Int64 }

func (l *liar) send(w http.ResponseWriter, withLength bool) {
	if withLength {
		w.Header().Set("Content-Length", strconv.Itoa(hugeWave))
	}
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 64<<10)
	for sent := 0; sent < hugeWave; {
		n, err := w.Write(buf[:min(len(buf), hugeWave-sent)])
		sent += n
		l.sent.Add(int64(n))
		if err != nil {
			return
		}
	}
}

const pageHTML = `<!doctype html>
<meta charset="utf-8">
<title>tabmem</title>
<script src="/wasm_exec.js"></script>
<script>
window.sample = () => ({
  wasmMemory: window.inst ? window.inst.exports.mem.buffer.byteLength : 0,
  jsHeapUsed: performance.memory.usedJSHeapSize,
  jsHeapTotal: performance.memory.totalJSHeapSize,
});
window.done = (r) => { window.result = r; };
(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("/page.wasm"), go.importObject);
  window.inst = instance;
  window.before = window.sample();
  go.run(instance);
})();
</script>
`

type tabResult struct {
	tabCase
	Before struct {
		WasmMemory, JSHeapUsed, RendererHWM int64
	}
	After struct {
		WasmMemory, JSHeapUsed, RendererHWM int64
		Result                              struct {
			Errors             []string
			Ms                 int64
			GoSys, GoHeapInuse int64
			InFlightPeak       int64
		}
	}
	ConsoleErrors []string
}

func report(base string, out []byte, sent int64) error {
	var rs []tabResult
	if err := json.Unmarshal(out, &rs); err != nil {
		return fmt.Errorf("drive.mjs's output: %w\n%s", err, out)
	}
	what := "this tree's datfetch"
	if base != "" {
		what = "datfetch as of " + base
	}
	fmt.Printf("tabmem: %s; a %d-byte \"wave\" for every id; MiB\n", what, hugeWave)
	fmt.Printf("%-8s %3s  %14s  %12s  %16s  %8s  %9s  %7s  %s\n", "mode", "n", "wasm mem", "JS heap", "renderer VmHWM", "Go Sys", "held peak", "ms", "first error")
	mib := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
	for _, r := range rs {
		first := ""
		failed := 0
		for _, e := range r.After.Result.Errors {
			if e != "" {
				failed++
				if first == "" {
					first = e
				}
			}
		}
		peak := "-"
		if r.After.Result.InFlightPeak >= 0 {
			peak = mib(r.After.Result.InFlightPeak)
		}
		fmt.Printf("%-8s %3d  %6s → %-6s  %5s → %-5s  %7s → %-7s  %8s  %9s  %7d  %d/%d failed: %s\n", r.Mode, r.N,
			mib(r.Before.WasmMemory), mib(r.After.WasmMemory), mib(r.Before.JSHeapUsed), mib(r.After.JSHeapUsed),
			mib(r.Before.RendererHWM), mib(r.After.RendererHWM), mib(r.After.Result.GoSys), peak, r.After.Result.Ms, failed, r.N, first)
		for _, e := range r.ConsoleErrors {
			fmt.Printf("    console: %s\n", e)
		}
	}
	fmt.Printf("the connections took %s MiB of body in all\n", mib(sent))
	return nil
}

// buildPage builds page/main.go for GOOS=js into out, against this tree or
// (base set) the tree of git ref base, unpacked into dir.
func buildPage(base, dir, out string) error {
	src, err := repoRoot()
	if err != nil {
		return err
	}
	if base != "" {
		tree := filepath.Join(dir, "src")
		if err := os.MkdirAll(tree, 0o755); err != nil {
			return err
		}
		archive := exec.Command("git", "-C", src, "archive", base)
		untar := exec.Command("tar", "-x", "-C", tree)
		pipe, err := archive.StdoutPipe()
		if err != nil {
			return err
		}
		untar.Stdin = pipe
		if err := untar.Start(); err != nil {
			return err
		}
		if err := archive.Run(); err != nil {
			return fmt.Errorf("git archive %s: %w", base, err)
		}
		if err := untar.Wait(); err != nil {
			return fmt.Errorf("unpacking %s: %w", base, err)
		}
		page, err := os.ReadFile(filepath.Join(src, "bench", "tabmem", "page", "main.go"))
		if err != nil {
			return err
		}
		pageDir := filepath.Join(tree, "bench", "tabmem", "page")
		if err := os.MkdirAll(pageDir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pageDir, "main.go"), page, 0o644); err != nil {
			return err
		}
		src = tree
	}
	build := exec.Command("go", "build", "-o", out, "./bench/tabmem/page")
	build.Dir = src
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the page: %w\n%s", err, b)
	}
	return nil
}

func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(b)) == "" {
		return "", errors.New("run inside the module (go env GOMOD is empty)")
	}
	return filepath.Dir(strings.TrimSpace(string(b))), nil
}

// sourceDir is this command's folder, where drive.mjs is.
func sourceDir() string {
	root, err := repoRoot()
	if err != nil {
		return "."
	}
	return filepath.Join(root, "bench", "tabmem")
}
