package cli

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"acambient/core/demo"
	"acambient/datfetch"
	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
)

// DataFlags are the record-source flags every reading command takes
// (docs/interfaces.md §1): -portal FILE -cell FILE, or -dats DIR, or -server URL
// [-api ours|acdatservice]; none → the demo world.
type DataFlags struct {
	portal, cell, dats string
	server, api        string
}

func AddDataFlags(fs *flag.FlagSet) *DataFlags {
	d := &DataFlags{}
	fs.StringVar(&d.portal, "portal", "", "retail client_portal.dat")
	fs.StringVar(&d.cell, "cell", "", "retail client_cell_1.dat")
	fs.StringVar(&d.dats, "dats", "", "folder holding client_portal.dat and client_cell_1.dat")
	fs.StringVar(&d.server, "server", "", "read records over HTTP from this dat server (ours, an export on a static host, or acdatservice with -api)")
	fs.StringVar(&d.api, "api", apiOurs, "the -server's routes: ours (URL/files/{id}, URL/cell/files/{id}) or acdatservice (URL/dats/portal/files/{id}, URL/dats/cell/files/{id})")
	return d
}

// The route sets -api names (docs/interfaces.md §1).
const (
	apiOurs         = "ours"
	apiACDatService = "acdatservice"
)

// remoteBases returns the portal and cell record bases of server under api.
func remoteBases(server, api string) (portal, cell string, err error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("-server %q: want an http:// or https:// URL", server)
	}
	root := strings.TrimSuffix(server, "/")
	switch api {
	case apiOurs, "":
		return root + "/files/", root + "/cell/files/", nil
	case apiACDatService:
		return root + "/dats/portal/files/", root + "/dats/cell/files/", nil
	}
	return "", "", fmt.Errorf("-api %q: want %s or %s", api, apiOurs, apiACDatService)
}

// DemoWorld builds the demo world once per process: it is deterministic, and
// the server, its tests and the tools all ask for it.
var DemoWorld = sync.OnceValues(demo.Build)

// Data is an opened pair of record sources.
type Data struct {
	Portal, Cell source.Lister
	Name         string // what is being read, for messages
	closers      []func() error
}

func (d *Data) Close() error {
	var errs []error
	for _, c := range d.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// Open resolves the flags to sources. A file that is not a valid container is
// an error naming it.
func (f *DataFlags) Open() (*Data, error) {
	if f.server != "" {
		if f.portal != "" || f.cell != "" || f.dats != "" {
			return nil, errors.New("give -server or dat files (-portal/-cell, -dats), not both")
		}
		pb, cb, err := remoteBases(f.server, f.api)
		if err != nil {
			return nil, err
		}
		// The cell source refuses what the cell dat's reader refuses
		// (docs/divergences.md row 11).
		cellOpt := datfetch.HTTPOptions{MaxRecordBytes: datfile.MaxCellRecordBytes}
		return &Data{Portal: datfetch.NewHTTP(pb, datfetch.HTTPOptions{}), Cell: datfetch.NewHTTP(cb, cellOpt),
			Name: f.server + " (" + f.api + ")"}, nil
	}
	if f.api != "" && f.api != apiOurs {
		return nil, errors.New("-api needs -server")
	}
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
		w, err := DemoWorld()
		if err != nil {
			return nil, fmt.Errorf("demo world: %w", err)
		}
		return &Data{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world"}, nil
	}
	if portal == "" || cell == "" {
		return nil, errors.New("give both -portal and -cell (or -dats DIR)")
	}
	d := &Data{Name: portal + " + " + cell}
	for _, p := range []struct {
		path string
		dst  *source.Lister
	}{{portal, &d.Portal}, {cell, &d.Cell}} {
		if _, err := os.Stat(p.path); err != nil {
			d.Close()
			return nil, err
		}
		db, err := datfile.OpenDat(p.path) // its errors name the file
		if err != nil {
			d.Close()
			return nil, err
		}
		*p.dst = db
		d.closers = append(d.closers, db.Close)
	}
	return d, nil
}
