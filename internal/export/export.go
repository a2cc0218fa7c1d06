// Package export writes the static tree a plain file host serves as
// `serve` answers (docs/interfaces.md §2.3): every record a client can ask
// for under our routes and acdatservice's, the listings, the hints, the
// sound-zone layer and the page; or the page alone with a default source.
package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"acambient/core/dat"
	"acambient/core/zones"
	"acambient/datfetch"
	"acambient/datfetch/source"
	"acambient/internal/modgraph"
	"acambient/server"
)

// Options say what Write reads and where it writes.
type Options struct {
	Portal source.Source // the region, SoundTables and Waves are fetched by id
	Cell   source.Lister // every landblock and EnvCell is listed
	Name   string        // for the generated index
	WWW    string        // page folder to copy; "" copies none
	Out    string        // created if missing

	// Warnf reports what is skipped (a SoundTable or Wave named but missing or
	// unreadable); nil discards.
	Warnf func(format string, args ...any)

	// Zones also writes the sound-zone layer of the source's land,
	// Out/zones.png and Out/zones.json (core/zones, docs/interfaces.md §1), beside
	// the records: a map over the tree finds it at URL/zones.json.
	Zones bool

	// Hints also writes Out/hints/0xXXYYFFFF for every landblock written,
	// what a page opening there asks for first (core/hints, serve's route
	// of the name).
	Hints bool

	// Source, when its Server is set, makes the tree the page alone, with
	// Source as its default data source: the www folder and nothing else
	// (no records, no zones; Portal and Cell are not read). See exportPage.
	Source PageSource
}

// Result counts what Write wrote.
type Result struct {
	Regions, SoundTables, Waves int
	LandBlocks, EnvCells        int
	WWWFiles                    int
	Bytes                       int64 // record bytes written
	Skipped                     int   // named or listed records not written (each warned)
	// StoredCompressed counts records whose acdatservice copy (dats/…) is
	// the dat's stored form, u32 size + zlib, rather than the record itself.
	StoredCompressed int
	// ZoneSets counts the legend of the zone layer (with Zones): the sound
	// sets that dominate somewhere.
	ZoneSets int
	// Hints counts the hints written (with Hints), HintBytes their bytes.
	Hints     int
	HintBytes int64
}

// Write writes the static tree of docs/interfaces.md §2.3, which a plain file host
// serves exactly as serve answers the record routes:
//
//	Out/files/0x%08X       the region 0x13000000, every SoundTable its STBs
//	                       name, every Wave those tables' reachable sounds name
//	Out/cell/files/0x%08X  every landblock 0xXXYYFFFF and EnvCell record
//	Out/files/index.txt, Out/cell/files/index.txt   the listings of what was written
//	Out/cell/files/landblocks.txt   the landblocks of that listing (serve's route of the name)
//	Out/dats/portal/files/0x%08X, Out/dats/cell/files/0x%08X
//	                       the same records on acdatservice's routes, as it
//	                       serves them: as stored, so a record the dat keeps
//	                       compressed is its u32 size and zlib stream there
//	                       (a hard link to the plain file when the two agree)
//	Out/zones.png, Out/zones.json   with Zones, the sound-zone layer (core/zones)
//	Out/hints/0xXXYYFFFF   with Hints, each landblock's hint (core/hints)
//	Out/...                the www folder (and, while it has no index.html, the generated index)
//
// With opt.Source set it writes the page alone instead (exportPage).
//
// A static host cannot serve the bare listing routes /files and /cell/files:
// "files" is the folder of the records, so no file can share its name. The
// listings go to index.txt inside the folders instead (serve answers that
// path too, and datfetch.HTTP.IDs falls back to it); the ambient client needs
// no listing. Nor can it serve acdatservice's /dats or its paged listings
// /dats/{dat}/files?limit=&offset= (folders again, and a file host ignores
// the query): those answer the host's 404 or folder index, and an
// acdatservice client loading records needs neither. The iteration record, LandBlockInfo (0xXXYYFFFE) and ids of no
// kind the client reads are not exported. A missing region is an error; a
// SoundTable or Wave that is named but missing would be a 404 from serve too
// and is skipped with a warning, as is a record the source cannot read.
func Write(ctx context.Context, opt Options) (*Result, error) {
	if opt.Source.Server != "" {
		return exportPage(ctx, opt)
	}
	e := &exporter{opt: opt, res: &Result{}}
	if e.opt.Warnf == nil {
		e.opt.Warnf = func(string, ...any) {}
	}
	portal := route{filepath.Join(opt.Out, "files"), filepath.Join(opt.Out, "dats", "portal", "files"), opt.Portal}
	cell := route{filepath.Join(opt.Out, "cell", "files"), filepath.Join(opt.Out, "dats", "cell", "files"), opt.Cell}
	for _, d := range []string{portal.dir, portal.acdatDir, cell.dir, cell.acdatDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	portalIDs, err := e.portal(ctx, portal)
	if err != nil {
		return nil, err
	}
	cellIDs, err := e.cell(ctx, cell)
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(portal.dir, "index.txt"), server.Listing(portalIDs)); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(cell.dir, "index.txt"), server.Listing(cellIDs)); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(cell.dir, datfetch.LandblocksListing), server.Landblocks(cellIDs)); err != nil {
		return nil, err
	}
	if opt.Zones {
		idx, err := zones.Write(ctx, opt.Portal, opt.Cell, opt.Out, zones.Options{Warnf: e.opt.Warnf})
		if err != nil {
			return nil, fmt.Errorf("zones: %w", err)
		}
		e.res.ZoneSets = len(idx.Sets)
	}
	if opt.Hints {
		if err := e.hints(ctx, cellIDs); err != nil {
			return nil, fmt.Errorf("hints: %w", err)
		}
	}
	if err := e.www(ctx, portalIDs, cellIDs); err != nil {
		return nil, err
	}
	return e.res, nil
}

type exporter struct {
	opt Options
	res *Result
}

// route is one record source's two folders in the tree: ours
// (files/, cell/files/) and acdatservice's (dats/{dat}/files/).
type route struct {
	dir, acdatDir string
	src           source.Source
}

// portal writes the region and what it names, returning the ids written.
func (e *exporter) portal(ctx context.Context, dir route) ([]uint32, error) {
	var written []uint32
	b, err := e.opt.Portal.Get(ctx, dat.RegionID)
	if err != nil {
		return nil, fmt.Errorf("region 0x%08X: %w", uint32(dat.RegionID), err)
	}
	region, err := dat.DecodeRegion(dat.RegionID, b)
	if err != nil {
		return nil, err
	}
	if err := e.write(ctx, dir, dat.RegionID, b); err != nil {
		return nil, err
	}
	written = append(written, dat.RegionID)
	e.res.Regions++

	var stbs []uint32
	if region.SoundInfo != nil {
		for _, d := range region.SoundInfo.STBDescs {
			stbs = append(stbs, uint32(d.STBID))
		}
	}
	waves := map[uint32]bool{}
	// Each table once (the region may name one twice), in id order.
	for _, id := range slices.Compact(slices.Sorted(slices.Values(stbs))) {
		b, ok, err := e.copy(ctx, dir, id, "SoundTable", "named by the region", &written, &e.res.SoundTables)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		st, err := dat.DecodeSoundTable(id, b)
		if err != nil {
			// Served as stored, but its waves cannot be known.
			e.opt.Warnf("SoundTable 0x%08X: written, but its waves are skipped: %v", id, err)
			continue
		}
		for _, id := range st.WaveIDs() {
			waves[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(waves)) {
		if _, _, err := e.copy(ctx, dir, id, "Wave", "named by a SoundTable", &written, &e.res.Waves); err != nil {
			return nil, err
		}
	}
	slices.Sort(written)
	return written, nil
}

// cell writes every landblock and EnvCell the cell source lists.
func (e *exporter) cell(ctx context.Context, dir route) ([]uint32, error) {
	ids, err := e.opt.Cell.IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("cell ids: %w", err)
	}
	var written []uint32
	for _, id := range ids {
		kind := dat.CellKind(id)
		if kind != dat.KindLandBlock && kind != dat.KindEnvCell {
			continue
		}
		b, ok, err := e.getCell(ctx, id, string(kind))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := e.write(ctx, dir, id, b); err != nil {
			return nil, err
		}
		written = append(written, id)
		if kind == dat.KindLandBlock {
			e.res.LandBlocks++
		} else {
			e.res.EnvCells++
		}
	}
	return written, nil
}

// copy fetches a portal record and writes it, counting it in *n and listing
// it in *written; ok is false for a record skipped with a warning.
func (e *exporter) copy(ctx context.Context, dir route, id uint32, kind, why string, written *[]uint32, n *int) ([]byte, bool, error) {
	b, ok, err := e.get(ctx, id, kind, why)
	if err != nil || !ok {
		return nil, false, err
	}
	if err := e.write(ctx, dir, id, b); err != nil {
		return nil, false, err
	}
	*written = append(*written, id)
	*n++
	return b, true, nil
}

// get fetches a portal record, warning and reporting false when it is
// missing or unreadable; only a cancelled ctx is an error.
func (e *exporter) get(ctx context.Context, id uint32, kind, why string) ([]byte, bool, error) {
	b, err := e.opt.Portal.Get(ctx, id)
	if err == nil {
		err = source.CheckDID(id, b)
	}
	return e.judge(ctx, id, b, err, kind, why)
}

func (e *exporter) getCell(ctx context.Context, id uint32, kind string) ([]byte, bool, error) {
	b, err := e.opt.Cell.Get(ctx, id)
	if err == nil {
		err = source.CheckDID(id, b)
	}
	return e.judge(ctx, id, b, err, kind, "listed by the cell dat")
}

func (e *exporter) judge(ctx context.Context, id uint32, b []byte, err error, kind, why string) ([]byte, bool, error) {
	switch {
	case err == nil:
		return b, true, nil
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case errors.Is(err, source.ErrNotFound):
		e.opt.Warnf("%s 0x%08X %s is missing; skipped (serve answers 404 too)", kind, id, why)
	default:
		e.opt.Warnf("%s 0x%08X %s is unreadable; skipped: %v", kind, id, why, err)
	}
	e.res.Skipped++
	return nil, false, nil
}

// write writes record id (b, decompressed) to both of dir's folders.
func (e *exporter) write(ctx context.Context, dir route, id uint32, b []byte) error {
	name := fmt.Sprintf("0x%08X", id)
	ours, theirs := filepath.Join(dir.dir, name), filepath.Join(dir.acdatDir, name)
	// An earlier export into Out may have linked the two: unlink first, so
	// that writing one does not write the other.
	if err := os.Remove(theirs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writeFile(ours, b); err != nil {
		return err
	}
	e.res.Bytes += int64(len(b))
	stored, err := storedForm(ctx, dir.src, id)
	if err != nil {
		return fmt.Errorf("record 0x%08X as stored: %w", id, err)
	}
	if stored != nil {
		e.res.StoredCompressed++
		return writeFile(theirs, stored)
	}
	return linkOrCopy(ours, theirs, b)
}

// storedForm returns a record's stored bytes when they differ from the
// record (a compressed entry of a dat file), else nil: acdatservice's route
// serves what the dat stores, as Handler.acdatRecord does.
func storedForm(ctx context.Context, src source.Source, id uint32) ([]byte, error) {
	sr, ok := src.(server.StoredReader)
	if !ok {
		return nil, nil
	}
	e, err := sr.Lookup(id)
	if err != nil || !e.Compressed() {
		return nil, err
	}
	return sr.ReadStored(ctx, e, nil)
}

// linkOrCopy makes dst, which must not exist, a hard link to src (a static
// tree then holds each plain record once on disk), or, where the file
// system has no links, a copy of b.
func linkOrCopy(src, dst string, b []byte) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	return writeFile(dst, b)
}

// PageFiles lists the files of the page folder www the page needs from a
// static host: index.html and what it names, and ambient.js (the product's
// module, naming the built wasm and Go's glue) and what it names,
// transitively (internal/modgraph); files www lacks among them.
func PageFiles(www string) ([]string, error) {
	files, err := modgraph.Walk(www, pageEntries...)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return names, nil
}

// pageEntries are where a page's graph starts.
var pageEntries = []string{"index.html", "ambient.js"}

// pageLacks says, a sentence each, what of its graph the page in dir lacks.
func pageLacks(dir string) ([]string, error) {
	files, err := modgraph.Walk(dir, pageEntries...)
	if err != nil {
		return nil, err
	}
	var lacks []string
	for _, f := range files {
		switch {
		case !f.Missing:
		case f.Name == "ambient.wasm" || f.Name == "wasm_exec.js":
			lacks = append(lacks, fmt.Sprintf("the exported page lacks %s: build it with ./build.sh (or export with -build)", f.Name))
		case f.By == "":
			lacks = append(lacks, fmt.Sprintf("the exported page lacks %s", f.Name))
		default:
			lacks = append(lacks, fmt.Sprintf("the exported page lacks %s, which %s names", f.Name, f.By))
		}
	}
	return lacks, nil
}

// www copies the page folder (dot files aside) and, while it has no
// index.html, writes the generated index in its place.
func (e *exporter) www(ctx context.Context, portalIDs, cellIDs []uint32) error {
	hasIndex := false
	if e.opt.WWW != "" {
		if _, err := os.Stat(e.opt.WWW); err == nil {
			n, idx, err := copyTree(e.opt.WWW, e.opt.Out)
			if err != nil {
				return fmt.Errorf("copying %s: %w", e.opt.WWW, err)
			}
			e.res.WWWFiles, hasIndex = n, idx
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if hasIndex {
		// The page is the product: without its wasm and glue the tree
		// serves records to other clients but plays nothing itself.
		lacks, err := pageLacks(e.opt.Out)
		for _, l := range lacks {
			e.opt.Warnf("%s", l)
		}
		if err != nil {
			return err
		}
		return server.VersionIndexFile(e.opt.Out) // as serve sends it (pagever.go)
	}
	page, err := server.IndexPage(ctx, e.opt.Name, source.NewMemory(idSet(portalIDs)), source.NewMemory(idSet(cellIDs)), server.ExportLinks)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(e.opt.Out, "index.html"), page)
}

// copyTree copies src's files into dst, skipping dot files and folders (the
// .gitkeep, a half-built .ambient.wasm.tmp). It reports the count and
// whether a top-level index.html was among them.
func copyTree(src, dst string) (n int, index bool, err error) {
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil // symlinks and devices stay behind
		}
		if staleSibling(p) {
			return nil // a precompressed .br of an older build
		}
		if err := copyFile(p, target); err != nil {
			return err
		}
		n++
		index = index || rel == "index.html"
		return nil
	})
	return n, index, err
}

// staleSibling reports whether p is a precompressed name.br that is not of
// the same version as name (WasmBuild.Precompress stamps it with the file's
// time): a static host that serves .br siblings must not send an old build.
func staleSibling(p string) bool {
	base, ok := strings.CutSuffix(p, ".br")
	if !ok {
		return false
	}
	bst, err1 := os.Stat(base)
	st, err2 := os.Stat(p)
	return err1 == nil && err2 == nil && !st.ModTime().Equal(bst.ModTime())
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }

// idSet turns ids into an empty-bodied Memory, enough for IndexPage's counts.
func idSet(ids []uint32) map[uint32][]byte {
	m := make(map[uint32][]byte, len(ids))
	for _, id := range ids {
		m[id] = nil
	}
	return m
}
