package e2e

import (
	"net/http/httptest"
	"testing"
	"time"

	"acambient/datfetch"
	"acambient/server"
)

// TestPageEarlyRequests: the page asks for the region, the landblock
// listing and the opening spot's ring while the wasm downloads, and the
// wasm takes every one of those answers instead of asking again
// (www/ambient.js EarlyFetches, datfetch.FetchEarly): opened at a link's
// spot, and with no link at the demo's default spot (the river), which the
// page reads from the region's name. The server sees no record twice.
func TestPageEarlyRequests(t *testing.T) {
	forEngines(t, leafletEngines, pageEarlyRequests)
}

func pageEarlyRequests(t *testing.T, spec browserSpec) {
	www, w := site(t)
	for _, tc := range []struct{ name, hash, at string }{
		{"default spot", "", "0xA9B5002D"},
		{"link's objcell", "#0xA9B5002D/120,96,22.85", "0xA9B5002D"},
		{"link's map coordinates", "#42.1N,33.6E", "0xA9B40019"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &seenLog{}
			srv := httptest.NewServer(log.wrap(server.New(server.Options{
				Portal: datfetch.NewMemory(w.Portal), Cell: datfetch.NewMemory(w.Cell), Name: "demo world", WWW: www,
			})))
			t.Cleanup(srv.Close)
			b := lfLaunch(t, spec) // a fresh browser: a cold cache, so every record reaches the server
			b.do("goto", "url", srv.URL+"/"+tc.hash)
			b.waitFor(`window.ambient && typeof window.ambient.started === "function"`, 60*time.Second)
			b.eval(nil, `(() => { window.__started = false; window.ambient.started().then(() => { window.__started = true; }); })()`)
			b.waitFor(`window.__started === true`, 60*time.Second)
			var got struct {
				Early struct{ Fetched, Taken, Dropped int }
				Where string
			}
			b.eval(&got, `({ early: window.ambient.stats().early, where: window.ambient.state().where.objcellId })`)
			if got.Where != tc.at {
				t.Fatalf("the page stands at %s; want %s", got.Where, tc.at)
			}
			// The region, the listing and the nine landblocks of the ring.
			if e := got.Early; e.Fetched != 11 || e.Taken != e.Fetched || e.Dropped != 0 {
				t.Errorf("early requests: %d made, %d taken by the wasm, %d dropped; want 11, all taken", e.Fetched, e.Taken, e.Dropped)
			}
			log.quiet(t, 2*time.Second, 60*time.Second)
			asked := map[string]int{}
			for _, r := range log.take() {
				if isRecord(r.path) || r.path == "/cell/files/landblocks.txt" {
					if asked[r.path]++; asked[r.path] == 2 {
						t.Errorf("%s reached the server twice", r.path)
					}
				}
			}
			if asked["/files/0x13000000"] != 1 || asked["/cell/files/landblocks.txt"] != 1 {
				t.Errorf("the server saw the region %d times and the listing %d; want once each", asked["/files/0x13000000"], asked["/cell/files/landblocks.txt"])
			}
			b.do("goto", "url", "about:blank")
		})
	}
}
