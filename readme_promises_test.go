package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	cmd := exec.Command(cmdtest.Binary(t), "-build=false", "-addr", fmt.Sprintf("127.0.0.1:%d", port))
	var stderr cmdtest.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	printed := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
				printed <- u
			}
		}
		exited <- cmd.Wait()
	}()
	gone := false // the process exited, and exited was read
	defer func() {
		if gone {
			return
		}
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(cmdtest.Guard):
			cmd.Process.Kill()
			t.Error("no command: did not stop on SIGTERM")
		}
	}()
	var url string
	select {
	case url = <-printed:
	case err := <-exited:
		gone = true
		t.Fatalf("no command: exited (%v) without serving:\n%s", err, stderr.String())
	case <-time.After(cmdtest.Guard):
		t.Fatal("no command: no URL printed")
	}
	if want := fmt.Sprintf("http://127.0.0.1:%d/", port); url != want {
		t.Errorf("no command printed %q, want %q", url, want)
	}
	r, b := cmdtest.GetURL(t, "GET", url+"files/0x13000000")
	if r.StatusCode != 200 || !bytes.Equal(b, w.Portal[dat.RegionID]) {
		t.Errorf("no command: files/0x13000000 answered %d, %d bytes; want the demo region's %d", r.StatusCode, len(b), len(w.Portal[dat.RegionID]))
	}
}
