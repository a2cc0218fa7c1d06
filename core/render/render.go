// Package render mixes a scripted run into a 16-bit stereo WAV: what the
// `render` command writes (docs/interfaces.md §1) and what the page's
// amb.render downloads (§3.2). Both call WAV over a walk that
// session.OpenRun opened, so the same options and records give the same
// bytes by construction.
package render

import (
	"errors"
	"fmt"
	"io"
	"math"

	"acambient/core/ambient"
	"acambient/core/audio"
	"acambient/core/mix"
)

// Options are a render's: its length, the host's tick and the output rate.
type Options struct {
	Seconds, Tick float64
	Rate          int
	// Progress, if set, is called after each block with the frames written
	// and the total.
	Progress func(done, total int64)
	// OnEvents, if set, sees every tick's events (tests compare them with
	// trace's).
	OnEvents func(now float64, evs []ambient.Event)
	// Yield, if set, is called after each block: in the page, core/pace
	// gives the event loop its turn there, so a render runs beside what
	// plays without starving it. It changes when the work runs, never the
	// bytes.
	Yield func()
}

// Block is how many frames go through the mixer at a time.
const Block = 4096

// Frames is the length of a render of seconds at rate: round(seconds·rate).
func Frames(seconds float64, rate int) int64 {
	return int64(math.Round(seconds * float64(rate)))
}

// Check returns what is wrong with o's numbers, naming the option.
func (o Options) Check() error {
	var errs []error
	if !(o.Seconds >= 0) || math.IsInf(o.Seconds, 1) {
		errs = append(errs, fmt.Errorf("seconds %v: want ≥ 0", o.Seconds))
	}
	if !(o.Tick > 0) || math.IsInf(o.Tick, 1) {
		errs = append(errs, fmt.Errorf("tick %v: want > 0", o.Tick))
	}
	if o.Rate < 8000 || o.Rate > 384000 {
		errs = append(errs, fmt.Errorf("rate %d: want 8000..384000 Hz", o.Rate))
	}
	return errors.Join(errs...)
}

// WAV mixes Frames(o.Seconds, o.Rate) frames of host (a session.Walk,
// ticked every o.Tick seconds) into out as a WAV. It streams: the header
// first (the length is known), then block after block, so memory stays
// flat however long the render.
func WAV(host mix.Host, o Options, out io.Writer) error {
	if err := o.Check(); err != nil {
		return err
	}
	m, err := mix.New(host, mix.Options{Rate: o.Rate, Tick: o.Tick, OnEvents: o.OnEvents})
	if err != nil {
		return err
	}
	total := Frames(o.Seconds, o.Rate)
	ww, err := audio.NewWAVWriter(out, o.Rate, 2, total)
	if err != nil {
		return err
	}
	buf := make([]float32, 2*Block)
	for done := int64(0); done < total; {
		n := int(min(Block, total-done))
		m.ReadFloat(buf[:2*n])
		if err := ww.Write(buf[:2*n]); err != nil {
			return err
		}
		done += int64(n)
		if o.Progress != nil {
			o.Progress(done, total)
		}
		if o.Yield != nil {
			o.Yield()
		}
	}
	return ww.Close()
}
