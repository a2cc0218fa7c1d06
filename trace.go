package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"acambient/core/ambient"
	"acambient/core/dat"
	"acambient/core/session"
	"acambient/core/world"
)

// cmdTrace runs the engine on a simulated clock and prints its decisions as
// JSON lines (contracts §1.3). The same flags and seed give the same bytes.
func cmdTrace(args []string) error {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	df := addDataFlags(fs)
	o := traceOptions{}
	fs.StringVar(&o.player, "player", "", "listener POS (required unless -path gives one at t=0)")
	fs.StringVar(&o.camera, "camera", "", "camera POS, may end in /HEADING (default: the player, facing north)")
	fs.Float64Var(&o.seconds, "seconds", 60, "simulated seconds")
	seed := fs.Uint("seed", 0, "seed of Random::rand (ran2) and the CRT rand()")
	fs.Float64Var(&o.tick, "tick", 1.0/30, "seconds between ticks (frames)")
	volume := fs.Float64("volume", 1, "ambient slider A in [0,1] (retail applies it twice)")
	fs.StringVar(&o.path, "path", "", `JSON lines {"t": s, "player": POS, "camera": POS} moving the listener`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if !(o.tick > 0) || !(o.seconds >= 0) || *volume < 0 || *volume > 1 || *seed > 0xFFFFFFFF {
		return errors.New("want -tick > 0, -seconds ≥ 0, -volume in [0,1], -seed < 2^32")
	}
	cfg := ambient.DefaultConfig()
	cfg.Seed, cfg.Volume = uint32(*seed), float32(*volume)

	ctx := context.Background()
	s, closeData, err := openSession(ctx, df, cfg)
	if err != nil {
		return err
	}
	defer closeData()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	return runTrace(ctx, s, o, w)
}

type traceOptions struct {
	player, camera, path string
	seconds, tick        float64
}

// pathStep is one line of a -path file.
type pathStep struct {
	T      float64 `json:"t"`
	Player string  `json:"player"`
	Camera string  `json:"camera"`
	line   int
}

// rebuildLine is the trace's "rebuild" event (contracts §1.3).
type rebuildLine struct {
	T               float64 `json:"t"`
	Event           string  `json:"event"`
	ObjCellID       dat.DID `json:"objcellId"`
	Outdoorish      bool    `json:"outdoorish"`
	TotalSoundCount float32 `json:"totalSoundCount"`
	Instances       int     `json:"instances"`
}

// runTrace drives the session as SmartBox::UseTime does each frame: the
// player's position into ChangePosition (which rebuilds only on a cell
// change), then Ambient::UseTime.
func runTrace(ctx context.Context, s *session.Session, o traceOptions, w io.Writer) error {
	steps, err := readPath(o.path)
	if err != nil {
		return err
	}
	var player, camera *world.Spec
	set := func(dst **world.Spec, text string) error {
		sp, err := resolvePOS(ctx, s, text)
		if err != nil {
			return err
		}
		*dst = &sp
		return nil
	}
	if o.player != "" {
		if err := set(&player, o.player); err != nil {
			return fmt.Errorf("-player: %w", err)
		}
	}
	if o.camera != "" {
		if err := set(&camera, o.camera); err != nil {
			return fmt.Errorf("-camera: %w", err)
		}
	}

	emit := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(append(plainNumbers(b), '\n'))
		return err
	}
	emitEvents := func(evs []ambient.Event) error {
		for _, ev := range evs {
			if err := emit(ev); err != nil {
				return err
			}
		}
		return nil
	}
	// move applies the path steps due by now, then rebuilds if the cell changed.
	next := 0
	move := func(now float64, first bool) error {
		moved := first
		for next < len(steps) && steps[next].T <= now {
			st := steps[next]
			next++
			if st.Player != "" {
				if err := set(&player, st.Player); err != nil {
					return fmt.Errorf("-path line %d: player: %w", st.line, err)
				}
				moved = true
			}
			if st.Camera != "" {
				if err := set(&camera, st.Camera); err != nil {
					return fmt.Errorf("-path line %d: camera: %w", st.line, err)
				}
			}
		}
		if player == nil {
			return errors.New("want -player POS (or a -path line at t=0 with a player)")
		}
		if camera != nil {
			s.Engine.SetCamera(camera.Pos, camera.Heading)
		} else {
			s.Engine.SetCamera(player.Pos, 0)
		}
		if !moved {
			return nil
		}
		rebuilt, err := s.SetPlayer(ctx, now, player.Pos)
		if err != nil || !rebuilt {
			return err
		}
		st := s.Engine.State()
		if err := emit(rebuildLine{now, "rebuild", dat.DID(st.Player.ObjCellID), st.Outdoorish,
			st.TotalSoundCount, len(st.Sounds)}); err != nil {
			return err
		}
		return emitEvents(s.Engine.Events())
	}

	if err := move(0, true); err != nil {
		return err
	}
	for k := 1; ; k++ {
		now := float64(k) * o.tick // from k, not summed, so long runs do not drift
		if now > o.seconds {
			return nil
		}
		if err := move(now, false); err != nil {
			return err
		}
		if err := emitEvents(s.Engine.UseTime(now)); err != nil {
			return err
		}
	}
}

// readPath reads a -path file of JSON lines, sorted by t.
func readPath(path string) ([]pathStep, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var steps []pathStep
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var st pathStep
		if err := json.Unmarshal(line, &st); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		st.line = n
		steps = append(steps, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].T < steps[j].T })
	return steps, nil
}
