package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"acambient/core/ambient"
	"acambient/core/world"
)

// Walk is a host driven along a scripted path (docs/interfaces.md §1.1 `-path`):
// before each tick it applies the steps due by then. It is what `trace` and
// `render` tick, so both see the listener move at the same instants. Its
// Host's other methods (PCM, Retained: the mixer's Host) are the walk's.
type Walk struct {
	*Host
	steps []Step
	next  int
}

// Step is one resolved line of a path: at T the player and/or camera move.
type Step struct {
	T       float64
	Player  *world.Position
	Camera  *world.Position
	Heading float64
}

// pathLine is one JSON line of a -path file.
type pathLine struct {
	T      *float64 `json:"t"`
	Player string   `json:"player"`
	Camera string   `json:"camera"`
}

// NewWalk resolves a start position (player, camera: POS text, either may be
// empty) and the path's JSON lines (r may be nil, name names it in errors)
// against h. A player must be given by the start or by a step at t = 0: an
// ErrNoPlayer otherwise. A start that does not resolve is a *StartError.
func NewWalk(h *Host, player, camera string, r io.Reader, name string) (*Walk, error) {
	w := &Walk{Host: h}
	start := Step{}
	var err error
	if start.Player, _, err = h.resolveOpt(player); err != nil {
		return nil, &StartError{Camera: false, Err: err}
	}
	if start.Camera, start.Heading, err = h.resolveOpt(camera); err != nil {
		return nil, &StartError{Camera: true, Err: err}
	}
	w.steps = append(w.steps, start)
	if r != nil {
		steps, err := h.readPath(r, name)
		if err != nil {
			return nil, err
		}
		w.steps = append(w.steps, steps...)
	}
	sort.SliceStable(w.steps, func(i, j int) bool { return w.steps[i].T < w.steps[j].T })
	w.apply(0)
	if w.Host.player == nil {
		return nil, ErrNoPlayer
	}
	return w, nil
}

// ErrNoPlayer: a walk neither starts with a player nor moves one at t = 0.
var ErrNoPlayer = errors.New("no player: give a start position or a path line at t=0 with a player")

// StartError is a walk's start position (the player's, or the camera's)
// that does not resolve. Its text is the cause's; a command names its own
// flag in front.
type StartError struct {
	Camera bool
	Err    error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Tick applies the steps due by now, then ticks the host.
func (w *Walk) Tick(now float64) []ambient.Event {
	w.apply(now)
	return w.Host.Tick(now)
}

func (w *Walk) apply(now float64) {
	for w.next < len(w.steps) && w.steps[w.next].T <= now {
		st := w.steps[w.next]
		w.next++
		if st.Player != nil {
			w.Host.Move(*st.Player)
		}
		if st.Camera != nil {
			w.Host.SetCamera(*st.Camera, st.Heading)
		}
	}
}

// resolveOpt resolves a POS that may be empty.
func (h *Host) resolveOpt(text string) (*world.Position, float64, error) {
	if text == "" {
		return nil, 0, nil
	}
	sp, err := h.Resolve(text)
	if err != nil {
		return nil, 0, err
	}
	return &sp.Pos, sp.Heading, nil
}

// readPath reads and resolves a path's JSON lines.
func (h *Host) readPath(r io.Reader, name string) ([]Step, error) {
	var steps []Step
	sc := bufio.NewScanner(r)
	n := 1
	for ; sc.Scan(); n++ {
		if h.opt.Yield != nil {
			h.opt.Yield() // a page's walk has thousands of lines, each resolved (core/pace)
		}
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var pl pathLine
		if err := json.Unmarshal(line, &pl); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("%s line %d, byte %d: %w", name, n, se.Offset, err)
			}
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
		st := Step{}
		if pl.T != nil {
			st.T = *pl.T
		}
		if !(st.T >= 0) {
			return nil, fmt.Errorf("%s line %d: \"t\" %v: want seconds ≥ 0", name, n, st.T)
		}
		var err error
		if st.Player, _, err = h.resolveOpt(pl.Player); err != nil {
			return nil, fmt.Errorf("%s line %d: player: %w", name, n, err)
		}
		if st.Camera, st.Heading, err = h.resolveOpt(pl.Camera); err != nil {
			return nil, fmt.Errorf("%s line %d: camera: %w", name, n, err)
		}
		steps = append(steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", name, n, err)
	}
	return steps, nil
}
