package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"strconv"
	"testing"

	"acambient/core/dat"
	"acambient/datfetch/datfile"
	"acambient/internal/cli"
	"acambient/internal/testkit/cmdtest"
)

// The README's "record reads in progress hold at most 256 MiB": serve gives
// both dats one budget of that size.
func TestReadmeServeReadBudget(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`record reads in progress hold at most (\d+) MiB`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md no longer says what record reads in progress hold")
	}
	mib, _ := strconv.ParseInt(string(m[1]), 10, 64)
	f, d := serveDemoDats(t)
	f.handler(d, log.New(io.Discard, "", 0))
	portal, ok1 := d.Portal.(*datfile.Dat)
	cell, ok2 := d.Cell.(*datfile.Dat)
	if !ok1 || !ok2 {
		t.Fatalf("-dats opened %T and %T, want dat files", d.Portal, d.Cell)
	}
	b := portal.Budget()
	if b == nil || cell.Budget() != b || b.Max() != mib<<20 {
		t.Errorf("serve's budgets: portal %p, cell %p, of %d bytes; want one of the README's %d MiB", b, cell.Budget(), b.Max(), mib)
	}
}

// The README's first line: `go run .` with no command serves (the demo
// world, here on a port of our choosing): the flags go to serve.
func TestNoCommandServes(t *testing.T) {
	w, err := cli.DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil || !bytes.Contains(readme, []byte("go run .                     # start: serves")) {
		t.Fatalf("README.md no longer starts with `go run .` serving (%v)", err)
	}
	port := cmdtest.FreePort(t)
	// No command: the flags go to serve, which prints its URL and stops on
	// SIGTERM at the test's end (cmdtest checks both).
	served, err := cmdtest.TryCommand(t, "", "-build=false", "-addr", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("no command: %v", err)
	}
	url := served.URL
	if want := fmt.Sprintf("http://127.0.0.1:%d/", port); url != want {
		t.Errorf("no command printed %q, want %q", url, want)
	}
	r, b := cmdtest.GetURL(t, "GET", url+"files/0x13000000")
	if r.StatusCode != 200 || !bytes.Equal(b, w.Portal[dat.RegionID]) {
		t.Errorf("no command: files/0x13000000 answered %d, %d bytes; want the demo region's %d", r.StatusCode, len(b), len(w.Portal[dat.RegionID]))
	}
}
