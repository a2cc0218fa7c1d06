package zones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"acambient/core/dat"
	"acambient/core/soundname"
	"acambient/core/world"
	"acambient/datfetch/source"
)

// The files of the layer (docs/interfaces.md §1), side by side in one folder.
const (
	ImageFile = "zones.png"
	IndexFile = "zones.json"
)

// Index is zones.json.
type Index struct {
	// Bounds is the image's rectangle in global metres, [[south, west],
	// [north, east]]: Leaflet's [lat, lng] order with lat = global Y and
	// lng = global X, what L.imageOverlay(url, bounds) takes in the map's
	// CRS (docs/interfaces.md §4).
	Bounds [2][2]float64 `json:"bounds"`
	Width  int           `json:"width"`  // pixels, one per land cell: 8 per landblock, west to east
	Height int           `json:"height"` // pixels, north to south
	Image  string        `json:"image"`  // the image's file name, beside this one
	Cells  int           `json:"cells"`  // land cells of the landblocks present
	Silent int           `json:"silent"` // of those, where the gather finds nothing (transparent)
	Sets   []Set         `json:"sets"`   // every STB that dominates somewhere, by index; their cells and Silent add up to Cells
}

// Set is one STB of the legend.
type Set struct {
	STBIndex int     `json:"stbIndex"`
	Table    dat.DID `json:"table"` // its SoundTable
	Color    string  `json:"color"` // "#rrggbb", as Hex
	Name     string  `json:"name"`  // soundname's plain name, as captions say it
	Label    string  `json:"label"` // Name made unique for the legend
	Cells    int     `json:"cells"` // land cells it dominates
}

// Options tune Write.
type Options struct {
	// Warnf reports what is skipped: a SoundTable that is missing or does
	// not decode (its cells are silent, as in a gather) and a landblock
	// that does not decode (missing, as in a gather). nil discards.
	Warnf func(format string, args ...any)
	// Fetches is how many landblocks are fetched at once (default 16).
	Fetches int
}

// Write computes the layer from the region and SoundTables of portal and
// the landblocks cell lists, and writes dir/zones.png and dir/zones.json
// (dir is created if missing; each file is replaced whole). It reads one
// landblock row at a time and holds three, so its memory does not grow
// with the world. A record that cannot be fetched for a reason other than
// its absence is an error: the layer would not be the gather's.
func Write(ctx context.Context, portal source.Source, cell source.Lister, dir string, opt Options) (*Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var idx *Index
	if err := replaceFile(filepath.Join(dir, ImageFile), func(w io.Writer) (err error) {
		idx, err = Encode(ctx, portal, cell, w, opt)
		return err
	}); err != nil {
		return nil, err
	}
	if err := replaceFile(filepath.Join(dir, IndexFile), func(w io.Writer) error {
		b, err := idx.JSON()
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	}); err != nil {
		return nil, err
	}
	return idx, nil
}

// Encode is Write's computation with the image written to png (as
// zones.png holds it) and the index returned (zones.json is its JSON): for
// a server that keeps the layer in memory.
func Encode(ctx context.Context, portal source.Source, cell source.Lister, png io.Writer, opt Options) (*Index, error) {
	if opt.Warnf == nil {
		opt.Warnf = func(string, ...any) {}
	}
	if opt.Fetches <= 0 {
		opt.Fetches = 16
	}
	b, err := portal.Get(ctx, dat.RegionID)
	if err != nil {
		return nil, fmt.Errorf("region 0x%08X: %w", uint32(dat.RegionID), err)
	}
	region, err := dat.DecodeRegion(dat.RegionID, b)
	if err != nil {
		return nil, err
	}
	loads, err := tableLoads(ctx, portal, region, opt.Warnf)
	if err != nil {
		return nil, err
	}
	ids, err := cell.IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("cell ids: %w", err)
	}
	m, err := newMapper(region, loads, ids)
	if err != nil {
		return nil, err
	}
	m.fetch = func(ctx context.Context, bx, by int) (*dat.LandBlock, error) {
		id := world.LandBlockID(bx, by)
		b, err := cell.Get(ctx, id)
		switch {
		case errors.Is(err, source.ErrNotFound):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("landblock 0x%08X: %w", id, err)
		}
		lb, err := dat.DecodeLandBlock(id, b)
		if err != nil {
			opt.Warnf("%v; its cells are left out", err)
			return nil, nil
		}
		return lb, nil
	}
	m.fetches = opt.Fetches
	if err := m.encode(ctx, png); err != nil {
		return nil, err
	}
	return m.index(region), nil
}

// JSON is zones.json's bytes: the index, indented, with a final newline.
func (idx *Index) JSON() ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetIndent("", "  ")
	if err := e.Encode(idx); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tableLoads fetches every STB's SoundTable once: one that is missing or
// does not decode is retail's stb_not_found.
func tableLoads(ctx context.Context, portal source.Source, r *dat.Region, warnf func(string, ...any)) (func(int) bool, error) {
	if r.SoundInfo == nil {
		return func(int) bool { return false }, nil
	}
	byID := map[dat.DID]bool{}
	for k, d := range r.SoundInfo.STBDescs {
		if _, done := byID[d.STBID]; done || d.STBID == 0 {
			continue
		}
		b, err := portal.Get(ctx, uint32(d.STBID))
		switch {
		case errors.Is(err, source.ErrNotFound):
			warnf("SoundTable %s of STB %d is missing: its cells are silent", d.STBID, k)
		case err != nil:
			return nil, fmt.Errorf("SoundTable %s of STB %d: %w", d.STBID, k, err)
		default:
			if _, err = dat.DecodeSoundTable(uint32(d.STBID), b); err != nil {
				warnf("%v: STB %d's cells are silent", err, k)
			}
		}
		byID[d.STBID] = err == nil
	}
	descs := r.SoundInfo.STBDescs
	return func(k int) bool { return byID[descs[k].STBID] }, nil
}

// mapper walks the landblocks present, one row at a time from the north.
type mapper struct {
	layer         *Layer
	present       [world.BlocksPerSide][world.BlocksPerSide]bool // [bx][by]
	bx0, by0      int                                            // the south-west block of the rectangle
	blocksX, rows int
	fetch         func(ctx context.Context, bx, by int) (*dat.LandBlock, error)
	fetches       int

	held   map[int][]*Block // by → the row's blocks (nil where missing), at most three
	counts []int            // per STB, cells dominated
	cells  int              // land cells of the blocks that decoded
	silent int
}

func newMapper(r *dat.Region, loads func(int) bool, ids []uint32) (*mapper, error) {
	m := &mapper{layer: NewLayer(r, loads), held: map[int][]*Block{}}
	m.counts = make([]int, len(m.layer.audible))
	bx0, by0, bx1, by1 := world.BlocksPerSide, world.BlocksPerSide, -1, -1
	for _, id := range ids {
		if dat.CellKind(id) != dat.KindLandBlock {
			continue
		}
		bx, by := world.BlockX(id), world.BlockY(id)
		if !world.ValidBlock(bx, by) {
			continue
		}
		m.present[bx][by] = true
		bx0, by0, bx1, by1 = min(bx0, bx), min(by0, by), max(bx1, bx), max(by1, by)
	}
	if bx1 < 0 {
		return nil, errors.New("zones: the cell source holds no landblocks")
	}
	m.bx0, m.by0, m.blocksX, m.rows = bx0, by0, bx1-bx0+1, by1-by0+1
	return m, nil
}

// row returns landblock row by (west to east over the rectangle), fetching
// it if it is not held; a row outside the rectangle is all nil.
func (m *mapper) row(ctx context.Context, by int) ([]*Block, error) {
	if r, ok := m.held[by]; ok {
		return r, nil
	}
	r := make([]*Block, m.blocksX)
	if by >= m.by0 && by < m.by0+m.rows {
		g, ctx := errgroup.WithContext(ctx)
		g.SetLimit(m.fetches)
		for i := range r {
			if bx := m.bx0 + i; m.present[bx][by] {
				g.Go(func() error {
					lb, err := m.fetch(ctx, bx, by)
					if lb != nil {
						r[i] = m.layer.Prepare(lb)
					}
					return err
				})
			}
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	m.held[by] = r
	return r, nil
}

// band fills pix (8 pixel rows of the image, one STB index or −1 a pixel)
// with landblock row by, keeping only the rows by−1, by, by+1 that it reads.
func (m *mapper) band(ctx context.Context, by int, pix []int16, count bool) error {
	for held := range m.held {
		if held < by-1 || held > by+1 {
			delete(m.held, held)
		}
	}
	var rows [3][]*Block // south, centre, north
	for i := range rows {
		r, err := m.row(ctx, by+i-1)
		if err != nil {
			return err
		}
		rows[i] = r
	}
	for i := range pix {
		pix[i] = -1
	}
	width := world.CellsPerBlock * m.blocksX
	for i, b := range rows[1] {
		if b == nil {
			continue
		}
		var ring Ring
		for dx := -1; dx <= 1; dx++ {
			if j := i + dx; j >= 0 && j < m.blocksX {
				for dy := range 3 {
					ring[dx+1][dy] = rows[dy][j]
				}
			}
		}
		for cx := range world.CellsPerBlock {
			for cy := range world.CellsPerBlock {
				k, ok, err := m.layer.Dominant(&ring, cx, cy)
				if err != nil {
					return fmt.Errorf("landblock 0x%08X cell %d: %w", uint32(b.lb.ID), 1+8*cx+cy, err)
				}
				if count {
					m.cells++
				}
				if !ok {
					if count {
						m.silent++
					}
					continue
				}
				if count {
					m.counts[k]++
				}
				pix[(world.CellsPerBlock-1-cy)*width+world.CellsPerBlock*i+cx] = int16(k)
			}
		}
	}
	return ctx.Err()
}

// encode writes the PNG, computing each band of 8 pixel rows as the
// encoder reaches it.
func (m *mapper) encode(ctx context.Context, w io.Writer) error {
	r := &raster{ctx: ctx, m: m, band: -1,
		pix: make([]int16, world.CellsPerBlock*m.blocksX*world.CellsPerBlock), counted: make([]bool, m.rows)}
	// Each colour boxed once: At returns these, so the encoder's four
	// million calls allocate nothing.
	r.colors = make([]color.Color, len(m.counts)+1)
	r.colors[0] = color.NRGBA{}
	for k := range m.counts {
		c := Color(k)
		r.colors[k+1] = color.NRGBA{c[0], c[1], c[2], 0xFF}
	}
	if err := png.Encode(&stopWriter{w: w, r: r}, r); err != nil {
		if r.err != nil {
			return r.err
		}
		return err
	}
	return r.err
}

// raster is the image as png.Encode reads it: pixel row y lies in band
// y/8, landblock row by1 − y/8; one band is held at a time. The encoder
// reads rows top to bottom, so each band is computed once; a read out of
// that order recomputes a band, never counts it twice.
type raster struct {
	ctx     context.Context
	m       *mapper
	band    int
	pix     []int16       // the band's STB per pixel, −1 for none
	colors  []color.Color // colors[k+1] is STB k's, colors[0] transparent
	counted []bool
	err     error
}

func (r *raster) ColorModel() color.Model { return color.NRGBAModel }
func (r *raster) Opaque() bool            { return false } // spares png.Encode a pass over every pixel
func (r *raster) Bounds() image.Rectangle {
	return image.Rect(0, 0, world.CellsPerBlock*r.m.blocksX, world.CellsPerBlock*r.m.rows)
}

func (r *raster) At(x, y int) color.Color {
	band := y / world.CellsPerBlock
	if band != r.band && r.err == nil {
		r.band = band
		r.err = r.m.band(r.ctx, r.m.by0+r.m.rows-1-band, r.pix, !r.counted[band])
		r.counted[band] = true
	}
	if r.err != nil {
		return r.colors[0]
	}
	return r.colors[1+int(r.pix[(y%world.CellsPerBlock)*world.CellsPerBlock*r.m.blocksX+x])]
}

// stopWriter fails the encoder's writes once the raster has failed, so
// png.Encode stops at the next chunk instead of encoding the rest blank.
type stopWriter struct {
	w io.Writer
	r *raster
}

func (s *stopWriter) Write(b []byte) (int, error) {
	if s.r.err != nil {
		return 0, s.r.err
	}
	return s.w.Write(b)
}

// index is zones.json after the image is written.
func (m *mapper) index(r *dat.Region) *Index {
	idx := &Index{
		Bounds: [2][2]float64{
			{world.BlockLength * float64(m.by0), world.BlockLength * float64(m.bx0)},
			{world.BlockLength * float64(m.by0+m.rows), world.BlockLength * float64(m.bx0+m.blocksX)},
		},
		Width: world.CellsPerBlock * m.blocksX, Height: world.CellsPerBlock * m.rows,
		Image: ImageFile, Cells: m.cells, Silent: m.silent, Sets: []Set{},
	}
	names := soundname.Sets(r)
	for k, n := range m.counts {
		if n == 0 {
			continue
		}
		idx.Sets = append(idx.Sets, Set{STBIndex: k, Table: r.SoundInfo.STBDescs[k].STBID, Color: Hex(k),
			Name: names[k].Name, Label: names[k].Label, Cells: n})
	}
	return idx
}

// replaceFile writes path through a temporary file beside it and renames
// it into place, so a reader never sees half a file.
func replaceFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
