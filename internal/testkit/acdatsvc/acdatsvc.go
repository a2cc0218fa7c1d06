// Package acdatsvc emulates the record surface of amoeba's acdatservice
// (github.com/amoeba/acdatservice, deployed at dats.treestats.net) for
// tests of our client: what a client of it sees, written from its source
// (src/lib.rs, src/routes.rs, src/db.rs, src/bin/create_index.rs, the
// version with /dats routes), not its code. Its facts (dat names, the id and
// paging parsers, error texts, type names, the listing line) are
// internal/acdatspec's, which our server's acdatservice routes answer with
// too; what it does with them is written here, as the service does it:
//
//   - GET /dats/{dat}/files/{id}: the record's bytes as the dat stores them
//     (its DatFileReader reads file_size bytes of the block chain and stops),
//     so a compressed record arrives as u32 size + zlib stream, never
//     inflated; application/octet-stream, X-R2-Read-Count, no ETag.
//   - GET /dats/{dat}/files: JSON Lines of the index's rows for that dat,
//     one a line joined by "\n" (none after the last), paged by limit
//     (1–100000, default 10000) and offset, echoed in X-Limit and X-Offset.
//   - {dat}: portal, cell, highres, local_english or a client file name, in
//     any case; anything else is a 400, never a fallback to portal.
//   - {id}: decimal or 0x/0X hex, unsigned 32-bit (its parse_file_id).
//   - Errors are plain text: 400 "Invalid file ID: …", 400 "Invalid dat
//     name: …", 404 "File not found with ID {dec} (0x{HEX})".
//   - CORS on every answer (with_cors_headers), OPTIONS answered empty.
//
// /, /dats, /icons and /setups are not emulated: no client of ours reads
// them; nor is its JSON rendering of CharGen and SpellTable records (501).
package acdatsvc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"acambient/internal/acdatspec"
)

// Dat is one dat's records as stored: id → bytes, compressed ones as u32
// size + zlib stream.
type Dat map[uint32][]byte

// Record is one row of the service's index with the bytes its bucket holds
// for it: where the dat's B-tree says the record's blocks start
// (create_index.rs binds file.file_offset) and the record as stored, whose
// length is the row's file_size.
type Record struct {
	Offset uint32
	Stored []byte
}

// Server answers acdatservice's record and listing routes for a portal and
// a cell dat. Safe for concurrent use.
type Server struct {
	dats [len(acdatspec.Dats)]map[uint32]Record
	ids  [len(acdatspec.Dats)][]uint32 // each dat's ids, ascending: the index's row order

	mu   sync.Mutex
	hits map[string]int // requests by path
}

// New returns a server for the two dats (highres and local_english are
// empty), as if each record took one 1 KiB block of its dat in id order:
// the offsets its listing reports are that block's.
func New(portal, cell Dat) *Server {
	placed := func(d Dat) map[uint32]Record {
		ids := sortedIDs(d)
		m := make(map[uint32]Record, len(d))
		for i, id := range ids {
			m[id] = Record{Offset: uint32(i) * 1024, Stored: d[id]}
		}
		return m
	}
	return NewPlaced(placed(portal), placed(cell))
}

// NewPlaced returns a server for two dats whose records' places in their
// files are known, such as those read from real dat files.
func NewPlaced(portal, cell map[uint32]Record) *Server {
	s := &Server{hits: map[string]int{}}
	for _, d := range acdatspec.Dats {
		s.dats[d] = map[uint32]Record{}
	}
	s.dats[acdatspec.Portal], s.dats[acdatspec.Cell] = portal, cell
	for d, m := range s.dats {
		s.ids[d] = sortedIDs(m)
	}
	return s
}

func sortedIDs[V any](m map[uint32]V) []uint32 {
	ids := make([]uint32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Store returns recs as a dat stores them: the records compress picks
// (nil: none) zlib-compressed after their u32 size (docs/dat-format.md §1.5), when that
// is smaller, as retail's AttemptToCompress does.
func Store(recs map[uint32][]byte, compress func(id uint32, b []byte) bool) Dat {
	d := make(Dat, len(recs))
	for id, b := range recs {
		d[id] = b
		if compress == nil || len(b) <= 16 || !compress(id, b) {
			continue
		}
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, uint32(len(b)))
		zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression) // the level is valid
		zw.Write(b)
		zw.Close()
		if buf.Len() < len(b) {
			d[id] = buf.Bytes()
		}
	}
	return d
}

// Hits reports how many requests path has seen.
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.mu.Unlock()
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
	h.Set("Access-Control-Expose-Headers", "X-Limit, X-Offset, X-R2-Read-Count")
	if r.Method == http.MethodOptions {
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if r.Method != http.MethodGet || len(parts) < 3 || len(parts) > 4 || parts[0] != "dats" || parts[2] != "files" {
		text(w, http.StatusNotFound, "Not Found")
		return
	}
	dat, err := acdatspec.ParseDat(parts[1])
	if err != nil {
		text(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(parts) == 3 {
		s.listing(w, r, dat)
		return
	}
	s.record(w, r, dat, parts[3])
}

// record answers /dats/{dat}/files/{id}: its files_get.
func (s *Server) record(w http.ResponseWriter, r *http.Request, dat acdatspec.Dat, seg string) {
	id, err := acdatspec.ParseFileID(seg)
	if err != nil {
		text(w, http.StatusBadRequest, acdatspec.InvalidFileID(err))
		return
	}
	format, wantJSON := acdatspec.Query(r.URL, "format")
	if wantJSON && format != "json" {
		text(w, http.StatusBadRequest, acdatspec.UnsupportedFormat(format))
		return
	}
	rec, ok := s.dats[dat][id]
	if !ok {
		text(w, http.StatusNotFound, acdatspec.FileNotFound(id))
		return
	}
	if wantJSON {
		t := acdatspec.FileType(id)
		if acdatspec.JSONRendered(t) {
			text(w, http.StatusNotImplemented, "the emulation does not render "+t+" as JSON")
			return
		}
		text(w, http.StatusBadRequest, acdatspec.JSONUnsupported(t))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("X-R2-Read-Count", strconv.Itoa(1+len(rec.Stored)/1024))
	w.Write(rec.Stored)
}

// listing answers /dats/{dat}/files: its files_index.
func (s *Server) listing(w http.ResponseWriter, r *http.Request, dat acdatspec.Dat) {
	limit, offset, bad := acdatspec.Paging(r.URL)
	if bad != "" {
		text(w, http.StatusBadRequest, bad)
		return
	}
	ids := s.ids[dat]
	var out []byte
	for i := offset; i < uint64(len(ids)) && i < offset+limit; i++ {
		if i > offset {
			out = append(out, '\n')
		}
		rec := s.dats[dat][ids[i]]
		out = acdatspec.AppendLine(out, acdatspec.NewLine(dat, ids[i], rec.Offset, uint32(len(rec.Stored))))
	}
	w.Header().Set("X-Limit", strconv.FormatUint(limit, 10))
	w.Header().Set("X-Offset", strconv.FormatUint(offset, 10))
	text(w, http.StatusOK, string(out))
}

// text answers as worker's Response::error and Response::ok do: the text as
// the body, plain text.
func text(w http.ResponseWriter, status int, s string) {
	w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
	w.WriteHeader(status)
	w.Write([]byte(s))
}
