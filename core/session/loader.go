package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// loader holds the records a host has fetched and fetches more. It is the
// engine's Land and Library. Its methods are safe for concurrent use: the
// page's loads run in the background while the frame loop reads. It never
// calls the engine: the chain it reads the ring's tables through is its
// own (ambient.Tables, a value of the region).
type loader struct {
	portal  source.Source
	cell    *Landblocks // remembers the missing landblocks for the host's life
	region  *dat.Region
	chain   *ambient.Tables
	onError func(error)
	// progressive: a table counts as loaded once decoded, its waves come
	// after, in the order the host asks for them (Options.Progressive).
	progressive bool
	yield       func() // before a decode and between pieces of a long one (Options.Yield)
	// settled, if set, is told of each wave fetchWaves settles (stored,
	// or failed), without the loader's lock.
	settled  func(id uint32)
	decoding sync.Mutex // progressive: one wave decodes at a time, so a yield lets the event loop in

	mu     sync.Mutex
	blocks map[uint32]*dat.LandBlock // by landblock id; nil value = known missing
	cells  map[uint32]*dat.EnvCell   // by EnvCell id; nil value = known missing
	tables map[uint32]tableEntry     // by SoundTable id
	waves  map[uint32]waveEntry      // by Wave id
	kept   *source.Cache[waveEntry]  // waves evict let go of (kept.go); nil keeps none
	gen    uint64                    // bumped whenever a record other than a wave becomes known
	waved  uint64                    // bumped whenever a wave becomes known
	stats  Stats

	// The waves still to fetch, in order, and those in flight
	// (progressive); workers is how many goroutines fetch them.
	queue    []uint32
	inflight map[uint32]bool
	workers  int
	head     uint32 // the order's first wave not yet known: fetched alone
}

type tableEntry struct {
	table  *dat.SoundTable
	status ambient.Status
}

type waveEntry struct {
	pcm   *audio.PCM // nil when missing or undecodable
	bytes int64      // what the decoded samples cost
}

// Stats counts what the host fetched and what it holds.
type Stats struct {
	Records   int   `json:"records"`   // records fetched
	Bytes     int64 `json:"bytes"`     // their bytes
	Failed    int   `json:"failed"`    // failed fetches and bad records
	Pending   int   `json:"pending"`   // fetches in flight or waiting their turn
	HeldBytes int64 `json:"heldBytes"` // decoded wave samples held
	// LoadingSkips counts the fires skipped because their wave was still
	// on its way (Options.Progressive: ReasonLoading).
	LoadingSkips int `json:"loadingSkips"`
	// Trouble is why what the listener's place needs is not all here, while
	// that lasts (trouble.go); nil otherwise.
	Trouble *Trouble `json:"trouble,omitempty"`
}

// parallelFetches bounds the fetches of waves in flight: enough to hide
// HTTP latency, few enough not to flood a small server.
const parallelFetches = 8

// parallelRecords bounds those of the small records a rebuild reads
// (landblocks of 252 bytes, EnvCells, SoundTables): a load's landblocks are
// at most 16 (a ring and, at a corner, its prefetched neighbours': 4×4),
// and all of them, then all its tables, go out at once rather than the
// ring's ninth waiting a round trip for a slot (issue 18).
const parallelRecords = 16

func newLoader(portal source.Source, cell *Landblocks, region *dat.Region) *loader {
	return &loader{
		portal: portal,
		cell:   cell,
		region: region,
		chain:  ambient.NewTables(region),
		blocks: map[uint32]*dat.LandBlock{},
		cells:  map[uint32]*dat.EnvCell{},
		tables: map[uint32]tableEntry{},
		waves:  map[uint32]waveEntry{},

		inflight: map[uint32]bool{},
	}
}

// loadRegion fetches and decodes the region. A missing or malformed region is
// fatal: without it there is no ambient data at all.
func loadRegion(ctx context.Context, portal source.Source) (*dat.Region, int, error) {
	b, err := portal.Get(ctx, dat.RegionID)
	if err != nil {
		return nil, 0, fmt.Errorf("region 0x%08X: %w", uint32(dat.RegionID), err)
	}
	r, err := dat.DecodeRegion(dat.RegionID, b)
	return r, len(b), err
}

// need is what a rebuild at a position reads: the landblocks of its ring (and
// of a prefetched ring), the EnvCell when indoors.
type need struct {
	blocks []uint32
	cell   uint32 // 0 outdoors
}

// equal reports whether n and o are the same records.
func (n need) equal(o need) bool { return n.cell == o.cell && slices.Equal(n.blocks, o.blocks) }

// needAt lists what a rebuild at pos reads (ambient.Ring: the engine's own
// walk), plus the rings of the blocks in extra (prefetch).
func needAt(pos world.Position, extra ...uint32) need {
	var n need
	seen := map[uint32]bool{}
	for _, objcell := range append([]uint32{pos.ObjCellID}, extra...) {
		for _, b := range ambient.Ring(objcell) {
			if id := world.LandBlockID(b[0], b[1]); !seen[id] {
				seen[id] = true
				n.blocks = append(n.blocks, id)
			}
		}
	}
	if !world.IsOutdoor(pos.ObjCellID) {
		n.cell = pos.ObjCellID
	}
	return n
}

// load fetches every record of n not yet known: landblocks and the EnvCell,
// then the SoundTables their terrain names, then (unless progressive, whose
// waves come through wantWaves) those tables' waves. Records already known
// (found or missing) are not fetched again; a failed fetch leaves its
// record unknown, so the next load asks again.
func (l *loader) load(ctx context.Context, n need) {
	storeBlock := l.storeBlock
	var early *earlyTables
	if l.progressive {
		early = &earlyTables{l: l, ctx: ctx, asked: map[uint32]bool{}}
		storeBlock = early.storeBlock
	}
	l.fetchAll(ctx, l.cell, l.unknownBlocks(n.blocks), parallelRecords, storeBlock)
	if n.cell != 0 {
		l.fetchAll(ctx, l.cell, unknown(l, []uint32{n.cell}, l.cells), parallelRecords, l.storeCell)
	}
	tables := func() []uint32 { return l.neededTables(n.blocks) }
	if early != nil {
		early.wg.Wait()
		tables = func() []uint32 { // the rest: those of blocks known before this load
			return slices.DeleteFunc(l.neededTables(n.blocks), func(id uint32) bool { return early.asked[id] })
		}
	}
	if ctx.Err() != nil {
		return
	}
	l.fetchAll(ctx, l.portal, tables(), parallelRecords, l.storeTable)
	if ctx.Err() != nil || l.progressive {
		return
	}
	l.fetchAll(ctx, l.portal, l.restore(l.neededWaves(n.blocks)), parallelFetches, l.storeWave)
	l.mu.Lock()
	// A table counts as loaded only once its waves are decoded (docs/architecture.md §4.7).
	for id, e := range l.tables {
		if e.status == ambient.Pending && e.table != nil && l.wavesKnownLocked(e.table) {
			l.tables[id] = tableEntry{e.table, ambient.Loaded}
			l.gen++
		}
	}
	l.mu.Unlock()
}

// earlyTables asks for a landblock's SoundTables as soon as the landblock
// is decoded (progressive): the page's rebuild needs both, and the ring's
// tables then travel while its last landblocks are still on their way,
// not one round trip (and whatever else runs on the page's thread) after
// the last of them. Each table is asked once per load.
type earlyTables struct {
	l     *loader
	ctx   context.Context
	wg    sync.WaitGroup
	mu    sync.Mutex
	asked map[uint32]bool
}

func (e *earlyTables) storeBlock(id uint32, b []byte, err error) error {
	problem := e.l.storeBlock(id, b, err)
	if e.ctx.Err() != nil {
		return problem
	}
	var ids []uint32
	e.mu.Lock()
	for _, t := range e.l.neededTables([]uint32{id}) {
		if !e.asked[t] {
			e.asked[t] = true
			ids = append(ids, t)
		}
	}
	e.mu.Unlock()
	if len(ids) > 0 {
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.l.fetchAll(e.ctx, e.l.portal, ids, parallelRecords, e.l.storeTable)
		}()
	}
	return problem
}

// complete reports whether every record a rebuild for n reads is known, so
// that the rebuild equals what retail computes with everything on disk, and
// (progressive) every wave of its tables too: nothing for n is to come.
func (l *loader) complete(n need) bool { return l.known(n, l.progressive) }

// readable reports whether every record a rebuild for n reads is known —
// its landblocks, its EnvCell, its tables — the waves aside: a rebuild now
// would be the one retail makes there (the waves change no rebuild).
func (l *loader) readable(n need) bool { return l.known(n, false) }

// known is complete (waves set) or readable.
func (l *loader) known(n need, waves bool) bool {
	if len(l.unknownBlocks(n.blocks)) > 0 {
		return false
	}
	if n.cell != 0 && len(unknown(l, []uint32{n.cell}, l.cells)) > 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range l.tablesOfLocked(n.blocks) {
		e, ok := l.tables[id]
		if !ok || e.status == ambient.Pending || (waves && e.table != nil && !l.wavesKnownLocked(e.table)) {
			return false
		}
	}
	return true
}

// generation changes whenever a record other than a wave becomes known:
// what a rebuild reads (a wave alone changes no rebuild).
func (l *loader) generation() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// waveGeneration changes whenever a wave becomes known.
func (l *loader) waveGeneration() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waved
}

// wantWaves makes ids, in their order, the waves to fetch next (those
// neither known nor in flight), replacing the order asked before, and sets
// goroutines fetching them (progressive). The first wave not yet known is
// fetched alone, the others after it: the first sound waits for it, and on
// a slow link fetches side by side share the bandwidth (TCP's, and
// Chromium's emulated links alike), so eight at once would make it arrive
// eight times later.
func (l *loader) wantWaves(ctx context.Context, ids []uint32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restoreLocked(slices.Clone(ids)) // those evict kept are known again, not fetched (kept.go)
	seen := map[uint32]bool{}
	q := make([]uint32, 0, len(ids))
	l.head = 0
	for _, id := range ids {
		_, known := l.waves[id]
		if !known && l.head == 0 {
			l.head = id
		}
		if !known && !l.inflight[id] && !seen[id] {
			seen[id] = true
			q = append(q, id)
		}
	}
	l.stats.Pending += len(q) - len(l.queue)
	l.queue = q
	l.spawnLocked(ctx)
}

// headPendingLocked reports whether the first wave of the order is still
// to come.
func (l *loader) headPendingLocked() bool {
	_, known := l.waves[l.head]
	return l.head != 0 && !known
}

// spawnLocked starts fetchers for the queue: one while the head is to
// come, parallelFetches after.
func (l *loader) spawnLocked(ctx context.Context) {
	limit := parallelFetches
	if l.headPendingLocked() {
		limit = 1
	}
	for ; l.workers < min(limit, len(l.queue)); l.workers++ {
		go l.fetchWaves(ctx)
	}
}

// fetchWaves fetches and stores the queue's waves, first first, until it
// is empty (or ctx is done, which empties it), or until only the head may
// be fetched and another fetcher has it.
func (l *loader) fetchWaves(ctx context.Context) {
	for {
		l.mu.Lock()
		if ctx.Err() != nil {
			l.stats.Pending -= len(l.queue)
			l.queue = nil
		}
		if len(l.queue) == 0 || (l.headPendingLocked() && l.queue[0] != l.head) {
			l.workers--
			l.mu.Unlock()
			return
		}
		id := l.queue[0]
		l.queue = l.queue[1:]
		l.inflight[id] = true
		l.mu.Unlock()

		b, err := l.portal.Get(ctx, id)
		l.mu.Lock()
		if err == nil {
			l.stats.Records++
			l.stats.Bytes += int64(len(b))
		}
		l.mu.Unlock()
		l.pause()
		l.storeWave(id, b, err)
		l.mu.Lock()
		delete(l.inflight, id)
		l.stats.Pending--
		if id == l.head {
			l.head = 0 // in, or failed (asked again later): the rest side by side
		}
		l.spawnLocked(ctx)
		l.mu.Unlock()
		if l.settled != nil {
			l.settled(id)
		}
	}
}

// evict drops what no rebuild near the player reads and the engine does not
// hold: landblocks and cells outside keep, tables outside tables, and the
// waves only those tables named. A missing landblock stays known as missing
// (l.cell remembers it) and is not asked for again. Retail keeps a table until
// ReleaseSoundTables drops it and reloads it from disk when it is needed
// again; the record sources' own caches make such a reload cheap here.
func (l *loader) evict(keep need, held map[uint32]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	keepBlocks := map[uint32]bool{}
	for _, id := range keep.blocks {
		keepBlocks[id] = true
	}
	for id := range l.blocks {
		if !keepBlocks[id] {
			delete(l.blocks, id)
		}
	}
	for id := range l.cells {
		if id != keep.cell {
			delete(l.cells, id)
		}
	}
	liveTables := map[uint32]bool{}
	for id := range held {
		liveTables[id] = true
	}
	for _, id := range l.tablesOfLocked(keep.blocks) {
		liveTables[id] = true
	}
	liveWaves := map[uint32]bool{}
	for id, e := range l.tables {
		if !liveTables[id] {
			delete(l.tables, id)
			continue
		}
		if e.table != nil {
			for _, w := range e.table.WaveIDs() {
				liveWaves[w] = true
			}
		}
	}
	for id, w := range l.waves {
		if !liveWaves[id] {
			l.stats.HeldBytes -= w.bytes
			delete(l.waves, id)
			l.keepLocked(id, w)
		}
	}
}

// resolveZ fills in the terrain height of a position given by map
// coordinates (docs/interfaces.md §1.1: "z is the terrain height there").
func (l *loader) resolveZ(ctx context.Context, sp *world.Spec) error {
	if !sp.NeedsZ {
		return nil
	}
	id := sp.Pos.ObjCellID | 0xFFFF
	lb, err := l.block(ctx, id)
	if err != nil {
		return fmt.Errorf("terrain height at 0x%08X: %w", sp.Pos.ObjCellID, err)
	}
	z, err := world.TerrainZ(l.region, lb, sp.Pos.X, sp.Pos.Y)
	if err != nil {
		return &world.POSError{Err: err}
	}
	sp.Pos.Z, sp.NeedsZ = z, false
	return nil
}

// block fetches one landblock now (for a position's terrain height).
func (l *loader) block(ctx context.Context, id uint32) (*dat.LandBlock, error) {
	return fetchOne(l, ctx, id, dat.KindLandBlock, l.unknownBlocks([]uint32{id}), l.blocks, l.storeBlock)
}

// envCell fetches one EnvCell now (to check that a position exists).
func (l *loader) envCell(ctx context.Context, id uint32) (*dat.EnvCell, error) {
	return fetchOne(l, ctx, id, dat.KindEnvCell, unknown(l, []uint32{id}, l.cells), l.cells, l.storeCell)
}

// fetchOne fetches record id now unless known (ask is empty) and returns
// it from m. One the source lacks is a *MissingError; one that could not
// be had is the fetch's or the decoder's error.
func fetchOne[T any](l *loader, ctx context.Context, id uint32, kind dat.Kind, ask []uint32, m map[uint32]*T,
	store func(id uint32, b []byte, err error) error) (*T, error) {
	var failed error
	l.fetchAll(ctx, l.cell, ask, 1, func(id uint32, b []byte, err error) error {
		failed = store(id, b, err)
		return failed
	})
	l.mu.Lock()
	v := m[id]
	l.mu.Unlock()
	switch {
	case v != nil:
		return v, nil
	case failed != nil:
		return nil, failed
	}
	return nil, &MissingError{Kind: kind, ID: id}
}

func (l *loader) pcm(id uint32) *audio.PCM {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waves[id].pcm
}

func (l *loader) retained(id uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.waves[id]
	return ok
}

func (l *loader) snapshot() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats
}

// ---- ambient.Land and ambient.Library ----

func (l *loader) LandBlock(bx, by int) *dat.LandBlock {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.blocks[world.LandBlockID(bx, by)]
}

func (l *loader) EnvCell(id uint32) *dat.EnvCell {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cells[id]
}

func (l *loader) SoundTable(id uint32) (*dat.SoundTable, ambient.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.tables[id]
	if !ok {
		return nil, ambient.Pending
	}
	return e.table, e.status
}

func (l *loader) Wave(id uint32) (float64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.waves[id].pcm
	if p == nil {
		return 0, false
	}
	return p.Duration(), true
}

// WaveLoading makes the loader an ambient.WaveLoader: progressive, a wave
// not yet known is on its way (queued, in flight, or to be asked again
// after a failed fetch).
func (l *loader) WaveLoading(id uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, known := l.waves[id]
	return l.progressive && !known
}

// ---- fetching ----

// unknownBlocks returns the landblocks among ids neither held nor known to
// be missing.
func (l *loader) unknownBlocks(ids []uint32) []uint32 {
	var out []uint32
	for _, id := range unknown(l, ids, l.blocks) {
		if l.cell.Presence(world.BlockX(id), world.BlockY(id)) != Absent {
			out = append(out, id)
		}
	}
	return out
}

// unknown returns the ids not yet in known.
func unknown[T any](l *loader, ids []uint32, known map[uint32]T) []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uint32
	for _, id := range ids {
		if _, ok := known[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// tablesOfLocked lists the SoundTables the terrain of the known landblocks
// among blockIDs names, through the engine's chain (CRegionDesc::
// GetSTBDesc loads a cell's table before AddSound's distance test, so every
// table the ring names is read).
func (l *loader) tablesOfLocked(blockIDs []uint32) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	for _, bid := range blockIDs {
		lb := l.blocks[bid]
		if lb == nil {
			continue
		}
		for _, w := range lb.Terrain {
			if id, ok := l.chain.Table(w); ok && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// neededTables lists the tables named by blockIDs that are not yet fetched.
func (l *loader) neededTables(blockIDs []uint32) []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uint32
	for _, id := range l.tablesOfLocked(blockIDs) {
		if e, known := l.tables[id]; !known || (e.status == ambient.Pending && e.table == nil) {
			out = append(out, id)
		}
	}
	return out
}

// neededWaves lists the waves named by the fetched tables of blockIDs, not
// yet known.
func (l *loader) neededWaves(blockIDs []uint32) []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.neededWavesLocked(blockIDs)
}

func (l *loader) neededWavesLocked(blockIDs []uint32) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	for _, tid := range l.tablesOfLocked(blockIDs) {
		e := l.tables[tid]
		if e.table == nil {
			continue
		}
		for _, id := range e.table.WaveIDs() {
			if _, known := l.waves[id]; !known && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// waveSettled reports whether the wave is known, or neither queued nor in
// flight (its fetch failed: a retry asks again).
func (l *loader) waveSettled(id uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, known := l.waves[id]; known {
		return true
	}
	return !l.inflight[id] && !slices.Contains(l.queue, id)
}

// wavesToAsk reports whether the tables of blockIDs name a wave neither
// known, nor queued, nor in flight.
func (l *loader) wavesToAsk(blockIDs []uint32) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	queued := map[uint32]bool{}
	for _, id := range l.queue {
		queued[id] = true
	}
	for _, id := range l.neededWavesLocked(blockIDs) {
		if !l.inflight[id] && !queued[id] {
			return true
		}
	}
	return false
}

func (l *loader) wavesKnownLocked(t *dat.SoundTable) bool {
	for _, id := range t.WaveIDs() {
		if _, ok := l.waves[id]; !ok {
			return false
		}
	}
	return true
}

// fetchAll gets ids from src, at most limit at once, and hands each result
// to store, which decodes outside the loader's lock and takes it only to
// record the result.
func (l *loader) fetchAll(ctx context.Context, src source.Source, ids []uint32, limit int,
	store func(id uint32, b []byte, err error) error) {
	if len(ids) == 0 {
		return
	}
	var g errgroup.Group // no WithContext: one record's failure stops no other
	g.SetLimit(limit)
	l.mu.Lock()
	l.stats.Pending += len(ids)
	l.mu.Unlock()
	for _, id := range ids {
		g.Go(func() error {
			b, err := src.Get(ctx, id)
			l.mu.Lock()
			l.stats.Pending--
			if err == nil {
				l.stats.Records++
				l.stats.Bytes += int64(len(b))
			}
			l.mu.Unlock()
			l.pause()
			store(id, b, err)
			return nil
		})
	}
	g.Wait()
}

// pause calls yield, if set, before a record that arrived is decoded: what
// arrives together (a ring's landblocks, a burst of waves) then decodes
// over several turns of the page's event loop, not in one long task.
func (l *loader) pause() {
	if l.yield != nil {
		l.yield()
	}
}

// report passes a non-fatal problem on, and returns it.
func (l *loader) report(err error) error {
	l.mu.Lock()
	l.stats.Failed++
	l.mu.Unlock()
	if l.onError != nil {
		l.onError(err)
	}
	return err
}

// set records a fetch result under the loader's lock.
func set[T any](l *loader, m map[uint32]T, id uint32, v T) {
	l.mu.Lock()
	m[id] = v
	l.gen++
	l.mu.Unlock()
}

// setWave records a wave: no rebuild reads one, so it moves waved, not gen.
func (l *loader) setWave(id uint32, w waveEntry) {
	l.mu.Lock()
	if old, ok := l.waves[id]; ok {
		l.stats.HeldBytes -= old.bytes
	}
	l.stats.HeldBytes += w.bytes
	l.waves[id] = w
	l.waved++
	l.mu.Unlock()
}

// failed sorts a fetch's error. Not found is retail's answer for a record
// that is not there: final, and no problem. A bad record (it arrived whole
// and is not the record, or is over the cap: datfetch.ErrBadRecord, which
// ErrTooLarge is too) is reported and final, as a malformed one is: asking
// again would get the same. Anything else (the network, the context) is
// reported and leaves the record unknown, so that the next load asks again.
func (l *loader) failed(kind dat.Kind, id uint32, err error) (final bool, problem error) {
	switch {
	case errors.Is(err, source.ErrNotFound):
		return true, nil
	case errors.Is(err, datfetch.ErrBadRecord):
		return true, l.report(recordErr(kind, id, err))
	}
	return false, l.report(recordErr(kind, id, err))
}

// The store functions record a fetch's result and return the problem they
// reported, if any: a failed fetch (the record stays unknown, unless it is a
// bad record: see failed) or a record that did not decode (known, and
// treated as missing). Not found is no problem: it is retail's answer for a
// record that is not there.

func (l *loader) storeBlock(id uint32, b []byte, err error) error {
	if err != nil {
		final, problem := l.failed(dat.KindLandBlock, id, err)
		if final {
			set(l, l.blocks, id, nil)
		}
		return problem
	}
	lb, err := dat.DecodeLandBlock(id, b)
	if err != nil {
		err = l.report(recordErr(dat.KindLandBlock, id, err))
	}
	set(l, l.blocks, id, lb) // nil when malformed: skipped, as a missing one
	return err
}

func (l *loader) storeCell(id uint32, b []byte, err error) error {
	if err != nil {
		final, problem := l.failed(dat.KindEnvCell, id, err)
		if final {
			set(l, l.cells, id, nil)
		}
		return problem
	}
	c, err := dat.DecodeEnvCell(id, b)
	if err != nil {
		err = l.report(recordErr(dat.KindEnvCell, id, err))
	}
	set(l, l.cells, id, c)
	return err
}

// storeTable: a missing or malformed table is retail's stb_not_found
// (DBObj::Get fails either way); a failed fetch of the network stays Pending.
func (l *loader) storeTable(id uint32, b []byte, err error) error {
	if err != nil {
		final, problem := l.failed(dat.KindSoundTable, id, err)
		if final {
			set(l, l.tables, id, tableEntry{status: ambient.NotFound})
		}
		return problem
	}
	t, err := dat.DecodeSoundTable(id, b)
	if err != nil {
		set(l, l.tables, id, tableEntry{status: ambient.NotFound})
		return l.report(recordErr(dat.KindSoundTable, id, err))
	}
	status := ambient.Pending // until its waves are decoded (load)
	if l.progressive {
		status = ambient.Loaded // its waves come after (docs/divergences.md)
	}
	set(l, l.tables, id, tableEntry{table: t, status: status})
	return nil
}

// storeWave decodes the wave now, as retail's SoundTableData::UnPack creates
// every buffer when its table loads; one that fails plays as "noWave".
func (l *loader) storeWave(id uint32, b []byte, err error) error {
	if err != nil {
		final, problem := l.failed(dat.KindWave, id, err)
		if final {
			l.setWave(id, waveEntry{})
		}
		return problem
	}
	w, err := dat.DecodeWave(id, b)
	if err != nil {
		l.setWave(id, waveEntry{})
		return l.report(recordErr(dat.KindWave, id, err))
	}
	if l.progressive {
		l.decoding.Lock()
	}
	p, err := audio.DecodeYielding(w, l.yield)
	if l.progressive {
		l.decoding.Unlock()
	}
	if err != nil {
		l.setWave(id, waveEntry{})
		return l.report(&RecordError{Kind: dat.KindWave, ID: id, Err: err}) // audio's text names the wave
	}
	l.setWave(id, waveEntry{pcm: p, bytes: p.Samples.Bytes()})
	return nil
}
