package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"acambient/core/hints"
	"acambient/datfetch/source"
	"acambient/server"
)

// TestPageEarlyRequests: the page asks for the region, the landblock
// listing and the opening spot's ring while the wasm downloads, and the
// wasm takes every one of those answers instead of asking again
// (www/ambient.js EarlyFetches, datfetch.FetchEarly): opened at a link's
// spot, and with no link at the demo's default spot (the river), which the
// page reads from the region's name. The page also asks, at once, for the
// spot's landblock's hint (/hints/0xXXYYFFFF, core/hints), and then for the
// SoundTables it lists and the first wave it names at the spot: the wasm
// takes each of those too, so none is dropped when the first sound comes
// (a wrong first wave would be: the session would not have asked for it
// before). The server sees no record twice, and the hint once. A hint
// that is not there (404) or not one (a 200 of something else) asks
// nothing more: the early requests are those of a page without hints.
func TestPageEarlyRequests(t *testing.T) {
	forEngines(t, leafletEngines, pageEarlyRequests)
}

func pageEarlyRequests(t *testing.T, spec browserSpec) {
	www, w := site(t)
	m, err := hints.New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, hash, at string
		x, y           float32 // the spot in its landblock
		badHint        string  // "": the server's hints; else what /hints/ answers instead, 200 ("404": a 404)
	}{
		{"default spot", "", "0xA9B5002D", 120, 96, ""},
		{"link's objcell", "#0xA9B5002D/120,96,22.85", "0xA9B5002D", 120, 96, ""},
		{"link's map coordinates", "#42.1N,33.6E", "0xA9B40019", 84, 12, ""},
		{"no hint", "", "0xA9B5002D", 120, 96, "404"},
		{"a hint that is none", "", "0xA9B5002D", 120, 96, `{"tables":"0x20000101","waves":[7],"vertices":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var block uint32
			fmt.Sscanf(tc.at, "0x%08X", &block)
			hint, err := m.Landblock(context.Background(), block|0xFFFF)
			if err != nil {
				t.Fatal(err)
			}
			first := hint.First(tc.x, tc.y)
			if first == 0 {
				t.Fatalf("the hint names no first wave at %s (%g, %g)", tc.at, tc.x, tc.y)
			}
			log := &seenLog{}
			var h http.Handler = server.New(server.Options{
				Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www,
			})
			if tc.badHint != "" {
				h = badHints(h, tc.badHint)
			}
			srv := httptest.NewServer(log.wrap(h))
			t.Cleanup(srv.Close)
			b := lfLaunch(t, spec) // a fresh browser: a cold cache, so every record reaches the server
			b.do("goto", "url", srv.URL+"/"+tc.hash)
			b.waitFor(`window.ambient && typeof window.ambient.started === "function"`, 60*time.Second)
			b.eval(nil, `(() => { window.__started = false; window.ambient.started().then(() => { window.__started = true; }); })()`)
			b.waitFor(`window.__started === true`, 60*time.Second)
			var got struct {
				Early struct{ Fetched, Taken, Dropped int }
				Where string
				Wave  string // the first wave the wasm asked for
			}
			b.eval(&got, `({ early: window.ambient.stats().early, where: window.ambient.state().where.objcellId,
				wave: window.ambient.stats().early.firstWave })`)
			if tc.badHint != "" {
				if e := got.Early; e.Fetched != 11 || e.Taken != 11 || e.Dropped != 0 {
					t.Errorf("early requests: %d made, %d taken, %d dropped; want the 11 of a page without hints, all taken", e.Fetched, e.Taken, e.Dropped)
				}
				return
			}
			if want := fmt.Sprintf("%s/files/0x%08X", srv.URL, first); got.Wave != want {
				t.Errorf("the wasm asked first for wave %s; the hint names %s", got.Wave, want)
			}
			if got.Where != tc.at {
				t.Fatalf("the page stands at %s; want %s", got.Where, tc.at)
			}
			// The region, the listing, the nine landblocks of the ring, the
			// hint's tables and its first wave.
			want := 11 + len(hint.Tables) + 1
			if e := got.Early; e.Fetched != want || e.Taken != e.Fetched || e.Dropped != 0 {
				t.Errorf("early requests: %d made, %d taken by the wasm, %d dropped; want %d, all taken", e.Fetched, e.Taken, e.Dropped, want)
			}
			log.quiet(t, 2*time.Second, 60*time.Second)
			asked := map[string]int{}
			for _, r := range log.take() {
				if isRecord(r.path) || r.path == "/cell/files/landblocks.txt" || strings.HasPrefix(r.path, "/hints/") {
					if asked[r.path]++; asked[r.path] == 2 {
						t.Errorf("%s reached the server twice", r.path)
					}
				}
			}
			if asked["/files/0x13000000"] != 1 || asked["/cell/files/landblocks.txt"] != 1 {
				t.Errorf("the server saw the region %d times and the listing %d; want once each", asked["/files/0x13000000"], asked["/cell/files/landblocks.txt"])
			}
			if n := asked[fmt.Sprintf("/hints/0x%08X", block|0xFFFF)]; n != 1 {
				t.Errorf("the server saw the hint %d times; want once", n)
			}
			for _, id := range append(hint.Tables, first) {
				if n := asked[fmt.Sprintf("/files/0x%08X", id)]; n != 1 {
					t.Errorf("the server saw 0x%08X %d times; want once", id, n)
				}
			}
			b.do("goto", "url", "about:blank")
		})
	}
}

// badHints answers /hints/ with body (200, JSON) or, for "404", a 404.
func badHints(h http.Handler, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !strings.HasPrefix(r.URL.Path, "/hints/"):
			h.ServeHTTP(w, r)
		case body == "404":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(body))
		}
	})
}
