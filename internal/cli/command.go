// Package cli holds the subcommands of the acambient command
// (docs/interfaces.md §1) but serve, the default, which is the root's:
// a file per command, each a Command value the root's table lists, and the
// flags and wiring they share (the data flags, the host they open, JSON
// output, the wasm build).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Command is one subcommand, as cmd/go's base.Command is one of go's: its
// name on the command line, its usage line (`CMD -h` starts with it), the
// line `help` gives it, and what runs it with the arguments after the
// name. Run parses its flags on cmd.FlagSet() and returns flag.ErrHelp
// when asked for them.
type Command struct {
	Name      string
	UsageLine string
	Short     string
	Run       func(cmd *Command, args []string) error
}

// FlagSet is a new flag set for the command: errors are returned, and -h
// prints the usage line, then the flags.
func (c *Command) FlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run . %s\n", c.UsageLine)
		fs.PrintDefaults()
	}
	return fs
}

// Main runs the command line args against the table cmds, whose first
// command is the one run when args names none, and returns the exit code:
// 0, 1 when the command failed (its error on stderr), 2 for an unknown
// command.
func Main(cmds []*Command, args []string) int {
	name, rest := cmds[0].Name, args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, rest = args[0], args[1:]
	}
	if name == "help" {
		usage(os.Stdout, cmds)
		return 0
	}
	for _, c := range cmds {
		if c.Name == name {
			if err := c.Run(c, rest); err != nil {
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
	usage(os.Stderr, cmds)
	return 2
}

func usage(w io.Writer, cmds []*Command) {
	fmt.Fprintf(w, "usage: go run . [command] [flags]   (no command = %s)\n", cmds[0].Name)
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-8s %s\n", c.Name, c.Short)
	}
	fmt.Fprintln(w, "\nData flags (every command that reads records): -dats DIR | -portal FILE -cell FILE;")
	fmt.Fprintln(w, "with none of them the built-in demo world is used. 'go run . CMD -h' lists a command's flags.")
}
