//go:build !js

package datfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/datfetch/source"
)

// recordServer serves recs under /files/ and counts requests per path.
type recordServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newRecordServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) *recordServer {
	t.Helper()
	s := &recordServer{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		n := s.hits[r.URL.Path]
		s.mu.Unlock()
		h(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *recordServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func fast(o HTTPOptions) HTTPOptions {
	if o.Backoff == 0 {
		o.Backoff = time.Millisecond
	}
	return o
}

func TestHTTPRetriesThen503ThenSuccess(t *testing.T) {
	want := rec(0x0A000002, 7046+12+18)
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write(want)
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	got, err := h.Get(context.Background(), 0x0A000002)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
	if n := s.count("/files/0x0A000002"); n != 3 {
		t.Fatalf("requests = %d, want 3 (two 503s then 200)", n)
	}
}

func TestHTTPGivesUpAfterRetries(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Error(w, "down", http.StatusBadGateway)
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{Retries: 2}))
	_, err := h.Get(context.Background(), 0x13000000)
	if err == nil || !strings.Contains(err.Error(), "giving up after 3 attempts") || !strings.Contains(err.Error(), "502") {
		t.Fatalf("err = %v, want giving up after 3 attempts naming 502", err)
	}
	checkClass(t, err, ErrNetwork)
	if n := s.count("/files/0x13000000"); n != 3 {
		t.Fatalf("requests = %d, want 3", n)
	}
}

func TestHTTPNoRetry(t *testing.T) {
	for _, tc := range []struct {
		status   int
		notFound bool
	}{
		{http.StatusNotFound, true},
		{http.StatusBadRequest, false},
		{http.StatusForbidden, false},
		{http.StatusGone, false},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				http.Error(w, http.StatusText(tc.status), tc.status)
			})
			h := NewHTTP(s.URL+"/files", fast(HTTPOptions{})) // no trailing slash: added
			_, err := h.Get(context.Background(), 0x20000012)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.notFound {
				checkClass(t, err, source.ErrNotFound)
			} else {
				checkClass(t, err, ErrNetwork)
			}
			url := s.URL + "/files/0x20000012"
			if !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), fmt.Sprint(tc.status)) {
				t.Fatalf("err %q does not name %s and %d", err, url, tc.status)
			}
			if n := s.count("/files/0x20000012"); n != 1 {
				t.Fatalf("requests = %d, want 1", n)
			}
		})
	}
}

func TestHTTPRetriesNetworkErrors(t *testing.T) {
	want := rec(0xA9B4FFFF, 252)
	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"closed", func(w http.ResponseWriter) {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}},
		{"truncated", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "252")
			w.Write(want[:100])
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					tc.fail(w)
					return
				}
				w.Write(want)
			})
			h := NewHTTP(s.URL+"/cell/files/", fast(HTTPOptions{}))
			got, err := h.Get(context.Background(), 0xA9B4FFFF)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, want the 252-byte landblock", len(got))
			}
			if n := s.count("/cell/files/0xA9B4FFFF"); n != 2 {
				t.Fatalf("requests = %d, want 2", n)
			}
		})
	}
}

func TestHTTPRetryAfter(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write(rec(0x13000000, 8))
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	waits := recordWaits(h)
	if _, err := h.Get(context.Background(), 0x13000000); err != nil {
		t.Fatal(err)
	}
	// The 1 ms backoff alone would retry at once; Retry-After: 1 holds it a second.
	if len(*waits) != 1 || (*waits)[0] != time.Second {
		t.Fatalf("retried after waiting %v, want [1s] from Retry-After", *waits)
	}
}

// recordWaits makes h's retries record the waits they ask for and go on at
// once.
func recordWaits(h *HTTP) *[]time.Duration {
	var waits []time.Duration
	h.wait = func(_ context.Context, d time.Duration, _ error) error {
		waits = append(waits, d)
		return nil
	}
	return &waits
}

func TestHTTPOneRequestForManyCallers(t *testing.T) {
	const callers = 100
	want := rec(0x0A000393, 4096)
	release := make(chan struct{})
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		<-release
		w.Write(want)
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			got, err := h.Get(context.Background(), 0x0A000393)
			if err == nil && !bytes.Equal(got, want) {
				err = errors.New("wrong bytes")
			}
			errs <- err
		})
	}
	// Hold the answer until every caller waits on the one flight.
	waitFor(t, func() bool { return h.flights.Waiters(0x0A000393) == callers })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.count("/files/0x0A000393"); n != 1 {
		t.Fatalf("requests = %d for %d callers, want 1", n, callers)
	}
}

func TestHTTPCache(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		var id uint32
		fmt.Sscanf(r.URL.Path, "/files/0x%X", &id)
		w.Write(rec(id, 100))
	})
	ctx := context.Background()
	// What a 100-byte record costs the cache depends on the buffer it was
	// read into; size the cache for two of them.
	probe := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	if _, err := probe.Get(ctx, 0x0A0000FF); err != nil {
		t.Fatal(err)
	}
	per := probe.cache.Bytes()
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{CacheBytes: 2*per + per/2}))
	get := func(id uint32) {
		t.Helper()
		if _, err := h.Get(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	get(0x0A000001)
	get(0x0A000001)
	if n := s.count("/files/0x0A000001"); n != 1 {
		t.Fatalf("second Get made a request: %d requests", n)
	}
	get(0x0A000002)
	get(0x0A000001) // A is now the most recent; B the least
	get(0x0A000003) // three do not fit: B goes
	if got := h.cache.Bytes(); got != 2*per {
		t.Fatalf("cache holds %d bytes, want %d", got, 2*per)
	}
	get(0x0A000001)
	get(0x0A000002)
	if a, b := s.count("/files/0x0A000001"), s.count("/files/0x0A000002"); a != 1 || b != 2 {
		t.Fatalf("requests A=%d B=%d, want A=1 (kept) B=2 (evicted)", a, b)
	}

	off := NewHTTP(s.URL+"/files/", fast(HTTPOptions{CacheBytes: -1}))
	off.Get(ctx, 0x0A000009)
	off.Get(ctx, 0x0A000009)
	if n := s.count("/files/0x0A000009"); n != 2 {
		t.Fatalf("cache disabled: %d requests, want 2", n)
	}
}

func TestHTTPContextCancel(t *testing.T) {
	aborted := make(chan struct{})
	var once sync.Once
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		<-r.Context().Done()
		once.Do(func() { close(aborted) })
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	// The caller's deadline, not the 15 s idle timeout, ends the wait for
	// an answer that never comes.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var err error
	within(t, func() { _, err = h.Get(ctx, 0x13000000) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	checkClass(t, err, context.DeadlineExceeded)
	// The last waiter gone, the request itself is abandoned.
	within(t, func() { <-aborted })
}

func TestHTTPContextCancelDuringBackoff(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	h := NewHTTP(s.URL+"/files/", HTTPOptions{Backoff: time.Hour})
	for _, tc := range []struct {
		name string
		get  func(ctx context.Context) error
		want string
	}{
		{"Get", func(ctx context.Context) error { _, err := h.Get(ctx, 0x13000000); return err }, "0x13000000"},
		// The retry loop itself says what it was waiting out.
		{"fetch", func(ctx context.Context) error {
			_, _, err := h.fetch(ctx, s.URL+"/files/0x13000000", 100, false)
			return err
		}, "last attempt: " + s.URL + "/files/0x13000000: status 503"},
	} {
		// The hour's backoff is cut short by the deadline: the guard
		// fails a source that sleeps through it.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		var err error
		within(t, func() { err = tc.get(ctx) })
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: err = %v, want DeadlineExceeded naming %q", tc.name, err, tc.want)
		}
	}
}

func TestHTTPCancelledCallerLeavesOthers(t *testing.T) {
	want := rec(0x20000001, 64)
	release := make(chan struct{})
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		<-release
		w.Write(want)
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := h.Get(ctx, 0x20000001); first <- err }()
	waitFor(t, func() bool { return s.count("/files/0x20000001") == 1 })
	second := make(chan []byte, 1)
	go func() { b, _ := h.Get(context.Background(), 0x20000001); second <- b }()
	waitFor(t, func() bool { return h.flights.Waiters(0x20000001) == 2 })
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller: %v, want Canceled", err)
	}
	close(release)
	if b := <-second; !bytes.Equal(b, want) {
		t.Fatalf("second caller got %d bytes, want the record", len(b))
	}
	if n := s.count("/files/0x20000001"); n != 1 {
		t.Fatalf("requests = %d, want 1", n)
	}
}

func TestHTTPDIDMismatch(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Write(rec(0x0A000003, 32))
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	_, err := h.Get(context.Background(), 0x0A000002)
	if err == nil || !strings.Contains(err.Error(), "0x0A000002: record starts with DID 0x0A000003") {
		t.Fatalf("err = %v, want DID mismatch", err)
	}
	checkClass(t, err, ErrBadRecord)
	if n := s.count("/files/0x0A000002"); n != 1 {
		t.Fatalf("requests = %d, want 1 (bad data is not retried)", n)
	}
	if _, ok := h.cache.Get(0x0A000002); ok {
		t.Fatal("a mismatched record was cached")
	}
}

func TestHTTPBodyLimit(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				b := rec(0x0A000002, 100)
				if chunked {
					w.Write(b[:50])
					w.(http.Flusher).Flush()
					w.Write(b[50:])
					return
				}
				w.Write(b)
			})
			h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{MaxRecordBytes: 64}))
			_, err := h.Get(context.Background(), 0x0A000002)
			want := "a body of 100 bytes (Content-Length) exceeds the 64-byte cap"
			if chunked {
				want = "the body runs past the 64-byte cap: reading stopped at 65 bytes"
			}
			if err == nil || !strings.Contains(err.Error(), "record 0x0A000002: "+s.URL+"/files/0x0A000002: "+want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
			checkClass(t, err, ErrTooLarge)
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Limit != 64 || (tl.Size == 100) == chunked {
				t.Fatalf("TooLargeError %+v, want limit 64, size 100 or (chunked) -1", tl)
			}
			if n := s.count("/files/0x0A000002"); n != 1 {
				t.Fatalf("requests = %d, want 1", n)
			}
		})
	}
	// Exactly at the limit is fine.
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write(rec(0x0A000002, 64)) })
	if _, err := NewHTTP(s.URL+"/files/", HTTPOptions{MaxRecordBytes: 64}).Get(context.Background(), 0x0A000002); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPIDs(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/files":
			fmt.Fprint(w, "0x0A000002\n0x13000000\n0x20000012\n")
		case "/static/files/index.txt": // a static export: no bare listing route
			fmt.Fprint(w, "0xA9B4FFFF\n\n2847997951\n0xa9b4fffe\n")
		case "/listing/files": // a file server's folder page
			fmt.Fprint(w, "<!doctype html>\n<pre><a href=\"0x0A000002\">0x0A000002</a></pre>")
		case "/listing/files/index.txt":
			fmt.Fprint(w, "0x0A000002\n")
		case "/s3/files": // a bucket that may not be listed
			http.Error(w, "AccessDenied", http.StatusForbidden)
		case "/s3/files/index.txt":
			fmt.Fprint(w, "0x13000000\n")
		case "/bad/files":
			fmt.Fprint(w, "0x0A000002\nzzz\n")
		default:
			http.NotFound(w, r)
		}
	})
	ctx := context.Background()
	for _, tc := range []struct {
		base string
		want []uint32
		err  string
	}{
		{"/files/", []uint32{0x0A000002, 0x13000000, 0x20000012}, ""},
		{"/static/files/", []uint32{0xA9B4FFFE, 0xA9B4FFFF, 0xA9C0FFFF}, ""},
		{"/listing/files/", []uint32{0x0A000002}, ""},
		{"/s3/files/", []uint32{0x13000000}, ""},
		{"/bad/files/", nil, `line 2: record id "zzz"`},
		{"/none/files/", nil, "/none/files/index.txt: 404"},
	} {
		ids, err := NewHTTP(s.URL+tc.base, fast(HTTPOptions{})).IDs(ctx)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.base, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
			t.Errorf("%s: ids = %X, want %X", tc.base, ids, tc.want)
		}
	}
}

func TestHTTPRetryAfterTooLong(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{}))
	waits := recordWaits(h)
	_, err := h.Get(context.Background(), 0x13000000)
	if err == nil || !strings.Contains(err.Error(), "retry after 1h0m0s, more than the 1m0s waited") {
		t.Fatalf("err = %v, want the hour refused", err)
	}
	checkClass(t, err, ErrNetwork)
	if len(*waits) != 0 {
		t.Fatalf("waited %v before giving up, want no wait", *waits)
	}
	if n := s.count("/files/0x13000000"); n != 1 {
		t.Fatalf("requests = %d, want 1", n)
	}
}

// A chain of redirects longer than maxRedirects is refused at once, not
// followed 10 times per attempt and retried.
func TestHTTPRedirectChain(t *testing.T) {
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/files/0x13000000" {
			w.Write(rec(0x13000000, 8))
			return
		}
		var hop int
		fmt.Sscanf(r.URL.Path, "/hop%d/", &hop)
		http.Redirect(w, r, fmt.Sprintf("/hop%d/files/0x13000000", hop+1), http.StatusFound)
	})
	// Two hops to the record are fine...
	s2 := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/a/files/0x13000000":
			http.Redirect(w, r, "/b/files/0x13000000", http.StatusMovedPermanently)
		case "/b/files/0x13000000":
			http.Redirect(w, r, "/files/0x13000000", http.StatusFound)
		default:
			w.Write(rec(0x13000000, 8))
		}
	})
	if _, err := NewHTTP(s2.URL+"/a/files/", fast(HTTPOptions{})).Get(context.Background(), 0x13000000); err != nil {
		t.Fatal(err)
	}
	// ...an endless chain is not.
	_, err := NewHTTP(s.URL+"/hop0/files/", fast(HTTPOptions{})).Get(context.Background(), 0x13000000)
	if err == nil || !strings.Contains(err.Error(), "redirect loop: more than 5 redirects") || !errors.Is(err, ErrPermanent) {
		t.Fatalf("err = %v, want more than 5 redirects, permanent", err)
	}
	checkClass(t, err, ErrRedirectLoop)
	total := 0
	for i := range 20 {
		total += s.count(fmt.Sprintf("/hop%d/files/0x13000000", i))
	}
	if total != maxRedirects+1 {
		t.Fatalf("%d requests, want %d (one attempt, no retries)", total, maxRedirects+1)
	}
}
