package session

import (
	"context"
	"runtime"
	"testing"

	"acambient/core/ambient"
	"acambient/datfetch/source"
)

// BenchmarkSweep moves the player across all 144 demo landblocks, one tick
// each, as a map cursor sweeping the world does. It reports the peak live
// heap seen after each move (the demo's own records, ~35 MB of encoded
// bytes, are in memory for the whole run and counted).
func BenchmarkSweep(b *testing.B) {
	w := demoWorld(b)
	var peak uint64
	var ms runtime.MemStats
	for b.Loop() {
		h, err := New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell),
			Options{Config: ambient.DefaultConfig(), Sync: true})
		if err != nil {
			b.Fatal(err)
		}
		sweepDemo(h, func() {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		})
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
