// Package session is the host of architecture.md: the one frame loop that
// `trace`, `render` and the page share. It moves the listener, loads from a
// pair of record sources what a position needs (the region once, the 3×3
// landblock ring, the EnvCell when indoors, every SoundTable the ring's
// terrain names and every Wave those tables name, decoded, as retail decodes
// a table's waves when the table loads), rebuilds the engine, and ticks it.
//
// The engine never waits for data. The host rebuilds on a cell change, and
// again when a record arrives that the last rebuild lacked, so that what
// plays equals what retail computes with every record on disk. A missing
// record is retail's not-found; a malformed record or a failed fetch is
// reported through OnError and treated as absent, and the failed fetch is
// retried with backoff while the listener stays.
package session

import (
	"context"
	"fmt"
	"math"
	"sync"

	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/world"
	"acambient/datfetch"
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
	// OnError receives every non-fatal problem (a corrupt record, a wave that
	// does not decode, a failed fetch). Nil discards them. It may be called
	// from a loading goroutine.
	OnError func(error)
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

// Host drives one engine over one pair of record sources. Move, SetCamera,
// SetVolume, SetEnabled, State, PCM and Retained may be called from any
// goroutine; Tick from one goroutine at a time (the audio clock).
type Host struct {
	ld  *loader
	opt Options
	ctx context.Context

	mu         sync.Mutex // guards everything below and the engine
	eng        *ambient.Engine
	player     *world.Position // the latest Move
	moved      bool            // a Move since the last Tick
	camera     *world.Position
	heading    float64
	cur        world.Position // where the engine was last moved to
	have       bool           // cur is set
	ticked     bool
	now        float64
	lacking    bool    // the last rebuild read a record that was not yet known
	rebuiltGen uint64  // the loader's generation at the last rebuild
	retryAt    float64 // when to fetch what is lacking again
	retryWait  float64
	loading    bool // a background load is running
	stale      bool // the listener moved while a load ran: load again when it ends
	slots      [16]ambient.Event
	events     []ambient.Event
}

// New loads the region and makes a host over it. A missing or malformed
// region is fatal: without it there is no ambient data at all. ctx bounds
// every fetch the host makes, for its whole life.
func New(ctx context.Context, portal, cell datfetch.Source, opt Options) (*Host, error) {
	region, n, err := loadRegion(ctx, portal)
	if err != nil {
		return nil, err
	}
	h := &Host{ld: newLoader(portal, cell, region), opt: opt, ctx: ctx, retryWait: retryFirst}
	h.ld.onError = opt.OnError
	h.ld.stats.Records, h.ld.stats.Bytes = 1, int64(n)
	h.eng = ambient.New(region, h.ld, h.ld, opt.Config)
	h.ld.tableOf = h.eng.TableOf
	for i := range h.slots {
		h.slots[i].Slot = -1
	}
	return h, nil
}

// Resolve parses a POS (contracts §1.1) and checks it against the data:
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
		if c, known := h.ld.envCell(h.ctx, id); c == nil {
			if known {
				return sp, fmt.Errorf("envcell 0x%08X does not exist", id)
			}
			return sp, fmt.Errorf("envcell 0x%08X could not be fetched", id)
		}
	}
	return sp, nil
}

// Move sets the player's position; it applies at the next Tick. A position
// with a coordinate that is not a finite number is ignored.
func (h *Host) Move(p world.Position) {
	if !finitePos(p) {
		return
	}
	h.mu.Lock()
	h.player, h.moved = &p, true
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
	h.mu.Unlock()
}

// SetEnabled is retail's ambient_sounds_enabled.
func (h *Host) SetEnabled(on bool) {
	h.mu.Lock()
	h.eng.SetEnabled(on)
	h.mu.Unlock()
}

// Tick runs one frame at absolute time now, as SmartBox::UseTime does: the
// player's position into ChangePosition (which rebuilds on a cell change;
// the host also rebuilds when records the last rebuild lacked have
// arrived), then Ambient::UseTime. The first tick only rebuilds. The events
// are valid until the next Tick.
func (h *Host) Tick(now float64) []ambient.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = h.events[:0]
	h.now = now
	if h.player == nil {
		return h.events
	}
	first := !h.ticked
	h.ticked = true
	moved := h.moved
	h.moved = false
	if moved {
		h.cur, h.have = *h.player, true
	}
	if h.camera != nil {
		h.eng.SetCamera(*h.camera, h.heading)
	} else {
		h.eng.SetCamera(h.cur, 0)
	}

	again := h.stale && !h.loading
	retry := h.lacking && now >= h.retryAt
	if moved || again || retry {
		h.fetch(now, retry && !moved && !again)
	}
	// A rebuild: on a move (the engine itself decides whether the cell
	// changed), or at the same place when what the last one lacked arrived.
	force := h.lacking && !h.loading && h.ld.generation() != h.rebuiltGen
	if moved || force {
		gen := h.ld.generation()
		if h.eng.ChangePosition(now, h.cur, force) {
			h.afterRebuild(gen)
			h.record(h.eng.Events())
		}
	}
	if !first {
		h.record(h.eng.UseTime(now))
	}
	return h.events
}

// fetch loads what the current position needs: inline in Sync mode, else in
// the background (one load at a time; a Move during a load is picked up by
// the retry that the incomplete rebuild schedules).
func (h *Host) fetch(now float64, isRetry bool) {
	if isRetry {
		h.retryAt = now + h.retryWait
		h.retryWait = math.Min(2*h.retryWait, retryMax)
	} else {
		h.retryWait = retryFirst
		h.retryAt = now + retryFirst
	}
	n := h.needs()
	if h.opt.Sync {
		h.mu.Unlock()
		h.ld.load(h.ctx, n)
		h.mu.Lock()
		return
	}
	if h.loading {
		h.stale = true // picked up again once the current load ends
		return
	}
	h.loading, h.stale = true, false
	go func() {
		h.ld.load(h.ctx, n)
		h.mu.Lock()
		h.loading = false
		h.mu.Unlock()
	}()
}

// needs is what the current position's rebuild reads, plus the rings of the
// neighbouring blocks the player is near (Prefetch).
func (h *Host) needs() need {
	var extra []uint32
	if h.opt.Prefetch && !h.opt.Sync && world.IsOutdoor(h.cur.ObjCellID) {
		extra = nearEdges(h.cur)
	}
	return needAt(h.cur, extra...)
}

// afterRebuild notes whether the rebuild had everything it reads, and lets
// go of records no rebuild near here reads and the engine does not hold.
func (h *Host) afterRebuild(gen uint64) {
	h.rebuiltGen = gen
	n := h.needs()
	h.lacking = !h.ld.complete(needAt(h.cur))
	if h.lacking && h.retryAt <= h.now {
		h.retryAt = h.now + h.retryWait
	}
	if h.loading {
		return // the load in flight fills what evict would drop
	}
	held := map[uint32]bool{}
	h.eng.HeldTables(func(id uint32) { held[id] = true })
	h.ld.evict(n, held)
}

// record keeps a tick's events and each voice slot's latest play.
func (h *Host) record(evs []ambient.Event) {
	for _, ev := range evs {
		if ev.Kind == ambient.KindPlay && ev.Slot >= 0 && ev.Slot < len(h.slots) {
			h.slots[ev.Slot] = ev
		}
	}
	h.events = append(h.events, evs...)
}

// State is the data behind contracts §3 state(): the engine as of its last
// rebuild, the voices sounding at the last tick and what is loading.
type State struct {
	ambient.State
	Voices  []VoiceState `json:"voices"`
	Loading Stats        `json:"loading"`
}

// VoiceState is a voice slot that is sounding: its play event and its end.
type VoiceState struct {
	ambient.Event
	End float64 `json:"end"`
}

// State reports the host at its last tick.
func (h *Host) State() State {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := State{State: h.eng.State(), Voices: []VoiceState{}, Loading: h.ld.snapshot()}
	for _, v := range h.eng.Voices(h.now) {
		if ev := h.slots[v.Slot]; ev.Slot == v.Slot {
			st.Voices = append(st.Voices, VoiceState{Event: ev, End: v.End})
		}
	}
	return st
}

// PCM is a decoded wave the host holds, or nil.
func (h *Host) PCM(wave uint32) *audio.PCM { return h.ld.pcm(wave) }

// Retained reports whether the host still holds the wave; once it does not,
// a mixer may drop its resampled copy.
func (h *Host) Retained(wave uint32) bool { return h.ld.retained(wave) }

// Stats reports what the host has fetched and holds.
func (h *Host) Stats() Stats { return h.ld.snapshot() }

// Complete reports whether the last rebuild had every record it reads.
func (h *Host) Complete() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.have && !h.lacking
}

// Idle reports whether no background load is running.
func (h *Host) Idle() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.loading
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
