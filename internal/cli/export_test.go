package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"acambient/core/dat"
	"acambient/datfetch"
	"acambient/datfetch/source"
	"acambient/internal/export"
	"acambient/internal/testkit/cmdtest"
)

// `export -out DIR` writes the tree the README describes, and a plain
// static file server over it answers a client as `serve` does: the same id
// listings (but the iteration record, which export leaves out), the same
// record bytes on both sets of routes, a 404 for a record that is not
// there. (-build=false: the wasm build is internal/wasmbuild/wasmbuild_test.go's.)
func TestExportCommand(t *testing.T) {
	w, err := DemoWorld()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command(cmdtest.Binary(t), "export", "-out", out, "-build=false")
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "exported demo world to "+out) {
		t.Fatalf("export: %v\n%s", err, b)
	}

	// Records a client asks for: the region, a sound table it names, a wave
	// that table names, the river's landblock and one of its cells.
	region, err := dat.DecodeRegion(dat.RegionID, w.Portal[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	stb := uint32(region.SoundInfo.STBDescs[0].STBID)
	st, err := dat.DecodeSoundTable(stb, w.Portal[stb])
	if err != nil {
		t.Fatal(err)
	}
	wave := firstWave(st)
	river := uint32(0xA9B5002D) // core/demo's river landmark
	lb := river&0xFFFF0000 | dat.LandBlockLow
	cell := firstEnvCell(w.Cell)
	portalIDs, cellIDs := []uint32{dat.RegionID, stb, wave}, []uint32{lb, cell}

	for _, p := range []string{
		"index.html", "ambient.js",
		"files/index.txt", "files/" + hex(dat.RegionID), "files/" + hex(stb), "files/" + hex(wave),
		"cell/files/index.txt", "cell/files/" + hex(lb), "cell/files/" + hex(cell),
		"dats/portal/files/" + hex(dat.RegionID), "dats/portal/files/" + hex(wave), "dats/cell/files/" + hex(lb),
	} {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(p))); err != nil {
			t.Errorf("export tree: %v", err)
		}
	}

	// Without -source the page reads its own origin, the tree beside it:
	// its default source is left empty.
	if b, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || !strings.Contains(string(b), export.SourceMeta) {
		t.Errorf("index.html (%v) lacks the empty %s: without -source the page's default is its own origin", err, export.SourceMeta)
	}

	static := httptest.NewServer(http.FileServer(http.Dir(out)))
	t.Cleanup(static.Close)
	serve := cmdtest.StartServe(t, "", "-addr", "127.0.0.1:0")
	ctx := context.Background()
	for _, api := range []struct{ portal, cell string }{
		{"files/", "cell/files/"},                  // ours
		{"dats/portal/files/", "dats/cell/files/"}, // acdatservice's, as stored
	} {
		for _, db := range []struct {
			route string
			ids   []uint32
			recs  map[uint32][]byte
		}{{api.portal, portalIDs, w.Portal}, {api.cell, cellIDs, w.Cell}} {
			fromServe := datfetch.NewHTTP(serve.URL+db.route, datfetch.HTTPOptions{})
			fromExport := datfetch.NewHTTP(static.URL+"/"+db.route, datfetch.HTTPOptions{})
			for _, id := range db.ids {
				a, errA := fromServe.Get(ctx, id)
				b, errB := fromExport.Get(ctx, id)
				if errA != nil || errB != nil || !bytes.Equal(a, b) || !bytes.Equal(a, db.recs[id]) {
					t.Errorf("%s%s: serve %d bytes (%v), export %d bytes (%v); want the record's %d", db.route, hex(id), len(a), errA, len(b), errB, len(db.recs[id]))
				}
			}
			if _, err := fromExport.Get(ctx, 0x0A00FFFE); !errors.Is(err, source.ErrNotFound) {
				t.Errorf("%s: a missing record from the export: %v, want not found", db.route, err)
			}
			if _, err := fromServe.Get(ctx, 0x0A00FFFE); !errors.Is(err, source.ErrNotFound) {
				t.Errorf("%s: a missing record from serve: %v, want not found", db.route, err)
			}
			if !strings.HasPrefix(db.route, "dats/") { // a static host cannot list acdatservice's pages (README)
				// The same ids but the iteration record (docs/dat-format.md §1.5),
				// which is no record a client asks for and export leaves out.
				a, errA := fromServe.IDs(ctx)
				b, errB := fromExport.IDs(ctx)
				a = slices.DeleteFunc(a, func(id uint32) bool { return id == dat.IterationID })
				if errA != nil || errB != nil || !slices.Equal(a, b) || len(a) < len(db.recs)-1 {
					t.Errorf("%s listing: serve %d ids (%v), export %d (%v)", db.route, len(a), errA, len(b), errB)
				}
			}
		}
	}
	// The raw answers too: a record's bytes, not only what the client makes of them.
	for _, p := range []string{"files/" + hex(wave), "dats/portal/files/" + hex(wave), "cell/files/" + hex(lb)} {
		_, a := cmdtest.GetURL(t, "GET", serve.URL+p)
		_, b := cmdtest.GetURL(t, "GET", static.URL+"/"+p)
		if !bytes.Equal(a, b) {
			t.Errorf("/%s: serve and the export differ (%d, %d bytes)", p, len(a), len(b))
		}
	}
}

func hex(id uint32) string { return dat.DID(id).String() }

// firstWave is the first wave a sound table names.
func firstWave(st *dat.SoundTable) uint32 {
	var found uint32
	var walk func(n *dat.SoundNode)
	walk = func(n *dat.SoundNode) {
		for _, r := range n.Records {
			if found == 0 && r.WaveID != 0 {
				found = uint32(r.WaveID)
			}
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(&st.Root)
	return found
}

// firstEnvCell is the lowest EnvCell id of the cell records.
func firstEnvCell(cell map[uint32][]byte) uint32 {
	var ids []uint32
	for id := range cell {
		if dat.CellKind(id) == dat.KindEnvCell {
			ids = append(ids, id)
		}
	}
	return slices.Min(ids)
}
