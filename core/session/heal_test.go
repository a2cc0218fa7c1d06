package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/demo"
	"acambient/core/world"
	"acambient/datfetch"
)

// maintenance is a dat server's transport (datfetch.Transport) serving the
// demo world from memory, 404 for what it lacks, until a maintenance window
// opens: then every record is answered 503 with a Retry-After of one second,
// as the soak's server does (internal/testkit/soak: Fault503), until it ends. The
// answers for URLs under a held prefix wait until it is released (slow
// answers).
type maintenance struct {
	portal, cell map[uint32][]byte

	mu      sync.Mutex
	down    bool
	refused map[string]int           // 503s answered, by URL
	asked   map[string]int           // requests, by URL
	held    map[string]chan struct{} // by URL prefix: answers that wait
}

func newMaintenance(w *demo.World) *maintenance {
	return &maintenance{portal: w.Portal, cell: w.Cell, refused: map[string]int{}, asked: map[string]int{},
		held: map[string]chan struct{}{}}
}

func (m *maintenance) transport(ctx context.Context, url string) (*datfetch.Response, error) {
	recs := m.portal
	if strings.Contains(url, "/cell/") {
		recs = m.cell
	}
	id, err := strconv.ParseUint(url[strings.LastIndexByte(url, '/')+1:], 0, 32)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", url, err, datfetch.ErrPermanent)
	}
	m.mu.Lock()
	m.asked[url]++
	var wait []chan struct{}
	for prefix, c := range m.held {
		if strings.HasPrefix(url, prefix) {
			wait = append(wait, c)
		}
	}
	m.mu.Unlock()
	for _, c := range wait {
		select {
		case <-c:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	m.mu.Lock()
	down := m.down
	if down {
		m.refused[url]++
	}
	m.mu.Unlock()
	answer := func(status int, body []byte, header map[string]string) *datfetch.Response {
		return &datfetch.Response{Status: status, ContentLength: int64(len(body)), Header: header,
			Body: io.NopCloser(bytes.NewReader(body))}
	}
	b, ok := recs[uint32(id)]
	switch {
	case down:
		return answer(503, []byte("down for maintenance"), map[string]string{"retry-after": "1"}), nil
	case !ok:
		return answer(404, nil, nil), nil
	}
	return answer(200, b, nil), nil
}

func (m *maintenance) set(down bool) {
	m.mu.Lock()
	m.down = down
	m.mu.Unlock()
}

func (m *maintenance) hold(prefix string) {
	m.mu.Lock()
	m.held[prefix] = make(chan struct{})
	m.mu.Unlock()
}

func (m *maintenance) release(prefix string) {
	m.mu.Lock()
	close(m.held[prefix])
	delete(m.held, prefix)
	m.mu.Unlock()
}

func (m *maintenance) count(url string, refused bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if refused {
		return m.refused[url]
	}
	return m.asked[url]
}

// TestHealsWhereThePlayerStands: issue 23's 503 case without a browser,
// as the page's host meets it (its HTTP sources, progressive, prefetching,
// ticked all along as the audio clock does). Settled at holtburg; the
// server goes into maintenance (503 with Retry-After) as the player jumps
// to the coast, far into land not loaded, and walks on east. The server
// comes back; the host loads the coast's ring, rebuilds there and asks for
// its waves, which are large and come slowly. Then the walk's last position
// lands (the page's setPlayer waited through the window for the landblock
// its height needs) a block east, whose ring has a column the host has not
// loaded: that rebuild lacks the column's cells, and the host fetches it.
// The column comes, then the waves, while the load still waits on a slow
// answer (a prefetched landblock past the world's edge). Once everything
// has come, the host has healed by itself: its last rebuild is where the
// player stands, state() says so, and the instances are gather's there,
// every cell of the ring weighed. (The host kept the rebuild that lacked
// the column, since every record and wave its ring names had come by the
// time it looked at a wave's arrival: gather's sounds with too little
// weight, what TestPage503 saw in the page.)
func TestHealsWhereThePlayerStands(t *testing.T) {
	w := demoWorld(t)
	m := newMaintenance(w)
	// Retries enough to outlast the window: the soak's Retry-After is the
	// window's remaining seconds, so the page's fetches wait it out.
	opt := datfetch.HTTPOptions{Transport: m.transport, Retries: 1000}
	portal := datfetch.NewHTTP("http://dats.test/files/", opt)
	cell := datfetch.NewHTTP("http://dats.test/cell/files/", opt)
	h := pageHost(t, portal, cell, Options{Progressive: true})
	now := 0.0
	tick := func() {
		now += 1.0 / 30
		h.Tick(now)
	}
	ticking := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for tick(); !cond(); tick() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 30 s for %s: %+v", what, h.Stats())
			}
			time.Sleep(time.Millisecond)
		}
	}
	h.Move(landmark(t, "holtburg"))
	settle(t, h, &now)

	// The window: the jump, and a walk east along the coast's block.
	m.set(true)
	coast := landmark(t, "coast")
	X, Y, Z := coast.Global()
	for x := 0.0; x <= 48; x += 0.4 { // 12 m/s, a move a tick
		p, err := world.FromGlobal(X+x, Y, Z)
		if err != nil {
			t.Fatal(err)
		}
		h.Move(p)
		tick()
	}
	block := func(bx, by int) string { return fmt.Sprintf("/cell/files/0x%08X", world.LandBlockID(bx, by)) }
	bx, by := world.BlockX(coast.ObjCellID), world.BlockY(coast.ObjCellID)
	url := "http://dats.test" + block(bx, by)
	ticking("a 503 for the coast's landblock", func() bool { return m.count(url, true) > 0 })

	// The way is clear: the coast's ring comes, the host rebuilds with it;
	// the waves are on their way.
	waves := "http://dats.test/files/0x0A"
	m.hold(waves)
	m.set(false)
	ticking("the rebuild with the coast's ring", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return !h.load.running() && h.rebuiltGen == h.ld.generation() && h.ld.readable(needAt(h.cur))
	})

	// The walk's last position, a block east (AEB0, 72 m from the next
	// column), given as the page's walk gives it: map coordinates, z the
	// terrain's. The prefetched block past the world's edge to the
	// south-east answers late.
	edge := "http://dats.test" + block(bx+2, by-2)
	m.hold(edge)
	sp, err := h.SetPlayerPOS(mapPOS(X-48+192+120, Y))
	if err != nil {
		t.Fatal(err)
	}
	end := sp.Position
	if world.BlockX(end.ObjCellID) != bx+1 {
		t.Fatalf("the walk ends in 0x%08X; want the block east of the coast's", end.ObjCellID)
	}
	ticking("the eastern column, the slow answer pending", func() bool {
		return m.count(edge, false) > 0 && h.ld.readable(needAt(end))
	})
	m.release(waves)
	ticking("the waves", func() bool { return h.ld.complete(needAt(end)) })
	tick() // one that sees the last of them
	m.release(edge)
	ticking("the host to settle", func() bool { return h.idle() && h.complete() && h.Stats().Pending == 0 })

	st := h.Snapshot().State
	if st.Player != end {
		t.Errorf("healed, the last rebuild is at %+v; want %+v, where the player stands", st.Player, end)
	}
	got, _ := json.Marshal(st)
	if want, ws := gatherJSON(t, end); string(got) != want {
		t.Errorf("healed where the player stands: total %.4f over %d cells; gather's %.4f over %d\npage   %s\ngather %s",
			st.TotalSoundCount, st.ContributingCells, ws.TotalSoundCount, ws.ContributingCells, got, want)
	}
}

// mapPOS is global point (X, Y) in map coordinates, as the page's walk
// sends it (www/ambient.js toPOS: six decimals).
func mapPOS(X, Y float64) string {
	ns, ew := world.MapCoords(X, Y)
	n, e := "N", "E"
	if ns < 0 {
		n, ns = "S", -ns
	}
	if ew < 0 {
		e, ew = "W", -ew
	}
	return fmt.Sprintf("%.6f%s,%.6f%s", ns, n, ew, e)
}
