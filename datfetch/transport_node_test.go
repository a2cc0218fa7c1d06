//go:build !js

package datfetch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goTool returns the go command of the toolchain running the tests.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no go command on PATH: %v", err)
		}
		t.Skipf("no go command on PATH: %v", err)
	}
	return p
}

// The browser build must stay free of net/http (docs/architecture.md §4.6: it adds
// megabytes to the wasm).
func TestJSBuildHasNoNetHTTP(t *testing.T) {
	cmd := exec.Command(goTool(t), "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	for _, d := range deps {
		if d == "net/http" || d == "crypto/tls" {
			t.Errorf("GOOS=js datfetch imports %s", d)
		}
	}
}

// TestFetchTransportUnderNode runs the fault table over the fetch transport:
// it serves the faults here, builds this package's tests for GOOS=js and
// runs TestFetchTransport in node through Go's own go_js_wasm_exec, pointed
// at the server. A js test cannot listen, so the server lives on this side.
func TestFetchTransportUnderNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package for wasm and runs node; skipped in -short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no node on PATH: the fetch transport goes untested")
		}
		t.Skip("no node on PATH: the fetch transport is not tested (install nodejs)")
	}
	gobin := goTool(t)
	goroot, err := exec.Command(gobin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	execWrapper := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "go_js_wasm_exec")
	if _, err := os.Stat(execWrapper); err != nil {
		t.Fatalf("go_js_wasm_exec: %v", err)
	}

	bin := filepath.Join(t.TempDir(), "datfetch.test.wasm")
	build := exec.Command(gobin, "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the js tests: %v\n%s", err, out)
	}

	s := newFaultServer(t)
	run := exec.Command(execWrapper, bin, "-test.run", "^TestFetch(Transport|Lengths)$", "-test.v", "-test.timeout", "5m")
	run.Env = append(os.Environ(), faultServerEnv+"="+s.URL)
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("TestFetchTransport under node: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestFetchTransport ") {
		t.Fatalf("TestFetchTransport did not pass under node (skipped?):\n%s", out)
	}
	t.Logf("under node:\n%s", out)
}
