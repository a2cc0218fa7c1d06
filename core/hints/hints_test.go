package hints

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch/source"
)

var demoOnce = sync.OnceValues(demo.Build)

func demoWorld(t testing.TB) *demo.World {
	t.Helper()
	w, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func demoMaker(t testing.TB) *Maker {
	t.Helper()
	w := demoWorld(t)
	m, err := New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell), true)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The demo's river landblock, where the page opens.
const riverBlock = 0xA9B5FFFF

// TestRiverHint, by hand: the demo page opens at 0xA9B5002D/120,96 (www/app.js
// DEMO_RIVER), the south-west vertex (5, 4) of land cell 0x2D, which stands
// in the river: there the river's bed (volume 1.0, docs: core/demo stbRiver)
// leads and the session asks first for its wave, 0x0A000121 (wRiverFlow).
// 12 m away, at the cell's centre, the river's vertices weigh less than the
// meadow around them and the meadow's breeze (0x0A000101) leads: one wave
// per cell would be wrong at the spot. The ring's terrain names the
// meadow's, the river's, the rock's and the forest's tables (0x20000101,
// 0x20000103, 0x20000108, 0x20000102), in the order the landblocks list
// them (the ring west→east, south→north; each block's vertices x-major).
func TestRiverHint(t *testing.T) {
	m := demoMaker(t)
	h, err := m.Landblock(context.Background(), riverBlock)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{0x20000101, 0x20000103, 0x20000108, 0x20000102}; !slices.Equal(h.Tables, want) {
		t.Errorf("tables %08X; want %08X", h.Tables, want)
	}
	if got := h.Vertices[9*5+4]; got != 0x0A000121 {
		t.Errorf("first wave at the river vertex (5, 4): 0x%08X; want 0x0A000121 (the river's bed)", got)
	}
	if got := h.Centres[8*5+4]; got != 0x0A000101 {
		t.Errorf("first wave at the centre of cell 0x2D: 0x%08X; want 0x0A000101 (the meadow's breeze)", got)
	}
	if got := h.First(120, 96); got != 0x0A000121 {
		t.Errorf("First(120, 96) = 0x%08X; want the vertex's 0x0A000121", got)
	}
	if got := h.First(131, 107); got != 0x0A000101 {
		t.Errorf("First(131, 107) = 0x%08X; want the centre's 0x0A000101", got)
	}
}

// TestNearest: a point takes the lattice point nearest it, a vertex or a
// cell's centre (|u−12| + |v−12| ≤ 12 in the cell: the centre).
func TestNearest(t *testing.T) {
	for _, tc := range []struct {
		x, y   float32
		index  int
		centre bool
	}{
		{0, 0, 0, false},
		{12, 12, 0, true},
		{120, 96, 9*5 + 4, false},
		{132, 108, 8*5 + 4, true},
		{125.9, 96.1, 9*5 + 4, false}, // |u−12| + |v−12| = 6.1 + 11.9 > 12
		{126.1, 102, 8*5 + 4, true},
		{143, 119, 9*6 + 5, false},
		{192, 192, 80, false},
		{191, 1, 9 * 8, false},
		{180, 180, 63, true},
	} {
		i, c := Nearest(tc.x, tc.y)
		if i != tc.index || c != tc.centre {
			t.Errorf("Nearest(%g, %g) = %d, %v; want %d, %v", tc.x, tc.y, i, c, tc.index, tc.centre)
		}
	}
}

// gatedPortal is the session's portal: it notes the waves asked for, in
// order, and holds every record until opened, as a network would, so that
// the session's first rebuild (on the move) finds nothing, as the page's.
type gatedPortal struct {
	src  source.Source
	open chan struct{}

	mu    sync.Mutex
	waves []uint32
}

func (g *gatedPortal) Get(ctx context.Context, id uint32) ([]byte, error) {
	if id != dat.RegionID {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if dat.PortalKind(id) == dat.KindWave {
		g.mu.Lock()
		g.waves = append(g.waves, id)
		g.mu.Unlock()
	}
	return g.src.Get(ctx, id)
}

func (g *gatedPortal) first() uint32 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waves) == 0 {
		return 0
	}
	return g.waves[0]
}

// gatedCell holds the cell source's records until opened.
type gatedCell struct {
	src  source.Source
	open chan struct{}
}

func (g *gatedCell) Get(ctx context.Context, id uint32) ([]byte, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.src.Get(ctx, id)
}

// sessionFirst opens the page's session (core/session, as wasm/main.go makes
// it: progressive, prefetching) at pos and returns the first wave it asks
// for, and every SoundTable it asks for before that (0 and nil: none in
// time, once Started says a first sound could be heard).
func sessionFirst(t *testing.T, w *demo.World, pos string) (uint32, []uint32) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := make(chan struct{})
	portal := &gatedPortal{src: source.NewMemory(w.Portal), open: open}
	tables := &tableLog{src: portal}
	h, err := newSession(ctx, tables, &gatedCell{src: source.NewMemory(w.Cell), open: open})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.SetPlayerPOS(pos); err != nil {
		t.Fatalf("%s: %v", pos, err)
	}
	now := 0.0
	h.Tick(now) // the move's rebuild, with nothing yet
	close(open)
	deadline := time.Now().Add(20 * time.Second)
	for {
		// The first wave's ask comes after every table's (the rebuild that
		// orders the waves reads them all); Started, once it is in. A load's
		// end rebuilds and asks on its own goroutine (session rebuildNow),
		// so the ask and Started may both come between two looks: the ask
		// is read again once Started is closed (it comes first, or not at
		// all where nothing is heard).
		if w := portal.first(); w != 0 {
			return w, tables.before(w)
		}
		select {
		case <-h.Started():
			w := portal.first()
			return w, tables.before(w)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the session did not start in 20 s", pos)
		}
		now += 1.0 / 30
		h.Tick(now)
		time.Sleep(100 * time.Microsecond)
	}
}

// tableLog notes the SoundTables asked for, and which came before the first
// wave.
type tableLog struct {
	src *gatedPortal
	mu  sync.Mutex
	ids []uint32
}

func (l *tableLog) Get(ctx context.Context, id uint32) ([]byte, error) {
	if dat.PortalKind(id) == dat.KindSoundTable {
		l.mu.Lock()
		l.ids = append(l.ids, id)
		l.mu.Unlock()
	}
	return l.src.Get(ctx, id)
}

func (l *tableLog) before(uint32) []uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ids)
}

// posAt is the objcell POS of landblock-local (x, y) on the ground of lb,
// in the cell that holds it (the block's last for its north and east edges).
func posAt(t *testing.T, m *Maker, lb *dat.LandBlock, x, y float32) string {
	t.Helper()
	z, err := world.TerrainZIn(&m.heights, lb, x, y)
	if err != nil {
		t.Fatal(err)
	}
	cx, cy := min(int(x/world.CellLength), 7), min(int(y/world.CellLength), 7)
	id := world.OutdoorCellID(world.BlockX(uint32(lb.ID)), world.BlockY(uint32(lb.ID)), cx, cy)
	f := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	return fmt.Sprintf("0x%08X/%s,%s,%s", id, f(x), f(y), f(z))
}

// TestHintsAreTheSessions: at many lattice points of the demo world (every
// one of the river's block, and a sample of every other block's), a real
// session (core/session's Host, progressive and prefetching as the page's)
// asks first for the wave the hint names there, and asks for every table
// the hint lists, and no other, before its first sound (the spots lie away
// from the blocks' edges, where it would prefetch the next ring's too).
// Where the hint names no wave (nothing is heard there) no guess is made.
func TestHintsAreTheSessions(t *testing.T) {
	w := demoWorld(t)
	m := demoMaker(t)
	var blocks []uint32
	for id := range w.Cell {
		if id&0xFFFF == 0xFFFF {
			blocks = append(blocks, id)
		}
	}
	slices.Sort(blocks)
	rng := rand.New(rand.NewPCG(18, 1))
	points, unheard := 0, 0
	for _, id := range blocks {
		h, err := m.Landblock(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		lb, _ := m.block(context.Background(), id)
		type point struct {
			x, y float32
			want uint32
		}
		var ps []point
		for vx := range 9 {
			for vy := range 9 {
				ps = append(ps, point{world.CellLength * float32(vx), world.CellLength * float32(vy), h.Vertices[9*vx+vy]})
			}
		}
		for c := range 64 {
			ps = append(ps, point{world.CellLength * (float32(c/8) + 0.5), world.CellLength * (float32(c%8) + 0.5), h.Centres[c]})
		}
		if id != riverBlock && !testing.Short() {
			rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			ps = ps[:3]
		} else if id != riverBlock {
			ps = ps[:1]
		}
		for _, p := range ps {
			pos := posAt(t, m, lb, p.x, p.y)
			got, asked := sessionFirst(t, w, pos)
			points++
			if p.want == 0 {
				unheard++ // the session asks the ring's waves in the tables' order: no guess is made
			} else if got != p.want {
				t.Errorf("%s: the session asks first for wave 0x%08X; the hint says 0x%08X", pos, got, p.want)
			}
			edge := min(p.x, p.y, world.BlockLength-p.x, world.BlockLength-p.y) < 48 // session.PrefetchMetres
			if slices.Sort(asked); !edge && !slices.Equal(asked, sorted(h.Tables)) {
				t.Errorf("%s: the session asks for tables %08X; the hint lists %08X", pos, asked, h.Tables)
			}
		}
	}
	t.Logf("%d points of %d landblocks, %d where nothing is heard", points, len(blocks), unheard)
	if unheard == points {
		t.Error("nothing is heard at any point: the test tests nothing")
	}
}

func sorted(ids []uint32) []uint32 { s := slices.Clone(ids); slices.Sort(s); return s }

// TestJSONRoundTrip: the served form reads back as the hint, ids as the
// record URLs spell them; a hint of a block with nothing heard is valid.
func TestJSONRoundTrip(t *testing.T) {
	h, err := demoMaker(t).Landblock(context.Background(), riverBlock)
	if err != nil {
		t.Fatal(err)
	}
	b := h.JSON()
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Tables, h.Tables) || back.Vertices != h.Vertices || back.Centres != h.Centres {
		t.Errorf("%s reads back as %+v; want %+v", b, back, h)
	}
	if want := `{"tables":["0x20000101","0x20000103","0x20000108","0x20000102"],"waves":["0x0A000101","0x0A000121"`; string(b[:len(want)]) != want {
		t.Errorf("the served form begins %s; want %s", b[:min(len(b), len(want))], want)
	}
	empty, err := Parse(Hint{}.JSON())
	if err != nil || len(empty.Tables) != 0 || empty.Vertices != [81]uint32{} {
		t.Errorf("an empty hint reads back as %+v, %v", empty, err)
	}
	for _, bad := range []string{`{"vertices":"0"}`, `{"waves":[],"vertices":"` + string(make([]byte, 81)) + `"}`, `{"tables":["x"]}`, `[`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
}

// TestMissing: a landblock the source lacks, or an id that is none, is an
// error (the server's 404 and 400); a region that is not there is New's.
func TestMissing(t *testing.T) {
	m := demoMaker(t)
	if _, err := m.Landblock(context.Background(), 0x0101FFFF); !errors.Is(err, ErrNoLandblock) || !errors.Is(err, source.ErrNotFound) {
		t.Errorf("a landblock the demo lacks: %v; want ErrNoLandblock and ErrNotFound", err)
	}
	if _, err := m.Landblock(context.Background(), 0xA9B5002D); err == nil || errors.Is(err, source.ErrNotFound) {
		t.Errorf("a land cell's id: %v; want an error that is no not-found", err)
	}
	if _, err := New(context.Background(), source.NewMemory(nil), source.NewMemory(nil), false); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("no region: %v", err)
	}
}

// newSession is the page's host (wasm/main.go's options that matter here).
func newSession(ctx context.Context, portal, cell source.Source) (*session.Host, error) {
	return session.New(ctx, portal, cell, session.Options{Config: ambient.DefaultConfig(), Prefetch: true, Progressive: true, EventLog: 64})
}

// FuzzParse: any bytes are a hint or an error, never a panic, and a hint
// read names only waves of its palette.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"tables":["0x20000101"],"waves":["0x0A000101"],"vertices":"` + strings.Repeat("0", 81) + `","centres":"` + strings.Repeat("-", 64) + `"}`))
	f.Add([]byte(`{"tables":[],"waves":[],"vertices":"","centres":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Parse(b)
		if err != nil {
			return
		}
		if back, err := Parse(h.JSON()); err != nil || back.Vertices != h.Vertices || back.Centres != h.Centres || !slices.Equal(back.Tables, h.Tables) {
			t.Errorf("%s reads back as %+v, %v; want %+v", h.JSON(), back, err, h)
		}
	})
}
