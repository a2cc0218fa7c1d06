package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"acambient/core/dat"
	"acambient/core/hints"
	"acambient/datfetch/source"
)

// The hints of the served records (docs/interfaces.md §2.1, core/hints):
// /hints/0xXXYYFFFF is what a page opening in that landblock asks for
// first, which it asks for while the wasm still downloads. A hint is
// computed on its first request (nine landblocks and a few tables read,
// 145 engine rebuilds: milliseconds) and kept, within hintCacheBytes;
// requests that come meanwhile share the computation. It is derived from
// the records alone, so it is answered as they are: immutable, with a
// strong ETag.
type hintStore struct {
	mu    sync.Mutex
	maker *hints.Maker // nil until the region is read

	cache   *source.Cache[*payload]
	flights source.Flights[*payload]
}

// HintsDir is the folder of the hints, served and exported: /hints/0xXXYYFFFF.
const HintsDir = "hints"

// hintCacheBytes bounds the hints kept: some 400 bytes each, so thousands.
const hintCacheBytes = 2 << 20

// serveHint answers /hints/{id}.
func (h *Handler) serveHint(w http.ResponseWriter, r *http.Request, seg string) {
	id, err := dat.ParseID(seg)
	if err == nil && id&0xFFFF != 0xFFFF {
		err = fmt.Errorf("0x%08X is not a landblock id (0xXXYYFFFF)", id)
	}
	if err != nil {
		http.Error(w, "bad hint id: "+err.Error(), http.StatusBadRequest)
		return
	}
	p, err := h.hint(r.Context(), id)
	switch {
	case errors.Is(err, source.ErrNotFound):
		http.Error(w, fmt.Sprintf("no hint for 0x%08X: %v", id, err), http.StatusNotFound)
		return
	case err != nil && r.Context().Err() != nil:
		return
	case err != nil:
		h.log.Printf("hints: 0x%08X: %v", id, err)
		http.Error(w, fmt.Sprintf("the hint of 0x%08X could not be made", id), http.StatusInternalServerError)
		return
	}
	w.Header()["Cache-Control"] = immutable
	w.Header()["X-Content-Type-Options"] = nosniff
	p.serve(w, r)
}

// hint returns landblock id's hint as served, from the cache or computed.
func (h *Handler) hint(ctx context.Context, id uint32) (*payload, error) {
	s := &h.hints
	s.mu.Lock()
	if s.maker == nil {
		// A region that cannot be read now is asked for again at the next
		// request (not found: each hint is a 404, as the page's open fails).
		m, err := hints.New(ctx, h.opt.Portal, h.opt.Cell, false)
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.maker = m
		s.cache = source.NewCache(hintCacheBytes, func(p *payload) int64 { return int64(len(p.b)) + 200 })
	}
	s.mu.Unlock()
	if p, ok := s.cache.Get(id); ok {
		return p, nil
	}
	return s.flights.Do(ctx, id, func(ctx context.Context) (*payload, error) {
		if p, ok := s.cache.Get(id); ok {
			return p, nil
		}
		hint, err := s.maker.Landblock(ctx, id)
		if err != nil {
			return nil, err
		}
		p := newPayload("application/json", hint.JSON(), time.Time{}, false)
		s.cache.Put(id, p)
		return p, nil
	})
}
