package zones

import (
	"context"
	"testing"

	"acambient/datfetch/datfile"
	"acambient/internal/testkit/synthworld"
)

// BenchmarkWholeWorld is the layer of all 255×255 landblocks (2040×2040
// land cells) of the synthetic world, from local dats. For the single-core
// time and peak RSS of the command, run bench/zones:
//
//	GOMAXPROCS=1 go test -run=X -bench=WholeWorld -benchtime=1x ./core/zones/
func BenchmarkWholeWorld(b *testing.B) {
	dir := b.TempDir()
	if err := synthworld.Write(dir); err != nil {
		b.Fatal(err)
	}
	portal, err := datfile.OpenDat(dir + "/client_portal.dat")
	if err != nil {
		b.Fatal(err)
	}
	defer portal.Close()
	cell, err := datfile.OpenDat(dir + "/client_cell_1.dat")
	if err != nil {
		b.Fatal(err)
	}
	defer cell.Close()
	out := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	cells := 0
	for range b.N {
		idx, err := Write(context.Background(), portal, cell, out, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cells += idx.Cells
	}
	b.ReportMetric(float64(cells)/b.Elapsed().Seconds(), "cells/s")
}
