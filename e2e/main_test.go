package e2e

import (
	"os"
	"testing"
)

// TestMain removes the page that site built (a wasm and its compressed
// copies, ~5 MB a run) once every test is done: a folder per run otherwise
// stays in the temporary directory for good.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}
