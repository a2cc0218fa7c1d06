// Package hints computes, for a landblock, what the page's progressive
// session (core/session, Options.Progressive) asks for first when it opens
// at one of the landblock's land cells: the SoundTables its first rebuild
// reads, and the first wave of its hearing order. The page reads the hint
// at t≈0 and asks for those records while the wasm still downloads, so that
// they are on the wire by the time the Go side asks (www/ambient.js
// prefetch, datfetch.FetchEarly; docs/architecture.md, "Decisions").
//
// A hint is a guess the session never reads: where it is wrong, the page
// has fetched a record the session does not take first (it is taken later,
// or dropped when the first sound is heard), and nothing else changes.
// It is computed by the engine itself (ambient.Engine: ChangePosition, then
// HearingOrder), a fresh one per listener, as a fresh session's is.
package hints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch/source"
)

// Hint is what a session opening in a landblock asks for first.
type Hint struct {
	// Tables are the SoundTables the terrain of the landblock's ring (its
	// 3×3, ambient.Ring) names, in the order the session's loader lists
	// them (ring order, then the terrain's vertex order): every one of
	// them is read by a rebuild at any land cell of the landblock.
	Tables []uint32
	// Vertices and Centres are the wave the session asks for first with
	// the listener at each of the landblock's 9×9 vertices (x-major, index
	// 9·vx + vy, as dat.LandBlock's Terrain) and at each of its 8×8 land
	// cells' centres (index 8·cx + cy), on the ground: the head of the
	// engine's HearingOrder after its rebuild there. 0: nothing is heard
	// there. The page takes the one of the point nearest its listener
	// (Nearest): the head changes where the beds' shares cross, which
	// may be inside a cell (at the demo's river, between a cell's corner
	// and its centre), so one wave per cell would be wrong at some of its
	// points, and a wrong guess is a wave of some 350 kB sharing the link
	// with the wasm for nothing.
	Vertices [81]uint32
	Centres  [64]uint32
}

// Nearest is the point of the lattice (a vertex, or a cell's centre) nearest
// landblock-local (x, y), as Hint's fields index it: centre reports which.
func Nearest(x, y float32) (index int, centre bool) {
	cx := min(max(int(x/world.CellLength), 0), world.CellsPerBlock-1)
	cy := min(max(int(y/world.CellLength), 0), world.CellsPerBlock-1)
	u, v := x-world.CellLength*float32(cx), y-world.CellLength*float32(cy)
	half := float32(world.CellLength / 2)
	if abs(u-half)+abs(v-half) <= half {
		return 8*cx + cy, true
	}
	vx, vy := cx, cy
	if u > half {
		vx++
	}
	if v > half {
		vy++
	}
	return 9*vx + vy, false
}

func abs(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// First is the hinted first wave for a listener at landblock-local (x, y),
// 0 for none.
func (h *Hint) First(x, y float32) uint32 {
	i, centre := Nearest(x, y)
	if centre {
		return h.Centres[i]
	}
	return h.Vertices[i]
}

// Maker computes hints over a portal and a cell source. Safe for
// concurrent use.
type Maker struct {
	portal, cell source.Source
	region       *dat.Region
	tables       *ambient.Tables
	heights      [256]float32
	keep         bool

	mu     sync.Mutex
	blocks map[uint32]*dat.LandBlock // nil value: known missing
	stbs   map[uint32]*dat.SoundTable
}

// New loads the region and makes a Maker. With keep it keeps the records
// it decodes (landblocks, SoundTables) for the next hints, until Forget:
// an export asks for every landblock, and each landblock is in nine
// rings (a few MB for the whole retail world). Without, each hint reads
// its records afresh (a server: its sources cache them). A missing or
// malformed region is an error: without it nothing sounds anywhere.
func New(ctx context.Context, portal, cell source.Source, keep bool) (*Maker, error) {
	b, err := portal.Get(ctx, dat.RegionID)
	if err != nil {
		return nil, fmt.Errorf("hints: region 0x%08X: %w", uint32(dat.RegionID), err)
	}
	r, err := dat.DecodeRegion(dat.RegionID, b)
	if err != nil {
		return nil, fmt.Errorf("hints: %w", err)
	}
	return &Maker{portal: portal, cell: cell, region: r, tables: ambient.NewTables(r),
		heights: world.HeightTable(r), keep: keep, blocks: map[uint32]*dat.LandBlock{}, stbs: map[uint32]*dat.SoundTable{}}, nil
}

// ErrNoLandblock: the cell source lacks the landblock asked about.
var ErrNoLandblock = errors.New("no such landblock")

// Landblock computes the hint of landblock id (0xXXYYFFFF). A landblock
// the cell source lacks is an error wrapping ErrNoLandblock and
// source.ErrNotFound; a record that cannot be read or decoded is an
// error naming it. A missing or malformed neighbour or table is what the
// session makes of it: nothing there.
func (m *Maker) Landblock(ctx context.Context, id uint32) (Hint, error) {
	if id&0xFFFF != 0xFFFF || !world.ValidBlock(world.BlockX(id), world.BlockY(id)) {
		return Hint{}, fmt.Errorf("hints: 0x%08X is not a landblock id (0xXXYYFFFF)", id)
	}
	bx, by := world.BlockX(id), world.BlockY(id)
	ring := ambient.Ring(id)
	land := &land{blocks: map[uint32]*dat.LandBlock{}}
	for _, b := range ring {
		bid := world.LandBlockID(b[0], b[1])
		lb, err := m.block(ctx, bid)
		if err != nil {
			return Hint{}, err
		}
		land.blocks[bid] = lb
	}
	if land.blocks[id] == nil {
		return Hint{}, fmt.Errorf("hints: landblock 0x%08X: %w: %w", id, ErrNoLandblock, source.ErrNotFound)
	}
	var h Hint
	lib := &library{tables: map[uint32]*dat.SoundTable{}}
	seen := map[uint32]bool{}
	for _, b := range ring {
		lb := land.blocks[world.LandBlockID(b[0], b[1])]
		if lb == nil {
			continue
		}
		for _, w := range lb.Terrain {
			tid, ok := m.tables.Table(w)
			if !ok || seen[tid] {
				continue
			}
			seen[tid] = true
			h.Tables = append(h.Tables, tid)
			t, err := m.table(ctx, tid)
			if err != nil {
				return Hint{}, err
			}
			lib.tables[tid] = t // nil: retail's stb_not_found
		}
	}
	lb := land.blocks[id]
	at := func(x, y float32, cx, cy int) uint32 {
		z, err := world.TerrainZIn(&m.heights, lb, x, y)
		if err != nil {
			return 0 // unreachable: x and y lie in the block
		}
		return headAt(m.region, land, lib, world.Position{ObjCellID: world.OutdoorCellID(bx, by, cx, cy), X: x, Y: y, Z: z})
	}
	for vx := range 9 {
		for vy := range 9 {
			// A vertex on the block's north or east edge is in its last cell.
			h.Vertices[9*vx+vy] = at(world.CellLength*float32(vx), world.CellLength*float32(vy),
				min(vx, world.CellsPerBlock-1), min(vy, world.CellsPerBlock-1))
		}
	}
	for cx := range world.CellsPerBlock {
		for cy := range world.CellsPerBlock {
			h.Centres[8*cx+cy] = at(world.CellLength*(float32(cx)+0.5), world.CellLength*(float32(cy)+0.5), cx, cy)
		}
	}
	return h, nil
}

// headAt is the head of a fresh engine's hearing order after its rebuild
// at pos, with every record of the ring there: the session's first wave
// (core/session: afterRebuild, loader.wantWaves). 0: it hears nothing.
func headAt(region *dat.Region, land *land, lib *library, pos world.Position) uint32 {
	e := ambient.New(region, land, lib, ambient.DefaultConfig())
	e.ChangePosition(0, pos, false)
	order := e.HearingOrder()
	if len(order) == 0 {
		return 0
	}
	return order[0]
}

// Forget lets go of the decoded records kept for later hints.
func (m *Maker) Forget() {
	m.mu.Lock()
	clear(m.blocks)
	clear(m.stbs)
	m.mu.Unlock()
}

// block is landblock id, decoded, or nil when the source lacks it.
func (m *Maker) block(ctx context.Context, id uint32) (*dat.LandBlock, error) {
	return get(m, ctx, m.cell, id, m.blocks, dat.DecodeLandBlock, "landblock")
}

// table is SoundTable id, decoded, or nil when the source lacks it.
func (m *Maker) table(ctx context.Context, id uint32) (*dat.SoundTable, error) {
	return get(m, ctx, m.portal, id, m.stbs, dat.DecodeSoundTable, "SoundTable")
}

// get reads record id from src through the kept records in kept. Not
// found is a nil record; a record that does not decode is an error, as
// is a failed read: the hint would not be the session's.
func get[T any](m *Maker, ctx context.Context, src source.Source, id uint32, kept map[uint32]*T,
	decode func(uint32, []byte) (*T, error), kind string) (*T, error) {
	m.mu.Lock()
	v, ok := kept[id]
	m.mu.Unlock()
	if ok {
		return v, nil
	}
	b, err := src.Get(ctx, id)
	switch {
	case errors.Is(err, source.ErrNotFound):
		v = nil
	case err != nil:
		return nil, fmt.Errorf("hints: %s 0x%08X: %w", kind, id, err)
	default:
		if v, err = decode(id, b); err != nil {
			return nil, fmt.Errorf("hints: %w", err)
		}
	}
	if m.keep {
		m.mu.Lock()
		kept[id] = v
		m.mu.Unlock()
	}
	return v, nil
}

// ---- the engine's Land and Library: the ring, every record there ----

type land struct{ blocks map[uint32]*dat.LandBlock }

func (l *land) LandBlock(bx, by int) *dat.LandBlock { return l.blocks[world.LandBlockID(bx, by)] }
func (l *land) EnvCell(uint32) *dat.EnvCell         { return nil }

type library struct{ tables map[uint32]*dat.SoundTable }

func (l *library) SoundTable(id uint32) (*dat.SoundTable, ambient.Status) {
	if t := l.tables[id]; t != nil {
		return t, ambient.Loaded
	}
	return nil, ambient.NotFound
}

// Wave: no rebuild reads a wave's length (a fire does); any will do.
func (l *library) Wave(uint32) (float64, bool) { return 1, true }

// ---- the served form ----

// digits name a wave of a hint's palette in its lattice strings; none is a
// point where nothing is heard (or, past the 62nd distinct wave of a
// landblock, which no world comes near, a point left unhinted).
const (
	digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	none   = '-'
)

// wire is the served form (docs/interfaces.md §2.1).
type wire struct {
	Tables   []string `json:"tables"`
	Waves    []string `json:"waves"`
	Vertices string   `json:"vertices"`
	Centres  string   `json:"centres"`
}

// JSON is the hint as served at /hints/0xXXYYFFFF (docs/interfaces.md
// §2.1): {"tables":[…],"waves":[…],"vertices":"…","centres":"…"}, ids as
// 0x and eight upper-case hex digits (the form of a record's URL), the
// tables in the session's order; waves is the palette of the first waves,
// and vertices (81 characters) and centres (64) name one of it per point
// by its digit (0–9, a–z, A–Z: index 0–61) or '-' for none.
func (h Hint) JSON() []byte {
	v := wire{Tables: []string{}, Waves: []string{}}
	index := map[uint32]byte{}
	lattice := func(ids []uint32) string {
		b := make([]byte, len(ids))
		for i, id := range ids {
			b[i] = none
			if id == 0 {
				continue
			}
			d, ok := index[id]
			if !ok && len(v.Waves) < len(digits) {
				d, ok = digits[len(v.Waves)], true
				index[id] = d
				v.Waves = append(v.Waves, hex(id))
			}
			if ok {
				b[i] = d
			}
		}
		return string(b)
	}
	for _, id := range h.Tables {
		v.Tables = append(v.Tables, hex(id))
	}
	v.Vertices = lattice(h.Vertices[:])
	v.Centres = lattice(h.Centres[:])
	b, _ := json.Marshal(v) // strings only: it cannot fail
	return b
}

// Parse reads what JSON writes (a test's and a tool's reader; the page has
// its own, www/ambient.js).
func Parse(b []byte) (Hint, error) {
	var v wire
	if err := json.Unmarshal(b, &v); err != nil {
		return Hint{}, fmt.Errorf("hint: %w", err)
	}
	var h Hint
	for _, s := range v.Tables {
		id, err := dat.ParseID(s)
		if err != nil {
			return Hint{}, fmt.Errorf("hint: table %q: %w", s, err)
		}
		h.Tables = append(h.Tables, id)
	}
	waves := make([]uint32, len(v.Waves))
	for i, s := range v.Waves {
		id, err := dat.ParseID(s)
		if err != nil {
			return Hint{}, fmt.Errorf("hint: wave %q: %w", s, err)
		}
		waves[i] = id
	}
	lattice := func(name, s string, out []uint32) error {
		if len(s) != len(out) {
			return fmt.Errorf("hint: %s: %d characters, want %d", name, len(s), len(out))
		}
		for i := range len(s) {
			if s[i] == none {
				continue
			}
			k := strings.IndexByte(digits, s[i])
			if k < 0 || k >= len(waves) {
				return fmt.Errorf("hint: %s[%d]: %q names no wave of %d", name, i, s[i], len(waves))
			}
			out[i] = waves[k]
		}
		return nil
	}
	if err := lattice("vertices", v.Vertices, h.Vertices[:]); err != nil {
		return Hint{}, err
	}
	if err := lattice("centres", v.Centres, h.Centres[:]); err != nil {
		return Hint{}, err
	}
	return h, nil
}

func hex(id uint32) string { return fmt.Sprintf("0x%08X", id) }
