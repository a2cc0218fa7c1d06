package server

import (
	"context"
	"encoding/binary"
	"runtime"
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

// copying is a dat-like source: every Get returns fresh bytes, as a dat
// file's does, made from id (its DID, then filler) to size bytes.
type copying struct {
	size int
	ids  []uint32
}

func (c *copying) Get(_ context.Context, id uint32) ([]byte, error) {
	b := make([]byte, c.size)
	binary.LittleEndian.PutUint32(b, id)
	return b, nil
}

func (c *copying) IDs(context.Context) ([]uint32, error) { return c.ids, nil }

// The portal and the cell source share one cache, and a portal record and a
// cell record of the same id are kept apart.
func TestServeCacheSharedBetweenSources(t *testing.T) {
	w := testWorld(t)
	const id = 0x0A000101 // a wave in the portal; made a cell record below
	cellRec := append(le32(id), "a cell record with a wave's id"...)
	portal := &counting{Lister: datfetch.NewMemory(w.portal)}
	cell := &counting{Lister: datfetch.NewMemory(map[uint32][]byte{id: cellRec})}
	h, _ := newTestHandler(t, Options{Portal: portal, Cell: cell})
	if h.portal.cache == nil || h.portal.cache != h.cell.cache {
		t.Fatal("the sources do not share one cache")
	}
	for range 3 {
		if got := body(t, do(h, "GET", "/files/0x0A000101")); got != string(w.portal[id]) {
			t.Fatalf("portal answer of %d bytes, want the wave's %d", len(got), len(w.portal[id]))
		}
		if got := body(t, do(h, "GET", "/cell/files/0x0A000101")); got != string(cellRec) {
			t.Fatalf("cell answer %q, want %q", got, cellRec)
		}
	}
	// One id, one slot: the two evict each other, so each read every time.
	if p, c := portal.gets.Load(), cell.gets.Load(); p != 3 || c != 3 {
		t.Errorf("source reads portal %d, cell %d; want 3 each", p, c)
	}
}

// A cached landblock costs what it holds: its 256-byte allocation, the
// 48-byte cachedRecord, the 24 of its ETag, and the cache's 32-byte slot
// and 20 of map: 380 bytes, not 252.
func TestServeCacheCountsWhatItHolds(t *testing.T) {
	src := &copying{size: 252}
	h, _ := newTestHandler(t, Options{Cell: src})
	if r := do(h, "GET", "/cell/files/0xA9B4FFFF"); r.StatusCode != 200 {
		t.Fatal(r.Status)
	}
	if got := h.cell.cache.Bytes(); got != 380 {
		t.Errorf("one cached landblock counts %d bytes, want 380", got)
	}
}

// With the cache full, the heap the server holds is what the cache counts,
// within 10%: -cache N means about N MiB.
func TestServeCacheBytesIsTheHeap(t *testing.T) {
	const max = 8 << 20
	src := &copying{size: 252}
	base := heapAfterGC()
	h, _ := newTestHandler(t, Options{Cell: src, CacheBytes: max})
	for i := range uint32(50_000) { // ~2.3 times what fits
		id := (0x0101+i/13)<<16 | 0xFFFF
		if i%13 != 0 {
			id = (0x0101+i/13)<<16 | (0x0100 + i%13)
		}
		if r := do(h, "GET", "/cell/files/0x"+hex8(id)); r.StatusCode != 200 {
			t.Fatalf("%08X: %s", id, r.Status)
		}
	}
	grew := heapAfterGC() - base
	b := h.cell.cache.Bytes()
	if b > max || b < max-1024 {
		t.Errorf("cache counts %d bytes, want just under %d", b, max)
	}
	if d := float64(grew)/float64(b) - 1; d < -0.1 || d > 0.1 {
		t.Errorf("the heap grew %d bytes, the cache counts %d (%+.0f%%)", grew, b, 100*d)
	}
	runtime.KeepAlive(h)
}

func heapAfterGC() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
