//go:build js && wasm

package main

// amb.render (docs/interfaces.md §3.2): a walk mixed into a WAV, in
// retail's complete-table mode, beside what plays. Self-contained: the API
// object gets it with one line (main.go's object: add("render", …)); the
// worker's message protocol hands it the same three arguments.

import (
	"errors"
	"fmt"
	"strings"
	"syscall/js"

	"github.com/norunners/vert"

	"acambient/core/pace"
	"acambient/core/render"
	"acambient/core/session"
)

// renderChunk is how many WAV bytes go to JavaScript at a time: the Go heap
// holds one chunk, never the file (a 5-minute walk at 48 kHz is 58 MB).
const renderChunk = 1 << 20

// render(pathLines, options, onChunk) resolves once the WAV is whole;
// onChunk(bytes, done, total) gets its bytes in order (a Uint8Array of its
// own) with the frames mixed so far and the total, for the page's progress.
// It opens a host of its own over the page's record sources (their caches
// shared, their requests paced with the page's), so nothing that plays is
// touched; it yields to the event loop after every block and decode
// (core/pace), and stops with an error at dispose.
func (a *api) render(args []js.Value) (any, error) {
	if a.host == nil {
		return nil, errNotOpen
	}
	var ra renderOptions // boundary.go
	if err := (vert.Value{Value: arg(args, 1)}).AssignTo(&ra); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	run := session.RunOptions{Volume: 1, Path: strings.NewReader(arg(args, 0).String()), PathName: "path", Yield: pace.Yield}
	opt := render.Options{Seconds: 60, Tick: 1.0 / 30, Rate: 48000, Yield: pace.Yield}
	if ra.Seconds != nil {
		opt.Seconds = *ra.Seconds
	}
	if ra.Tick != nil {
		opt.Tick = *ra.Tick
	}
	if ra.Rate != nil {
		opt.Rate = *ra.Rate
	}
	if ra.Volume != nil {
		if v := *ra.Volume; !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("volume %v: want 0..1", v)
		}
		run.Volume = float32(*ra.Volume)
	}
	if ra.Seed != nil {
		s := *ra.Seed
		if !(s >= 0 && s <= 0xFFFFFFFF) || s != float64(uint32(s)) {
			return nil, fmt.Errorf("seed %v: want a whole number 0..2^32−1", s)
		}
		run.Seed = uint32(s)
	}
	if err := opt.Check(); err != nil {
		return nil, err
	}
	walk, err := session.OpenRun(a.ctx, a.portal, a.cell, run)
	if errors.Is(err, session.ErrNoPlayer) {
		err = errors.New("the path's first step must be at t = 0")
	}
	if err != nil {
		return nil, err
	}
	out := &chunkOut{ctx: a, onChunk: arg(args, 2), buf: make([]byte, 0, renderChunk)}
	opt.Progress = func(done, total int64) { out.done, out.total = done, total }
	if err := render.WAV(walk, opt, out); err != nil {
		return nil, err
	}
	return nil, out.flush()
}

// chunkOut hands the WAV to JavaScript a chunk at a time.
type chunkOut struct {
	ctx         *api
	onChunk     js.Value
	buf         []byte
	done, total int64
}

func (c *chunkOut) Write(p []byte) (int, error) {
	if err := c.ctx.ctx.Err(); err != nil {
		return 0, err // disposed: stop rendering
	}
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), cap(c.buf)-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == cap(c.buf) {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *chunkOut) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	u := js.Global().Get("Uint8Array").New(len(c.buf))
	js.CopyBytesToJS(u, c.buf)
	c.buf = c.buf[:0]
	if c.onChunk.Type() != js.TypeFunction {
		return errors.New("render: no chunk callback")
	}
	c.onChunk.Invoke(u, c.done, c.total)
	return nil
}
