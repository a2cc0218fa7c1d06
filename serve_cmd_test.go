package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"acambient/core/dat"
	"acambient/datfetch/datfile"
	"acambient/internal/cli"
	"acambient/internal/testkit/cmdtest"
)

// `serve -addr` listens there and prints the URL to open: the address as
// given, a wildcard host as localhost. The URL answers the demo world's
// region.
func TestServeAddr(t *testing.T) {
	w, err := cli.DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ addr, url string }{
		{"127.0.0.1:%d", "http://127.0.0.1:%d/"},
		{":%d", "http://localhost:%d/"},
	} {
		var s *cmdtest.Served
		var port int
		for try := 0; s == nil; try++ { // another process may take the port between
			port = cmdtest.FreePort(t)
			if s, err = cmdtest.TryServe(t, "", "-addr", fmt.Sprintf(tc.addr, port)); err != nil && (try == 2 || !strings.Contains(err.Error(), "address already in use")) {
				t.Fatal(err)
			}
		}
		if want := fmt.Sprintf(tc.url, port); s.URL != want {
			t.Errorf("-addr %s printed %q, want %q", fmt.Sprintf(tc.addr, port), s.URL, want)
		}
		r, b := cmdtest.GetURL(t, "GET", s.URL+"files/0x13000000")
		if r.StatusCode != 200 || !bytes.Equal(b, w.Portal[dat.RegionID]) {
			t.Errorf("%sfiles/0x13000000: %d, %d bytes; want the region's %d", s.URL, r.StatusCode, len(b), len(w.Portal[dat.RegionID]))
		}
	}
}

// `-cors` sets Access-Control-Allow-Origin on records, listings (ours and
// acdatservice's) and preflights: * by default, the origin given, or none
// (and then a preflight is a method not allowed).
func TestServeCORS(t *testing.T) {
	paths := []string{"files/0x13000000", "files", "cell/files/index.txt", "dats/portal/files/0x13000000", "dats/cell/files?limit=2"}
	preflight := []string{"Origin", "https://map.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "If-None-Match"}
	for _, tc := range []struct {
		args   []string
		origin string
	}{
		{nil, "*"},
		{[]string{"-cors", "https://map.example"}, "https://map.example"},
		{[]string{"-cors", ""}, ""},
	} {
		s := cmdtest.StartServe(t, "", append([]string{"-addr", "127.0.0.1:0"}, tc.args...)...)
		for _, p := range paths {
			r, _ := cmdtest.GetURL(t, "GET", s.URL+p, "Origin", "https://map.example")
			if r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != tc.origin {
				t.Errorf("serve %v: GET /%s: %d, Access-Control-Allow-Origin %q; want 200, %q", tc.args, p, r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"), tc.origin)
			}
		}
		r, _ := cmdtest.GetURL(t, "OPTIONS", s.URL+"files/0x13000000", preflight...)
		switch {
		case tc.origin == "" && r.StatusCode != 405:
			t.Errorf("serve %v: preflight %d, want 405 (no CORS)", tc.args, r.StatusCode)
		case tc.origin != "" && (r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Origin") != tc.origin ||
			!strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "GET") || r.Header.Get("Access-Control-Allow-Headers") != "If-None-Match"):
			t.Errorf("serve %v: preflight %d %v", tc.args, r.StatusCode, r.Header)
		}
	}
}

// holdConns opens n connections to addr, each shown accepted by an answered
// request, and closes them when the test ends.
func holdConns(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		conns = append(conns, c)
		c.SetDeadline(time.Now().Add(cmdtest.Guard))
		io.WriteString(c, "HEAD /files HTTP/1.1\r\nHost: x\r\n\r\n")
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, " 200 ") {
			t.Fatalf("connection %d: %q, %v", i+1, line, err)
		}
	}
	return conns
}

// refused checks that a new connection to addr is answered 503 with
// Connection: close and then closed by the server.
func refused(t *testing.T, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(cmdtest.Guard))
	io.WriteString(c, "GET /files HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("past the cap: %v", err)
	}
	io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || resp.Header.Get("Connection") != "close" && !resp.Close {
		t.Errorf("past the cap: %d, Connection %q; want 503, close", resp.StatusCode, resp.Header.Get("Connection"))
	}
	// Closed: an end of stream, or a reset when the close found our
	// request unread.
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("past the cap the connection stays open: %d bytes, %v", n, err)
	}
}

// By default serve holds 1000 connections open at once; a new one past
// them is answered 503 and closed, and once one is freed a new one is
// served again.
func TestServeConnectionCap(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 connections")
	}
	s := cmdtest.StartServe(t, "", "-addr", "127.0.0.1:0")
	addr := strings.TrimSuffix(strings.TrimPrefix(s.URL, "http://"), "/")
	conns := holdConns(t, addr, 1000)
	refused(t, addr)
	conns[0].Close()
	deadline := time.Now().Add(cmdtest.Guard)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(cmdtest.Guard))
		io.WriteString(c, "HEAD /files HTTP/1.1\r\nHost: x\r\n\r\n")
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if strings.Contains(line, " 200 ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a freed slot never served again: %q", line)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Under a descriptor limit too low for 1000 connections and the files
// beside them, the cap is half the limit: with 128 descriptors, 64.
func TestServeConnectionCapLowDescriptorLimit(t *testing.T) {
	s := cmdtest.StartServe(t, "ulimit -n 128", "-addr", "127.0.0.1:0")
	addr := strings.TrimSuffix(strings.TrimPrefix(s.URL, "http://"), "/")
	holdConns(t, addr, 64)
	refused(t, addr)
}

// serveDemoDats writes the demo world as dats and opens them as serve's
// data flags would: -cache applies to records read from dat files.
func serveDemoDats(t *testing.T, args ...string) (*serveFlags, *cli.Data) {
	t.Helper()
	dir := t.TempDir()
	if _, errs, code := runCmd(t, "demo", "-out", dir); code != 0 {
		t.Fatalf("demo -out: %d %s", code, errs)
	}
	f, err := parseServeFlags(append([]string{"-dats", dir}, args...))
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.data.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return f, d
}

// `-cache N` bounds the record cache by its own count at N MiB, portal and
// cell together, however much is read: every record of the demo dats
// (4 MiB) through -cache 1 leaves it at 1 MiB, through -cache 0 at none,
// and every answer is the record. (In process: the cache's count is not
// visible over HTTP; serve builds its handler with the same code.)
func TestServeCacheFlag(t *testing.T) {
	w, err := cli.DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag string
		want int64
	}{{"1", 1 << 20}, {"0", 0}} {
		f, d := serveDemoDats(t, "-cache", tc.flag)
		h := f.handler(d, log.New(io.Discard, "", 0))
		total := 0
		for _, db := range []struct {
			route string
			recs  map[uint32][]byte
		}{{"/files/", w.Portal}, {"/cell/files/", w.Cell}} {
			for id, rec := range db.recs {
				req, _ := http.NewRequest("GET", fmt.Sprintf("%s0x%08X", db.route, id), nil)
				rw := &recorder{h: http.Header{}}
				h.ServeHTTP(rw, req)
				if rw.code != 0 && rw.code != 200 || !bytes.Equal(rw.b.Bytes(), rec) {
					t.Fatalf("-cache %s: %s0x%08X: %d, %d bytes; want the record's %d", tc.flag, db.route, id, rw.code, rw.b.Len(), len(rec))
				}
				total += len(rec)
				if got := h.CacheBytes(); got > tc.want {
					t.Fatalf("-cache %s: the cache counts %d bytes, past %d", tc.flag, got, tc.want)
				}
			}
		}
		if got := h.CacheBytes(); got != tc.want || total < 4<<20 {
			t.Errorf("-cache %s: the cache counts %d bytes after %d bytes of records, want %d", tc.flag, got, total, tc.want)
		}
	}
}

// recorder is a ResponseWriter that keeps the answer.
type recorder struct {
	h    http.Header
	code int
	b    bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(p []byte) (int, error) { return r.b.Write(p) }
func (r *recorder) WriteHeader(code int)        { r.code = code }

// serve sets the Go memory limit to the -cache it was given plus the dat
// indexes and 24 MiB of headroom, unless GOMEMLIMIT is set. (In process:
// the limit is the process's own.)
func TestServeMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })

	f, d := serveDemoDats(t, "-cache", "8")
	t.Setenv("GOMEMLIMIT", "")
	f.limitMemory(context.Background(), log.New(io.Discard, "", 0), d)
	index := d.Portal.(*datfile.Dat).IndexBytes() + d.Cell.(*datfile.Dat).IndexBytes()
	if got, want := debug.SetMemoryLimit(-1), int64(8<<20+24<<20)+index; got != want || index == 0 {
		t.Errorf("memory limit %d, want 8 MiB + 24 MiB + the indexes' %d = %d", got, index, want)
	}

	debug.SetMemoryLimit(prev)
	t.Setenv("GOMEMLIMIT", "3GiB")
	f.limitMemory(context.Background(), log.New(io.Discard, "", 0), d)
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("with GOMEMLIMIT set, serve changed the memory limit to %d", got)
	}
}

// `go run . help` lists every command, those the README's table names and
// no other.
func TestHelpListsEveryCommand(t *testing.T) {
	out, errs, code := runCmd(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d: %s", code, errs)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(line) > 2 && line[:2] == "  " && len(f) > 1 {
			listed[f[0]] = true
		}
	}
	readme := readmeCommands(t)
	for _, c := range commands() {
		if !listed[c.Name] || !strings.Contains(out, c.Short) {
			t.Errorf("help does not list %s (%q):\n%s", c.Name, c.Short, out)
		}
		if !readme[c.Name] {
			t.Errorf("the README's command table lacks %s", c.Name)
		}
	}
	for name := range readme {
		if !listed[name] {
			t.Errorf("the README names %s; help does not list it", name)
		}
	}
	if len(listed) != len(commands()) {
		t.Errorf("help lists %d commands, want %d:\n%s", len(listed), len(commands()), out)
	}
}

// readmeCommands are the commands of the README's "Commands" table.
func readmeCommands(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## Commands")
	if i < 0 {
		t.Fatal("README has no Commands section")
	}
	s = s[i:]
	if j := strings.Index(s[1:], "\n## "); j >= 0 {
		s = s[:j+1]
	}
	names := map[string]bool{}
	for _, line := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok := strings.Cut(rest, " "); ok {
				names[strings.TrimSuffix(name, "`")] = true
			} else if name, _, ok := strings.Cut(rest, "`"); ok {
				names[name] = true
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("no commands in the README's table")
	}
	return names
}

// runCmd runs the command line as `go run . args...` would and returns its
// stdout, stderr and exit code.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return cmdtest.Run(t, run, args...)
}

func TestMain(m *testing.M) { cmdtest.Main(m) }
