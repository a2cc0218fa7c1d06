package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"acambient/core/zones"
)

// Zones is `zones`.
var Zones = &Command{Name: "zones", UsageLine: "zones -out DIR [data flags]", Short: "the sound-zone layer: zones.png and zones.json (-out DIR)", Run: cmdZones}

// cmdZones is `zones -out DIR` (docs/interfaces.md §1): the sound-zone layer,
// DIR/zones.png and DIR/zones.json, for every land cell the source holds.
func cmdZones(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
	out := fs.String("out", "", "folder to write zones.png and zones.json into (created if missing)")
	df := AddDataFlags(fs)
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
	d, err := df.Open()
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
