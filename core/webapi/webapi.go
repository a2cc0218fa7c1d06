// Package webapi is what the page's JavaScript API (contracts §3) asks of the
// Go side, as plain Go: a Bridge over a session Host that resolves the
// positions users type or click, buffers the engine's events and the load
// errors for the page to poll, reports the state as contracts §1.2's JSON
// plus the cells that weighted it, and serves the map's tiles and legend.
// The wasm main only converts between this and JavaScript values, so every
// number the page shows is computed, and tested, here natively.
package webapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/dat"
	"acambient/core/demo/spots"
	"acambient/core/mapview"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch"
)

// Buffer bounds: a page that stops polling (a background tab) loses the
// oldest events, not memory.
const (
	maxEvents = 1024
	maxErrors = 64
	maxTiles  = 4096 // decoded map tiles kept (about 2 KB each)
)

// Bridge is one ambient instance of the page. Its methods are safe for
// concurrent use; Tick, PCM and Retained are what the mixer calls.
type Bridge struct {
	host *session.Host
	ctx  context.Context
	cell datfetch.Source

	mu      sync.Mutex
	events  []ambient.Event
	errors  []string
	dropped int
	tiles   map[uint32]*mapview.Tile
}

// New loads the region from portal and makes the host (background loading,
// next ring prefetched). seed seeds the engine's RNGs.
func New(ctx context.Context, portal, cell datfetch.Source, seed uint32) (*Bridge, error) {
	b := &Bridge{ctx: ctx, cell: cell, tiles: map[uint32]*mapview.Tile{}}
	cfg := ambient.DefaultConfig()
	cfg.Seed = seed
	h, err := session.New(ctx, portal, cell, session.Options{
		Config: cfg, Prefetch: true, OnError: b.addError,
	})
	if err != nil {
		return nil, err
	}
	b.host = h
	return b, nil
}

// Host is the session host the bridge drives.
func (b *Bridge) Host() *session.Host { return b.host }

// Tick ticks the host (the mixer calls it on the audio clock) and keeps the
// events for Poll.
func (b *Bridge) Tick(now float64) []ambient.Event {
	evs := b.host.Tick(now)
	if len(evs) > 0 {
		b.mu.Lock()
		b.events = append(b.events, evs...)
		if over := len(b.events) - maxEvents; over > 0 {
			b.dropped += over
			b.events = append(b.events[:0], b.events[over:]...)
		}
		b.mu.Unlock()
	}
	return evs
}

// PCM and Retained pass through to the host, for the mixer.
func (b *Bridge) PCM(wave uint32) *audio.PCM { return b.host.PCM(wave) }
func (b *Bridge) Retained(wave uint32) bool  { return b.host.Retained(wave) }

func (b *Bridge) addError(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errors) >= maxErrors {
		b.errors = b.errors[1:]
	}
	b.errors = append(b.errors, err.Error())
}

// Polled is what happened since the last Poll.
type Polled struct {
	Events  []ambient.Event `json:"events"` // as contracts §1.3 writes them
	Errors  []string        `json:"errors"`
	Dropped int             `json:"dropped"` // events lost to the buffer bound
}

// Poll takes the events and errors gathered since the last Poll.
func (b *Bridge) Poll() Polled {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := Polled{Events: b.events, Errors: b.errors, Dropped: b.dropped}
	if p.Events == nil {
		p.Events = []ambient.Event{}
	}
	if p.Errors == nil {
		p.Errors = []string{}
	}
	b.events, b.errors, b.dropped = nil, nil, 0
	return p
}

// Where is a position in every form the page shows: objcell and local
// metres, global metres and map coordinates.
type Where struct {
	world.Position
	Outdoor bool
	X, Y    float64 // global metres
	NS, EW  float64 // map coordinates (north and east positive)
}

// MarshalJSON writes the position's §1.2 keys and the rest.
func (w Where) MarshalJSON() ([]byte, error) {
	p, err := json.Marshal(w.Position)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(p[:len(p)-1], `,"outdoor":%t,"X":%s,"Y":%s,"ns":%s,"ew":%s}`,
		w.Outdoor, num(w.X), num(w.Y), num(w.NS), num(w.EW)), nil
}

func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	return fmt.Sprintf("%.6g", v)
}

// WhereOf describes p.
func WhereOf(p world.Position) Where {
	X, Y, _ := p.Global()
	ns, ew := world.MapCoords(X, Y)
	return Where{Position: p, Outdoor: world.IsOutdoor(p.ObjCellID), X: X, Y: Y, NS: ns, EW: ew}
}

// SetPlayer resolves a POS (contracts §1.1: objcell form, global, map
// coordinates with the terrain's z, or a pasted /loc line) and moves the
// player there; the camera follows unless SetCamera was called. It may
// fetch the landblock for z, so it must not run on the JS event loop.
func (b *Bridge) SetPlayer(text string) (Where, error) {
	sp, err := b.host.Resolve(text)
	if err != nil {
		return Where{}, err
	}
	b.host.Move(sp.Pos)
	return WhereOf(sp.Pos), nil
}

// SetCamera resolves a POS for the camera; heading is the compass heading
// in degrees, used when the POS carries none.
func (b *Bridge) SetCamera(text string, heading float64) (Where, error) {
	sp, err := b.host.Resolve(text)
	if err != nil {
		return Where{}, err
	}
	if sp.HasHeading {
		heading = sp.Heading
	}
	b.host.SetCamera(sp.Pos, heading)
	return WhereOf(sp.Pos), nil
}

// State is contracts §3 state(): the host's state (§1.2 keys, voices,
// loading), where the player is, the cells that weighted the last rebuild
// and the audio clock.
type State struct {
	session.State
	Voices []Voice              `json:"voices"` // shadows session.State's, to keep End in the JSON
	Where  Where                `json:"where"`
	Cells  []ambient.CellWeight `json:"cells"`
	Next   []float64            `json:"next"` // per sound: when it next fires (audio-clock seconds), −1 if not queued
	Time   float64              `json:"time"`
}

// State reports the bridge now.
func (b *Bridge) State() State {
	st := b.host.State()
	cells := b.host.Cells()
	if cells == nil {
		cells = []ambient.CellWeight{}
	}
	next := b.host.NextPlays()
	if len(next) != len(st.Sounds) { // a rebuild between the two reads
		next = make([]float64, len(st.Sounds))
	}
	voices := make([]Voice, len(st.Voices))
	for i, v := range st.Voices {
		voices[i] = Voice(v)
	}
	return State{State: st, Voices: voices, Where: WhereOf(st.Player), Cells: cells, Next: next, Time: b.host.Now()}
}

// Voice is a sounding voice: its play event (contracts §1.3's keys) and
// when it ends, and the slot it holds.
type Voice session.VoiceState

// MarshalJSON writes the play's keys, then "end" and "slot".
func (v Voice) MarshalJSON() ([]byte, error) {
	b, err := v.Event.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(b[:len(b)-1], `,"end":%s,"slot":%d}`, num(v.End), v.Slot), nil
}

// Landmark is a named demo spot with its position in every form.
type Landmark struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Where       Where  `json:"where"`
}

// Info is what the page needs once: the terrain legend, and the demo's
// landmarks when the region is the demo's.
type Info struct {
	Terrains  []mapview.Terrain `json:"terrains"`
	Landmarks []Landmark        `json:"landmarks"`
	Bounds    Bounds            `json:"bounds"`
	Demo      bool              `json:"demo"`
}

// Bounds is the range of landblocks that can hold land, inclusive: the
// demo's 12×12 for the demo world, the whole world otherwise. The map asks
// for no tile outside it.
type Bounds struct {
	BX0 int `json:"bx0"`
	BY0 int `json:"by0"`
	BX1 int `json:"bx1"`
	BY1 int `json:"by1"`
}

// Info describes the loaded region. Landmarks are listed only for the demo
// world (their landblocks would be arbitrary spots in retail's Dereth).
func (b *Bridge) Info() Info {
	r := b.host.Region()
	in := Info{Terrains: mapview.Terrains(r), Landmarks: []Landmark{},
		Bounds: Bounds{0, 0, world.BlocksPerSide - 1, world.BlocksPerSide - 1}}
	if IsDemo(r) {
		in.Demo = true
		in.Bounds = Bounds{spots.BlockX0, spots.BlockY0, spots.BlockX0 + spots.BlocksX - 1, spots.BlockY0 + spots.BlocksY - 1}
		for _, l := range spots.Landmarks {
			p := world.Position{ObjCellID: l.ObjCellID, X: l.X, Y: l.Y, Z: l.Z}
			in.Landmarks = append(in.Landmarks, Landmark{Name: l.Name, Description: l.Description, Where: WhereOf(p)})
		}
	}
	return in
}

// IsDemo reports whether r is the built-in demo world's region.
func IsDemo(r *dat.Region) bool { return r != nil && r.RegionName == spots.RegionName }

// Tile is the map tile of landblock (bx, by); a block the data lacks is
// datfetch.ErrNotFound (wrapped). Tiles are fetched from the cell source
// directly, not through the host, so the map never counts as ambient loading.
func (b *Bridge) Tile(bx, by int) (*mapview.Tile, error) {
	if !world.ValidBlock(bx, by) {
		return nil, fmt.Errorf("landblock (%d, %d): outside the world", bx, by)
	}
	id := world.LandBlockID(bx, by)
	b.mu.Lock()
	t, ok := b.tiles[id]
	b.mu.Unlock()
	if ok {
		return t, nil
	}
	raw, err := b.cell.Get(b.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("map tile 0x%08X: %w", id, err)
	}
	lb, err := dat.DecodeLandBlock(id, raw)
	if err != nil {
		return nil, fmt.Errorf("map tile 0x%08X: %w", id, err)
	}
	tile, err := mapview.NewTile(b.host.Region(), lb)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	if len(b.tiles) >= maxTiles {
		clear(b.tiles)
	}
	b.tiles[id] = &tile
	b.mu.Unlock()
	return &tile, nil
}
