package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"acambient/server"
)

// PageSource is the data source an exported page reads by default: a dat
// server, an export or an acdatservice base on any origin (CORS), and the
// routes it answers ("ours" or "acdatservice", docs/interfaces.md §3.1).
type PageSource struct {
	Server string
	API    string
}

// SourceMeta is the element of www/index.html that names the page's
// default source; www/page/source.js reads it. The page served as it is
// (by serve, or an export with records) leaves it empty: the records are
// on the page's own origin.
const SourceMeta = `<meta name="acambient-source" content="">`

// Meta is SourceMeta naming s: its content is a query string of the form
// the page's own URL takes (server=…&api=…).
func (s PageSource) Meta() string {
	q := url.Values{"server": {s.Server}}
	if s.API != "" {
		q.Set("api", s.API)
	}
	return `<meta name="acambient-source" content="` + html.EscapeString(q.Encode()) + `">`
}

// exportPage writes the page alone, for a static host: the www folder with
// its index.html's SourceMeta naming opt.Source. No record is written (the
// page reads them from the source) and no zone layer (it is computed from
// the records: for retail's Dereth over the network that would be every
// landblock of the world asked of someone else's service at each publish).
func exportPage(ctx context.Context, opt Options) (*Result, error) {
	if opt.WWW == "" {
		return nil, errors.New("a page with a default source needs the page folder (www)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	n, hasIndex, err := copyTree(opt.WWW, opt.Out)
	if err != nil {
		return nil, fmt.Errorf("copying %s: %w", opt.WWW, err)
	}
	if !hasIndex {
		return nil, fmt.Errorf("%s has no index.html: there is no page to export", opt.WWW)
	}
	// The page alone is the whole product: without its wasm and glue
	// nothing plays, so a missing file is an error here, not a warning.
	if lacks, err := pageLacks(opt.Out); err != nil {
		return nil, err
	} else if len(lacks) > 0 {
		return nil, errors.New(strings.Join(lacks, "; "))
	}
	if err := server.VersionIndexFile(opt.Out); err != nil { // as serve sends it (pagever.go)
		return nil, err
	}
	index := filepath.Join(opt.Out, "index.html")
	b, err := os.ReadFile(index)
	if err != nil {
		return nil, err
	}
	if c := bytes.Count(b, []byte(SourceMeta)); c != 1 {
		return nil, fmt.Errorf("%s: want one %s to name the page's source in, found %d", filepath.Join(opt.WWW, "index.html"), SourceMeta, c)
	}
	if err := writeFile(index, bytes.Replace(b, []byte(SourceMeta), []byte(opt.Source.Meta()), 1)); err != nil {
		return nil, err
	}
	return &Result{WWWFiles: n}, nil
}
