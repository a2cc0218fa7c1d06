package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"acambient/internal/export"
)

// Export is `export`.
var Export = &Command{Name: "export", UsageLine: "export -out DIR [-www DIR] [-build] [-zones=false] [-hints=false] [data flags] | export -out DIR -source URL [-api acdatservice] [-www DIR] [-build]", Short: "write the static file tree of every record a client can ask for; with -source URL, the page alone, reading URL", Run: cmdExport}

// cmdExport is `export -out DIR` (docs/interfaces.md §2.3): the static tree of every
// record a client can ask for, and the built www/; with -source URL, the
// built www/ alone, reading its records from URL by default.
func cmdExport(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
	out := fs.String("out", "", "folder to write (created if missing; files of an earlier export are overwritten, not removed)")
	www := fs.String("www", DefaultWWW(), "folder of the page files to copy")
	build := fs.Bool("build", true, "build www/ambient.wasm first when it is missing or older than its sources")
	withZones := fs.Bool("zones", true, "also write the sound-zone layer, DIR/zones.png and DIR/zones.json (as the zones command)")
	withHints := fs.Bool("hints", true, "also write each landblock's hint, DIR/hints/0xXXYYFFFF (what a page opening there asks for first, as serve's /hints/)")
	source := fs.String("source", "", "write the page alone (no records, no zones), reading its records from this URL by default (with -api acdatservice for an acdatservice base)")
	df := AddDataFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("want -out DIR")
	}
	if *source != "" {
		return cmdExportPage(fs, *out, *www, *build, *source, df)
	}
	d, err := df.Open()
	if err != nil {
		return err
	}
	defer d.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := log.New(os.Stderr, "", 0)
	if *build {
		EnsureWasm(ctx, *www, logger)
	}
	res, err := export.Write(ctx, export.Options{
		Portal: d.Portal, Cell: d.Cell, Name: d.Name, WWW: *www, Out: *out, Zones: *withZones, Hints: *withHints,
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
	if *withHints {
		fmt.Printf("; hints %d (%d bytes)", res.Hints, res.HintBytes)
	}
	fmt.Println()
	return nil
}

// cmdExportPage is `export -out DIR -source URL [-api acdatservice]`: the page
// alone, for a static host, with URL as its default data source.
func cmdExportPage(fs *flag.FlagSet, out, www string, build bool, source string, df *DataFlags) error {
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "portal", "cell", "dats", "server", "zones", "hints":
			clash = append(clash, "-"+f.Name)
		}
	})
	if len(clash) > 0 {
		return fmt.Errorf("-source writes the page alone, which reads its records from %s: %s would have nothing to do", source, strings.Join(clash, ", "))
	}
	if df.api != apiOurs && df.api != apiACDatService {
		return fmt.Errorf("-api %q: want %s or %s", df.api, apiOurs, apiACDatService)
	}
	u, err := url.Parse(source)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("-source %q: want an http:// or https:// base URL", source)
	}
	logger := log.New(os.Stderr, "", 0)
	if u.Scheme == "http" {
		logger.Printf("warning: -source %s is http: a page on an https host may not read it (mixed content)", source)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if build {
		EnsureWasm(ctx, www, logger)
	}
	src := export.PageSource{Server: strings.TrimSuffix(source, "/"), API: df.api}
	res, err := export.Write(ctx, export.Options{WWW: www, Out: out, Source: src})
	if err != nil {
		return err
	}
	fmt.Printf("exported the page to %s: www files %d; its records come from %s (%s); no records, no zones\n", out, res.WWWFiles, src.Server, src.API)
	return nil
}
