// Package session is the host: the one frame loop that `trace`, `render`
// and the page share (docs/architecture.md §2). It moves the listener, loads
// from a pair of record sources what a position needs (the region once, the
// 3×3 landblock ring, the EnvCell when indoors, every SoundTable the ring's
// terrain names and every Wave those tables name, decoded, as retail decodes
// a table's waves when the table loads), rebuilds the engine, and ticks it.
//
// A position travels one way. The page's ambient.js setPlayer hands a POS to
// the wasm main, which resolves it against the data (Resolve: the terrain's
// height for map coordinates, the EnvCell an indoor cell names) and, unless
// a later setPlayer has been applied meanwhile, makes it the player (Move);
// SetPlayerPOS does both for a caller with no such order to keep. The next
// Tick — the mixer calls it on the audio clock (core/mix) — loads what the
// position needs, calls the engine's ChangePosition (core/ambient), then
// UseTime, and returns their events to the mixer, which voices the plays. Snapshot is
// everything the page shows of the host, taken under one lock; Drain hands
// the page the events and load problems since it last asked.
//
// The engine never waits for data. The host rebuilds on a cell change, and
// again when a record arrives that the last rebuild lacked, so that what
// plays equals what retail computes with every record on disk. The page's
// host is Progressive: its rebuilds wait for the tables, not their waves,
// which follow in the order they will be heard (docs/divergences.md). A missing
// record is retail's not-found, and a missing landblock is asked for once
// for the host's life (Landblocks); a malformed record or a failed
// fetch is reported (OnError, Drain) and treated as absent, and the failed
// fetch is retried with backoff while the listener stays.
package session

import (
	"context"
	"math"
	"slices"
	"sync"

	"acambient/core/ambient"
	"acambient/core/caption"
	"acambient/core/world"
	"acambient/datfetch/source"
)

// Options configure a Host.
type Options struct {
	Config ambient.Config
	// Sync loads what a position needs inside Tick, before the rebuild: the
	// deterministic mode of `trace`, `render` and `gather`. Otherwise loads
	// run in the background and the host rebuilds when they arrive, so Tick
	// never waits on the network (the page).
	Sync bool
	// Prefetch loads the ring of the neighbouring block as the player nears
	// a block edge (within PrefetchMetres), so that walking on never waits on
	// the network. Background mode only.
	Prefetch bool
	// Progressive is the page's start (docs/divergences.md): a rebuild
	// waits for the ring's landblocks and SoundTables only, and the waves
	// are fetched after, in the order the engine will want them
	// (ambient.Engine.HearingOrder); a fire whose wave is still on its way
	// is a "loading" skip, and a ConstantSound skipped so starts when its
	// wave arrives. Background mode only: Sync keeps retail's rule, a table
	// counts once its waves are decoded.
	Progressive bool
	// Yield, if set, is called before each record that arrived is decoded
	// and between pieces of a long wave decode (the page: core/pace, which
	// gives the browser's event loop its turn once a slice of Go work has
	// run long, so that the audio callbacks run; in Sync mode too, for a
	// render in the page beside what plays). It changes when work runs,
	// never what it makes.
	Yield func()
	// OnError receives every non-fatal problem (a corrupt record, a wave that
	// does not decode, a failed fetch). Nil discards them. It may be called
	// from a loading goroutine.
	OnError func(error)
	// EventLog keeps up to this many of the latest events, and the load
	// problems, for Drain (the page's poll); the oldest go first and are
	// counted. 0 keeps none: trace and render take each tick's events from
	// Tick.
	EventLog int
	// Captions puts what plays into words (core/caption), kept for Drain
	// with the events: the page's. Needs EventLog.
	Captions bool
	// Listing, if set, is asked once, in the background, at New, beside the
	// region (not after it: the first ring waits for it): the ids of
	// the landblocks the cell source holds (datfetch.HTTP.Landblocks). Once
	// it answers, a landblock it does not name is never asked for; until then
	// (up to ListingWait) landblocks wait for it. A failure
	// (ErrNotFound: the source keeps no listing) is no problem: each missing
	// landblock is then asked for once.
	Listing func(context.Context) ([]uint32, error)
	// KeepWaveBytes bounds the decoded waves kept after the host lets them
	// go (least recently used out first), so that a return to a place
	// visited lately neither fetches nor decodes them again (kept.go). 0
	// keeps none: the tools visit each place once.
	KeepWaveBytes int64
}

// PrefetchMetres is how near a block edge the player must be for the host
// to load the next ring: at running speed (~12 m/s) a few seconds ahead.
const PrefetchMetres = 48

// retry bounds: a record the last rebuild lacked is fetched again after
// retryFirst seconds of the host's clock, doubling up to retryMax.
const (
	retryFirst = 1.0
	retryMax   = 30.0
)

// Host drives one engine over one pair of record sources. Every method but
// Tick may be called from any goroutine; Tick from one at a time (the audio
// clock).
type Host struct {
	ld  *loader
	opt Options
	ctx context.Context
	log eventLog // what Drain hands the page; its own lock

	mu            sync.Mutex // guards everything below and the engine
	eng           *ambient.Engine
	player        *world.Position // the latest Move
	moved         bool            // a Move since the last Tick
	camera        *world.Position
	heading       float64
	cur           world.Position // where the engine was last moved to
	placed        bool           // a Tick has moved the engine to the player: cur is set, the first tick is past
	now           float64
	rebuild       rebuildState // how much of what it reads the last rebuild had
	rebuiltGen    uint64       // the loader's generation at the last rebuild
	retryAt       float64      // when to fetch what is lacking again
	retryWait     float64
	answersAtFail answersSeen     // trouble.go: the sources' answers at the last failure
	slow          slowWatch       // trouble.go: the bytes arriving while fetches are in flight
	load          loadState       // the background load's
	loadingFor    need            // what it loads
	events        []ambient.Event // this tick's, handed to the caller of Tick
	between       []ambient.Event // a rebuild's between ticks (rebuildNow), handed out with the next tick's
	rebuiltSince  bool            // rebuildNow rebuilt since the last tick: its captions look at the beds again
	captions      *caption.Captioner
	bedsDirty     bool     // the slider or ambient_sounds_enabled changed: the captions look at the beds again
	order         []uint32 // the waves in the order the last rebuild wants them (Progressive)
	wavesDue      bool     // a load ended: ask for the waves at the next tick (Progressive)
	wavesSeen     uint64   // the loader's wave generation when lacking was last worked out
	skips         int      // fires skipped as loading

	loadsDone int           // background loads ended
	started   chan struct{} // closed once a first sound could be heard (Started)
	startOnce sync.Once
}

// rebuildState is how much of what it reads the engine's last rebuild had:
// the host fetches again while it is not whole, and rebuilds again at the
// same place once a record it lacked arrives (docs/divergences.md row 4).
type rebuildState uint8

const (
	// rebuildWhole: every record the rebuild reads was here (Progressive:
	// and every wave they name).
	rebuildWhole rebuildState = iota
	// rebuildLacking: the rebuild read everything it reads, but not all of
	// the place's records are here yet (Progressive: waves still on their
	// way); they are fetched again with backoff.
	rebuildLacking
	// rebuildPartial: the rebuild itself read a record not yet known (or
	// one came while it ran): it must run again, even once every record
	// has come (heal_test.go).
	rebuildPartial
)

// lacking reports whether records of the last rebuild's place are still to
// come.
func (s rebuildState) lacking() bool { return s != rebuildWhole }

// loadState is the background load's (the page; Sync loads inside Tick).
type loadState uint8

const (
	// loadIdle: no load runs.
	loadIdle loadState = iota
	// loadRunning: a load of loadingFor runs.
	loadRunning
	// loadRunningStale: a load runs, and the listener has moved on to a
	// place it does not cover: load again when it ends.
	loadRunningStale
	// loadAgain: the load ended stale; the next tick loads for where the
	// listener is.
	loadAgain
)

// running reports whether a load runs.
func (s loadState) running() bool { return s == loadRunning || s == loadRunningStale }

// New loads the region and makes a host over it. A missing or malformed
// region is fatal: without it there is no ambient data at all. ctx bounds
// every fetch the host makes, for its whole life.
func New(ctx context.Context, portal, cell source.Source, opt Options) (*Host, error) {
	land := NewLandblocks(cell)
	if opt.Listing != nil {
		// Asked beside the region, not after it: the first landblocks wait
		// for it (no 404 for one it would not name), so on a link with
		// round trips it would otherwise put one more before the first ring.
		land.ExpectListing()
		go func() {
			if ids, err := opt.Listing(ctx); err == nil {
				land.SetListing(ids)
			} else {
				land.NoListing()
			}
		}()
	}
	region, n, err := loadRegion(ctx, portal)
	if err != nil {
		return nil, err
	}
	h := &Host{ld: newLoader(portal, land, region), opt: opt, ctx: ctx, retryWait: retryFirst,
		log: eventLog{max: opt.EventLog}, started: make(chan struct{})}
	h.answersAtFail.n.Store(-1)
	h.opt.Progressive = opt.Progressive && !opt.Sync
	h.ld.onError = h.report
	h.ld.progressive = h.opt.Progressive
	h.ld.kept = newKept(opt.KeepWaveBytes)
	h.ld.yield = opt.Yield
	h.ld.settled = h.waveSettled
	h.ld.stats.Records, h.ld.stats.Bytes = 1, int64(n)
	h.eng = ambient.New(region, h.ld, h.ld, opt.Config)
	if opt.Captions && opt.EventLog > 0 {
		h.captions = caption.New(region)
	}
	return h, nil
}

// report passes a load problem to OnError and to the page's log.
func (h *Host) report(err error) {
	h.noteFailure()
	h.log.problem(err)
	if h.opt.OnError != nil {
		h.opt.OnError(err)
	}
}

// Resolve parses a POS (docs/interfaces.md §1.1) and checks it against the data:
// map coordinates get their terrain height, and an indoor objcell must name
// an EnvCell that exists.
func (h *Host) Resolve(text string) (world.Spec, error) {
	sp, err := world.ParsePOS(text)
	if err != nil {
		return sp, err
	}
	if err := h.ld.resolveZ(h.ctx, &sp); err != nil {
		return sp, err
	}
	if id := sp.Pos.ObjCellID; !world.IsOutdoor(id) {
		if _, err := h.ld.envCell(h.ctx, id); err != nil {
			return sp, err
		}
	}
	return sp, nil
}

// SetPlayerPOS resolves a POS (Resolve) and moves the player there (Move),
// for a caller whose positions come one at a time (the tests; the wasm main
// resolves and moves in two steps, keeping the latest call's); the camera
// follows unless SetCamera was called. It may fetch a landblock (for
// z) or an EnvCell, so it must not run on a JavaScript event loop.
func (h *Host) SetPlayerPOS(text string) (world.Where, error) {
	sp, err := h.Resolve(text)
	if err != nil {
		return world.Where{}, err
	}
	h.Move(sp.Pos)
	return world.WhereOf(sp.Pos), nil
}

// SetCameraPOS resolves a POS for the camera; heading (compass degrees)
// applies when the POS carries none.
func (h *Host) SetCameraPOS(text string, heading float64) (world.Where, error) {
	sp, err := h.Resolve(text)
	if err != nil {
		return world.Where{}, err
	}
	if sp.HasHeading {
		heading = sp.Heading
	}
	h.SetCamera(sp.Pos, heading)
	return world.WhereOf(sp.Pos), nil
}

// Move sets the player's position: the engine hears it at the next Tick,
// and the records it needs are asked for at once (unless Sync). A position
// with a coordinate that is not a finite number is ignored.
func (h *Host) Move(p world.Position) {
	if !finitePos(p) {
		return
	}
	h.mu.Lock()
	h.player, h.moved = &p, true
	if !h.opt.Sync {
		// The records go now, not at the next tick: ticks come with the
		// chunks the mixer renders, up to 40 ms apart in the page's worker
		// before the click (bench/firstsound). The tick's own fetch finds
		// this load running for the same records and leaves it.
		h.fetchAt(p, h.now, false)
	}
	h.mu.Unlock()
}

// SetCamera sets the listener that placement and pan use, with its compass
// heading in degrees; until it is called the camera is the player facing
// north. It applies at the next Tick.
func (h *Host) SetCamera(p world.Position, headingDeg float64) {
	if !finitePos(p) || math.IsNaN(headingDeg) || math.IsInf(headingDeg, 0) {
		return
	}
	h.mu.Lock()
	h.camera, h.heading = &p, headingDeg
	h.mu.Unlock()
}

// SetVolume sets the ambient slider (clamped to [0, 1]).
func (h *Host) SetVolume(a float32) {
	h.mu.Lock()
	h.eng.SetVolume(a)
	h.bedsDirty = true
	h.mu.Unlock()
}

// SetEnabled is retail's ambient_sounds_enabled.
func (h *Host) SetEnabled(on bool) {
	h.mu.Lock()
	h.eng.SetEnabled(on)
	h.bedsDirty = true
	h.mu.Unlock()
}

// Cut tells the engine that the mixer cut every voice at now (mix.Cutter:
// mix's FadeAll): their slots are free and their sounds due again at now
// (ambient.Engine.Cut).
func (h *Host) Cut(now float64) {
	h.mu.Lock()
	h.eng.Cut(now)
	h.mu.Unlock()
}

// Recaption has the captions say the continuous sounds around the listener
// again, as if they had just changed (within a second, at the next window's
// close): the page calls it when its audio begins to be heard, having
// dropped the captions of its silence.
func (h *Host) Recaption() {
	h.mu.Lock()
	if h.captions != nil {
		h.captions.Forget()
		h.bedsDirty = true
	}
	h.mu.Unlock()
}

// Tick runs one frame at absolute time now, as SmartBox::UseTime does: the
// player's position into ChangePosition (which rebuilds on a cell change;
// the host also rebuilds when records the last rebuild lacked have
// arrived), then Ambient::UseTime. The first tick only rebuilds. The events
// are valid until the next Tick; with Options.EventLog they are also kept
// for Drain.
func (h *Host) Tick(now float64) []ambient.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events[:0], h.between...)
	h.between = h.between[:0]
	h.now = now
	if h.player == nil {
		return h.events
	}
	first := !h.placed
	moved := h.moved
	h.moved = false
	if moved {
		h.cur, h.placed = *h.player, true
	}
	if h.camera != nil {
		h.eng.SetCamera(*h.camera, h.heading)
	} else {
		h.eng.SetCamera(h.cur, 0)
	}

	if h.rebuild.lacking() && h.opt.Progressive {
		// Waves change no rebuild; once the last one the ring lacked is
		// there, nothing is lacking — unless the rebuild itself lacked a
		// record (partial): its records may all have come by now, but the
		// rebuild that reads them is still to run (below), and must.
		if g := h.ld.waveGeneration(); g != h.wavesSeen {
			h.wavesSeen = g
			h.rebuild = h.settled(h.rebuild == rebuildPartial, needAt(h.cur))
		}
	}
	again := h.load == loadAgain
	if h.healedLocked() {
		h.retryNowLocked() // a source answers again: ask now (trouble.go)
	}
	retry := h.rebuild.lacking() && now >= h.retryAt
	if moved || again || retry {
		h.fetch(now, retry && !moved && !again)
	}
	// A rebuild: on a move (the engine itself decides whether the cell
	// changed), or at the same place when what the last one lacked arrived.
	force := h.rebuildDue()
	rebuilt := h.rebuiltSince
	h.rebuiltSince = false
	if (moved || force) && h.rebuildAt(now, force, &h.events) {
		rebuilt = true
	}
	h.checkStarted()
	// Waves a load brought are asked for now, unless a rebuild is due (the
	// records its order depends on came, but a load runs): that rebuild
	// asks, in its order.
	if h.wavesDue && !(h.rebuild.lacking() && h.ld.generation() != h.rebuiltGen) {
		h.wavesDue = false
		h.wantWaves()
	}
	if !first {
		h.events = append(h.events, h.eng.UseTime(now)...)
	}
	for _, ev := range h.events {
		if ev.Kind == ambient.KindSkip && ev.Reason == ambient.ReasonLoading {
			h.skips++
		}
	}
	h.log.events(h.events)
	if h.captions != nil {
		l := caption.Listener{Camera: h.camera != nil, Heading: h.heading}
		if c, ok := h.captions.Tick(now, h.events, rebuilt || h.bedsDirty, h.eng, l); ok {
			h.log.caption(c)
		}
		h.bedsDirty = false
	}
	return h.events
}

// fetch loads what the current position needs: inline in Sync mode, else in
// the background (one load at a time; a Move during a load is picked up by
// the retry that the incomplete rebuild schedules).
func (h *Host) fetch(now float64, isRetry bool) { h.fetchAt(h.cur, now, isRetry) }

// fetchAt is fetch for what pos needs. A load asked for while one runs
// that loads just that is not asked again.
func (h *Host) fetchAt(pos world.Position, now float64, isRetry bool) {
	if isRetry {
		h.retryAt = now + h.retryWait
		h.retryWait = math.Min(2*h.retryWait, retryMax)
	} else {
		h.retryWait = retryFirst
		h.retryAt = now + retryFirst
	}
	n := h.needsAt(pos)
	if h.opt.Sync {
		h.mu.Unlock()
		h.ld.load(h.ctx, n)
		h.mu.Lock()
		return
	}
	if h.load.running() {
		if !n.equal(h.loadingFor) {
			h.load = loadRunningStale // picked up again once the current load ends
		}
		return
	}
	h.load, h.loadingFor = loadRunning, n
	go func() {
		h.ld.load(h.ctx, n)
		h.loadEnded(n)
	}()
}

// loadEnded is a background load's end, for n.
func (h *Host) loadEnded(n need) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.load == loadRunningStale {
		h.load = loadAgain
	} else {
		h.load = loadIdle
	}
	h.loadsDone++
	// Progressive: the waves of what came are asked for at the next
	// tick, after the rebuild it may bring, in that rebuild's order.
	h.wavesDue = h.opt.Progressive && h.ld.wavesToAsk(n.blocks)
	// A rebuild that ran while the load did, with its records all in, let
	// nothing go, and none may follow: the records of the place left go
	// now. A move not yet ticked is left to its tick (needs is still the
	// last place's, and would drop the new one's).
	if !h.rebuildNow() && h.placed && !h.moved {
		h.letGo()
	}
	h.checkStarted() // a load that brought nothing new (a retry) may be all it waited for
}

// rebuildDue reports whether the last rebuild lacked records that have
// come since, with no load running that may bring more: a rebuild at the
// same place is due.
func (h *Host) rebuildDue() bool {
	return h.rebuild.lacking() && !h.load.running() && h.ld.generation() != h.rebuiltGen
}

// rebuildNow runs, as a load ends, the rebuild its records make due, rather
// than at the next tick: before the click the page's worker ticks with the
// chunks its clock mixes, up to 40 ms apart, and the first wave is asked
// for (and Started waits) only once this rebuild has said which it is
// (bench/firstsound). The rebuild is the one the next tick would make, at
// the last tick's time; its events go out with that tick's. A move not yet
// ticked is left to its tick, which rebuilds for the new place anyway. It
// reports whether it rebuilt.
func (h *Host) rebuildNow() bool {
	if h.placed && !h.moved && h.rebuildDue() && h.rebuildAt(h.now, true, &h.between) {
		h.rebuiltSince = true
		return true
	}
	return false
}

// rebuildAt moves the engine to cur at now (force: a rebuild at the same
// place), and when it rebuilt, takes its outcome and appends its events to
// dst.
func (h *Host) rebuildAt(now float64, force bool, dst *[]ambient.Event) bool {
	gen := h.ld.generation()
	if !h.eng.ChangePosition(now, h.cur, force) {
		return false
	}
	h.afterRebuild(gen)
	*dst = append(*dst, h.eng.Events()...)
	return true
}

// needs is what the current position's rebuild reads, plus the rings of the
// neighbouring blocks the player is near (Prefetch).
func (h *Host) needs() need { return h.needsAt(h.cur) }

func (h *Host) needsAt(pos world.Position) need {
	var extra []uint32
	if h.opt.Prefetch && !h.opt.Sync && world.IsOutdoor(pos.ObjCellID) {
		extra = nearEdges(pos)
	}
	return needAt(pos, extra...)
}

// afterRebuild notes whether the rebuild had everything it reads, and lets
// go of records no rebuild near here reads and the engine does not hold.
// gen is the loader's generation taken before the rebuild: a record that
// came while it ran may not have been read, so the rebuild counts as
// partial then too.
func (h *Host) afterRebuild(gen uint64) {
	h.rebuiltGen = gen
	h.wavesSeen = h.ld.waveGeneration()
	// Records that came while the engine rebuilt (a load runs beside it)
	// may be some it looked for before they were there: then the rebuild
	// lacked them, however complete the records are now.
	at := needAt(h.cur)
	h.rebuild = h.settled(h.ld.generation() != gen || !h.ld.readable(at), at)
	if h.opt.Progressive {
		h.order = h.eng.HearingOrder()
		// A partial rebuild while a load runs orders the waves of the tables
		// that came so far, not the ring's: asked for now, its head would go
		// first and alone, and the first sound's wave wait behind it. The
		// load's end rebuilds with them all (rebuildNow) and asks then; a
		// load that brings nothing more leaves the ask to the next tick
		// (wavesDue).
		if h.rebuild != rebuildPartial || !h.load.running() {
			h.wantWaves()
			h.wavesDue = false
		}
	}
	if h.rebuild.lacking() && h.retryAt <= h.now {
		h.retryAt = h.now + h.retryWait
	}
	h.letGo()
}

// letGo lets go of the records no rebuild near here reads and the engine
// does not hold, unless a load runs: the load in flight fills what evict
// would drop (loadEnded lets go then).
func (h *Host) letGo() {
	if h.load.running() {
		return
	}
	held := map[uint32]bool{}
	h.eng.HeldTables(func(id uint32) { held[id] = true })
	h.ld.evict(h.needs(), held)
}

// settled is the rebuild's state: partial when it read a record not yet
// known, else lacking while what the place at needs is not all here.
func (h *Host) settled(partial bool, at need) rebuildState {
	switch {
	case partial:
		return rebuildPartial
	case !h.ld.complete(at):
		return rebuildLacking
	}
	return rebuildWhole
}

// checkStarted closes Started once a load has ended, the rebuild has read
// what it brought, and (Progressive) the first wave of the hearing order
// is in, or is no longer on its way (it failed, and waits for a retry).
func (h *Host) checkStarted() {
	// !placed: no tick has rebuilt for the position yet (a move's load can
	// end before its first tick), and the rebuild state says nothing.
	if h.opt.Sync || !h.placed || h.loadsDone == 0 || h.load.running() || h.ld.generation() != h.rebuiltGen && h.rebuild.lacking() {
		return
	}
	if h.opt.Progressive && len(h.order) > 0 && !h.ld.waveSettled(h.order[0]) {
		return
	}
	h.startOnce.Do(func() { close(h.started) })
}

// waveSettled runs checkStarted as soon as the first wave of the hearing
// order has settled (a load's end does too), rather than at the next tick:
// ticks come with the chunks the mixer renders, up to 40 ms apart in the
// worker before the click, and the page's "Click to listen" waits for
// Started (bench/firstsound). The engine plays the wave at its next tick
// all the same; a click in between hears it first (the worklet skips the
// silence queued ahead of the stream's first sound).
func (h *Host) waveSettled(id uint32) {
	h.mu.Lock()
	if len(h.order) > 0 && h.order[0] == id {
		h.checkStarted()
	}
	h.mu.Unlock()
}

// Started is closed once the page could hear a first sound: the first load
// for a position has ended, the engine has rebuilt with it, and, when
// Progressive, the first wave it wants has come (or failed). The page's map
// waits for it before it asks for landblocks off the ring: a hundred
// requests would queue the ring's records behind them (a browser opens six
// connections to a host) and share the link with the first wave.
func (h *Host) Started() <-chan struct{} { return h.started }

// Near reports whether landblock (bx, by) is one the host loads for the
// player's position (its ring, and the ring it prefetches).
func (h *Host) Near(bx, by int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.placed {
		return false
	}
	return slices.Contains(h.needs().blocks, world.LandBlockID(bx, by))
}

// Placed reports whether the player has been given a position.
func (h *Host) Placed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.player != nil
}

// wantWaves asks for the waves the engine wants, in its order, then the
// rest of what the current and prefetched rings name (Progressive).
func (h *Host) wantWaves() {
	h.ld.wantWaves(h.ctx, append(slices.Clip(h.order), h.ld.neededWaves(h.needs().blocks)...))
}

// nearEdges lists, for a player within PrefetchMetres of its block's edges,
// an objcell in each neighbouring block it is walking towards (corners
// included), whose rings are prefetched.
func nearEdges(p world.Position) []uint32 {
	bx, by := world.BlockX(p.ObjCellID), world.BlockY(p.ObjCellID)
	dxs, dys := []int{0}, []int{0}
	if p.X < PrefetchMetres {
		dxs = append(dxs, -1)
	} else if p.X > world.BlockLength-PrefetchMetres {
		dxs = append(dxs, 1)
	}
	if p.Y < PrefetchMetres {
		dys = append(dys, -1)
	} else if p.Y > world.BlockLength-PrefetchMetres {
		dys = append(dys, 1)
	}
	var out []uint32
	for _, dx := range dxs {
		for _, dy := range dys {
			if (dx != 0 || dy != 0) && world.ValidBlock(bx+dx, by+dy) {
				out = append(out, world.LandBlockID(bx+dx, by+dy))
			}
		}
	}
	return out
}

func finitePos(p world.Position) bool {
	for _, v := range [...]float32{p.X, p.Y, p.Z} {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}
