package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Demo is `demo`.
var Demo = &Command{Name: "demo", UsageLine: "demo -out DIR", Short: "write the demo world as client_portal.dat and client_cell_1.dat", Run: cmdDemo}

// cmdDemo writes the built-in demo world as a real pair of dats, so every tool
// that reads retail dats (ours or another's) can read it too.
func cmdDemo(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
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
	w, err := DemoWorld()
	if err != nil {
		return err
	}
	portal, cell, err := w.Dats()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"client_portal.dat", portal}, {"client_cell_1.dat", cell}} {
		p := filepath.Join(*out, f.name)
		if err := os.WriteFile(p, f.b, 0o644); err != nil {
			return err
		}
		fmt.Printf("wrote %s (%d bytes)\n", p, len(f.b))
	}
	return nil
}
