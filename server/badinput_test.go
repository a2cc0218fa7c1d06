package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"acambient/datfetch/datfile"
)

func TestTraversal(t *testing.T) {
	// www sits beside a secret; nothing may reach it, however spelled.
	parent := t.TempDir()
	www := filepath.Join(parent, "www")
	os.MkdirAll(filepath.Join(www, "sub"), 0o755)
	os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(www, "sub", "page.js"), []byte("ok"), 0o644)
	if err := os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(www, "link.txt")); err != nil {
		t.Fatal(err)
	}
	h, _ := newTestHandler(t, Options{WWW: www})
	for _, tc := range []struct {
		target string
		status int
	}{
		{"/../secret.txt", 400},
		{"/sub/../../secret.txt", 400},
		{"/%2e%2e/secret.txt", 400},
		{"/%2E%2E/secret.txt", 400},
		{"/sub/%2e%2e/%2e%2e/secret.txt", 400},
		{"/..%2fsecret.txt", 400},
		{"/..%2Fsecret.txt", 400},
		{"/sub%2f..%2f..%2fsecret.txt", 400},
		{"/..%5csecret.txt", 400}, // backslash
		{"/sub/page.js%00.png", 400},
		{"/./sub/page.js", 400},
		{"//secret.txt", 400},
		{"/files/..", 400},
		{"/files/../secret.txt", 400},
		{"/files/%2e%2e%2fsecret.txt", 400},
		{"/files/..%2F..%2Fsecret.txt", 400},
		{"/cell/files/%2F", 400},
		{"/files/0x13000000%2F..", 400},
		{"/link.txt", 404}, // a symlink out of www: os.Root refuses it
		{"/sub/page.js", 200},
	} {
		r := do(h, "GET", tc.target)
		got := body(t, r)
		if r.StatusCode != tc.status {
			t.Errorf("GET %s: %d %q, want %d", tc.target, r.StatusCode, trunc(got), tc.status)
		}
		if strings.Contains(got, "SECRET") {
			t.Errorf("GET %s leaked the file outside www", tc.target)
		}
		if tc.status == 400 && got != "invalid URL path\n" {
			t.Errorf("GET %s: body %q", tc.target, got)
		}
	}
}

// TestTraversalOverTheWire sends raw request lines, which no client library
// would clean, to a real server.
func TestTraversalOverTheWire(t *testing.T) {
	parent := t.TempDir()
	www := filepath.Join(parent, "www")
	os.Mkdir(www, 0o755)
	os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("SECRET"), 0o644)
	h, _ := newTestHandler(t, Options{WWW: www})
	addr := startServer(t, h, DefaultLimits())
	for _, target := range []string{"/../secret.txt", "/%2e%2e/secret.txt", "/files/..%2f..%2fsecret.txt", "/..\\secret.txt", "/%zz"} {
		status, b := rawGet(t, addr, target)
		if status != 400 || strings.Contains(b, "SECRET") {
			t.Errorf("GET %s over the wire: %d %q", target, status, trunc(b))
		}
	}
	// Past MaxHeaderBytes net/http itself refuses the request line.
	status, _ := rawGet(t, addr, "/files/"+strings.Repeat("1", 20<<10))
	if status != 431 {
		t.Errorf("20 KiB request line: %d, want 431", status)
	}
}

func TestSlowClients(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	lim := DefaultLimits()
	lim.ReadHeader = 300 * time.Millisecond
	lim.Read = 300 * time.Millisecond
	addr := startServer(t, h, lim)

	// 50 clients send half a request header and stall.
	const slow = 50
	conns := make([]net.Conn, slow)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /files/0x13000000 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		conns[i] = c
	}
	// A normal client is answered meanwhile.
	client := &http.Client{Timeout: hangGuard}
	resp, err := client.Get("http://" + addr + "/files/0x13000000")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(b, testWorld(t).portal[0x13000000]) {
		t.Fatalf("normal client beside 50 stalled ones: %d, %d bytes", resp.StatusCode, len(b))
	}
	// Every stalled connection is dropped once the configured 300 ms
	// ReadHeaderTimeout passes: reading it ends (EOF, or a 408 then EOF).
	// Without the timeout the server would hold them as long as the
	// client: only hangGuard would end the read.
	guard := time.Now().Add(hangGuard)
	for i, c := range conns {
		c.SetReadDeadline(guard)
		_, err := io.ReadAll(c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("stalled connection %d still open after %v", i, hangGuard)
		}
	}
}

func TestBadDatFiles(t *testing.T) {
	dir := t.TempDir()
	var valid bytes.Buffer
	w := testWorld(t)
	if err := datfile.WriteDat(&valid, datfile.Portal, w.portal); err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 8192)
	for i := range garbage {
		garbage[i] = byte(i*131 + i>>7)
	}
	for name, content := range map[string][]byte{
		"empty.dat":     nil,
		"truncated.dat": valid.Bytes()[:valid.Len()/2],
		"header.dat":    valid.Bytes()[:0x150],
		"garbage.dat":   garbage,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, content, 0o644)
		d, err := datfile.OpenDat(p)
		if err == nil {
			d.Close()
			t.Errorf("%s opened", name)
			continue
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

// TestCorruptDatRecord serves a real dat in which some records' stored
// bytes are damaged: those answer 500 with a log line, the rest 200.
func TestCorruptDatRecord(t *testing.T) {
	w := testWorld(t)
	big := wave(0x0A000888, 3000) // 3 blocks of 1020 bytes: a chain to break
	w.portal[0x0A000888] = big
	var buf bytes.Buffer
	opt := datfile.WriteOptions{DataSet: datfile.Portal, Compress: func(id uint32, b []byte) bool { return id == 0x0A000777 }}
	if err := datfile.WriteDatOptions(&buf, opt, w.portal); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "client_portal.dat")
	os.WriteFile(path, buf.Bytes(), 0o644)
	d, err := datfile.OpenDat(path)
	if err != nil {
		t.Fatal(err)
	}
	entry := func(id uint32) datfile.Entry {
		e, err := d.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	raw := buf.Bytes()
	// The DID of 0x0A000101 (after its block's 4-byte link) no longer matches.
	binary.LittleEndian.PutUint32(raw[entry(0x0A000101).Offset+4:], 0x0A000BAD)
	// 0x0A000888's first link points past the file's end.
	binary.LittleEndian.PutUint32(raw[entry(0x0A000888).Offset:], 0x7FFFFC00)
	// 0x0A000777 is stored compressed; its zlib stream is trashed.
	if e := entry(0x0A000777); !e.Compressed() {
		t.Fatal("0x0A000777 was not stored compressed")
	} else {
		copy(raw[e.Offset+4+4:], bytes.Repeat([]byte{0xFF}, 12))
	}
	d.Close()
	os.WriteFile(path, raw, 0o644)
	d, err = datfile.OpenDat(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	h, logs := newTestHandler(t, Options{Portal: d})
	for _, id := range []uint32{0x0A000101, 0x0A000888, 0x0A000777} {
		before := len(logs.String())
		r := do(h, "GET", fmt.Sprintf("/files/0x%08X", id))
		want := fmt.Sprintf("portal record 0x%08X is unreadable\n", id)
		if got := body(t, r); r.StatusCode != 500 || got != want {
			t.Errorf("0x%08X: %d %q, want 500 %q", id, r.StatusCode, got, want)
		}
		line := logs.String()[before:]
		if !strings.HasPrefix(line, fmt.Sprintf("serve: portal record 0x%08X: ", id)) || strings.Count(line, "\n") != 1 {
			t.Errorf("0x%08X: log %q", id, line)
		}
	}
	for _, id := range []uint32{0x0A000100, 0x0A000102, 0x13000000, 0x20000012, 0x0A000666} {
		r := do(h, "GET", fmt.Sprintf("/files/0x%08X", id))
		if got := body(t, r); r.StatusCode != 200 || got != string(w.portal[id]) {
			t.Errorf("neighbour 0x%08X: %d, %d bytes", id, r.StatusCode, len(got))
		}
	}
	if r := do(h, "GET", "/files/0x0A000404"); r.StatusCode != 404 {
		t.Errorf("missing: %d", r.StatusCode)
	}
}

// startServer runs h on a loopback port until the test ends.
func startServer(t *testing.T, h http.Handler, lim Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(h, lim, log.New(io.Discard, "", 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, ln, time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// rawGet sends target verbatim and returns the status and body.
func rawGet(t *testing.T, addr, target string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(hangGuard))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", trunc(target), err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// FuzzPath sends arbitrary request targets: no panic, no answer outside the
// known statuses, never the file beside www.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"/", "/files/0x13000000", "/cell/files/123", "/../secret.txt", "/%2e%2e%2fsecret.txt",
		"/dats/portal/files/0x1", "/files/index.txt", "/sub/", "/files//1", "/a/b/c/%00"} {
		f.Add(s)
	}
	parent := f.TempDir()
	www := filepath.Join(parent, "www")
	os.MkdirAll(filepath.Join(www, "sub"), 0o755)
	os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("SECRET"), 0o644)
	os.WriteFile(filepath.Join(www, "sub", "index.html"), []byte("<p>sub</p>"), 0o644)
	h, _ := newTestHandler(f, Options{WWW: www})
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return // net/http answers 400 before any handler
		}
		r := &http.Request{Method: "GET", URL: u, RequestURI: target, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
		r = r.WithContext(context.Background())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		switch {
		case rec.Code == 200, rec.Code == 301, rec.Code == 400, rec.Code == 404, rec.Code == 414:
		case rec.Code == 405 && target == "*": // the asterisk form asks of the server as a whole (server.go)
		default:
			t.Fatalf("GET %q: status %d", target, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "SECRET") {
			t.Fatalf("GET %q leaked the file beside www", target)
		}
	})
}
