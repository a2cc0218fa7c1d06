package e2e

// The HTTP cache on a second visit (issue 18.4): records are immutable and
// served with a year's max-age, and so is every page file index.html names
// by its content (ambient.wasm?v=…, the modules through its import map:
// server/pagever.go), so a returning user's page asks the server for
// index.html alone (revalidated, 304) and none of the rest.

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/datfetch/source"
	"acambient/server"
)

// seen is one request as the server saw it.
type seen struct {
	path        string
	query       string
	conditional bool // it carried If-None-Match or If-Modified-Since
	status      int
	bytes       int
	at          time.Time
}

// seenLog records every request a handler answers.
type seenLog struct {
	mu   sync.Mutex
	reqs []seen
}

func (l *seenLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w, status: 200}
		h.ServeHTTP(cw, r)
		cond := r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""
		l.mu.Lock()
		l.reqs = append(l.reqs, seen{r.URL.Path, r.URL.RawQuery, cond, cw.status, cw.n, time.Now()})
		l.mu.Unlock()
	})
}

// take returns the requests so far and forgets them.
func (l *seenLog) take() []seen {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reqs
	l.reqs = nil
	return r
}

// quiet waits until no request has come for d (the map's tiles go on after
// the ambience has settled), or fails after timeout.
func (l *seenLog) quiet(t *testing.T, d, timeout time.Duration) {
	t.Helper()
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		l.mu.Lock()
		last := time.Time{}
		if n := len(l.reqs); n > 0 {
			last = l.reqs[n-1].at
		}
		l.mu.Unlock()
		if !last.IsZero() && time.Since(last) >= d {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("requests still coming after %v", timeout)
}

// isRecord reports whether path is a record route (/dats/portal/files/0x…,
// /dats/cell/files/0x…), not a listing.
func isRecord(path string) bool {
	i := strings.LastIndex(path, "/files/0x")
	return i >= 0 && !strings.Contains(path[i+len("/files/"):], "/")
}

// isPageFile reports whether path is one of the page's own files (the
// wasm, a module, the style sheet), not a record, a listing or the zones.
func isPageFile(path string) bool {
	for _, ext := range []string{".js", ".wasm", ".css", ".html"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// TestPageWarmVisit opens the demo page at the river, lets it load the ring
// and the map, leaves for about:blank and comes back in the same browser
// (its HTTP cache warm). The first visit fetches the wasm once, by the
// versioned URL index.html preloads it by: the page's compile (ambient.js
// compileHere) fetches the same URL, and gets the preload's download. The second visit loads the same ambience (its
// instances, their waves decoded, started() resolved) while the server sees
// no request for any record the first visit fetched, nor for any page file
// but index.html: the wasm, the modules and the style sheet come from the
// HTTP cache unrevalidated.
func TestPageWarmVisit(t *testing.T) {
	forEngines(t, leafletEngines, pageWarmVisit)
}

func pageWarmVisit(t *testing.T, spec browserSpec) {
	www, w := site(t)
	log := &seenLog{}
	srv := httptest.NewServer(log.wrap(server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www,
	})))
	t.Cleanup(srv.Close)
	b := lfLaunch(t, spec)
	const url = "/#0xA9B5002D/120,96,22.85" // the river
	// Loaded as a listener would hear it: the ring's instances, their
	// waves decoded, nothing pending, and started() resolved.
	const loaded = `window.__started === true && window.ambient.state().loading.pending === 0 &&
		window.ambient.state().sounds.some((s) => s.soundCount > 0) && window.ambient.state().loading.heldBytes > 0`
	visit := func() {
		b.do("goto", "url", srv.URL+url)
		b.waitFor(`window.ambient && typeof window.ambient.started === "function"`, 60*time.Second)
		b.eval(nil, `(() => { window.__started = false; window.ambient.started().then(() => { window.__started = true; }); })()`)
		b.waitFor(loaded, 60*time.Second)
	}

	visit()
	log.quiet(t, 2*time.Second, 60*time.Second)
	cold := log.take()
	records, wasm := 0, 0
	for _, r := range cold {
		if isRecord(r.path) && r.status == 200 {
			records++
		}
		if strings.HasSuffix(r.path, "/ambient.wasm") {
			wasm++
			if !strings.HasPrefix(r.query, "v=") || r.status != 200 || r.bytes == 0 {
				t.Errorf("cold visit: ambient.wasm?%s: status %d, %d bytes; want its versioned URL (?v=…), 200 with its bytes", r.query, r.status, r.bytes)
			}
		}
	}
	if records < 10 || wasm != 1 {
		t.Fatalf("cold visit: %d records and %d wasm requests over the network; want the ring's records (≥ 10) and the wasm once", records, wasm)
	}

	b.do("goto", "url", "about:blank")
	// Leaving aborts what the map still had on its way (tiles asked for
	// after the server fell quiet, on a busy machine): not the page's
	// errors, and those records may come on the second visit.
	lines := b.logs()
	log.take() // what was under way when the page left
	got := map[string]bool{}
	for _, r := range cold { // answered at least 2 s before the page left
		if isRecord(r.path) && r.status == 200 {
			got[r.path] = true
		}
	}
	visit()
	log.quiet(t, 2*time.Second, 60*time.Second)
	warm := log.take()
	index := 0
	for _, r := range warm {
		switch {
		case got[r.path]:
			t.Errorf("warm visit: record %s, fetched on the first, reached the server (status %d, conditional %v); want it from the cache", r.path, r.status, r.conditional)
		case r.path == "/":
			index++
			if !r.conditional || r.status != http.StatusNotModified || r.bytes != 0 {
				t.Errorf("warm visit: index.html asked for with status %d, %d bytes, conditional %v; want a revalidation answered 304", r.status, r.bytes, r.conditional)
			}
		case isPageFile(r.path):
			t.Errorf("warm visit: %s?%s reached the server (status %d, conditional %v); want it from the cache, unrevalidated: index.html names it by its version", r.path, r.query, r.status, r.conditional)
		}
	}
	if index != 1 {
		t.Errorf("warm visit: index.html asked %d times; want once", index)
	}
	var paths []string
	for _, r := range warm {
		paths = append(paths, r.path)
	}
	t.Logf("cold visit: %d requests (%d records); warm visit: %d requests: %v", len(cold), records, len(warm), paths)
	var kept []string // the browser may report those aborts late
	for _, l := range append(lines, b.logs()...) {
		if !(strings.HasPrefix(l, "requestfailed") && strings.Contains(strings.ToUpper(l), "ABORT")) {
			kept = append(kept, l)
		}
	}
	lfNoErrorsIn(t, kept)
}
