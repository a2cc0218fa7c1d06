//go:build !js

package session

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/demo/spots"
	"acambient/core/mapview"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
	"acambient/server"
)

// countingServer is our dat server over the demo world, counting the
// requests per path and the 404s.
type countingServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	miss map[string]int // paths answered 404
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }

func newCountingServer(t *testing.T) *countingServer {
	t.Helper()
	w := demoWorld(t)
	h := server.New(server.Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell)})
	c := &countingServer{hits: map[string]int{}, miss: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: rw, status: 200}
		h.ServeHTTP(sw, r)
		c.mu.Lock()
		c.hits[r.URL.Path]++
		if sw.status == http.StatusNotFound {
			c.miss[r.URL.Path]++
		}
		c.mu.Unlock()
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *countingServer) counts() (hits, miss map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hits, miss = map[string]int{}, map[string]int{}
	for k, v := range c.hits {
		hits[k] = v
	}
	for k, v := range c.miss {
		miss[k] = v
	}
	return hits, miss
}

// httpHost is the page's host over the counting server, with the
// landblock listing when listing is set.
func httpHost(t *testing.T, c *countingServer, listing bool) *Host {
	t.Helper()
	portal := datfetch.NewHTTP(c.URL+"/files/", datfetch.HTTPOptions{})
	cell := datfetch.NewHTTP(c.URL+"/cell/files/", datfetch.HTTPOptions{})
	opt := Options{}
	if listing {
		opt.Listing = cell.Landblocks
	}
	return pageHost(t, portal, cell, opt)
}

// edgeSpots is every landmark whose ring reaches past the demo's land, and
// a spot in each landblock along the demo's edges, near its outer side (so
// that the prefetch reaches out too).
func edgeSpots(t *testing.T) []world.Position {
	inside := func(bx, by int) bool {
		return bx >= spots.BlockX0 && bx < spots.BlockX0+spots.BlocksX && by >= spots.BlockY0 && by < spots.BlockY0+spots.BlocksY
	}
	var out []world.Position
	for _, lm := range demo.Landmarks {
		p := landmark(t, lm.Name)
		for _, b := range ambient.Ring(p.ObjCellID) {
			if !inside(b[0], b[1]) {
				out = append(out, p)
				break
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no landmark at the demo's edge")
	}
	x0, y0 := spots.BlockX0, spots.BlockY0
	x1, y1 := x0+spots.BlocksX-1, y0+spots.BlocksY-1
	for bx := x0; bx <= x1; bx++ {
		for by := y0; by <= y1; by++ {
			if bx != x0 && bx != x1 && by != y0 && by != y1 {
				continue
			}
			x, y := float32(96), float32(96)
			switch {
			case bx == x0:
				x = 10
			case bx == x1:
				x = 182
			}
			switch {
			case by == y0:
				y = 10
			case by == y1:
				y = 182
			}
			p, err := world.FromGlobal(float64(bx)*192+float64(x), float64(by)*192+float64(y), 20)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}

// visit moves h to each spot and settles there, asking the map's tiles of
// the ring as a map would.
func visit(t *testing.T, h *Host, tiles *mapview.Tiles, now *float64, spotsToVisit []world.Position) {
	t.Helper()
	for _, p := range spotsToVisit {
		h.Move(p)
		settle(t, h, now)
		bx, by := world.BlockX(p.ObjCellID), world.BlockY(p.ObjCellID)
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				tiles.Tile(context.Background(), bx+dx, by+dy) // missing ones are nil
			}
		}
	}
}

func isLandblockPath(p string) bool {
	return strings.HasPrefix(p, "/cell/files/0x") && strings.HasSuffix(p, "FFFF")
}

// With the landblock listing in (our server's /cell/files/landblocks.txt),
// a walk along the demo's edges and to every landmark at them asks for no
// landblock the world lacks — not for the rings, not for the prefetch, not
// for the map's tiles — and the host knows them absent.
func TestNoRequestsForAbsentLandblocks(t *testing.T) {
	c := newCountingServer(t)
	h := httpHost(t, c, true)
	for deadline := time.Now().Add(10 * time.Second); !h.Land().Listed(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the listing did not arrive")
		}
	}
	tiles := mapview.NewTiles(h.Region(), h.Land())
	now := 0.0
	visit(t, h, tiles, &now, edgeSpots(t))
	hits, miss := c.counts()
	if len(miss) != 0 {
		t.Errorf("requests answered 404: %v", miss)
	}
	asked := 0
	for p := range hits {
		if isLandblockPath(p) {
			asked++
		}
	}
	if asked == 0 || hits["/cell/files/landblocks.txt"] != 1 {
		t.Errorf("%d landblocks asked for, the listing %d times; want some, and once", asked, hits["/cell/files/landblocks.txt"])
	}
	if h.Landblock(0xA3, 0xAE) != Absent || h.Landblock(0xA4, 0xAF) != Present || h.Landblock(0x10, 0x10) != Absent {
		t.Errorf("presence: %v %v %v; want absent present absent", h.Landblock(0xA3, 0xAE), h.Landblock(0xA4, 0xAF), h.Landblock(0x10, 0x10))
	}
}

// Without a listing (acdatservice has none; a 404 for it is none), each
// missing landblock is asked for once over a walk that goes to the edges,
// into the middle and back to the edges, whoever asks (rings, prefetch,
// tiles), though the host lets go of the landblocks it passed.
func TestEachAbsentLandblockAskedOnce(t *testing.T) {
	c := newCountingServer(t)
	w := demoWorld(t)
	// An export of old, without landblocks.txt: the listing's 404.
	h := pageHost(t, datfetch.NewHTTP(c.URL+"/files/", datfetch.HTTPOptions{}), datfetch.NewHTTP(c.URL+"/cell/files/", datfetch.HTTPOptions{}),
		Options{Listing: datfetch.NewHTTP(c.URL+"/nothing/", datfetch.HTTPOptions{}).Landblocks})
	tiles := mapview.NewTiles(h.Region(), h.Land())
	now := 0.0
	edges := edgeSpots(t)
	visit(t, h, tiles, &now, edges)
	visit(t, h, tiles, &now, []world.Position{landmark(t, "river")})
	visit(t, h, tiles, &now, edges)
	_, miss := c.counts()
	missing := 0
	for p, n := range miss {
		if !isLandblockPath(p) {
			if p != "/nothing/landblocks.txt" {
				t.Errorf("%s answered 404", p)
			}
			continue
		}
		missing++
		if n != 1 {
			t.Errorf("%s asked for %d times, want once", p, n)
		}
		id, err := dat.ParseID(strings.TrimPrefix(p, "/cell/files/"))
		if err != nil || w.Cell[id] != nil {
			t.Errorf("%s answered 404 but the world has it", p)
		}
		if pr := h.Landblock(world.BlockX(id), world.BlockY(id)); pr != Absent {
			t.Errorf("%s: presence %v, want absent", p, pr)
		}
	}
	if missing == 0 {
		t.Error("no missing landblock was asked for: the walk did not reach past the edges")
	}
	t.Logf("%d missing landblocks, each asked for once", missing)
	if h.Land().Listed() {
		t.Error("a 404 for the listing counted as a listing")
	}
}

// regionAfter is a portal whose region answers only once after is closed
// (or fails after a minute: the test then fails on New's error).
type regionAfter struct {
	source.Source
	after chan struct{}
}

func (r regionAfter) Get(ctx context.Context, id uint32) ([]byte, error) {
	if id == uint32(dat.RegionID) {
		select {
		case <-r.after:
		case <-time.After(time.Minute):
			return nil, errors.New("the listing was not asked while the region was on its way")
		}
	}
	return r.Source.Get(ctx, id)
}

// The listing is asked beside the region, not after it: the first ring
// waits for the listing, so asked after the region it would put one more
// round trip before the first sound. Here the region answers only once
// the listing has been asked.
func TestListingAskedBesideTheRegion(t *testing.T) {
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{})
	var once sync.Once
	listing := func(context.Context) ([]uint32, error) {
		once.Do(func() { close(asked) })
		return nil, source.ErrNotFound
	}
	h, err := New(context.Background(), regionAfter{source.NewMemory(w.Portal), asked}, source.NewMemory(w.Cell),
		Options{Config: ambient.DefaultConfig(), Listing: listing})
	if err != nil {
		t.Fatal(err)
	}
	if h.Region() == nil {
		t.Fatal("no region")
	}
}
