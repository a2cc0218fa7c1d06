package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goList runs `go list -deps pkg` in the module root with extra environment.
func goList(t *testing.T, pkg string, env ...string) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-deps", pkg)
	cmd.Dir = filepath.Dir(filepath.Dir(file))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// The js build fetches through the browser: net/http would add megabytes
// to every first visit (docs/architecture.md §4.6, "Small wasm").
func TestWasmHasNoNetHTTP(t *testing.T) {
	for _, d := range goList(t, "./wasm", "GOOS=js", "GOARCH=wasm") {
		if d == "net/http" || d == "crypto/tls" {
			t.Errorf("the js build depends on %s", d)
		}
	}
}

// `go run .` must build with only Go installed: oto (cgo on most systems)
// is for the js build alone.
func TestNativeHasNoOto(t *testing.T) {
	for _, d := range goList(t, ".") {
		if strings.Contains(d, "hajimehoshi/oto") || strings.Contains(d, "norunners/vert") {
			t.Errorf("the native command depends on %s", d)
		}
	}
}
