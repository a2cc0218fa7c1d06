package cli

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"acambient/internal/npmpkg"
	"acambient/internal/wasmbuild"
)

// NPM is `npm`.
var NPM = &Command{Name: "npm", UsageLine: "npm -out DIR [-version V] [-www DIR] [-build]", Short: "write the npm package acambient (-out DIR) for npm pack / npm publish", Run: cmdNPM}

// cmdNPM is `npm -out DIR` (docs/interfaces.md §5): the npm package
// acambient, which `npm pack DIR` and `npm publish DIR` take as it is. The
// wasm is built first when it is stale, as serve and export build it; a
// failed build fails the command, since a package without it is no package.
func cmdNPM(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
	out := fs.String("out", "", "folder to write the package to (created if missing)")
	www := fs.String("www", DefaultWWW(), "folder of the modules")
	version := fs.String("version", "", "the package's version (default: vX.Y.Z's X.Y.Z when the checkout's commit is tagged so, else 0.0.0-TIME-COMMIT)")
	build := fs.Bool("build", true, "build www/ambient.wasm first when it is missing or older than its sources")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("want -out DIR")
	}
	logger := log.New(os.Stderr, "", 0)
	module := ModuleDir()
	if *version == "" {
		if module == "" {
			return errors.New("no -version given, and the module's checkout is not found to take one from")
		}
		v, dirty, err := npmpkg.GitVersion(module)
		if err != nil {
			return fmt.Errorf("no -version given: %w", err)
		}
		if dirty {
			logger.Printf("warning: the checkout has uncommitted changes; version %s names its last commit", v)
		}
		*version = v
	}
	if *build && module != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := (wasmbuild.WasmBuild{Module: module, WWW: *www}).Ensure(ctx, logger.Printf); err != nil {
			return err
		}
	}
	res, err := npmpkg.Write(npmpkg.Options{WWW: *www, Out: *out, Version: *version})
	if err != nil {
		return err
	}
	fmt.Printf("wrote npm package %s@%s to %s: %d files (%d bytes), package.json and README.md; npm pack %s\n",
		npmpkg.Name, *version, *out, len(res.Files), res.Bytes, *out)
	return nil
}
