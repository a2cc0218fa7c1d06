// Command acambient is the native side of the Asheron's Call ambient-sound
// reproduction: the dat server, record inspection, the engine's gather and
// trace tools, static export and the demo world (docs/interfaces.md §1).
// serve, the default, is here (serve.go); the other commands are
// internal/cli's, a file each.
package main

import (
	"os"

	"acambient/internal/cli"
)

// commands is the command table of docs/interfaces.md §1; the first runs
// when the command line names none.
func commands() []*cli.Command {
	return []*cli.Command{
		{Name: "serve", UsageLine: "[serve] [-addr HOST:PORT] [-cors ORIGIN] [-www DIR] [-build] [-cache MiB] [-zones] [-v] [data flags]",
			Short: "HTTP server of records and the page (the default)", Run: cmdServe},
		cli.Inspect,
		cli.Gather,
		cli.Trace,
		cli.Render,
		cli.Export,
		cli.Demo,
		cli.NPM,
		cli.Zones,
	}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int { return cli.Main(commands(), args) }
