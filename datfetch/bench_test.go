package datfetch

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// The benchmarks run on a generated cell dat the size of EoR's
// client_cell_1.dat in entries: 800,000 records of 252 bytes (a LandBlock's
// size, one 256-byte block each), ids laid out as landblocks 0xXXYYFFFF with
// twelve EnvCells 0xXXYY0100.. each. About 237 MB.
//
// The image is built once per process and kept in memory; each benchmark
// writes it to its own b.TempDir(), because a TempDir is removed when the
// benchmark that made it ends, and a file shared through sync.Once would
// vanish under the next benchmark.
const benchRecords = 800_000

var bench struct {
	once sync.Once
	img  []byte
	ids  []uint32 // every id, ascending
	err  error
}

func benchRecordsMap() (map[uint32][]byte, []uint32) {
	backing := make([]byte, benchRecords*252)
	recs := make(map[uint32][]byte, benchRecords)
	ids := make([]uint32, 0, benchRecords)
	for i := range benchRecords {
		lb := uint32(i/13) + 0x0101
		id := lb<<16 | 0xFFFF
		if k := i % 13; k > 0 {
			id = lb<<16 | uint32(0x0100+k-1)
		}
		b := backing[i*252 : (i+1)*252 : (i+1)*252]
		binary.LittleEndian.PutUint32(b, id)
		for j := 4; j < 252; j += 4 {
			binary.LittleEndian.PutUint32(b[j:], uint32(i*j))
		}
		recs[id] = b
		ids = append(ids, id)
	}
	return recs, ids
}

// benchDat returns the path of the generated dat inside b.TempDir().
func benchDat(b *testing.B) (string, []uint32) {
	b.Helper()
	bench.once.Do(func() {
		recs, ids := benchRecordsMap()
		var buf bytesWriter
		buf.b = make([]byte, 0, 240<<20)
		bench.err = WriteDat(&buf, Cell, recs)
		bench.img, bench.ids = buf.b, ids
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	path := filepath.Join(b.TempDir(), "client_cell_1.dat")
	if err := os.WriteFile(path, bench.img, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, bench.ids
}

// bytesWriter appends to a slice without bytes.Buffer's doubling growth.
type bytesWriter struct{ b []byte }

func (w *bytesWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// randomIDs picks n ids with a fixed LCG, the same every run.
func randomIDs(ids []uint32, n int) []uint32 {
	out := make([]uint32, n)
	x := uint32(2463534242)
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = ids[int(x)%len(ids)]
	}
	return out
}

func openBench(b *testing.B, path string) *Dat {
	b.Helper()
	d, err := OpenDat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	return d
}

// BenchmarkWriteCell writes the 800k-record cell dat to io.Discard.
func BenchmarkWriteCell(b *testing.B) {
	recs, _ := benchRecordsMap()
	b.SetBytes(benchRecords * 252)
	b.ResetTimer()
	for b.Loop() {
		if err := WriteDat(io.Discard, Cell, recs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	path, _ := benchDat(b)
	for b.Loop() {
		d, err := OpenDat(path)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkLookupCold empties the node cache before each lookup: every
// node under the root is read from the file.
func BenchmarkLookupCold(b *testing.B) {
	path, ids := benchDat(b)
	d := openBench(b, path)
	probe := randomIDs(ids, 4096)
	i := 0
	for b.Loop() {
		b.StopTimer()
		d.cache.init(nodeCacheSize)
		b.StartTimer()
		if _, err := d.Lookup(probe[i%len(probe)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkLookupWarm repeats the ids of a 3×3 landblock ring and their
// cells, the lookups a moving player makes, all nodes cached.
func BenchmarkLookupWarm(b *testing.B) {
	path, ids := benchDat(b)
	d := openBench(b, path)
	probe := ids[130000 : 130000+9*13]
	for _, id := range probe {
		d.Lookup(id)
	}
	i := 0
	for b.Loop() {
		if _, err := d.Lookup(probe[i%len(probe)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkLookupRandom looks up ids spread over the whole dat, more leaves
// than the cache holds.
func BenchmarkLookupRandom(b *testing.B) {
	path, ids := benchDat(b)
	d := openBench(b, path)
	probe := randomIDs(ids, 1<<16)
	i := 0
	for b.Loop() {
		if _, err := d.Lookup(probe[i%len(probe)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkGet(b *testing.B) {
	path, ids := benchDat(b)
	d := openBench(b, path)
	probe := randomIDs(ids, 1<<16)
	ctx := context.Background()
	b.SetBytes(252)
	i := 0
	for b.Loop() {
		if _, err := d.Get(ctx, probe[i%len(probe)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkHeap reports the heap a Dat holds: after OpenDat, and after 10k
// random lookups have filled the node cache. Figures are the growth of
// HeapInuse over the heap before opening (which holds the benchmark's own
// copy of the image).
func BenchmarkHeap(b *testing.B) {
	path, ids := benchDat(b)
	probe := randomIDs(ids, 10_000)
	var open, looked float64
	for b.Loop() {
		base := heapInuse()
		d, err := OpenDat(path)
		if err != nil {
			b.Fatal(err)
		}
		open = float64(heapInuse() - base)
		for _, id := range probe {
			if _, err := d.Lookup(id); err != nil {
				b.Fatal(err)
			}
		}
		looked = float64(heapInuse() - base)
		runtime.KeepAlive(d)
		d.Close()
	}
	b.ReportMetric(open, "heap-B-open")
	b.ReportMetric(looked, "heap-B-10k-lookups")
}

func heapInuse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// BenchmarkIDs lists all 800k ids (an in-order walk of every node).
func BenchmarkIDs(b *testing.B) {
	path, _ := benchDat(b)
	d := openBench(b, path)
	for b.Loop() {
		ids, err := d.IDs(context.Background())
		if err != nil || len(ids) != benchRecords {
			b.Fatalf("IDs: %d, %v", len(ids), err)
		}
	}
}
