package session

import (
	"context"
	"io"

	"acambient/core/ambient"
	"acambient/datfetch/source"
)

// RunOptions describe a scripted run: what `trace` and `render` take
// (docs/interfaces.md §1) and what the page's amb.render takes (§3.2). The
// same options over the same records open the same walk, which is why a
// render in the page and the command's give the same bytes.
type RunOptions struct {
	Seed   uint32
	Volume float32 // the ambient slider, 0..1
	// Player and Camera are the start's POS texts (§1.1); either may be
	// empty, the player when Path moves one at t = 0.
	Player, Camera string
	// Path, if set, is the -path JSON lines (§1.1); PathName names it in
	// errors.
	Path     io.Reader
	PathName string
	// OnError receives the run's non-fatal problems (Options.OnError).
	OnError func(error)
	// Yield, if set, is called between pieces of a long wave decode (the
	// page: core/pace). It changes when the work runs, never what it makes.
	Yield func()
}

// SourceError is a run's record source that could not open a host (its
// region): a command names the source in front.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// OpenRun makes the walk of a scripted run over portal and cell: a host in
// Sync mode (deterministic: every tick sees everything its position needs,
// in retail's complete-table mode, not the page's progressive start) moved
// along o's start and path. Errors: a *SourceError for the host, a
// *StartError, ErrNoPlayer, or the path's line-numbered complaint.
func OpenRun(ctx context.Context, portal, cell source.Source, o RunOptions) (*Walk, error) {
	cfg := ambient.DefaultConfig()
	cfg.Seed, cfg.Volume = o.Seed, o.Volume
	h, err := New(ctx, portal, cell, Options{Config: cfg, Sync: true, OnError: o.OnError, Yield: o.Yield})
	if err != nil {
		return nil, &SourceError{Err: err}
	}
	return NewWalk(h, o.Player, o.Camera, o.Path, o.PathName)
}
