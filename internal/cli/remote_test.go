package cli

import (
	"encoding/binary"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"acambient/internal/testkit/acdatsvc"
	"acambient/server"
)

// ourDemoServer serves the demo world as `serve` does, behind wrap; *n
// counts the requests that reach it.
func ourDemoServer(t *testing.T, wrap func(http.Handler) http.Handler, n *atomic.Int64) *httptest.Server {
	t.Helper()
	d, err := (&DataFlags{}).Open()
	if err != nil {
		t.Fatal(err)
	}
	h := server.New(server.Options{Portal: d.Portal, Cell: d.Cell, Name: d.Name, CORS: "*", Log: log.New(io.Discard, "", 0)})
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		wrap(h).ServeHTTP(w, r)
	})
	s := httptest.NewServer(counted)
	t.Cleanup(s.Close)
	return s
}

// acdatDemoServer serves the demo world as acdatservice would: every record
// over 16 bytes that zlib shrinks is stored, and so served, compressed.
func acdatDemoServer(t *testing.T) (*httptest.Server, *acdatsvc.Server, acdatsvc.Dat) {
	t.Helper()
	w, err := DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	all := func(uint32, []byte) bool { return true }
	portal := acdatsvc.Store(w.Portal, all)
	emu := acdatsvc.New(portal, acdatsvc.Store(w.Cell, all))
	s := httptest.NewServer(emu)
	t.Cleanup(s.Close)
	return s, emu, portal
}

// firstFails503 fails each path's first request with a 503: a network blip
// that the source's retries must hide.
func firstFails503() func(http.Handler) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			first := !seen[r.URL.Path]
			seen[r.URL.Path] = true
			mu.Unlock()
			if first {
				http.Error(w, "blip", http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func identity(h http.Handler) http.Handler { return h }

// The reading commands give the same bytes over -server as from the demo
// world in memory: through our server (its own routes and its acdatservice
// ones), through it with every record's first request failing, and through
// an acdatservice emulation that stores records compressed.
func TestCommandsOverServer(t *testing.T) {
	var oursHits, blipHits, routeHits atomic.Int64
	ours := ourDemoServer(t, identity, &oursHits)
	oursACDatRoutes := ourDemoServer(t, identity, &routeHits)
	blip := ourDemoServer(t, firstFails503(), &blipHits)
	acdat, emu, portal := acdatDemoServer(t)

	forest := posOf(landmark(t, "forest"))
	commands := [][]string{
		{"gather", "-player", forest},
		{"gather", "-player", posOf(landmark(t, "meadow"))},
		{"trace", "-player", forest, "-seconds", "20", "-seed", "7"},
		{"inspect", "ls", "-db", "cell", "-prefix", "0xA9B4"},
		{"inspect", "ls", "-db", "portal"},
		{"inspect", "region", "0x13000000"},
	}
	for _, args := range commands {
		want, errs, code := runCmd(t, args...)
		if code != 0 || want == "" {
			t.Fatalf("%v locally: exit %d: %s", args, code, errs)
		}
		for _, via := range []struct {
			name  string
			flags []string
		}{
			{"ours", []string{"-server", ours.URL}},
			{"ours with a 503 before every record", []string{"-server", blip.URL, "-api", "ours"}},
			{"acdatservice", []string{"-server", acdat.URL + "/", "-api", "acdatservice"}},
			{"our server's acdatservice routes", []string{"-server", oursACDatRoutes.URL, "-api", "acdatservice"}},
		} {
			got, errs, code := runCmd(t, append(append([]string{}, args...), via.flags...)...)
			if code != 0 {
				t.Fatalf("%v via %s: exit %d: %s", args, via.name, code, errs)
			}
			if got != want {
				t.Errorf("%v via %s: output differs from the local run\n got: %.300s\nwant: %.300s", args, via.name, got, want)
			}
		}
	}

	// Each run went over HTTP, and the blips happened (the blip server saw
	// the same runs plus one failed request per path).
	if oursHits.Load() == 0 || routeHits.Load() == 0 || blipHits.Load() <= oursHits.Load() {
		t.Fatalf("requests: %d to our server, %d to its acdatservice routes, %d to the blip server (want more)", oursHits.Load(), routeHits.Load(), blipHits.Load())
	}
	// The acdatservice run really inflated: the region and the forest's
	// waves were served compressed.
	compressed := 0
	for id, b := range portal {
		// Store leaves a record as it is unless it compresses it.
		if binary.LittleEndian.Uint32(b) != id && emu.Hits("/dats/portal/files/"+jsonHex(id)) > 0 {
			compressed++
		}
	}
	if compressed == 0 {
		t.Fatal("no compressed record was served to the acdatservice run")
	}
}

func TestServerFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gather", "-player", "@100,100,0", "-server", "ftp://x"}, "want an http:// or https:// URL"},
		{[]string{"gather", "-player", "@100,100,0", "-server", "http://x", "-api", "s3"}, `-api "s3": want ours or acdatservice`},
		{[]string{"gather", "-player", "@100,100,0", "-api", "acdatservice"}, "-api needs -server"},
		{[]string{"gather", "-player", "@100,100,0", "-server", "http://x", "-dats", "d"}, "not both"},
	} {
		_, errs, code := runCmd(t, tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error naming %q", tc.args, code, errs, tc.want)
		}
	}
}
