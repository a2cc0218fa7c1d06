package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"acambient/core/demo"
	"acambient/datfetch"
)

// dataFlags are the record-source flags every reading command takes
// (contracts §1): -portal FILE -cell FILE, or -dats DIR; none → the demo world.
type dataFlags struct {
	portal, cell, dats string
}

func addDataFlags(fs *flag.FlagSet) *dataFlags {
	d := &dataFlags{}
	fs.StringVar(&d.portal, "portal", "", "retail client_portal.dat")
	fs.StringVar(&d.cell, "cell", "", "retail client_cell_1.dat")
	fs.StringVar(&d.dats, "dats", "", "folder holding client_portal.dat and client_cell_1.dat")
	return d
}

// demoWorld builds the demo world once per process: it is deterministic, and
// the server, its tests and the tools all ask for it.
var demoWorld = sync.OnceValues(demo.Build)

// data is an opened pair of record sources.
type data struct {
	Portal, Cell datfetch.Lister
	Name         string // what is being read, for messages
	closers      []func() error
}

func (d *data) Close() error {
	var errs []error
	for _, c := range d.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// open resolves the flags to sources. A file that is not a valid container is
// an error naming it.
func (f *dataFlags) open() (*data, error) {
	portal, cell := f.portal, f.cell
	if f.dats != "" {
		if portal == "" {
			portal = filepath.Join(f.dats, "client_portal.dat")
		}
		if cell == "" {
			cell = filepath.Join(f.dats, "client_cell_1.dat")
		}
	}
	if portal == "" && cell == "" {
		w, err := demoWorld()
		if err != nil {
			return nil, fmt.Errorf("demo world: %w", err)
		}
		return &data{Portal: datfetch.NewMemory(w.Portal), Cell: datfetch.NewMemory(w.Cell), Name: "demo world"}, nil
	}
	if portal == "" || cell == "" {
		return nil, errors.New("give both -portal and -cell (or -dats DIR)")
	}
	d := &data{Name: portal + " + " + cell}
	for _, p := range []struct {
		path string
		dst  *datfetch.Lister
	}{{portal, &d.Portal}, {cell, &d.Cell}} {
		if _, err := os.Stat(p.path); err != nil {
			d.Close()
			return nil, err
		}
		db, err := datfetch.OpenDat(p.path) // its errors name the file
		if err != nil {
			d.Close()
			return nil, err
		}
		*p.dst = db
		d.closers = append(d.closers, db.Close)
	}
	return d, nil
}
