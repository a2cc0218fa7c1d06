package mapview

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/session"
	"acambient/datfetch/source"
)

var demoOnce = sync.OnceValues(demo.Build)

// demoRegion is the demo world's region and its cell records.
func demoRegion(t *testing.T) (*dat.Region, map[uint32][]byte) {
	t.Helper()
	w, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	return r, w.Cell
}

func TestInfoOfTheDemo(t *testing.T) {
	r, _ := demoRegion(t)
	in := InfoOf(r)
	if len(in.Landmarks) != len(demo.Landmarks) || len(in.Terrains) != 32 {
		t.Fatalf("%d landmarks, %d terrains; want %d and 32", len(in.Landmarks), len(in.Terrains), len(demo.Landmarks))
	}
	if in.Bounds != (Bounds{0xA4, 0xAF, 0xAF, 0xBA}) || !in.Demo || in.Region != "Dereth (demo)" {
		t.Errorf("bounds %+v demo %v; want 0xA4..0xAF × 0xAF..0xBA", in.Bounds, in.Demo)
	}
	// The river landmark: NS = (34848/24 − 1019.5)/10 = 43.25.
	if in.Landmarks[4].Name != "river" || in.Landmarks[4].Where.NS != 43.25 {
		t.Errorf("landmark 4 = %+v", in.Landmarks[4])
	}
	r2 := *r
	r2.RegionName = "Dereth"
	if in := InfoOf(&r2); in.Demo || len(in.Landmarks) != 0 || in.Bounds != (Bounds{0, 0, 254, 254}) || in.Region != "Dereth" {
		t.Errorf("another region: %+v", in)
	}
}

// counting counts the Gets reaching a source.
type counting struct {
	source.Source
	mu sync.Mutex
	n  map[uint32]int
}

func (c *counting) Get(ctx context.Context, id uint32) ([]byte, error) {
	c.mu.Lock()
	c.n[id]++
	c.mu.Unlock()
	return c.Source.Get(ctx, id)
}

// Tiles are made once and kept; a block the data lacks is not found, named,
// and (read through session.Landblocks, as a host's Land) asked for once.
func TestTiles(t *testing.T) {
	r, cell := demoRegion(t)
	src := &counting{Source: source.NewMemory(cell), n: map[uint32]int{}}
	tiles := NewTiles(r, session.NewLandblocks(src))
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		tile, err := tiles.Tile(ctx, 0xA9, 0xB5)
		if err != nil {
			t.Fatal(err)
		}
		if tile.ID != 0xA9B5FFFF || len(tile.Colors) != 64 {
			t.Errorf("tile %08X with %d colours", tile.ID, len(tile.Colors))
		}
		_, err = tiles.Tile(ctx, 0x10, 0x10)
		if !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), "0x1010FFFF") {
			t.Errorf("tile outside the demo: %v", err)
		}
	}
	if src.n[0xA9B5FFFF] != 1 || src.n[0x1010FFFF] != 1 {
		t.Errorf("asked %d times for the river's block and %d for a missing one; want 1 and 1", src.n[0xA9B5FFFF], src.n[0x1010FFFF])
	}
	if _, err := tiles.Tile(ctx, 255, 3); err == nil {
		t.Error("a block beyond the world's edge was accepted")
	}
}
