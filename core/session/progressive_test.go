package session

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch/source"
)

// gatedWaves is a portal source whose waves wait to be let through: the
// test holds them "on the wire" and notes the order they were asked for.
type gatedWaves struct {
	src source.Source

	mu     sync.Mutex
	open   map[uint32]chan struct{}
	asked  []uint32
	tables chan struct{}   // nil: tables pass; else they wait for it to close
	pass   map[uint32]bool // tables that pass at once, tables or not
}

func newGatedWaves(src source.Source) *gatedWaves {
	return &gatedWaves{src: src, open: map[uint32]chan struct{}{}}
}

func (g *gatedWaves) gate(id uint32) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.open[id]
	if c == nil {
		c = make(chan struct{})
		g.open[id] = c
	}
	return c
}

func (g *gatedWaves) Get(ctx context.Context, id uint32) ([]byte, error) {
	if g.tables != nil && dat.PortalKind(id) == dat.KindSoundTable && !g.pass[id] {
		select {
		case <-g.tables:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if dat.PortalKind(id) == dat.KindWave {
		g.mu.Lock()
		g.asked = append(g.asked, id)
		g.mu.Unlock()
		select {
		case <-g.gate(id):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.src.Get(ctx, id)
}

func (g *gatedWaves) release(id uint32) { close(g.gate(id)) }

func (g *gatedWaves) requested() []uint32 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.asked)
}

// tickUntil ticks h (1/30 s a tick) until cond holds after a tick, and
// returns that tick's events; it fails after 20 s of wall time.
func tickUntil(t *testing.T, h *Host, now *float64, cond func(evs []ambient.Event) bool) []ambient.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		*now += 1.0 / 30
		evs := h.Tick(*now)
		if cond(evs) {
			return slices.Clone(evs)
		}
		if time.Now().After(deadline) {
			t.Fatal("the awaited tick did not come in 20 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// rebuildAt is the index of a rebuild that found instances (the first,
// on the move, finds nothing loaded), or -1.
func rebuildAt(evs []ambient.Event) int {
	for i, ev := range evs {
		if ev.Kind == ambient.KindRebuild && ev.Instances > 0 {
			return i
		}
	}
	return -1
}

// TestProgressiveStart: the page's host at the river with every wave held
// on the wire. The first rebuild with the ring's records (the one on the
// move finds nothing yet) comes before any wave, and its instances are
// gather's: a rebuild reads landblocks and tables only; the waves are
// asked for in the order the engine will want them, the loudest bed's
// first, alone; the bed's fire is a "loading" skip; its play starts on the first
// tick its wave is known, not at its next re-fire; a one-shot that fires
// before its wave is a "loading" skip too, each counted in the snapshot.
func TestProgressiveStart(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	river := landmark(t, "river")
	h.Move(river)
	now := 0.0
	evs := tickUntil(t, h, &now, func(evs []ambient.Event) bool { return rebuildAt(evs) >= 0 })
	if n := h.Snapshot().Loading.HeldBytes; n != 0 {
		t.Fatalf("at the first rebuild %d bytes of waves are held; want none (all on the wire)", n)
	}
	got, _ := json.Marshal(h.Snapshot().State)
	if want, _ := gatherJSON(t, river); string(got) != want {
		t.Fatalf("the first rebuild, before any wave:\n%s\nwant gather's\n%s", got, want)
	}
	bed := -1
	var bedSkip ambient.Event
	for _, ev := range evs[rebuildAt(evs)+1:] {
		if ev.Kind == ambient.KindPlay {
			t.Fatalf("a play before any wave arrived: %+v", ev)
		}
		if ev.Continuous && ev.Kind == ambient.KindSkip && ev.Reason == ambient.ReasonLoading && bed < 0 {
			bedSkip = ev
			bed = ev.SoundIndex
		}
	}
	if bed < 0 {
		t.Fatalf("no bed's fire was a loading skip at the rebuild: %+v", evs)
	}

	// The first wave asked for is the head of the hearing order, alone.
	h.mu.Lock()
	order := slices.Clone(h.order)
	h.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for len(portal.requested()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if asked := portal.requested(); len(asked) != 1 || asked[0] != order[0] {
		t.Fatalf("asked for waves %x first; want the hearing order's head alone, 0x%08X (order %x)", asked, order[0], order)
	}
	st := h.Snapshot()
	loudest := -1
	for i, s := range st.Sounds {
		if s.Continuous && (loudest < 0 || s.CurrentVolume > st.Sounds[loudest].CurrentVolume) {
			loudest = i
		}
	}
	if l := st.Sounds[loudest]; !slices.Contains(picks(t, h, l.STBID, l.SType), order[0]) {
		t.Errorf("the hearing order starts with 0x%08X, which the loudest bed (%d/%d) cannot pick", order[0], l.STBIndex, l.SoundIndex)
	}

	// Let the bed's wave through (after the head, if it is another): it
	// plays on the first tick that finds it known, well before its re-fire.
	wave := bedSkip.Wave
	portal.release(order[0])
	if wave != order[0] {
		portal.release(wave)
	}
	minRate := float64(st.Sounds[soundAt(st, bedSkip.STBIndex, bedSkip.SoundIndex)].Authored.MinRate)
	var known float64 = -1
	evs = tickUntil(t, h, &now, func(evs []ambient.Event) bool {
		if known < 0 && h.Retained(wave) {
			known = now // this tick is the first to find it (or the one after)
		}
		return slices.ContainsFunc(evs, func(ev ambient.Event) bool {
			return ev.Kind == ambient.KindPlay && ev.Wave == wave && ev.Continuous
		})
	})
	play := evs[slices.IndexFunc(evs, func(ev ambient.Event) bool { return ev.Kind == ambient.KindPlay && ev.Wave == wave })]
	if known < 0 || play.T > known+1.0/30+1e-9 {
		t.Errorf("the bed played at %.3f s; its wave was known by %.3f s: want it at once", play.T, known)
	}
	if play.T >= bedSkip.T+minRate {
		t.Errorf("the bed played at %.3f s, its re-fire time (skip %.3f + min_rate %v): it waited", play.T, bedSkip.T, minRate)
	}

	// The one-shots, their waves still on the wire, skip as loading when
	// they fire; the snapshot counts every loading skip.
	skips, oneShot := 0, false
	until := now + 60
	for now < until {
		now += 1.0 / 30
		for _, ev := range h.Tick(now) {
			if ev.Kind == ambient.KindSkip && ev.Reason == ambient.ReasonLoading {
				oneShot = oneShot || !ev.Continuous
			}
		}
	}
	for _, ev := range h.Drain().Events {
		if ev.Kind == ambient.KindSkip && ev.Reason == ambient.ReasonLoading {
			skips++
		}
	}
	if !oneShot {
		t.Error("in a minute at the river no one-shot fired while its wave was on the wire")
	}
	if got := h.Snapshot().Loading.LoadingSkips; got != skips || skips == 0 {
		t.Errorf("the snapshot counts %d loading skips; the events hold %d", got, skips)
	}
}

// TestProgressiveWavesInHearingOrder: the host asks for the waves in the
// order the engine wants them, then for the rest of the ring's: the first
// alone, then side by side, each one let through making room for the next.
func TestProgressiveWavesInHearingOrder(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	h.Move(landmark(t, "river"))
	now := 0.0
	tickUntil(t, h, &now, func(evs []ambient.Event) bool { return rebuildAt(evs) >= 0 })
	h.mu.Lock()
	want := dedupe(append(h.eng.HearingOrder(), h.ld.neededWaves(h.needs().blocks)...))
	h.mu.Unlock()
	if len(want) <= parallelFetches {
		t.Fatalf("%d waves at the river: too few to see an order", len(want))
	}
	asked := func(n int) []uint32 {
		deadline := time.Now().Add(20 * time.Second)
		for len(portal.requested()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d waves asked for; want %d", len(portal.requested()), n)
			}
			time.Sleep(time.Millisecond)
		}
		return portal.requested()
	}
	// The head of the order is asked for alone: one fetcher while it is to
	// come (the fetchers are started with the order, under the loader's lock).
	if got := asked(1); got[0] != want[0] {
		t.Fatalf("asked for 0x%08X first; want the order's head 0x%08X", got[0], want[0])
	}
	h.ld.mu.Lock()
	workers := h.ld.workers
	h.ld.mu.Unlock()
	if workers != 1 || len(portal.requested()) != 1 {
		t.Fatalf("%d fetchers, %d waves asked, while the head is on the wire; want 1 and 1", workers, len(portal.requested()))
	}
	portal.release(want[0])
	// Then parallelFetches side by side, in any order among them.
	n := 1 + parallelFetches
	if got := asked(n); !slices.Equal(sortedCopy(got[1:n]), sortedCopy(want[1:n])) {
		t.Fatalf("after the head, asked %x; want %x", got[1:n], want[1:n])
	}
	// Each one let through frees a fetcher for the next in the order.
	for k := 1; n+k-1 < len(want); k++ {
		portal.release(want[k])
		got := asked(n + k)
		if next := got[n+k-1]; next != want[n+k-1] {
			t.Fatalf("after %d waves arrived the host asked for 0x%08X; want 0x%08X (order %x)", k+1, next, want[n+k-1], want)
		}
	}
	if n := len(portal.requested()); n != len(want) {
		t.Errorf("%d waves asked for; want %d, each once", n, len(want))
	}
}

// TestProgressiveOrderSurvivesASecondMove: a move while the tables are on
// their way (the page sets the player, then again) makes a second load run
// when the first brings the tables, so the rebuild they call for waits for
// it; the waves are asked for by that rebuild, in its order, not before it
// in the tables' own.
func TestProgressiveOrderSurvivesASecondMove(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	portal.tables = make(chan struct{})
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	river := landmark(t, "river")
	now := 0.0
	h.Move(river)
	h.Tick(now) // the first load starts; its tables wait
	deadline := time.Now().Add(20 * time.Second)
	for !h.ld.fetching() {
		if time.Now().After(deadline) {
			t.Fatal("the first load never started")
		}
		time.Sleep(time.Millisecond)
	}
	h.Move(river)
	now += 1.0 / 30
	h.Tick(now) // the second move: a load runs, so it waits (stale)
	close(portal.tables)
	tickUntil(t, h, &now, func(evs []ambient.Event) bool { return rebuildAt(evs) >= 0 })
	h.mu.Lock()
	head := h.eng.HearingOrder()[0]
	h.mu.Unlock()
	deadline = time.Now().Add(20 * time.Second)
	for len(portal.requested()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no wave asked for")
		}
		time.Sleep(time.Millisecond)
	}
	if got := portal.requested()[0]; got != head {
		t.Errorf("the first wave asked for is 0x%08X; want the rebuild's head 0x%08X", got, head)
	}
}

// TestSyncIgnoresProgressive: trace, render and gather (Sync) keep
// retail's rule whatever the options say: the rebuild waits for every
// wave, and a minute of events is byte for byte a plain Sync host's.
func TestSyncIgnoresProgressive(t *testing.T) {
	w := demoWorld(t)
	run := func(progressive bool) string {
		h, err := New(context.Background(), source.NewMemory(w.Portal), source.NewMemory(w.Cell),
			Options{Config: ambient.DefaultConfig(), Sync: true, Progressive: progressive})
		if err != nil {
			t.Fatal(err)
		}
		h.Move(landmark(t, "river"))
		var all []ambient.Event
		for k := 0; k < 30*60; k++ {
			for _, ev := range h.Tick(float64(k) / 30) {
				if ev.Reason == ambient.ReasonLoading {
					t.Fatalf("a Sync host skipped as loading: %+v", ev)
				}
				all = append(all, ev)
			}
		}
		b, _ := json.Marshal(all)
		return string(b)
	}
	if run(true) != run(false) {
		t.Error("a Sync host's events change with Options.Progressive")
	}
}

func dedupe(ids []uint32) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func sortedCopy(ids []uint32) []uint32 {
	c := slices.Clone(ids)
	slices.Sort(c)
	return c
}

// picks are the waves GetSound can pick for stype from the table: all but
// the last of two or more variants.
func picks(t *testing.T, h *Host, table dat.DID, stype uint32) []uint32 {
	tb, _ := h.ld.SoundTable(uint32(table))
	if tb == nil {
		t.Fatalf("table 0x%08X not held", uint32(table))
	}
	for _, c := range tb.Root.Children {
		if c.HashKey == stype {
			var out []uint32
			for _, r := range c.Records[:max(1, len(c.Records)-1)] {
				out = append(out, uint32(r.WaveID))
			}
			return out
		}
	}
	return nil
}

func soundAt(st Snapshot, stb, idx int) int {
	for i, s := range st.Sounds {
		if s.STBIndex == stb && s.SoundIndex == idx {
			return i
		}
	}
	return -1
}

// TestStarted: the channel the page's map waits on stays open while the
// ring's tables are on their way, and then while the first wave the engine
// wants is; it closes once that wave is in.
func TestStarted(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	portal.tables = make(chan struct{})
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	river := landmark(t, "river")
	if h.Placed() || h.Near(world.BlockX(river.ObjCellID), world.BlockY(river.ObjCellID)) {
		t.Fatal("placed, or near a block, before any move")
	}
	h.Move(river)
	now := 0.0
	h.Tick(now)
	bx, by := world.BlockX(river.ObjCellID), world.BlockY(river.ObjCellID)
	if !h.Near(bx, by) || !h.Near(bx+1, by-1) || h.Near(bx+2, by) {
		t.Errorf("near the river's block %v, its corner neighbour %v, two blocks east %v; want true, true, false",
			h.Near(bx, by), h.Near(bx+1, by-1), h.Near(bx+2, by))
	}
	open := func() bool {
		select {
		case <-h.Started():
			return false
		default:
			return true
		}
	}
	// Tables on the wire; then the tables in, the head wave on the wire.
	for range 30 {
		now += 1.0 / 30
		h.Tick(now)
	}
	if !open() {
		t.Fatal("Started closed with the tables still on the wire")
	}
	close(portal.tables)
	tickUntil(t, h, &now, func(evs []ambient.Event) bool { return rebuildAt(evs) >= 0 })
	for range 30 {
		now += 1.0 / 30
		h.Tick(now)
	}
	if !open() {
		t.Fatal("Started closed with the first wave still on the wire")
	}
	// Started closes when the wave is in, not at the next tick: no tick runs
	// from here.
	head := releaseHead(t, h, portal)
	if !h.Retained(head) {
		t.Error("Started closed before the first wave was in")
	}
}

// heldBlock is a cell source that holds one landblock back until it is let
// go, and a portal source that notes the SoundTables asked for.
type heldBlock struct {
	source.Source
	id      uint32
	release chan struct{}
}

func (h *heldBlock) Get(ctx context.Context, id uint32) ([]byte, error) {
	if id == h.id {
		select {
		case <-h.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.Source.Get(ctx, id)
}

type notedTables struct {
	source.Source
	asked chan uint32
}

func (n *notedTables) Get(ctx context.Context, id uint32) ([]byte, error) {
	if dat.PortalKind(id) == dat.KindSoundTable {
		select {
		case n.asked <- id:
		default:
		}
	}
	return n.Source.Get(ctx, id)
}

// TestProgressiveAsksTablesWithTheirLandblock: the page's host asks for a
// landblock's SoundTables as soon as that landblock is in, while others of
// the ring are still on their way (a table once per load), and the load
// ends, the rebuild complete, once the last landblock is in.
func TestProgressiveAsksTablesWithTheirLandblock(t *testing.T) {
	w := demoWorld(t)
	river := landmark(t, "river")
	ring := needAt(river).blocks
	cell := &heldBlock{Source: source.NewMemory(w.Cell), id: ring[len(ring)-1], release: make(chan struct{})}
	portal := &notedTables{Source: source.NewMemory(w.Portal), asked: make(chan uint32, 64)}
	h := pageHost(t, portal, cell, Options{Progressive: true})
	now := 0.0
	h.Move(river)
	h.Tick(now)
	seen := map[uint32]int{}
	select {
	case id := <-portal.asked:
		seen[id]++
	case <-time.After(20 * time.Second):
		t.Fatalf("no SoundTable asked for while landblock 0x%08X was held back", cell.id)
	}
	close(cell.release)
	settle(t, h, &now)
	for len(portal.asked) > 0 {
		seen[<-portal.asked]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("table 0x%08X asked %d times in one load", id, n)
		}
	}
}

// TestMoveDuringItsLoad: a second Move to the place whose load runs does not
// ask for it again once that load ends; a Move elsewhere does.
func TestMoveDuringItsLoad(t *testing.T) {
	w := demoWorld(t)
	river := landmark(t, "river")
	ring := needAt(river).blocks
	cell := &heldBlock{Source: source.NewMemory(w.Cell), id: ring[0], release: make(chan struct{})}
	h := pageHost(t, source.NewMemory(w.Portal), cell, Options{Progressive: true})
	now := 0.0
	h.Move(river)
	h.Tick(now)
	for deadline := time.Now().Add(20 * time.Second); !h.ld.fetching(); {
		if time.Now().After(deadline) {
			t.Fatal("no fetch began")
		}
		time.Sleep(time.Millisecond)
	}
	stale := func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.load.running() {
			t.Fatal("the load ended while a landblock was held back")
		}
		return h.load == loadRunningStale
	}
	h.Move(river)
	now += 1.0 / 30
	h.Tick(now)
	if stale() {
		t.Error("a second Move to the place being loaded asks for it again")
	}
	h.Move(landmark(t, "meadow"))
	now += 1.0 / 30
	h.Tick(now)
	if !stale() {
		t.Error("a Move elsewhere during a load is not loaded after it")
	}
	close(cell.release)
	settle(t, h, &now)
}

// TestYieldsBeforeEachDecode: in the background, Options.Yield runs before
// every record that arrived is decoded (the page's core/pace then spreads
// what arrives together over the event loop's turns), so a load calls it
// at least once per record fetched.
func TestYieldsBeforeEachDecode(t *testing.T) {
	w := demoWorld(t)
	n := 0
	var mu sync.Mutex
	yield := func() { mu.Lock(); n++; mu.Unlock() }
	h := pageHost(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), Options{Progressive: true, Yield: yield})
	now := 0.0
	h.Move(landmark(t, "river"))
	h.Tick(now)
	settle(t, h, &now)
	st := h.Stats()
	mu.Lock()
	got := n
	mu.Unlock()
	// The region came before the host existed: not through the loader.
	if fetched := st.Records - 1; fetched < 10 || got < fetched {
		t.Errorf("%d yields for %d records fetched by the loader; want at least one each (and a ring's worth of records)", got, fetched)
	}
}

// A move asks for its records at once, not at the next tick (which comes
// with the mixer's next chunk): no tick runs here.
func TestMoveLoadsAtOnce(t *testing.T) {
	w := demoWorld(t)
	river := landmark(t, "river")
	cell := &askedFirst{Source: source.NewMemory(w.Cell), asked: make(chan uint32, 1)}
	h := pageHost(t, source.NewMemory(w.Portal), cell, Options{Progressive: true})
	h.Move(river)
	select {
	case id := <-cell.asked:
		if bx, by := world.BlockX(id), world.BlockY(id); abs(bx-world.BlockX(river.ObjCellID)) > 1 || abs(by-world.BlockY(river.ObjCellID)) > 1 {
			t.Errorf("first landblock asked 0x%08X; want one of the river's ring", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no landblock asked for 10 s after a move, with no tick (want the move's records asked at once)")
	}
}

// askedFirst is a cell source that says which record it was first asked for.
type askedFirst struct {
	source.Source
	once  sync.Once
	asked chan uint32
}

func (a *askedFirst) Get(ctx context.Context, id uint32) ([]byte, error) {
	a.once.Do(func() { a.asked <- id })
	return a.Source.Get(ctx, id)
}

func abs(n int) int { return max(n, -n) }

// A move's load can end before its first tick (it starts at the move):
// Started waits for the tick's rebuild and the wave it orders first, not
// for the load alone.
func TestStartedWaitsForTheRebuild(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	h.Move(landmark(t, "river"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.mu.Lock()
		done := h.loadsDone > 0
		h.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the move's load did not end in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-h.Started():
		t.Fatal("Started closed when the move's load ended, before any tick had rebuilt with it or its first wave had come")
	default:
	}
	h.Tick(0)
	releaseHead(t, h, portal)
}

// A load that ends after the move's tick rebuilds as it ends, not at the
// next tick: the first wave is asked for, and Started closes when it comes,
// with no tick after the move's.
func TestLoadEndRebuilds(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	portal.tables = make(chan struct{}) // the load ends once they pass
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	h.Move(landmark(t, "river"))
	h.Tick(0) // the move's rebuild, without the tables
	h.mu.Lock()
	ordered := len(h.order)
	h.mu.Unlock()
	if ordered != 0 {
		t.Fatalf("the rebuild without SoundTables ordered %d waves; want none", ordered)
	}
	close(portal.tables)
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.mu.Lock()
		ordered = len(h.order)
		h.mu.Unlock()
		if ordered > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no rebuild 10 s after the tables were let through, with no tick (want the load's end to rebuild)")
		}
		time.Sleep(time.Millisecond)
	}
	releaseHead(t, h, portal)
	// The rebuild's events go out with the next tick's.
	rebuilds := 0
	for _, ev := range h.Tick(1.0 / 30) {
		if ev.Kind == ambient.KindRebuild {
			rebuilds++
		}
	}
	if rebuilds != 1 {
		t.Errorf("the tick after the load's end handed out %d rebuild events; want the load's rebuild's 1", rebuilds)
	}
}

// releaseHead lets the first wave of h's hearing order come from portal and
// waits, running no tick, for Started to close; it returns that wave.
func releaseHead(t *testing.T, h *Host, portal *gatedWaves) uint32 {
	t.Helper()
	h.mu.Lock()
	head := h.order[0]
	h.mu.Unlock()
	portal.release(head)
	select {
	case <-h.Started():
	case <-time.After(10 * time.Second):
		t.Fatal("Started still open 10 s after the first wave came, with no tick (want it closed on the wave's arrival)")
	}
	return head
}

// TestPartialRebuildAsksNoWaves: a tick that rebuilds while the move's
// load is still bringing the ring's SoundTables (the page's worker ticks
// with the chunks its clock mixes, and the early requests bring some tables
// at once) orders the waves of the tables that came, which is not the
// order of the whole ring: its head is not the first sound's wave. Asked
// for then, that wrong wave would go first, alone on the link, and the
// first sound's would wait behind it (e2e TestPageEarlyRequests saw it in
// Firefox: 0x0A000101 asked before the river's 0x0A000121). The waves wait
// for the load's end, whose rebuild reads every table and asks in its order.
func TestPartialRebuildAsksNoWaves(t *testing.T) {
	w := demoWorld(t)
	portal := newGatedWaves(source.NewMemory(w.Portal))
	const first = 0x20000101 // the river ring's first table (core/hints TestJSONRoundTrip)
	portal.tables = make(chan struct{})
	portal.pass = map[uint32]bool{first: true}
	h := pageHost(t, portal, source.NewMemory(w.Cell), Options{Progressive: true})
	h.Move(landmark(t, "river"))
	deadline := time.Now().Add(20 * time.Second)
	for {
		h.ld.mu.Lock()
		_, in := h.ld.tables[first]
		h.ld.mu.Unlock()
		if in {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ring's first table never came")
		}
		time.Sleep(time.Millisecond)
	}
	h.Tick(0) // the move's rebuild, with one of the ring's tables
	h.mu.Lock()
	partial, ordered := h.rebuild == rebuildPartial, len(h.order)
	h.mu.Unlock()
	if !partial || ordered == 0 {
		t.Fatalf("the move's rebuild: partial %v, %d waves ordered; want a partial rebuild that orders its table's waves", partial, ordered)
	}
	h.ld.mu.Lock()
	queued, workers := len(h.ld.queue), h.ld.workers
	h.ld.mu.Unlock()
	if queued != 0 || workers != 0 {
		t.Fatalf("the partial rebuild asked for waves while the load ran: %d queued, %d fetchers; want none", queued, workers)
	}
	close(portal.tables)
	deadline = time.Now().Add(20 * time.Second)
	for len(portal.requested()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no wave asked for 20 s after the tables came")
		}
		time.Sleep(time.Millisecond)
	}
	h.mu.Lock()
	head := h.eng.HearingOrder()[0]
	h.mu.Unlock()
	if got := portal.requested()[0]; got != head {
		t.Errorf("the first wave asked for is 0x%08X; want the whole ring's head 0x%08X", got, head)
	}
	if head != 0x0A000121 {
		t.Errorf("the river's first wave is 0x%08X; want 0x0A000121 (core/hints TestJSONRoundTrip's hint)", head)
	}
}
