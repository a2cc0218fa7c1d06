package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"acambient/core/ambient"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// refusing answers the ids in refuse with their error, counting every Get.
type refusing struct {
	source.Source
	mu     sync.Mutex
	refuse map[uint32]error
	hits   map[uint32]int
}

func (r *refusing) Get(ctx context.Context, id uint32) ([]byte, error) {
	r.mu.Lock()
	r.hits[id]++
	err := r.refuse[id]
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return r.Source.Get(ctx, id)
}

func (r *refusing) count(id uint32) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[id]
}

// TestBadRecordIsFinal: a record the source refuses as bad (over the cap:
// datfetch's TooLargeError, which is ErrBadRecord; or another record's DID)
// is reported once, with the bad-record code, and never asked for again
// however long the listener stays, as a malformed record is not; a network
// failure beside it is asked again with backoff.
func TestBadRecordIsFinal(t *testing.T) {
	portal, cell := fixture(t)
	tooLarge := fmt.Errorf("record 0x%08X: %w", waveID, &datfetch.TooLargeError{URL: "http://x/files/0x0A000001", Size: 500 << 20, Limit: 32 << 20})
	otherDID := fmt.Errorf("http://x/files/0x20000002: record starts with DID 0x20000009: %w", datfetch.ErrBadRecord)
	fp := &refusing{Source: portal, hits: map[uint32]int{}, refuse: map[uint32]error{
		waveID:  tooLarge,
		lostTab: otherDID,
		badWave: fmt.Errorf("connection reset: %w", datfetch.ErrNetwork),
	}}
	var mu sync.Mutex
	var problems []Problem
	h, err := New(context.Background(), fp, cell, Options{Config: ambient.DefaultConfig(), Sync: true,
		OnError: func(err error) { mu.Lock(); problems = append(problems, Classify(err)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	// Between the grassland block and the sand block: the ring names both
	// tables.
	h.Move(world.Position{ObjCellID: 0x80800039, X: 180, Y: 100, Z: 10})
	for k := 0; k <= 120*30; k++ { // two minutes of ticks
		h.Tick(float64(k) / 30)
	}
	if n := fp.count(waveID); n != 1 {
		t.Errorf("the wave refused as too large was fetched %d times in 2 min; want 1", n)
	}
	if n := fp.count(lostTab); n != 1 {
		t.Errorf("the table that is another record was fetched %d times in 2 min; want 1", n)
	}
	if n := fp.count(badWave); n < 3 {
		t.Errorf("the wave that failed on the network was fetched %d times in 2 min; want it retried", n)
	}
	if _, st := h.ld.SoundTable(lostTab); st != ambient.NotFound {
		t.Errorf("the bad table is %v; want stb_not_found, as a malformed table", st)
	}
	if h.ld.pcm(waveID) != nil || !h.ld.retained(waveID) {
		t.Errorf("the refused wave: pcm %v, known %v; want known and absent (it plays as noWave)", h.ld.pcm(waveID) != nil, h.ld.retained(waveID))
	}
	mu.Lock()
	defer mu.Unlock()
	codes := map[uint32]Code{}
	for _, p := range problems {
		codes[uint32(p.ID)] = p.Code
	}
	for _, id := range []uint32{waveID, lostTab} {
		if codes[id] != CodeBadRecord {
			t.Errorf("record 0x%08X reported as %q; want %q", id, codes[id], CodeBadRecord)
		}
	}
	if !errors.Is(tooLarge, datfetch.ErrBadRecord) {
		t.Fatal("a TooLargeError must be ErrBadRecord")
	}
}
