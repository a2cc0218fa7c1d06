package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"acambient/core/zones"
)

// cmdZones is `zones -out DIR` (docs/interfaces.md §1): the sound-zone layer,
// DIR/zones.png and DIR/zones.json, for every land cell the source holds.
func cmdZones(args []string) error {
	fs := flag.NewFlagSet("zones", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write zones.png and zones.json into (created if missing)")
	df := addDataFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q: want -out DIR and flags only", fs.Arg(0))
	}
	if *out == "" {
		fs.Usage()
		return errors.New("want -out DIR")
	}
	d, err := df.open()
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	idx, err := zones.Write(ctx, d.Portal, d.Cell, *out, zones.Options{
		Warnf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "warning: "+format+"\n", args...) },
	})
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	fmt.Printf("zones of %s: %d×%d land cells, %d sound sets, %d cells silent; wrote %s and %s\n",
		d.Name, idx.Width, idx.Height, len(idx.Sets), idx.Silent,
		filepath.Join(*out, zones.ImageFile), filepath.Join(*out, zones.IndexFile))
	return nil
}
