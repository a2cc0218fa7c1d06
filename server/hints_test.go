package server

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"acambient/core/demo"
	"acambient/core/hints"
	"acambient/datfetch/source"
)

// countingCell counts the landblock reads (nine per hint computed).
type countingCell struct {
	source.Lister
	reads atomic.Int32
}

func (c *countingCell) Get(ctx context.Context, id uint32) ([]byte, error) {
	c.reads.Add(1)
	return c.Lister.Get(ctx, id)
}

// TestServeHints: /hints/0xXXYYFFFF is core/hints' hint of the records
// served, as JSON, with the records' cache headers (immutable, a strong
// ETag, a 304 for it, CORS when asked) and computed once: a second request
// reads no record. A landblock the source lacks is a 404; an id that is no
// landblock's, or no id, a 400; a source with no region, 404 (a page there
// has nothing to open either).
func TestServeHints(t *testing.T) {
	dw, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	cell := &countingCell{Lister: source.NewMemory(dw.Cell)}
	h, _ := newTestHandler(t, Options{Portal: source.NewMemory(dw.Portal), Cell: cell, CORS: "*"})
	m, err := hints.New(context.Background(), source.NewMemory(dw.Portal), source.NewMemory(dw.Cell), false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Landblock(context.Background(), 0xA9B5FFFF)
	if err != nil {
		t.Fatal(err)
	}

	r := do(h, "GET", "/hints/0xA9B5FFFF")
	got := body(t, r)
	if r.StatusCode != http.StatusOK || got != string(want.JSON()) {
		t.Fatalf("GET /hints/0xA9B5FFFF: %d %s; want 200 %s", r.StatusCode, got, want.JSON())
	}
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Cache-Control": recordCacheControl, "X-Content-Type-Options": "nosniff",
		"Access-Control-Allow-Origin": "*", "ETag": bytesETag(want.JSON()),
	} {
		if r.Header.Get(k) != v {
			t.Errorf("%s: %q; want %q", k, r.Header.Get(k), v)
		}
	}
	reads := cell.reads.Load()
	if reads != 9 {
		t.Errorf("the hint read %d landblocks; want its ring's 9", reads)
	}
	if r := do(h, "GET", "/hints/0xa9b5ffff", "If-None-Match", bytesETag(want.JSON())); r.StatusCode != http.StatusNotModified {
		t.Errorf("a known ETag: %d; want 304", r.StatusCode)
	}
	if cell.reads.Load() != reads {
		t.Errorf("asked again, the hint read %d more landblocks; want it kept", cell.reads.Load()-reads)
	}
	if r := do(h, "HEAD", "/hints/0xA9B5FFFF"); r.StatusCode != http.StatusOK || body(t, r) != "" {
		t.Errorf("HEAD: %d", r.StatusCode)
	}

	for target, code := range map[string]int{
		"/hints/0x0101FFFF":  http.StatusNotFound,   // no such landblock in the demo
		"/hints/0xA9B5002D":  http.StatusBadRequest, // a land cell, not a landblock
		"/hints/river":       http.StatusBadRequest,
		"/hints/0x1A9B5FFFF": http.StatusBadRequest, // more than 32 bits
		"/hints/":            http.StatusBadRequest,
	} {
		if r := do(h, "GET", target); r.StatusCode != code {
			t.Errorf("GET %s: %d; want %d", target, r.StatusCode, code)
		}
	}
	empty, _ := newTestHandler(t, Options{Portal: source.NewMemory(nil), Cell: source.NewMemory(dw.Cell)})
	if r := do(empty, "GET", "/hints/0xA9B5FFFF"); r.StatusCode != http.StatusNotFound {
		t.Errorf("no region: %d; want 404", r.StatusCode)
	}
	if r := do(h, "GET", "/dats/cell/files/hints/0xA9B5FFFF"); r.StatusCode == http.StatusOK {
		t.Error("acdatservice's routes answer a hint; they have none")
	}
}
