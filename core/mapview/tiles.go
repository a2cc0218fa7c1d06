package mapview

import (
	"context"
	"fmt"
	"sync"

	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch/source"
)

// maxTiles bounds the decoded tiles kept (about 2 KB each).
const maxTiles = 4096

// Tiles makes and keeps the map's tiles of one region, reading landblocks
// from a cell source: a host's (session.Host.Land), so that the map never
// asks for a landblock the ambient loader learnt is missing, nor the other
// way round, and never counts as ambient loading. Safe for concurrent use.
type Tiles struct {
	region *dat.Region
	src    source.Source

	mu    sync.Mutex
	tiles map[uint32]*Tile
}

// NewTiles makes the tiles of region from the landblocks of src.
func NewTiles(region *dat.Region, src source.Source) *Tiles {
	return &Tiles{region: region, src: src, tiles: map[uint32]*Tile{}}
}

// Tile is the map tile of landblock (bx, by); a block the data lacks is
// source.ErrNotFound (wrapped). It may fetch, so it must not run on a
// JavaScript event loop.
func (t *Tiles) Tile(ctx context.Context, bx, by int) (*Tile, error) {
	if !world.ValidBlock(bx, by) {
		return nil, fmt.Errorf("landblock (%d, %d): outside the world", bx, by)
	}
	id := world.LandBlockID(bx, by)
	t.mu.Lock()
	tile, ok := t.tiles[id]
	t.mu.Unlock()
	if ok {
		return tile, nil
	}
	raw, err := t.src.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("map tile 0x%08X: %w", id, err)
	}
	lb, err := dat.DecodeLandBlock(id, raw)
	if err != nil {
		return nil, fmt.Errorf("map tile: %w", err)
	}
	made, err := NewTile(t.region, lb)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if len(t.tiles) >= maxTiles {
		clear(t.tiles)
	}
	t.tiles[id] = &made
	t.mu.Unlock()
	return &made, nil
}
