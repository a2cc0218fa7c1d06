package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"acambient/datfetch/source"
	"acambient/server"
)

// TestPageWasmWrongType: a host that sends the wasm without its type (as
// application/octet-stream: a static host that does not know .wasm). The
// page's streaming compile refuses it (ambient.js compileHere), and so
// does the worker's; the worker compiles it from its bytes, and the river
// is heard as anywhere else, with nothing in the console.
func TestPageWasmWrongType(t *testing.T) { pageTest(t, pageWasmWrongType) }

func pageWasmWrongType(t *testing.T, spec browserSpec) {
	www, w := site(t)
	page := server.New(server.Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www})
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			asked.Add(1)
			rw = untyped{rw}
		}
		page.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)

	pos, _ := landmark(t, "river")
	b := pageOpen(t, spec, srv.URL, pos, true)
	b.waitFor(`window.__pt.stats && window.__pt.stats.nonzero > 48000`, 20*time.Second)
	if asked.Load() == 0 {
		t.Fatal("the wasm was never asked for")
	}
	lfNoErrors(t, b)
}

// untyped sends an answer as application/octet-stream, whatever its type.
type untyped struct{ http.ResponseWriter }

func (u untyped) WriteHeader(code int) {
	u.Header().Set("Content-Type", "application/octet-stream")
	u.ResponseWriter.WriteHeader(code)
}

func (u untyped) Write(b []byte) (int, error) {
	if u.Header().Get("Content-Type") != "application/octet-stream" {
		u.WriteHeader(http.StatusOK)
	}
	return u.ResponseWriter.Write(b)
}
