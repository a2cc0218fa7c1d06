package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"acambient/core/ambient"
	"acambient/core/session"
	"acambient/core/world"
)

// cmdGather runs one retail rebuild at -player on a fresh engine and prints
// the gathered instances (contracts §1.2).
func cmdGather(args []string) error {
	fs := flag.NewFlagSet("gather", flag.ContinueOnError)
	df := addDataFlags(fs)
	player := fs.String("player", "", "listener POS (required): 0xXXYYCCCC/x,y,z | @X,Y,Z | 42.1N,33.6E | /loc line")
	camera := fs.String("camera", "", "camera POS (optional; gather does not place sounds, so it only echoes it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *player == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("want -player POS")
	}
	ctx := context.Background()
	s, closeData, err := openSession(ctx, df, ambient.DefaultConfig())
	if err != nil {
		return err
	}
	defer closeData()
	p, err := resolvePOS(ctx, s, *player)
	if err != nil {
		return err
	}
	if *camera != "" {
		c, err := resolvePOS(ctx, s, *camera)
		if err != nil {
			return err
		}
		s.Engine.SetCamera(c.Pos, c.Heading)
	}
	if _, err := s.SetPlayer(ctx, 0, p.Pos); err != nil {
		return err
	}
	return writeJSON(os.Stdout, s.Engine.State(), true)
}

// openSession opens the data flags' sources and a session over them;
// non-fatal record problems go to stderr as warnings.
func openSession(ctx context.Context, df *dataFlags, cfg ambient.Config) (*session.Session, func(), error) {
	d, err := df.open()
	if err != nil {
		return nil, nil, err
	}
	s, err := session.New(ctx, d.Portal, d.Cell, cfg)
	if err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	s.OnError = func(err error) { fmt.Fprintf(os.Stderr, "warning: %v\n", err) }
	return s, func() { d.Close() }, nil
}

// resolvePOS parses a POS and fills in terrain z for map coordinates.
func resolvePOS(ctx context.Context, s *session.Session, text string) (world.Spec, error) {
	sp, err := world.ParsePOS(text)
	if err != nil {
		return sp, err
	}
	if err := s.ResolveZ(ctx, &sp); err != nil {
		return sp, err
	}
	return sp, nil
}
