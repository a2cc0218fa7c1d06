// Package acdatsvc emulates the record surface of amoeba's acdatservice
// (github.com/amoeba/acdatservice, deployed at dats.treestats.net) for
// tests of our client: what a client of it sees, written from its source
// (src/lib.rs and src/routes.rs, the version with /dats routes), not its code:
//
//   - GET /dats/{dat}/files/{id}: the record's bytes as the dat stores them
//     (its DatFileReader reads file_size bytes of the block chain and stops),
//     so a compressed record arrives as u32 size + zlib stream, never
//     inflated; application/octet-stream, X-R2-Read-Count, no ETag.
//   - GET /dats/{dat}/files: JSON Lines of entry metadata, one object a line
//     joined by "\n" (none after the last), paged by limit (1–100000,
//     default 10000) and offset, echoed in X-Limit and X-Offset.
//   - {dat}: portal, cell, highres, local_english or a client file name, in
//     any case; anything else is a 400, never a fallback to portal.
//   - {id}: decimal or 0x/0X hex, unsigned 32-bit (its parse_file_id).
//   - Errors are plain text: 400 "Invalid file ID: …", 400 "Invalid dat
//     name: …", 404 "File not found with ID {dec} (0x{HEX})".
//   - CORS on every answer, OPTIONS answered empty.
//
// /, /dats, /icons and /setups are not emulated: no client of ours reads them.
package acdatsvc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Dat is one dat's records as stored: id → bytes, compressed ones as u32
// size + zlib stream.
type Dat map[uint32][]byte

// Server answers acdatservice's record and listing routes for a portal and
// a cell dat. Safe for concurrent use.
type Server struct {
	dats map[string]Dat // by canonical name

	mu   sync.Mutex
	hits map[string]int // requests by path
	ids  map[string][]uint32
}

// New returns a server for the two dats (highres and local_english are
// empty).
func New(portal, cell Dat) *Server {
	return &Server{dats: map[string]Dat{"portal": portal, "cell": cell, "highres": {}, "local_english": {}},
		hits: map[string]int{}, ids: map[string][]uint32{}}
}

// Store returns recs as a dat stores them: the records compress picks
// (nil: none) zlib-compressed after their u32 size (spec §1.5), when that
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
	name, err := datName(parts[1])
	if err != nil {
		text(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(parts) == 3 {
		s.listing(w, r, name)
		return
	}
	id, err := fileID(parts[3])
	if err != nil {
		text(w, http.StatusBadRequest, "Invalid file ID: "+err.Error())
		return
	}
	b, ok := s.dats[name][id]
	if !ok {
		text(w, http.StatusNotFound, fmt.Sprintf("File not found with ID %d (0x%X)", id, id))
		return
	}
	if r.URL.Query().Get("format") == "json" {
		text(w, http.StatusBadRequest, "JSON export is not supported for file type "+fileType(name, id))
		return
	}
	h.Set("Content-Type", "application/octet-stream")
	h.Set("X-R2-Read-Count", strconv.Itoa(1+len(b)/1024))
	w.Write(b)
}

// listing answers /dats/{dat}/files: its files_index.
func (s *Server) listing(w http.ResponseWriter, r *http.Request, name string) {
	q := r.URL.Query()
	limit, offset := 10000, 0
	if v, ok := q["limit"]; ok {
		n, err := strconv.ParseUint(v[0], 10, 64)
		if err != nil {
			text(w, http.StatusBadRequest, "Invalid limit: "+rustParseError(v[0]))
			return
		}
		limit = int(min(n, 1<<31))
	}
	if limit == 0 || limit > 100000 {
		text(w, http.StatusBadRequest, "limit must be between 1 and 100000")
		return
	}
	if v, ok := q["offset"]; ok {
		n, err := strconv.ParseUint(v[0], 10, 64)
		if err != nil {
			text(w, http.StatusBadRequest, "Invalid offset: "+rustParseError(v[0]))
			return
		}
		offset = int(min(n, 1<<31))
	}
	ids := s.sortedIDs(name)
	var out bytes.Buffer
	for i := offset; i < len(ids) && i < offset+limit; i++ {
		if i > offset {
			out.WriteByte('\n')
		}
		id := ids[i]
		line, _ := json.Marshal(struct {
			ID           int64  `json:"id"`
			DatabaseType string `json:"database_type"`
			FileType     string `json:"file_type"`
			FileSubtype  string `json:"file_subtype"`
			FileOffset   int64  `json:"file_offset"`
			FileSize     int64  `json:"file_size"`
		}{int64(id), dbType(name), fileType(name, id), "Unknown(0)", int64(i) * 1024, int64(len(s.dats[name][id]))})
		out.Write(line)
	}
	w.Header().Set("X-Limit", strconv.Itoa(limit))
	w.Header().Set("X-Offset", strconv.Itoa(offset))
	text(w, http.StatusOK, out.String())
}

func (s *Server) sortedIDs(name string) []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, ok := s.ids[name]
	if !ok {
		for id := range s.dats[name] {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		s.ids[name] = ids
	}
	return ids
}

// text answers as worker's Response::error and Response::ok do: the text as
// the body, plain text.
func text(w http.ResponseWriter, status int, s string) {
	w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
	w.WriteHeader(status)
	w.Write([]byte(s))
}

// datName is its parse_dat_param.
func datName(s string) (string, error) {
	switch strings.ToLower(s) {
	case "portal", "client_portal.dat":
		return "portal", nil
	case "cell", "client_cell.dat", "client_cell_1.dat":
		return "cell", nil
	case "highres", "client_highres.dat":
		return "highres", nil
	case "local_english", "local-english", "client_local_english.dat":
		return "local_english", nil
	}
	return "", fmt.Errorf("Invalid dat name: %s. Expected portal, cell, highres, or local_english.", s)
}

// fileID is its parse_file_id: Rust's u32 parse, which takes one leading "+".
func fileID(s string) (uint32, error) {
	if h, ok := strings.CutPrefix(s, "0x"); ok || strings.HasPrefix(s, "0X") {
		if !ok {
			h = s[2:]
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(h, "+"), 16, 32)
		if err != nil {
			return 0, fmt.Errorf("Invalid file ID %q. Use a decimal ID or a hexadecimal ID such as 0x1000001.", s)
		}
		return uint32(v), nil
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("Invalid file ID %q. Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.", s)
	}
	return uint32(v), nil
}

// rustParseError is the Display of Rust's ParseIntError for a usize parse.
func rustParseError(s string) string {
	if s == "" {
		return "cannot parse integer from empty string"
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return "number too large to fit in target type"
		}
	}
	return "invalid digit found in string"
}

func dbType(name string) string {
	switch name {
	case "portal":
		return "Portal"
	case "cell":
		return "Cell"
	case "highres":
		return "HighRes"
	}
	return "LocalEnglish"
}

// fileType names the records an ambient client reads; the rest are Unknown.
func fileType(name string, id uint32) string {
	if name == "cell" {
		switch low := id & 0xFFFF; {
		case low == 0xFFFF:
			return "LandBlock"
		case low == 0xFFFE:
			return "LandBlockInfo"
		case low >= 0x0100 && low <= 0xFFFD:
			return "EnvCell"
		}
		return "Unknown"
	}
	switch id >> 24 {
	case 0x0A:
		return "Wave"
	case 0x13:
		return "Region"
	case 0x20:
		return "SoundTable"
	}
	return "Unknown"
}
