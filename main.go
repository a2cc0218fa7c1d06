// Command acambient is the native side of the Asheron's Call ambient-sound
// reproduction: the dat server, record inspection, the engine's gather and
// trace tools, static export and the demo world (docs/interfaces.md §1).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// command is one subcommand of docs/interfaces.md §1.
type command struct {
	name    string
	summary string
	run     func(args []string) error
}

func commands() []command {
	return []command{
		{"serve", "HTTP server of records and the page (the default)", cmdServe},
		{"inspect", "JSON of one record: inspect KIND ID, or inspect ls", cmdInspect},
		{"gather", "one retail rebuild at -player POS; JSON", cmdGather},
		{"trace", "simulated run; JSON lines of play decisions", cmdTrace},
		{"render", "the same run as trace, mixed to a 16-bit stereo WAV (-o FILE.wav, -o - for stdout)", cmdRender},
		{"export", "write the static file tree of every record a client can ask for; with -source URL, the page alone, reading URL", cmdExport},
		{"demo", "write the demo world as client_portal.dat and client_cell_1.dat", cmdDemo},
		{"npm", "write the npm package acambient (-out DIR) for npm pack / npm publish", cmdNPM},
		{"zones", "the sound-zone layer: zones.png and zones.json (-out DIR)", cmdZones},
	}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	name, rest := "serve", args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, rest = args[0], args[1:]
	}
	if name == "help" {
		usage(os.Stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == name {
			if err := c.run(rest); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return 0
				}
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return 1
			}
			return 0
		}
	}
	fmt.Fprintf(os.Stderr, "unknown command %q\n\n", name)
	usage(os.Stderr)
	return 2
}

func usage(w *os.File) {
	fmt.Fprintln(w, "usage: go run . [command] [flags]   (no command = serve)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nData flags (every command that reads records): -dats DIR | -portal FILE -cell FILE;")
	fmt.Fprintln(w, "with none of them the built-in demo world is used. 'go run . CMD -h' lists a command's flags.")
}
