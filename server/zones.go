package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"acambient/core/zones"
)

// The sound-zone layer of the served records (docs/interfaces.md §1.4), at
// the top of the tree as an export writes it: /zones.json and /zones.png,
// so that a page reads it at SOURCE/zones.json from either.
//
// It is computed on the first request for either file, from the sources
// the handler serves (the whole world from local dats takes tens of
// seconds on one core, core/zones), and kept: the sources do not change
// while the handler serves them. Requests that come meanwhile wait for the
// same computation, which a client giving up does not stop. A failed
// computation (a record that cannot be read) is answered 500 and tried
// again at the next request.
type zoneLayer struct {
	mu      sync.Mutex
	running chan struct{} // closed when the computation in flight ends
	json    *payload
	png     *payload
}

// serveZones answers /zones.json or /zones.png.
func (h *Handler) serveZones(w http.ResponseWriter, r *http.Request, file string) {
	js, png, err := h.zoneLayer(r.Context())
	if err != nil {
		if r.Context().Err() == nil {
			h.log.Printf("zones: %v", err)
			http.Error(w, "the sound-zone layer: "+err.Error(), http.StatusInternalServerError)
		}
		return
	}
	p := js
	if file == zones.ImageFile {
		p = png
	}
	// The same URL may name another layer after a restart on other dats:
	// revalidate (the ETag makes that a 304).
	w.Header().Set("Cache-Control", "no-cache")
	p.serve(w, r)
}

// zoneLayer returns the layer, computing it unless it is held or being
// computed; ctx only bounds the wait.
func (h *Handler) zoneLayer(ctx context.Context) (js, png *payload, err error) {
	z := &h.zones
	for {
		z.mu.Lock()
		if z.json != nil {
			js, png = z.json, z.png
			z.mu.Unlock()
			return js, png, nil
		}
		wait := z.running
		if wait == nil {
			z.running = make(chan struct{})
			z.mu.Unlock()
			return h.computeZones()
		}
		z.mu.Unlock()
		select {
		case <-wait:
			// Held now, or failed: then the next round computes again.
			z.mu.Lock()
			js, png = z.json, z.png
			z.mu.Unlock()
			if js != nil {
				return js, png, nil
			}
			return nil, nil, errZonesFailed
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// errZonesFailed answers the requests that waited on a computation that
// failed (its own request logs why).
var errZonesFailed = errors.New("the computation failed; ask again")

// computeZones runs the computation this caller started, outside any
// request's context.
func (h *Handler) computeZones() (js, png *payload, err error) {
	z := &h.zones
	defer func() {
		z.mu.Lock()
		if err == nil {
			z.json, z.png = js, png
		}
		close(z.running)
		z.running = nil
		z.mu.Unlock()
	}()
	start := time.Now()
	var img bytes.Buffer
	idx, err := zones.Encode(context.Background(), h.opt.Portal, h.opt.Cell, &img, zones.Options{
		Warnf: func(format string, args ...any) { h.log.Printf("zones: "+format, args...) },
	})
	if err != nil {
		return nil, nil, err
	}
	b, err := idx.JSON()
	if err != nil {
		return nil, nil, err
	}
	h.log.Printf("zones: %d×%d land cells, %d sound sets, computed in %v", idx.Width, idx.Height, len(idx.Sets), time.Since(start).Round(time.Millisecond))
	return newPayload("application/json", b, time.Time{}, true), newPayload("image/png", img.Bytes(), time.Time{}, false), nil
}
