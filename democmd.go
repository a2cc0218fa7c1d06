package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"acambient/core/demo"
)

// cmdDemo writes the built-in demo world as a real pair of dats, so every tool
// that reads retail dats (ours or another's) can read it too.
func cmdDemo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write client_portal.dat and client_cell_1.dat into (created if missing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("want -out DIR")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if err := demo.WriteDats(*out); err != nil {
		return err
	}
	for _, name := range []string{"client_portal.dat", "client_cell_1.dat"} {
		p := filepath.Join(*out, name)
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		fmt.Printf("wrote %s (%d bytes)\n", p, st.Size())
	}
	return nil
}
