package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"acambient/core/ambient"
	"acambient/core/mix"
	"acambient/core/render"
)

// Render is `render`.
var Render = &Command{Name: "render", UsageLine: "render -o FILE.wav [-rate HZ] [trace's flags]", Short: "the same run as trace, mixed to a 16-bit stereo WAV (-o FILE.wav, -o - for stdout)", Run: cmdRender}

// cmdRender runs what `trace` runs, through the mixer, into a 16-bit stereo
// WAV (docs/interfaces.md §1). It streams: the header first (the length is known),
// then block after block, so `-o -` works and memory stays flat however
// long the render. The same flags and seed give the same bytes.
func cmdRender(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
	o := addRunFlags(fs)
	outPath := fs.String("o", "", "output WAV file, or - for stdout (required)")
	rate := fs.Int("rate", mix.DefaultRate, "output sample rate, Hz")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *outPath == "" {
		return errors.New("want -o FILE.wav (or -o - for stdout)")
	}
	if *rate < 8000 || *rate > 384000 {
		return fmt.Errorf("-rate %d: want 8000..384000 Hz", *rate)
	}
	w, closeData, err := o.open(context.Background(), fs)
	if err != nil {
		return err
	}
	defer closeData()

	var dst io.Writer = os.Stdout
	var file *os.File
	if *outPath != "-" {
		if file, err = os.Create(*outPath); err != nil {
			return err
		}
		dst = file
	}
	bw := bufio.NewWriterSize(dst, 64<<10)
	err = runRender(w, renderOptions{seconds: o.seconds, tick: o.tick, rate: *rate, progress: os.Stderr}, bw)
	if err == nil {
		err = bw.Flush()
	}
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(*outPath) // no half-written WAV left behind
		}
	}
	return err
}

type renderOptions struct {
	seconds, tick float64
	rate          int
	// progress, if set, gets a line every `every` of wall time (default
	// progressEvery) while the render runs.
	progress io.Writer
	every    time.Duration
	// onEvents, if set, sees every tick's events (tests compare them with
	// trace's).
	onEvents func(now float64, evs []ambient.Event)
}

// progressEvery is the wall time between progress lines.
const progressEvery = 2 * time.Second

// runRender mixes round(seconds·rate) frames of host into out as a WAV:
// core/render's WAV, which the page's amb.render runs too (wasm/render.go),
// with progress lines on the command's stderr.
func runRender(host mix.Host, o renderOptions, out io.Writer) error {
	every := o.every
	if every <= 0 {
		every = progressEvery
	}
	start := time.Now()
	next := start.Add(every)
	ro := render.Options{Seconds: o.seconds, Tick: o.tick, Rate: o.rate, OnEvents: o.onEvents}
	if o.progress != nil {
		ro.Progress = func(done, total int64) {
			if !time.Now().After(next) {
				return
			}
			next = time.Now().Add(every)
			fmt.Fprintf(o.progress, "render: %.0f of %.0f s (%.0f%%), %.1f× real time\n",
				float64(done)/float64(o.rate), o.seconds, 100*float64(done)/float64(total),
				float64(done)/float64(o.rate)/time.Since(start).Seconds())
		}
	}
	return render.WAV(host, ro, out)
}
