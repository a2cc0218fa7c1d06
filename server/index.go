package server

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"acambient/core/dat"
	"acambient/datfetch/source"
)

// IndexLinks are where the generated index points for the listings: the
// server's own routes, or the files a static export writes.
type IndexLinks struct {
	PortalListing, CellListing string
}

var (
	serveLinks  = IndexLinks{"files", "cell/files"}
	ExportLinks = IndexLinks{"files/index.txt", "cell/files/index.txt"}
)

// indexLandblocks is how many landblocks the index links to.
const indexLandblocks = 8

// IndexPage renders the page "/" answers while www/ has no index.html (the
// browser page is a later piece of work): what is served, record counts per
// kind, and links to the listings, the region and a few landblocks. Links
// are relative, so the same page works from serve and from a static export.
func IndexPage(ctx context.Context, name string, portal, cell source.Lister, links IndexLinks) ([]byte, error) {
	pids, err := portal.IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("portal ids: %w", err)
	}
	cids, err := cell.IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("cell ids: %w", err)
	}
	v := indexView{Name: name, Links: links}
	region := false
	for _, id := range pids {
		switch dat.PortalKind(id) {
		case dat.KindRegion:
			v.Regions++
			region = region || id == dat.RegionID
		case dat.KindSoundTable:
			v.SoundTables++
		case dat.KindWave:
			v.Waves++
		default:
			v.PortalOther++
		}
	}
	if region {
		v.Region = fmt.Sprintf("0x%08X", uint32(dat.RegionID))
	}
	for _, id := range cids {
		switch dat.CellKind(id) {
		case dat.KindLandBlock:
			v.LandBlocks++
			if len(v.SomeLandBlocks) < indexLandblocks {
				v.SomeLandBlocks = append(v.SomeLandBlocks, fmt.Sprintf("0x%08X", id))
			}
		case dat.KindEnvCell:
			v.EnvCells++
		default:
			v.CellOther++
		}
	}
	var buf bytes.Buffer
	if err := indexTemplate.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type indexView struct {
	Name                            string
	Links                           IndexLinks
	Regions, SoundTables, Waves     int
	PortalOther                     int
	LandBlocks, EnvCells, CellOther int
	Region                          string
	SomeLandBlocks                  []string
}

var indexTemplate = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>acambient dat server — {{.Name}}</title>
<style>body{font:15px/1.45 system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em}
td{padding:.1em 1em .1em 0}code{font-size:95%}</style></head>
<body>
<h1>Asheron's Call ambient sound — dat server</h1>
<p>Serving <b>{{.Name}}</b>. The browser page is not built yet (<code>www/index.html</code> is missing);
this index lists what a client can fetch.</p>
<h2>Portal records (<code>files/{id}</code>)</h2>
<table>
<tr><td>Regions (0x13…)</td><td>{{.Regions}}</td></tr>
<tr><td>SoundTables (0x20…)</td><td>{{.SoundTables}}</td></tr>
<tr><td>Waves (0x0A…)</td><td>{{.Waves}}</td></tr>
<tr><td>other</td><td>{{.PortalOther}}</td></tr>
</table>
<p><a href="{{.Links.PortalListing}}">all portal ids</a>{{if .Region}} · region <a href="files/{{.Region}}">{{.Region}}</a>{{end}}</p>
<h2>Cell records (<code>cell/files/{id}</code>)</h2>
<table>
<tr><td>Landblocks (0xXXYYFFFF)</td><td>{{.LandBlocks}}</td></tr>
<tr><td>EnvCells (0xXXYY0100–FFFD)</td><td>{{.EnvCells}}</td></tr>
<tr><td>other</td><td>{{.CellOther}}</td></tr>
</table>
<p><a href="{{.Links.CellListing}}">all cell ids</a>{{if .SomeLandBlocks}} · landblocks{{range .SomeLandBlocks}} <a href="cell/files/{{.}}">{{.}}</a>{{end}}{{end}}</p>
<p>Ids are accepted as decimal or 0x-hex. Records are the dat's bytes, decompressed, starting at the id.</p>
</body>
</html>
`))

// serveIndex answers "/" with the generated index, built once.
func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	h.indexMu.Lock()
	p := h.index
	if p == nil {
		b, err := IndexPage(r.Context(), h.opt.Name, h.opt.Portal, h.opt.Cell, serveLinks)
		if err != nil {
			h.indexMu.Unlock()
			if r.Context().Err() == nil {
				h.log.Printf("serve: index: %v", err)
				http.Error(w, "index is unavailable", http.StatusInternalServerError)
			}
			return
		}
		p = newPayload("text/html; charset=utf-8", b, time.Time{}, true)
		h.index = p
	}
	h.indexMu.Unlock()
	w.Header().Set("Cache-Control", "no-cache")
	p.serve(w, r)
}
