package server

import (
	"context"
	"sync/atomic"
	"testing"

	"acambient/datfetch"
)

// counting is a dat-like source (not a Memory) that counts reads.
type counting struct {
	datfetch.Lister
	gets atomic.Int64
}

func (c *counting) Get(ctx context.Context, id uint32) ([]byte, error) {
	c.gets.Add(1)
	return c.Lister.Get(ctx, id)
}

func TestServeCachesDatRecords(t *testing.T) {
	w := testWorld(t)
	for _, tc := range []struct {
		name      string
		cache     int64
		wantReads int64
	}{
		{"default cache", 0, 1},
		{"cache off", -1, 5},
	} {
		src := &counting{Lister: datfetch.NewMemory(w.portal)}
		h, _ := newTestHandler(t, Options{Portal: src, CacheBytes: tc.cache})
		for range 5 {
			r := do(h, "GET", "/files/0x0A000101")
			if got := body(t, r); r.StatusCode != 200 || got != string(w.portal[0x0A000101]) || r.Header.Get("ETag") != bytesETag(w.portal[0x0A000101]) {
				t.Fatalf("%s: %d, %d bytes, ETag %s", tc.name, r.StatusCode, len(got), r.Header.Get("ETag"))
			}
		}
		if n := src.gets.Load(); n != tc.wantReads {
			t.Errorf("%s: %d source reads for 5 requests, want %d", tc.name, n, tc.wantReads)
		}
		// Not-found answers are not cached: the source is asked each time.
		before := src.gets.Load()
		do(h, "GET", "/files/0x0A000404")
		do(h, "GET", "/files/0x0A000404")
		if n := src.gets.Load() - before; n != 2 {
			t.Errorf("%s: %d reads for two 404s, want 2", tc.name, n)
		}
	}
}
