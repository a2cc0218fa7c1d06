package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"acambient/core/ambient"
	"acambient/core/session"
)

// Gather is `gather`.
var Gather = &Command{Name: "gather", UsageLine: "gather -player POS [-camera POS] [data flags]", Short: "one retail rebuild at -player POS; JSON", Run: cmdGather}

// cmdGather runs one retail rebuild at -player on a fresh engine and prints
// the gathered instances (docs/interfaces.md §1.2).
func cmdGather(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
	df := AddDataFlags(fs)
	player := fs.String("player", "", "listener POS (required): 0xXXYYCCCC/x,y,z | @X,Y,Z | 42.1N,33.6E | /loc line")
	camera := fs.String("camera", "", "camera POS (optional; gather does not place sounds, so it only echoes it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *player == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("want -player POS")
	}
	h, closeData, err := openHost(context.Background(), df, session.Options{Config: ambient.DefaultConfig(), Sync: true})
	if err != nil {
		return err
	}
	defer closeData()
	p, err := h.Resolve(*player)
	if err != nil {
		return fmt.Errorf("-player: %w", err)
	}
	if *camera != "" {
		c, err := h.Resolve(*camera)
		if err != nil {
			return fmt.Errorf("-camera: %w", err)
		}
		h.SetCamera(c.Pos, c.Heading)
	}
	h.Move(p.Pos)
	h.Tick(0)
	return writeJSON(os.Stdout, h.Snapshot().State, true)
}
