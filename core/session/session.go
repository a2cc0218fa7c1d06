// Package session loads, from a pair of record sources, everything the
// ambient engine needs at a listening position, and drives the engine.
//
// This is the "host" of architecture.md: the engine never waits for data, so
// before each ChangePosition the session fetches the region (once), the 3×3
// landblock ring around the player, the player's EnvCell when indoors, every
// SoundTable the ring's terrain names, and every Wave those tables name
// (decoded, as retail decodes a table's waves when the table loads). With
// everything fetched first, a rebuild equals what retail computes with every
// record on disk.
//
// A missing record is retail's not-found; a malformed record or a failed
// fetch is reported through OnError and treated as absent for that rebuild,
// and the session carries on.
package session

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch"
)

// Session is one listener over one pair of sources. Its methods may be called
// from several goroutines, but the Engine itself is not safe for concurrent
// use: drive it from one goroutine.
type Session struct {
	Region *dat.Region
	Engine *ambient.Engine
	// OnError receives every non-fatal problem (a corrupt record, a wave that
	// does not decode, a network failure). Nil discards them.
	OnError func(error)

	portal, cell datfetch.Source

	mu     sync.Mutex
	blocks map[uint32]*dat.LandBlock // by landblock id; nil value = known missing
	cells  map[uint32]*dat.EnvCell   // by EnvCell id; nil value = known missing
	tables map[uint32]tableEntry     // by SoundTable id
	waves  map[uint32]waveEntry      // by Wave id
	stats  Stats
}

type tableEntry struct {
	table  *dat.SoundTable
	status ambient.Status
}

type waveEntry struct {
	pcm *audio.PCM // nil when missing or undecodable
}

// Stats counts what the session fetched.
type Stats struct {
	Records int   `json:"records"`
	Bytes   int64 `json:"bytes"`
	Failed  int   `json:"failed"`
}

// parallelFetches bounds the fetches in flight: enough to hide HTTP latency,
// few enough not to flood a small server.
const parallelFetches = 8

// New loads the region and builds an engine over it. A missing or malformed
// region is fatal: without it there is no ambient data at all.
func New(ctx context.Context, portal, cell datfetch.Source, cfg ambient.Config) (*Session, error) {
	b, err := portal.Get(ctx, dat.RegionID)
	if err != nil {
		return nil, fmt.Errorf("region 0x%08X: %w", uint32(dat.RegionID), err)
	}
	region, err := dat.DecodeRegion(dat.RegionID, b)
	if err != nil {
		return nil, err
	}
	s := &Session{
		Region: region,
		portal: portal,
		cell:   cell,
		blocks: map[uint32]*dat.LandBlock{},
		cells:  map[uint32]*dat.EnvCell{},
		tables: map[uint32]tableEntry{},
		waves:  map[uint32]waveEntry{},
	}
	s.stats.Records, s.stats.Bytes = 1, int64(len(b))
	s.Engine = ambient.New(region, s, s, cfg)
	return s, nil
}

// SetPlayer fetches what pos needs, then runs CellManager::ChangePosition.
// It reports whether the engine rebuilt. Only a cancelled ctx is an error.
func (s *Session) SetPlayer(ctx context.Context, now float64, pos world.Position) (bool, error) {
	if err := s.Prepare(ctx, pos); err != nil {
		return false, err
	}
	return s.Engine.ChangePosition(now, pos, false), nil
}

// Prepare fetches every record a rebuild at pos reads. Records already known
// (found or missing) are not fetched again.
func (s *Session) Prepare(ctx context.Context, pos world.Position) error {
	bx, by := world.BlockX(pos.ObjCellID), world.BlockY(pos.ObjCellID)
	var ids []uint32
	for dx := -1; dx <= 1; dx++ {
		for dy := -1; dy <= 1; dy++ {
			if world.ValidBlock(bx+dx, by+dy) {
				ids = append(ids, world.LandBlockID(bx+dx, by+dy))
			}
		}
	}
	s.fetchAll(ctx, s.cell, missing(s, ids, s.blocks), s.storeBlock)
	if !world.IsOutdoor(pos.ObjCellID) {
		s.fetchAll(ctx, s.cell, missing(s, []uint32{pos.ObjCellID}, s.cells), s.storeCell)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	s.fetchAll(ctx, s.portal, s.neededTables(ids), s.storeTable)
	if err := ctx.Err(); err != nil {
		return err
	}
	s.fetchAll(ctx, s.portal, s.neededWaves(), s.storeWave)
	s.mu.Lock()
	// A table counts as loaded only once its waves are decoded (architecture.md).
	for id, e := range s.tables {
		if e.status == ambient.Pending && e.table != nil && s.wavesKnownLocked(e.table) {
			s.tables[id] = tableEntry{e.table, ambient.Loaded}
		}
	}
	s.mu.Unlock()
	return ctx.Err()
}

// ResolveZ fills in the terrain height of a position given by map
// coordinates (contracts §1.1: "z is the terrain height there").
func (s *Session) ResolveZ(ctx context.Context, sp *world.Spec) error {
	if !sp.NeedsZ {
		return nil
	}
	id := sp.Pos.ObjCellID | 0xFFFF
	s.fetchAll(ctx, s.cell, missing(s, []uint32{id}, s.blocks), s.storeBlock)
	s.mu.Lock()
	lb := s.blocks[id]
	s.mu.Unlock()
	if lb == nil {
		return fmt.Errorf("terrain height at 0x%08X: landblock 0x%08X is missing", sp.Pos.ObjCellID, id)
	}
	z, err := world.TerrainZ(s.Region, lb, sp.Pos.X, sp.Pos.Y)
	if err != nil {
		return err
	}
	sp.Pos.Z, sp.NeedsZ = z, false
	return nil
}

// PCM is the decoded wave, or nil when it is missing, undecodable or not
// fetched yet.
func (s *Session) PCM(id uint32) *audio.PCM {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waves[id].pcm
}

// Stats reports what has been fetched so far.
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// ---- ambient.Land and ambient.Library ----

func (s *Session) LandBlock(bx, by int) *dat.LandBlock {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.blocks[world.LandBlockID(bx, by)]
}

func (s *Session) EnvCell(id uint32) *dat.EnvCell {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cells[id]
}

func (s *Session) SoundTable(id uint32) (*dat.SoundTable, ambient.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.tables[id]
	if !ok {
		return nil, ambient.Pending
	}
	return e.table, e.status
}

func (s *Session) Wave(id uint32) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.waves[id].pcm
	if p == nil {
		return 0, false
	}
	return p.Duration(), true
}

// ---- fetching ----

// missing returns the ids not yet in known.
func missing[T any](s *Session, ids []uint32, known map[uint32]T) []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []uint32
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// neededTables lists the SoundTables named by the terrain of the landblocks
// in ids (CRegionDesc::GetSTBDesc loads a cell's table before AddSound's
// distance test, so every table the ring names is loaded), not yet known.
func (s *Session) neededTables(blockIDs []uint32) []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var stbs []dat.AmbientSTBDesc
	if s.Region.SoundInfo != nil {
		stbs = s.Region.SoundInfo.STBDescs
	}
	seen := map[uint32]bool{}
	var out []uint32
	for _, bid := range blockIDs {
		lb := s.blocks[bid]
		if lb == nil {
			continue
		}
		for x := 0; x < world.CellsPerBlock; x++ {
			for y := 0; y < world.CellsPerBlock; y++ {
				w := lb.Word(x, y)
				k, ok := s.Region.STBDesc(w.Type(), w.Scene())
				if !ok || k >= len(stbs) {
					continue
				}
				id := uint32(stbs[k].STBID)
				if seen[id] {
					continue
				}
				seen[id] = true
				if e, known := s.tables[id]; !known || (e.status == ambient.Pending && e.table == nil) {
					out = append(out, id)
				}
			}
		}
	}
	return out
}

// neededWaves lists the waves named by fetched tables, not yet known.
func (s *Session) neededWaves() []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[uint32]bool{}
	var out []uint32
	for _, e := range s.tables {
		if e.table == nil {
			continue
		}
		for _, id := range e.table.WaveIDs() {
			if _, known := s.waves[id]; !known && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func (s *Session) wavesKnownLocked(t *dat.SoundTable) bool {
	for _, id := range t.WaveIDs() {
		if _, ok := s.waves[id]; !ok {
			return false
		}
	}
	return true
}

// fetchAll gets ids from src, at most parallelFetches at once, and hands
// each result to store, which decodes outside the session's lock and takes
// it only to record the result.
func (s *Session) fetchAll(ctx context.Context, src datfetch.Source, ids []uint32,
	store func(id uint32, b []byte, err error)) {
	if len(ids) == 0 {
		return
	}
	sem := make(chan struct{}, parallelFetches)
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func(id uint32) {
			defer func() { <-sem; wg.Done() }()
			b, err := src.Get(ctx, id)
			if err == nil {
				s.mu.Lock()
				s.stats.Records++
				s.stats.Bytes += int64(len(b))
				s.mu.Unlock()
			}
			store(id, b, err)
		}(id)
	}
	wg.Wait()
}

// report passes a non-fatal problem on.
func (s *Session) report(err error) {
	s.mu.Lock()
	s.stats.Failed++
	s.mu.Unlock()
	if s.OnError != nil {
		s.OnError(err)
	}
}

// set records a fetch result under the session's lock.
func set[T any](s *Session, m map[uint32]T, id uint32, v T) {
	s.mu.Lock()
	m[id] = v
	s.mu.Unlock()
}

// transient is a failure that a later fetch may not repeat (network, ctx):
// such a record stays unknown so that the next Prepare asks again.
func transient(err error) bool {
	return err != nil && !errors.Is(err, datfetch.ErrNotFound)
}

func (s *Session) storeBlock(id uint32, b []byte, err error) {
	if err != nil {
		if transient(err) {
			s.report(fmt.Errorf("landblock 0x%08X: %w", id, err))
			return
		}
		set(s, s.blocks, id, nil)
		return
	}
	lb, err := dat.DecodeLandBlock(id, b)
	if err != nil {
		s.report(err)
	}
	set(s, s.blocks, id, lb) // nil when malformed: skipped, as a missing one
}

func (s *Session) storeCell(id uint32, b []byte, err error) {
	if err != nil {
		if transient(err) {
			s.report(fmt.Errorf("envcell 0x%08X: %w", id, err))
			return
		}
		set(s, s.cells, id, nil)
		return
	}
	c, err := dat.DecodeEnvCell(id, b)
	if err != nil {
		s.report(err)
	}
	set(s, s.cells, id, c)
}

// storeTable: a missing or malformed table is retail's stb_not_found
// (DBObj::Get fails either way); a failed fetch stays Pending.
func (s *Session) storeTable(id uint32, b []byte, err error) {
	if err != nil {
		if transient(err) {
			s.report(fmt.Errorf("soundtable 0x%08X: %w", id, err))
			return
		}
		set(s, s.tables, id, tableEntry{status: ambient.NotFound})
		return
	}
	t, err := dat.DecodeSoundTable(id, b)
	if err != nil {
		s.report(err)
		set(s, s.tables, id, tableEntry{status: ambient.NotFound})
		return
	}
	set(s, s.tables, id, tableEntry{table: t, status: ambient.Pending})
}

// storeWave decodes the wave now, as retail's SoundTableData::UnPack creates
// every buffer when its table loads; one that fails plays as "noWave".
func (s *Session) storeWave(id uint32, b []byte, err error) {
	if err != nil {
		if transient(err) {
			s.report(fmt.Errorf("wave 0x%08X: %w", id, err))
			return
		}
		set(s, s.waves, id, waveEntry{})
		return
	}
	w, err := dat.DecodeWave(id, b)
	if err == nil {
		var p *audio.PCM
		if p, err = audio.Decode(w); err == nil {
			set(s, s.waves, id, waveEntry{pcm: p})
			return
		}
	}
	s.report(err)
	set(s, s.waves, id, waveEntry{})
}
