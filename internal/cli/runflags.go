package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"acambient/core/session"
)

// runFlags are the flags `trace` and `render` share (docs/interfaces.md §1).
type runFlags struct {
	data                 *DataFlags
	player, camera, path string
	seconds, tick        float64
	seed                 uint
	volume               float64
}

func addRunFlags(fs *flag.FlagSet) *runFlags {
	o := &runFlags{data: AddDataFlags(fs)}
	fs.StringVar(&o.player, "player", "", "listener POS (required unless -path gives one at t=0)")
	fs.StringVar(&o.camera, "camera", "", "camera POS, may end in /HEADING (default: the player, facing north)")
	fs.Float64Var(&o.seconds, "seconds", 60, "simulated seconds")
	fs.UintVar(&o.seed, "seed", 0, "seed of Random::rand (ran2) and the CRT rand()")
	fs.Float64Var(&o.tick, "tick", 1.0/30, "seconds between ticks (frames)")
	fs.Float64Var(&o.volume, "volume", 1, "ambient slider A in [0,1] (retail applies it twice)")
	fs.StringVar(&o.path, "path", "", `JSON lines {"t": s, "player": POS, "camera": POS} moving the listener`)
	return o
}

// open checks the flags and makes the walk they describe (session.OpenRun: a
// host in Sync mode, deterministic: every tick sees everything its position
// needs).
func (o *runFlags) open(ctx context.Context, fs *flag.FlagSet) (*session.Walk, func(), error) {
	if fs.NArg() > 0 {
		return nil, nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	// Each flag out of range is named with the value given.
	switch {
	case !(o.tick > 0):
		return nil, nil, fmt.Errorf("-tick %v: want seconds > 0", o.tick)
	case !(o.seconds >= 0):
		return nil, nil, fmt.Errorf("-seconds %v: want ≥ 0", o.seconds)
	case !(o.volume >= 0 && o.volume <= 1):
		return nil, nil, fmt.Errorf("-volume %v: want 0..1", o.volume)
	case o.seed > 0xFFFFFFFF:
		return nil, nil, fmt.Errorf("-seed %d: want < 2^32", o.seed)
	}
	d, err := o.data.Open()
	if err != nil {
		return nil, nil, err
	}
	ro := session.RunOptions{Seed: uint32(o.seed), Volume: float32(o.volume), Player: o.player, Camera: o.camera,
		PathName: o.path, OnError: func(err error) { fmt.Fprintf(os.Stderr, "warning: %v\n", err) }}
	if o.path != "" {
		f, err := os.Open(o.path)
		if err != nil {
			d.Close()
			return nil, nil, err
		}
		defer f.Close()
		ro.Path = f
	}
	// The page's amb.render opens its run the same way (wasm/render.go).
	w, err := session.OpenRun(ctx, d.Portal, d.Cell, ro)
	var source *session.SourceError
	var start *session.StartError
	switch {
	case errors.As(err, &source):
		err = fmt.Errorf("%s: %w", d.Name, source.Err)
	case errors.As(err, &start) && start.Camera:
		err = fmt.Errorf("-camera: %w", err)
	case errors.As(err, &start):
		err = fmt.Errorf("-player: %w", err)
	case errors.Is(err, session.ErrNoPlayer):
		err = errors.New("want -player POS (or a -path line at t=0 with a player)")
	}
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return w, func() { d.Close() }, nil
}
