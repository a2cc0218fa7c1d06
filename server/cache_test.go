package server

import (
	"context"
	"sync/atomic"
	"testing"

	"acambient/datfetch"
)

func TestRecordCache(t *testing.T) {
	c := newRecordCache(250)
	rec := func(id uint32, n int) *cachedRecord { return &cachedRecord{id: id, b: make([]byte, n), etag: "e"} }
	c.put(rec(1, 100))
	c.put(rec(2, 100))
	c.get(1)           // 2 is now the least recent
	c.put(rec(3, 100)) // 300 > 250: 2 goes
	c.put(rec(4, 251)) // larger than the whole cache: not kept, nothing evicted
	c.put(rec(1, 50))  // replacing 1 frees its 100 bytes
	for id, want := range map[uint32]bool{1: true, 2: false, 3: true, 4: false} {
		if _, ok := c.get(id); ok != want {
			t.Errorf("record %d cached = %v, want %v", id, ok, want)
		}
	}
	if c.size != 150 || c.order.Len() != 2 || len(c.byID) != 2 {
		t.Errorf("size %d, %d entries, %d ids; want 150, 2, 2", c.size, c.order.Len(), len(c.byID))
	}
	var off *recordCache = newRecordCache(-1)
	off.put(rec(1, 10))
	if _, ok := off.get(1); ok || off != nil {
		t.Error("a disabled cache cached")
	}
}

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
