// Package acceptance is an outside test suite for the acambient command: it
// builds the binary once, writes a small hand-made world as a real
// client_portal.dat / client_cell_1.dat pair, runs `gather` and `trace` the
// way a user would, and checks the JSON against numbers derived from the
// specs (docs/retail.md, docs/dat-format.md, docs/interfaces.md
// §1.1–§1.3). It never imports the engine packages (core/ambient,
// core/session); only core/dat and datfetch are used, to write the fixtures.
package acceptance

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var (
	binPath    string // the built acambient binary
	portalPath string // fixture client_portal.dat
	cellPath   string // fixture client_cell_1.dat
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "acambient-acceptance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)

	binPath = filepath.Join(dir, "acambient")
	build := exec.Command("go", "build", "-o", binPath, "..")
	build.Stderr = os.Stderr
	build.Stdout = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building acambient:", err)
		return 2
	}
	portalPath = filepath.Join(dir, "client_portal.dat")
	cellPath = filepath.Join(dir, "client_cell_1.dat")
	if err := writeFixtureDats(portalPath, cellPath); err != nil {
		fmt.Fprintln(os.Stderr, "writing fixture dats:", err)
		return 2
	}
	return m.Run()
}

// runCmd runs the binary with the fixture dats and returns stdout.
func runCmd(t *testing.T, sub string, args ...string) []byte {
	t.Helper()
	full := append([]string{sub, "-portal", portalPath, "-cell", cellPath}, args...)
	cmd := exec.Command(binPath, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("acambient %s: %v\nstderr: %s", strings.Join(full, " "), err, stderr.String())
	}
	return stdout.Bytes()
}
