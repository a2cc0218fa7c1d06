package source

import (
	"runtime"
	"testing"
)

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	// A []byte entry costs its slot (id, links, size, the slice header: 48
	// bytes) and 20 of map, 68; a 100-byte value is allocated as 112.
	if got := EntryOverhead[[]byte](); got != 68 {
		t.Fatalf("EntryOverhead[[]byte] = %d, want 68", got)
	}
	const entry = 112 + 68
	c := NewCache(2*entry+100, ByteLen)
	c.Put(1, make([]byte, 100))
	c.Put(2, make([]byte, 100))
	if _, ok := c.Get(1); !ok { // 1 is now the most recent
		t.Fatal("1 missing")
	}
	c.Put(3, make([]byte, 100)) // 540 > 460: evicts 2, the least recent
	if _, ok := c.Get(2); ok {
		t.Error("2 should have been evicted")
	}
	if _, ok := c.Get(1); !ok {
		t.Error("1 evicted, but it was used more recently than 2")
	}
	if got := c.Bytes(); got != 2*entry {
		t.Errorf("Bytes = %d, want %d", got, 2*entry)
	}
	c.Put(1, make([]byte, 50)) // replacing adjusts the total: 50 → 64
	if got := c.Bytes(); got != entry+64+68 {
		t.Errorf("after replace Bytes = %d, want %d", got, entry+64+68)
	}
	c.Put(9, make([]byte, 400)) // 416 + 68 > 460: not kept
	if _, ok := c.Get(9); ok || c.Bytes() != entry+64+68 || c.Len() != 2 {
		t.Error("an oversized value was cached")
	}
	c.Remove(1) // frees its bytes and its slot; removing again is nothing
	c.Remove(1)
	if _, ok := c.Get(1); ok || c.Bytes() != entry || c.Len() != 1 {
		t.Errorf("after Remove(1): Bytes %d, Len %d; want %d, 1", c.Bytes(), c.Len(), entry)
	}
	c.Put(1, make([]byte, 50))
	// Freed slots are reused: churning through many ids keeps the slice at
	// the most entries held at once.
	for id := range uint32(1000) {
		c.Put(100+id, make([]byte, 100))
	}
	if c.Len() != 2 || len(c.slots) != 3 {
		t.Errorf("after churn: %d entries in %d slots, want 2 in 3 (the head and two)", c.Len(), len(c.slots))
	}
	var off *Cache[[]byte] = NewCache(0, ByteLen)
	off.Put(1, []byte{1})
	off.Remove(1)
	if _, ok := off.Get(1); ok || off != nil {
		t.Error("a zero-size cache cached")
	}
}

// AllocSize is the runtime's own rounding, and its table holds the classes
// the runtime documents at the ends (8 bytes, 32 KiB).
func TestAllocSizeMatchesTheRuntime(t *testing.T) {
	for n := 1; n <= 40<<10; n += 1 + n/64 {
		real := int64(cap(append([]byte(nil), make([]byte, n)...)))
		if got := AllocSize(n); got != real {
			t.Errorf("AllocSize(%d) = %d, the runtime allocates %d", n, got, real)
		}
	}
	for _, tc := range []struct{ n, want int }{{0, 0}, {1, 8}, {100, 112}, {252, 256}, {1000, 1024}, {32 << 10, 32 << 10}, {40000, 40960}} {
		if got := AllocSize(tc.n); got != int64(tc.want) {
			t.Errorf("AllocSize(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// A cache of landblock-sized records stays within its bound by its own
// count at every step, full once past what fits, and counts each entry at
// its allocation plus its bookkeeping (AllocSize, EntryOverhead), no more,
// no less: the oldest went first. What the heap holds for it is
// BenchmarkCacheHeap's figure.
func TestCacheStaysWithinItsBound(t *testing.T) {
	const max = 16 << 20
	entry := AllocSize(252) + EntryOverhead[[]byte]() // 256 + 68
	c := NewCache(max, ByteLen)
	for id := range uint32(200_000) { // ~4 times what fits
		c.Put(id, make([]byte, 252))
		if b := c.Bytes(); b > max || b != int64(c.Len())*entry {
			t.Fatalf("after %d puts: Bytes %d for %d entries of %d; bound %d", id+1, b, c.Len(), entry, max)
		}
	}
	if n := c.Len(); n != max/int(entry) {
		t.Errorf("%d entries held, want the %d that fit", n, max/entry)
	}
	if _, ok := c.Get(200_000 - 1); !ok {
		t.Error("the newest entry is not held")
	}
	if _, ok := c.Get(200_000 - uint32(max/entry) - 1); ok {
		t.Error("an entry older than the bound allows is held")
	}
}

// BenchmarkCacheHeap fills a 16 MiB cache of landblock-sized records four
// times over and reports what the Go heap grew by against what the cache
// counts (heap-B/cache-B, 1.00 when the count is what it costs): the
// runtime's accounting, a figure to read, not a test's bound.
func BenchmarkCacheHeap(b *testing.B) {
	const max = 16 << 20
	var ratio float64
	for b.Loop() {
		base := heapAfterGC()
		c := NewCache(max, ByteLen)
		for id := range uint32(200_000) {
			c.Put(id, make([]byte, 252))
		}
		ratio = float64(heapAfterGC()-base) / float64(c.Bytes())
		runtime.KeepAlive(c)
	}
	b.ReportMetric(ratio, "heap-B/cache-B")
}

func heapAfterGC() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
