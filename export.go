package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"acambient/server"
)

// cmdExport is `export -out DIR` (contracts §2.3): the static tree of every
// record a client can ask for, and the built www/.
func cmdExport(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write (created if missing; files of an earlier export are overwritten, not removed)")
	www := fs.String("www", defaultWWW(), "folder of the page files to copy")
	build := fs.Bool("build", true, "build www/ambient.wasm first when it is missing or older than its sources")
	withZones := fs.Bool("zones", true, "also write the sound-zone layer, DIR/zones.png and DIR/zones.json (as the zones command)")
	df := addDataFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
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
	logger := log.New(os.Stderr, "", 0)
	if *build {
		ensureWasm(ctx, *www, logger)
	}
	res, err := server.Export(ctx, server.ExportOptions{
		Portal: d.Portal, Cell: d.Cell, Name: d.Name, WWW: *www, Out: *out, Zones: *withZones,
		Warnf: func(format string, args ...any) { logger.Printf("warning: "+format, args...) },
	})
	if err != nil {
		return err
	}
	fmt.Printf("exported %s to %s: region %d, soundtables %d, waves %d, landblocks %d, envcells %d (%d record bytes); www files %d; skipped %d",
		d.Name, *out, res.Regions, res.SoundTables, res.Waves, res.LandBlocks, res.EnvCells, res.Bytes, res.WWWFiles, res.Skipped)
	if *withZones {
		fmt.Printf("; zones.png and zones.json, %d sound sets", res.ZoneSets)
	}
	fmt.Println()
	return nil
}
