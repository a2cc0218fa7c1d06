package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
)

// counting is a dat-like source (not a Memory) that counts reads.
type counting struct {
	source.Lister
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
		src := &counting{Lister: source.NewMemory(w.portal)}
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
	portal := &counting{Lister: source.NewMemory(w.portal)}
	cell := &counting{Lister: source.NewMemory(map[uint32][]byte{id: cellRec})}
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
	// Keyed by source and id, both stay: one read each.
	if p, c := portal.gets.Load(), cell.gets.Load(); p != 1 || c != 1 {
		t.Errorf("source reads portal %d, cell %d; want 1 each", p, c)
	}
}

// The cache counts what it holds: of the default 64 MiB, 8 shards of a
// 7 MiB arena and a 1 MiB table, each taken at its first record.
func TestServeCacheCountsWhatItHolds(t *testing.T) {
	src := &copying{size: 252}
	h, _ := newTestHandler(t, Options{Cell: src})
	if got := h.cell.cache.Bytes(); got != 0 {
		t.Errorf("an unused cache counts %d bytes, want 0", got)
	}
	if r := do(h, "GET", "/cell/files/0xA9B4FFFF"); r.StatusCode != 200 {
		t.Fatal(r.Status)
	}
	if got, want := h.cell.cache.Bytes(), int64(8<<20); got != want {
		t.Errorf("one cached landblock counts %d bytes, want %d", got, want)
	}
}

// -cache N bounds the cache by its own count: past twice what fits, it
// counts exactly the N MiB it took at its first record (8 MiB: one shard, a
// 7 MiB arena and a 1 MiB table) at every step, never more, and holds as
// many landblocks as that arena has room for (24 bytes of header and 256 of
// padded record each), the newest among them. What the heap holds for it is
// BenchmarkServeCacheHeap's figure.
func TestServeCacheStaysWithinItsBound(t *testing.T) {
	const max = 8 << 20
	const arena, perRecord = 7 << 20, 24 + 256
	src := &copying{size: 252}
	h, _ := newTestHandler(t, Options{Cell: src, CacheBytes: max})
	var last uint32
	for i := range uint32(60_000) { // ~2.3 times what fits
		last = cacheFillID(i)
		if r := do(h, "GET", "/cell/files/0x"+hex8(last)); r.StatusCode != 200 {
			t.Fatalf("%08X: %s", last, r.Status)
		}
		if b := h.cell.cache.Bytes(); b != max {
			t.Fatalf("after %d records the cache counts %d bytes, want %d", i+1, b, max)
		}
	}
	if n := h.cell.cache.Len(); n > arena/perRecord || n < arena/perRecord*99/100 {
		t.Errorf("the cache holds %d landblocks, want just under the %d its arena has room for", n, arena/perRecord)
	}
	if _, _, ok := h.cell.cache.Get(h.cell.key(last), nil); !ok {
		t.Error("the newest record is not held")
	}
	if _, _, ok := h.cell.cache.Get(h.cell.key(cacheFillID(0)), nil); ok {
		t.Error("the first record is still held after twice the cache's worth")
	}
}

// cacheFillID is the i-th of a run of distinct cell ids: 13 a landblock.
func cacheFillID(i uint32) uint32 {
	if i%13 == 0 {
		return (0x0101+i/13)<<16 | 0xFFFF
	}
	return (0x0101+i/13)<<16 | (0x0100 + i%13)
}

// BenchmarkServeCacheHeap fills an 8 MiB cache to twice over and reports
// what the Go heap grew by for it against what the cache counts
// (heap-B/cache-B, 1.00 when -cache N costs N): the runtime's accounting,
// a figure to read, not a test's bound.
func BenchmarkServeCacheHeap(b *testing.B) {
	const max = 8 << 20
	var ratio float64
	for b.Loop() {
		base := heapAfterGC()
		h := New(Options{Cell: &copying{size: 252}, CacheBytes: max, Log: log.New(io.Discard, "", 0)})
		for i := range uint32(60_000) {
			do(h, "GET", "/cell/files/0x"+hex8(cacheFillID(i)))
		}
		ratio = float64(heapAfterGC()-base) / float64(h.cell.cache.Bytes())
		runtime.KeepAlive(h)
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

// readCounter is a dat file in memory that counts the reads past the
// header and tree once armed, and can hold them at a gate.
type readCounter struct {
	b     []byte
	armed atomic.Bool
	reads atomic.Int64
	gate  chan struct{} // nil: reads go through
}

func (r *readCounter) ReadAt(p []byte, off int64) (int, error) {
	if r.armed.Load() {
		r.reads.Add(1)
		if r.gate != nil {
			<-r.gate
		}
	}
	return bytes.NewReader(r.b).ReadAt(p, off)
}

// datServer serves recs from a cell dat read through a readCounter, its
// index built, so every read counted is a record's.
func datServer(t *testing.T, recs map[uint32][]byte, gated bool) (*httptest.Server, *readCounter) {
	t.Helper()
	var buf bytes.Buffer
	if err := datfile.WriteDat(&buf, datfile.Cell, recs); err != nil {
		t.Fatal(err)
	}
	rc := &readCounter{b: buf.Bytes()}
	if gated {
		rc.gate = make(chan struct{})
	}
	d, err := datfile.NewDat(rc, int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	rc.armed.Store(true)
	srv := httptest.NewServer(New(Options{Cell: d, Log: log.New(io.Discard, "", 0)}))
	t.Cleanup(srv.Close)
	return srv, rc
}

func get(t *testing.T, url string) ([]byte, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err)
		return nil, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Errorf("%s: %s", url, resp.Status)
	}
	return b, resp.Header.Get("ETag")
}

// Records of a dat file: small ones are read by each request itself into
// reused buffers, large ones through one shared read. Many concurrent
// requests over many records each get their own record's bytes and ETag
// (run with -race: a buffer reused too early shows here), and each record
// is read from the file about once.
func TestServeDatRecordsConcurrently(t *testing.T) {
	recs := map[uint32][]byte{}
	for i := range uint32(300) {
		id := (0x0101+i)<<16 | 0x0100
		n := 200 + int(i)*50 // 200 bytes to 15 KB: all small
		if i%50 == 0 {
			n = 20 << 10 // and six waves' worth: large
		}
		b := binary.LittleEndian.AppendUint32(nil, id)
		for len(b) < n {
			b = append(b, byte(i), byte(len(b)))
		}
		recs[id] = b
	}
	srv, rc := datServer(t, recs, false)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for k := range 300 {
				i := uint32((k*7 + g*31) % 300)
				id := (0x0101+i)<<16 | 0x0100
				b, etag := get(t, srv.URL+"/cell/files/0x"+hex8(id))
				if !bytes.Equal(b, recs[id]) || etag != bytesETag(recs[id]) {
					t.Errorf("0x%08X: %d bytes, ETag %s; want %d, %s", id, len(b), etag, len(recs[id]), bytesETag(recs[id]))
					return
				}
			}
		})
	}
	wg.Wait()
	// 4800 answers of 300 records, all cached after their first read; two
	// requests may race to the first read of a small record.
	if n := rc.reads.Load(); n < 300 || n > 400 {
		t.Errorf("%d reads of the file for 4800 answers of 300 records, want about 300", n)
	}
}

// 50 concurrent cold requests for one large record of a dat file make one
// read of it (issue 8), and all get it.
func TestServeDatLargeRecordOneRead(t *testing.T) {
	const id = 0xA9B40100
	rec := binary.LittleEndian.AppendUint32(nil, id)
	rec = append(rec, bytes.Repeat([]byte("envcell "), soloReadMax/8)...)
	// One read of the record is this many reads of the file (runs of blocks).
	one, rc1 := datServer(t, map[uint32][]byte{id: rec}, false)
	get(t, one.URL+"/cell/files/0xA9B40100")
	per := rc1.reads.Load()

	srv, rc := datServer(t, map[uint32][]byte{id: rec}, true)
	h := srv.Config.Handler.(*Handler)
	release := sync.OnceFunc(func() { close(rc.gate) })
	defer release() // a failed wait must not leave the requests hanging
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if b, _ := get(t, srv.URL+"/cell/files/0xA9B40100"); !bytes.Equal(b, rec) {
				t.Errorf("%d bytes, want %d", len(b), len(rec))
			}
		})
	}
	// The read is let go only once all 50 wait on it: a request that came
	// after it would find the record cached and prove nothing.
	waitUntil(t, func() bool { return h.cell.reads.Waiting(id) == 50 })
	release()
	wg.Wait()
	if n := rc.reads.Load(); n != per {
		t.Errorf("50 concurrent requests made %d reads of the file, want %d: one read of the record", n, per)
	}
}
