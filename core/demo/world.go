package demo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"acambient/core/dat"
	"acambient/datfetch/datfile"
)

// World is the demo world as record bytes by id, exactly as a dat stores
// them (decompressed, starting at the DID; the iteration list without one).
type World struct {
	Portal, Cell map[uint32][]byte
}

// Build makes the demo world. It is deterministic: every call returns the
// same bytes. The waves are synthesised in parallel, one goroutine per CPU.
func Build() (*World, error) {
	w := &World{Portal: map[uint32][]byte{}, Cell: map[uint32][]byte{}}

	built, err := buildWaves()
	if err != nil {
		return nil, err
	}
	bedLen := map[uint32]float64{}
	for i, b := range built {
		w.Portal[waves[i].id] = b.wave.Encode()
		bedLen[waves[i].id] = b.seconds
	}
	for _, t := range soundTables() {
		w.Portal[uint32(t.ID)] = t.Encode()
	}
	w.Portal[dat.RegionID] = region(soundDesc(bedLen)).Encode()
	w.Portal[dat.IterationID] = iteration()

	l := newLand()
	for _, lb := range l.landBlocks(map[uint32]bool{cottageBlock<<16 | 0xFFFF: true}) {
		w.Cell[uint32(lb.ID)] = lb.Encode()
	}
	ground := groundAt(l, village)
	for _, c := range envCells {
		w.Cell[c.id] = c.envCell(ground).Encode()
	}
	w.Cell[dat.IterationID] = iteration()
	return w, nil
}

type builtWave struct {
	wave    *dat.Wave
	seconds float64
}

// buildWaves synthesises and encodes every wave, in parallel; results keep
// the order of waves, so the output does not depend on scheduling.
func buildWaves() ([]builtWave, error) {
	out := make([]builtWave, len(waves))
	errs := make([]error, len(waves))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range waves {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			wv, sec, err := buildWave(waves[i])
			out[i], errs[i] = builtWave{wv, sec}, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	return out, nil
}

// groundAt is the height-table z of the vertex at local (u, v), as the
// landblock stores it.
func groundAt(l *land, at [2]float64) float32 {
	t := heightTable()
	return t[heightByte(&t, l.at(int(at[0]), int(at[1])).z)]
}

// iteration is the 0xFFFF0001 record (docs/dat-format.md §1.5): i32 total, then pairs of
// (i32 −count, i32 first) until the counts cancel the total (ACE
// Iteration.cs): one iteration, number 1.
func iteration() []byte {
	b := make([]byte, 12)
	binary.LittleEndian.PutUint32(b[0:], 1)
	binary.LittleEndian.PutUint32(b[4:], uint32(0xFFFFFFFF)) // −1
	binary.LittleEndian.PutUint32(b[8:], 1)
	return b
}

// Dats encodes the demo world as a pair of retail dat containers
// (client_portal.dat, client_cell_1.dat), in memory: the caller writes them.
func (w *World) Dats() (portal, cell []byte, err error) {
	var p, c bytes.Buffer
	if err := datfile.WriteDat(&p, datfile.Portal, w.Portal); err != nil {
		return nil, nil, fmt.Errorf("demo: client_portal.dat: %w", err)
	}
	if err := datfile.WriteDat(&c, datfile.Cell, w.Cell); err != nil {
		return nil, nil, fmt.Errorf("demo: client_cell_1.dat: %w", err)
	}
	return p.Bytes(), c.Bytes(), nil
}
