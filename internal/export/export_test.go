package export

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"acambient/core/dat"
	"acambient/core/demo"
	"acambient/core/zones"
	"acambient/datfetch"
	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
	"acambient/internal/testkit/servertest"
	"acambient/server"
)

func TestExport(t *testing.T) {
	w := servertest.NewWorld(t)
	www := servertest.WriteWWW(t, map[string]string{".gitkeep": "", "ambient.js": "export {}\n", "img/a.png": "png"})
	out := filepath.Join(t.TempDir(), "site")
	var warnings []string
	res, err := Write(context.Background(), Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell),
		Name: "test world", WWW: www, Out: out,
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Regions: 1, SoundTables: 2, Waves: 3, LandBlocks: 2, EnvCells: 2, WWWFiles: 2, Skipped: 2}
	for _, id := range servertest.ExportedPortal {
		want.Bytes += int64(len(w.Portal[id]))
	}
	for _, id := range servertest.ExportedCell {
		want.Bytes += int64(len(w.Cell[id]))
	}
	if *res != want {
		t.Errorf("result %+v, want %+v", *res, want)
	}
	wantWarnings := []string{
		"SoundTable 0x20000099 named by the region is missing; skipped (serve answers 404 too)",
		"Wave 0x0A000404 named by a SoundTable is missing; skipped (serve answers 404 too)",
	}
	if !slices.Equal(warnings, wantWarnings) {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(wantWarnings, "\n"))
	}

	// Exactly the records a client can ask for, byte for byte: not the
	// unreachable grandchild's wave 0x0A000666, not the unnamed 0x0A000777,
	// the GfxObj, LandBlockInfo or the iteration record.
	for _, tc := range []struct {
		dir, acdatDir string
		ids           []uint32
		recs          map[uint32][]byte
	}{
		{"files", "dats/portal/files", servertest.ExportedPortal, w.Portal},
		{"cell/files", "dats/cell/files", servertest.ExportedCell, w.Cell},
	} {
		var names []string
		for _, id := range tc.ids {
			names = append(names, fmt.Sprintf("0x%08X", id))
			for _, dir := range []string{tc.dir, tc.acdatDir} {
				got, err := os.ReadFile(filepath.Join(out, dir, fmt.Sprintf("0x%08X", id)))
				if err != nil || !bytes.Equal(got, tc.recs[id]) {
					t.Errorf("%s/0x%08X: %v, %d bytes, want %d", dir, id, err, len(got), len(tc.recs[id]))
				}
			}
		}
		// acdatservice's folder holds the records alone: no listing file.
		if got := dirNames(t, filepath.Join(out, tc.acdatDir)); !slices.Equal(got, names) {
			t.Errorf("%s holds %v, want %v", tc.acdatDir, got, names)
		}
		names = append(names, "index.txt")
		if tc.dir == "cell/files" {
			names = append(names, "landblocks.txt")
		}
		sort.Strings(names)
		if got := dirNames(t, filepath.Join(out, tc.dir)); !slices.Equal(got, names) {
			t.Errorf("%s holds %v, want %v", tc.dir, got, names)
		}
		if got, _ := os.ReadFile(filepath.Join(out, tc.dir, "index.txt")); string(got) != servertest.Listing(tc.ids) {
			t.Errorf("%s/index.txt:\n%s", tc.dir, got)
		}
		if got, _ := os.ReadFile(filepath.Join(out, "cell/files/landblocks.txt")); string(got) != "0xA9B4FFFF\n0xA9B5FFFF\n" {
			t.Errorf("cell/files/landblocks.txt:\n%s", got)
		}
	}
	if got := dirNames(t, out); !slices.Equal(got, []string{"ambient.js", "cell", "dats", "files", "img", "index.html"}) {
		t.Errorf("top level %v", got)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	for _, s := range []string{`href="files/index.txt"`, `href="cell/files/index.txt"`, "<td>Waves (0x0A…)</td><td>3</td>", `href="files/0x13000000"`} {
		if !bytes.Contains(page, []byte(s)) {
			t.Errorf("exported index lacks %q", s)
		}
	}

	// With a page of its own, www's index.html is kept.
	www2 := servertest.WriteWWW(t, map[string]string{"index.html": "<p>mine</p>"})
	out2 := t.TempDir()
	if _, err := Write(context.Background(), Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), WWW: www2, Out: out2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out2, "index.html")); string(got) != "<p>mine</p>" {
		t.Errorf("index.html = %q", got)
	}
}

func TestExportErrors(t *testing.T) {
	w := servertest.NewWorld(t)
	noRegion := map[uint32][]byte{0x20000012: w.Portal[0x20000012]}
	_, err := Write(context.Background(), Options{Portal: source.NewMemory(noRegion), Cell: source.NewMemory(w.Cell), Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "region 0x13000000: 0x13000000: record not found") {
		t.Errorf("no region: %v", err)
	}
	bad := map[uint32][]byte{0x13000000: w.Portal[0x13000000][:40]}
	_, err = Write(context.Background(), Options{Portal: source.NewMemory(bad), Cell: source.NewMemory(w.Cell), Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "0x13000000") {
		t.Errorf("truncated region: %v", err)
	}
	// A corrupt SoundTable is written as stored, its waves skipped, with a warning.
	p := maps.Clone(w.Portal)
	p[0x20000013] = p[0x20000013][:20]
	var warnings []string
	res, err := Write(context.Background(), Options{Portal: source.NewMemory(p), Cell: source.NewMemory(w.Cell), Out: t.TempDir(),
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.SoundTables != 2 || res.Waves != 3 || res.Skipped != 1 || len(warnings) != 2 || !strings.HasPrefix(warnings[0], "SoundTable 0x20000013: written, but its waves are skipped: ") {
		t.Errorf("corrupt table: %+v %q", res, warnings)
	}
	// A cell record the source cannot read is skipped with a warning.
	cell := servertest.Faulty{Lister: source.NewMemory(w.Cell), Bad: map[uint32]error{0xA9B40101: fmt.Errorf("bad zlib")}}
	warnings = nil
	res, err = Write(context.Background(), Options{Portal: source.NewMemory(w.Portal), Cell: cell, Out: t.TempDir(),
		Warnf: func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.EnvCells != 1 || res.Skipped != 3 || warnings[2] != "envcell 0xA9B40101 listed by the cell dat is unreadable; skipped: bad zlib" {
		t.Errorf("unreadable cell: %+v %q", res, warnings)
	}
	// A cancelled export stops.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, Options{Portal: source.NewMemory(w.Portal), Cell: cancelled{source.NewMemory(w.Cell)}, Out: t.TempDir()}); err == nil {
		t.Error("cancelled export succeeded")
	}
}

// TestExportServesAsServe is docs/interfaces.md §2.3's promise: a plain file server
// over the export answers every record exactly as serve does, read through
// the client's own source.
func TestExportServesAsServe(t *testing.T) {
	w := servertest.NewWorld(t)
	checkExportMatchesServe(t, source.NewMemory(w.Portal), source.NewMemory(w.Cell), len(servertest.ExportedPortal), len(servertest.ExportedCell))
}

func checkExportMatchesServe(t *testing.T, portal, cell source.Lister, wantPortal, wantCell int) {
	t.Helper()
	out := t.TempDir()
	if _, err := Write(context.Background(), Options{Portal: portal, Cell: cell, Out: out}); err != nil {
		t.Fatal(err)
	}
	serve := httptest.NewServer(server.New(server.Options{Portal: portal, Cell: cell}))
	defer serve.Close()
	static := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer static.Close()

	ctx := context.Background()
	total := 0
	for _, db := range []string{"/files/", "/cell/files/"} {
		fromServe := datfetch.NewHTTP(serve.URL+db, datfetch.HTTPOptions{CacheBytes: -1})
		fromStatic := datfetch.NewHTTP(static.URL+db, datfetch.HTTPOptions{CacheBytes: -1})
		// The static tree lists what it holds (index.txt); serve lists its whole source.
		ids, err := fromStatic.IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := wantPortal
		if db == "/cell/files/" {
			want = wantCell
		}
		if len(ids) != want {
			t.Errorf("%s: export lists %d records, want %d", db, len(ids), want)
		}
		all, err := fromServe.IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, ok := slices.BinarySearch(all, id); !ok {
				t.Errorf("%s0x%08X exported but not listed by serve", db, id)
			}
			a, err := fromServe.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fromStatic.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s0x%08X: serve %d bytes, static %d bytes differ", db, id, len(a), len(b))
			}
			// acdatservice's route answers alike from both too.
			acdat := map[string]string{"/files/": "/dats/portal/files/", "/cell/files/": "/dats/cell/files/"}[db]
			target := fmt.Sprintf("%s0x%08X", acdat, id)
			if a, b := rawBody(t, serve.URL+target), rawBody(t, static.URL+target); !bytes.Equal(a, b) {
				t.Errorf("%s: serve %d bytes, static %d bytes differ", target, len(a), len(b))
			}
			total++
		}
		// Both say not-found alike for a record that is not there.
		for _, src := range []*datfetch.HTTP{fromServe, fromStatic} {
			if _, err := src.Get(ctx, 0x7FFF7FFF); !errorsIsNotFound(err) {
				t.Errorf("%s missing record: %v", db, err)
			}
		}
	}
	if total != wantPortal+wantCell {
		t.Errorf("compared %d records, want %d", total, wantPortal+wantCell)
	}
	// The landblock listing answers alike (the export's exports every
	// landblock serve lists), and a client reads it from both.
	if a, b := rawBody(t, serve.URL+"/cell/files/landblocks.txt"), rawBody(t, static.URL+"/cell/files/landblocks.txt"); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("landblocks.txt: serve %q, static %q", a, b)
	}
	for _, base := range []string{serve.URL, static.URL} {
		if ids, err := datfetch.NewHTTP(base+"/cell/files/", datfetch.HTTPOptions{}).Landblocks(ctx); err != nil || len(ids) == 0 {
			t.Errorf("%s: landblock listing %d ids, %v", base, len(ids), err)
		}
	}
}

// rawBody GETs url and returns the body of a 200.
func rawBody(t *testing.T, url string) []byte {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("GET %s: %d, %v", url, r.StatusCode, err)
	}
	return b
}

// TestExportAcdatStored exports from dat files in which an exported wave is
// stored compressed: acdatservice's copy is the stored form, byte for byte
// what serve's acdatservice route sends, while files/ holds the record; a
// plain record's two copies are one file.
func TestExportAcdatStored(t *testing.T) {
	w := servertest.NewWorld(t)
	portal, _ := servertest.WriteDat(t, datfile.Portal, w.Portal, 0x0A000101)
	cell, _ := servertest.WriteDat(t, datfile.Cell, w.Cell)
	out := t.TempDir()
	// A first export from memory links every pair; the export from the dat
	// over it must not write the stored form through the link into files/.
	if _, err := Write(context.Background(), Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Out: out}); err != nil {
		t.Fatal(err)
	}
	res, err := Write(context.Background(), Options{Portal: portal, Cell: cell, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.StoredCompressed != 1 {
		t.Errorf("StoredCompressed %d, want 1", res.StoredCompressed)
	}
	h := newTestHandler(t, server.Options{Portal: portal, Cell: cell})
	stored := servertest.Body(t, servertest.Do(h, "GET", "/dats/portal/files/0x0A000101"))
	if got, _ := os.ReadFile(filepath.Join(out, "dats/portal/files/0x0A000101")); string(got) != stored || len(stored) == len(w.Portal[0x0A000101]) {
		t.Errorf("dats/portal/files/0x0A000101: %d bytes, serve sends %d stored, the record is %d", len(got), len(stored), len(w.Portal[0x0A000101]))
	}
	if got, _ := os.ReadFile(filepath.Join(out, "files/0x0A000101")); !bytes.Equal(got, w.Portal[0x0A000101]) {
		t.Errorf("files/0x0A000101 is not the record")
	}
	for _, p := range []string{"0x13000000", "0x0A000100"} {
		a, errA := os.Stat(filepath.Join(out, "files", p))
		b, errB := os.Stat(filepath.Join(out, "dats/portal/files", p))
		if errA != nil || errB != nil || !os.SameFile(a, b) {
			t.Errorf("%s: files/ and dats/portal/files/ are not one file (%v, %v)", p, errA, errB)
		}
	}
	checkExportMatchesServe(t, portal, cell, len(servertest.ExportedPortal), len(servertest.ExportedCell))
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// cancelled fails every call as a source does once its context ends.
type cancelled struct{ source.Lister }

func (c cancelled) Get(ctx context.Context, id uint32) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.Lister.Get(ctx, id)
}

func errorsIsNotFound(err error) bool { return errors.Is(err, source.ErrNotFound) }

// TestExportDemoWorld is the same promise over the built-in demo world.
func TestExportDemoWorld(t *testing.T) {
	w, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	portal, cell := source.NewMemory(w.Portal), source.NewMemory(w.Cell)
	// What the export must hold, from the records themselves.
	wantPortal, wantCell := demoReachable(t, w.Portal), 0
	for id := range w.Cell {
		if k := dat.CellKind(id); k == dat.KindLandBlock || k == dat.KindEnvCell {
			wantCell++
		}
	}
	if wantPortal < 3 || wantCell < 9 {
		t.Fatalf("demo world too small to test: %d portal, %d cell records", wantPortal, wantCell)
	}
	checkExportMatchesServe(t, portal, cell, wantPortal, wantCell)
}

// demoReachable counts the region, its STBs' tables and their children's waves.
func demoReachable(t *testing.T, recs map[uint32][]byte) int {
	t.Helper()
	region, err := dat.DecodeRegion(dat.RegionID, recs[dat.RegionID])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]bool{dat.RegionID: true}
	for _, d := range region.SoundInfo.STBDescs {
		b, ok := recs[uint32(d.STBID)]
		if !ok {
			continue
		}
		seen[uint32(d.STBID)] = true
		st, err := dat.DecodeSoundTable(uint32(d.STBID), b)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range st.Root.Children {
			for _, r := range c.Records {
				if _, ok := recs[uint32(r.WaveID)]; ok {
					seen[uint32(r.WaveID)] = true
				}
			}
		}
	}
	return len(seen)
}

// A www with a page but no built wasm, and a module its app imports that is
// not there, exports with a warning naming each file the page lacks (and
// who names a module).
func TestExportWarnsOfAnIncompleteSite(t *testing.T) {
	w := servertest.NewWorld(t)
	www := servertest.WriteWWW(t, map[string]string{
		"index.html": `<link rel="stylesheet" href="app.css"><script type="module" src="app.js"></script>`,
		"app.js":     `import { AmbientAudio } from "./ambient.js"; import { Panel } from "./page/panel.js";`,
		"app.css":    "",
		"ambient.js": `const wasm = new URL("./ambient.wasm", import.meta.url); await import("./wasm_exec.js");`,
	})
	var warns []string
	_, err := Write(context.Background(), Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell),
		WWW: www, Out: t.TempDir(), Warnf: func(f string, a ...any) { warns = append(warns, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	var lacks []string
	for _, m := range warns {
		if strings.Contains(m, "exported page lacks") {
			lacks = append(lacks, m)
		}
	}
	if len(lacks) != 3 || !strings.Contains(lacks[0], "ambient.wasm: build it") || lacks[1] != "the exported page lacks page/panel.js, which app.js names" ||
		!strings.Contains(lacks[2], "wasm_exec.js: build it") {
		t.Errorf("warnings %q; want the missing ambient.wasm, page/panel.js (named by app.js) and wasm_exec.js", lacks)
	}
}

// TestExportZones: with Zones, the tree holds the sound-zone layer at its
// top, byte for byte what the zones command writes; without, it does not.
func TestExportZones(t *testing.T) {
	dw, err := demo.Build()
	if err != nil {
		t.Fatal(err)
	}
	portal, cell := source.NewMemory(dw.Portal), source.NewMemory(dw.Cell)
	out := t.TempDir()
	res, err := Write(context.Background(), Options{Portal: portal, Cell: cell, Out: out, Zones: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.ZoneSets != 9 {
		t.Errorf("%d zone sets, want the demo's 9", res.ZoneSets)
	}
	alone := t.TempDir()
	if _, err := zones.Write(context.Background(), portal, cell, alone, zones.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{zones.ImageFile, zones.IndexFile} {
		got, err1 := os.ReadFile(filepath.Join(out, f))
		want, err2 := os.ReadFile(filepath.Join(alone, f))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %v %v, %d bytes, want the zones command's %d", f, err1, err2, len(got), len(want))
		}
	}
	plain := t.TempDir()
	if _, err := Write(context.Background(), Options{Portal: portal, Cell: cell, Out: plain}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plain, zones.IndexFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("without Zones, %s: %v", zones.IndexFile, err)
	}
}

// export writes index.html as serve sends it, page alone or with records.
func TestExportVersionsIndex(t *testing.T) {
	www := servertest.WriteWWW(t, servertest.PageWWW)
	h := newTestHandler(t, server.Options{WWW: www})
	served := servertest.Body(t, servertest.Do(h, "GET", "/index.html"))
	if !strings.Contains(served, "?v=") {
		t.Fatalf("served index is not versioned:\n%s", served)
	}
	w := servertest.NewWorld(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Write(context.Background(), Options{Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell),
		WWW: www, Out: out, Warnf: func(string, ...any) {}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "index.html")); string(got) != served {
		t.Errorf("exported index.html:\n%s\nserve sends:\n%s", got, served)
	}
	// The files themselves are copied as they are.
	var names []string
	fs.WalkDir(os.DirFS(out), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && servertest.PageWWW[p] != "" && p != "index.html" {
			if b, _ := os.ReadFile(filepath.Join(out, p)); string(b) != servertest.PageWWW[p] {
				t.Errorf("exported %s changed", p)
			}
			names = append(names, p)
		}
		return err
	})
	if len(names) != len(servertest.PageWWW)-1 {
		t.Errorf("exported page files %v", slices.Sorted(slices.Values(names)))
	}
}

// newTestHandler serves opt, with servertest's world (the one the export
// tests write) for a source opt lacks.
func newTestHandler(t testing.TB, opt server.Options) *server.Handler {
	t.Helper()
	w := servertest.NewWorld(t)
	opt.Portal = cmp.Or[source.Lister](opt.Portal, source.NewMemory(w.Portal))
	opt.Cell = cmp.Or[source.Lister](opt.Cell, source.NewMemory(w.Cell))
	opt.Log = log.New(io.Discard, "", 0)
	return server.New(opt)
}
