package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"acambient/datfetch/source"
)

// Regression tests for issue 8: what many concurrent or odd requests may cost.

// gatedSource is a dat-like Lister (not source.Memory, which the server
// reads without sharing) whose Get counts calls and blocks until released.
type gatedSource struct {
	rec   []byte
	gate  chan struct{}
	calls atomic.Int32
}

func (s *gatedSource) Get(ctx context.Context, id uint32) ([]byte, error) {
	s.calls.Add(1)
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if id != binary.LittleEndian.Uint32(s.rec) {
		return nil, source.NotFound(id)
	}
	return s.rec, nil
}

func (s *gatedSource) IDs(context.Context) ([]uint32, error) {
	return []uint32{binary.LittleEndian.Uint32(s.rec)}, nil
}

// 50 concurrent cold requests for one record make one read of the source,
// and all get the record (issue 8 item 1: each made its own).
func TestConcurrentRequestsShareOneRead(t *testing.T) {
	rec := binary.LittleEndian.AppendUint32(nil, 0x0A000001)
	rec = append(rec, strings.Repeat("w", 1000)...)
	src := &gatedSource{rec: rec, gate: make(chan struct{})}
	h := New(Options{Portal: src})
	srv := httptest.NewServer(h)
	defer srv.Close()
	release := sync.OnceFunc(func() { close(src.gate) })
	defer release() // a failed wait must not leave the requests hanging

	const n = 50
	var wg sync.WaitGroup
	codes := make(chan int, n)
	for range n {
		wg.Go(func() {
			resp, err := http.Get(srv.URL + "/files/0x0A000001")
			if err != nil {
				codes <- -1
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if len(b) != len(rec) {
				codes <- -2
				return
			}
			codes <- resp.StatusCode
		})
	}
	// Let the first read finish only once all n requests wait on it: one
	// that came after it would find the record cached and prove nothing.
	waitUntil(t, func() bool { return h.portal.reads.Waiting(0x0A000001) == n })
	release()
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Fatalf("a request got %d", c)
		}
	}
	if c := src.calls.Load(); c != 1 {
		t.Errorf("%d concurrent requests made %d reads of the source, want 1", n, c)
	}
}

// fileInfo is a FileInfo of a given size and time.
type fileInfo struct {
	size int64
	mod  time.Time
}

func (f fileInfo) Name() string       { return "big.wasm" }
func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) Mode() fs.FileMode  { return 0o644 }
func (f fileInfo) ModTime() time.Time { return f.mod }
func (f fileInfo) IsDir() bool        { return false }
func (f fileInfo) Sys() any           { return nil }

// gatedFile is an open file whose reads wait for a gate and are counted.
type gatedFile struct {
	r     io.Reader
	gate  chan struct{}
	reads *atomic.Int32
	once  sync.Once
}

func (f *gatedFile) Read(p []byte) (int, error) {
	f.once.Do(func() { f.reads.Add(1); <-f.gate })
	return f.r.Read(p)
}

// Concurrent first requests for one version of a www file share one read
// and one payload, so one gzip (issue 8 item 3: 30 cold requests for a
// 31 MB file reached 1.87 GB).
func TestStaticColdRequestsShareOneRead(t *testing.T) {
	s := newStatic(t.TempDir())
	body := strings.Repeat("(module)", 1<<12)
	st := fileInfo{size: int64(len(body)), mod: time.Unix(1700000000, 0)}
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	defer release() // a failed wait must not leave the readers hanging
	var reads atomic.Int32
	const n = 20
	got := make(chan *payload, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			f := &gatedFile{r: strings.NewReader(body), gate: gate, reads: &reads}
			p, err := s.cached(context.Background(), "big.wasm", f, st)
			if err != nil {
				t.Error(err)
			}
			got <- p
		})
	}
	// The read is let go only once the other n-1 wait on it.
	waitUntil(t, func() bool { return s.waiting("big.wasm") == n-1 })
	release()
	wg.Wait()
	close(got)
	var first *payload
	for p := range got {
		if first == nil {
			first = p
		}
		if p != first || string(p.b) != body {
			t.Fatal("requests got different payloads")
		}
	}
	if r := reads.Load(); r != 1 {
		t.Errorf("%d cold requests read the file %d times, want 1", n, r)
	}
	// A new version is read again.
	st.mod = st.mod.Add(time.Second)
	p, err := s.cached(context.Background(), "big.wasm", strings.NewReader(body), st)
	if err != nil || p == first {
		t.Errorf("new version: same payload %v, %v", p == first, err)
	}
}

// A waiter whose client leaves stops waiting for the read.
func TestStaticWaiterLeaves(t *testing.T) {
	s := newStatic(t.TempDir())
	st := fileInfo{size: 4, mod: time.Unix(1700000000, 0)}
	gate := make(chan struct{})
	var reads atomic.Int32
	go s.cached(context.Background(), "a.js", &gatedFile{r: strings.NewReader("abcd"), gate: gate, reads: &reads}, st)
	waitUntil(t, func() bool { return reads.Load() == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.cached(ctx, "a.js", strings.NewReader("abcd"), st); err != context.Canceled {
		t.Errorf("waiter with a cancelled context: %v", err)
	}
	close(gate)
}

// rawRequest sends req on a fresh connection to addr and returns the
// status line of the answer.
func rawRequest(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(hangGuard))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	return strings.TrimSpace(line)
}

// serveLoopback runs h through NewHTTPServer (and a LimitListener of max)
// on a loopback port until the test ends.
func serveLoopback(t *testing.T, h http.Handler, max int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(h, DefaultLimits(), nil)
	go srv.Serve(LimitListener(ln, max))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// "OPTIONS *" is a method other than GET and HEAD: 405, as the README
// promises (net/http's own answer is 200).
func TestOptionsStar(t *testing.T) {
	addr := serveLoopback(t, New(Options{}), 0)
	if got := rawRequest(t, addr, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"); got != "HTTP/1.1 405 Method Not Allowed" {
		t.Errorf("OPTIONS *: %q, want 405", got)
	}
	if got := rawRequest(t, addr, "OPTIONS /files HTTP/1.1\r\nHost: x\r\n\r\n"); got != "HTTP/1.1 405 Method Not Allowed" {
		t.Errorf("OPTIONS /files: %q, want 405", got)
	}
}

// Past the connection cap a client is answered 503 at once rather than left
// waiting for a slot; a freed slot serves again.
func TestConnectionCap(t *testing.T) {
	addr := serveLoopback(t, New(Options{}), 2)
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// The two held connections are accepted before the third: a request
	// on each proves it.
	for _, c := range held {
		c.SetDeadline(time.Now().Add(hangGuard))
		io.WriteString(c, "HEAD /files HTTP/1.1\r\nHost: x\r\n\r\n")
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
			t.Fatalf("held connection: %q, %v", line, err)
		}
	}
	// The third is answered while both held connections stay open and
	// idle: no slot was freed, so the answer did not wait for one (a
	// listener that waits for a slot, as x/net's does, leaves this request
	// unanswered until hangGuard fails it).
	got := rawRequest(t, addr, "GET /files HTTP/1.1\r\nHost: x\r\n\r\n")
	if got != "HTTP/1.1 503 Service Unavailable" {
		t.Fatalf("third connection: %q, want 503", got)
	}
	held[0].Close()
	waitUntil(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(hangGuard))
		io.WriteString(c, "HEAD /files HTTP/1.1\r\nHost: x\r\n\r\n")
		line, _ := bufio.NewReader(c).ReadString('\n')
		return strings.Contains(line, "200")
	})
	held[1].Close()
	if len(overloadAnswer) != strings.Index(overloadAnswer, "\r\n\r\n")+4+34 {
		t.Errorf("overloadAnswer's Content-Length does not match its body")
	}
}
