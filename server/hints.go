package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
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

// hints writes Out/hints/0xXXYYFFFF for each landblock among ids, one
// worker per CPU. A landblock whose hint cannot be made (a record of its
// ring that cannot be read) is skipped with a warning: its page asks as
// it would without one.
func (e *exporter) hints(ctx context.Context, ids []uint32) error {
	dir := filepath.Join(e.opt.Out, HintsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m, err := hints.New(ctx, e.opt.Portal, e.opt.Cell, true)
	if err != nil {
		return err
	}
	var blocks []uint32
	for _, id := range ids {
		if dat.CellKind(id) == dat.KindLandBlock {
			blocks = append(blocks, id)
		}
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	work := func() {
		defer wg.Done()
		for {
			mu.Lock()
			if next == len(blocks) || first != nil {
				mu.Unlock()
				return
			}
			id := blocks[next]
			next++
			mu.Unlock()
			hint, err := m.Landblock(ctx, id)
			var b []byte
			switch {
			case ctx.Err() != nil:
				err = ctx.Err()
			case err != nil:
				e.opt.Warnf("hint of landblock 0x%08X skipped: %v", id, err)
			default:
				b = hint.JSON()
				err = writeFile(filepath.Join(dir, fmt.Sprintf("0x%08X", id)), b)
			}
			mu.Lock()
			switch {
			case b == nil && ctx.Err() == nil:
				e.res.Skipped++
			case err != nil:
				first = cmp.Or(first, err)
			default:
				e.res.Hints++
				e.res.HintBytes += int64(len(b))
			}
			mu.Unlock()
		}
	}
	for range max(1, runtime.NumCPU()) {
		wg.Add(1)
		go work()
	}
	wg.Wait()
	return first
}
