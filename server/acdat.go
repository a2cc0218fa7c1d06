package server

// acdatservice's surface (github.com/amoeba/acdatservice, the service behind
// dats.treestats.net), served as it serves it so that a client written for it
// can point here unchanged:
//
//	GET /dats                      JSON: the four dat names with file count, size, sha256
//	GET /dats/{dat}/files          JSON Lines, one entry's metadata a line, paged by limit/offset
//	GET /dats/{dat}/files/{id}     the record as the dat stores it
//
// The facts (names, texts, limits, field order) come from its source: lib.rs
// (parse_dat_param, parse_file_id, with_cors_headers), routes.rs (dats_index,
// files_index, files_get), db.rs (FileResponse), bin/create_index.rs and
// lib_test.rs. Its /icons and /setups routes, and its JSON rendering of the
// CharGen and SpellTable records, are out of scope (README, "The server").

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"acambient/core/dat"
	"acambient/datfetch"
)

// acdatDefaultLimit and acdatMaxLimit are files_index's paging bounds (routes.rs: default 10000,
// "limit must be between 1 and 100000").
const (
	acdatDefaultLimit = 10000
	acdatMaxLimit     = 100000
)

// acdatDatNames are acdatservice's DatDatabaseType names in its order (the
// order of /dats's keys) with the R2 object keys /dats reports for a dat it
// holds no metadata for (build_dat_info's defaults).
var acdatDatNames = [...]struct{ name, objectKey string }{
	{"portal", "client_portal.dat"},
	{"cell", "client_cell_1.dat"},
	{"highres", "client_highres.dat"},
	{"local_english", "client_local_English.dat"},
}

// acdatState is what the acdatservice routes compute once: each served dat's
// entry metadata (for the listing and the counts) and the /dats answer.
type acdatState struct {
	mu      sync.Mutex
	entries [2][]acdatEntry // portal, cell; nil until first built

	datsMu sync.Mutex // held while /dats is built: hashing a dat takes seconds, once
	dats   *payload
}

// acdatEntry is one listing line's numbers: the B-tree entry's id, first
// block and stored size (create_index binds file.file_offset, file.file_size).
type acdatEntry struct{ id, offset, size uint32 }

// entryWalker is a source that can list its container entries: *datfetch.Dat.
type entryWalker interface {
	Walk(fn func(datfetch.Entry) error) error
}

// storedReader is a source that can say how a record is stored (its size,
// whether compressed) before reading it, and hand it out as stored, into a
// buffer: *datfetch.Dat.
type storedReader interface {
	Lookup(id uint32) (datfetch.Entry, error)
	ReadStored(ctx context.Context, e datfetch.Entry, dst []byte) ([]byte, error)
}

// digester is a source backed by a file it can hash: *datfetch.Dat.
type digester interface {
	Digest(ctx context.Context) (int64, string, error)
}

// acdat routes /dats/{dat}/files[/{id}]: rest is what follows "files".
func (h *Handler) acdat(w http.ResponseWriter, r *http.Request, datName string, rest []string) {
	i, err := parseAcdatDat(datName)
	if err != nil {
		acdatError(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch len(rest) {
	case 0:
		h.acdatListing(w, r, i)
	case 1:
		h.acdatRecord(w, r, i, rest[0])
	default:
		http.NotFound(w, r)
	}
}

// acdatDB is the db serving acdatservice's dat i, nil for highres and
// local_english, which this server never holds: those answer as acdatservice
// answers for a dat it has not indexed (no files), never with portal's.
func (h *Handler) acdatDB(i int) *db {
	switch i {
	case 0:
		return h.portal
	case 1:
		return h.cell
	}
	return nil
}

// acdatRecord answers /dats/{dat}/files/{id}: files_get's checks and texts,
// then the record as the dat stores it (see storedRecord).
func (h *Handler) acdatRecord(w http.ResponseWriter, r *http.Request, which int, seg string) {
	id, err := parseAcdatFileID(seg)
	if err != nil {
		acdatError(w, "Invalid file ID: "+err.Error(), http.StatusBadRequest)
		return
	}
	wantJSON := false
	if f, ok := lastQuery(r, "format"); ok {
		// lib_test.rs: parse_file_response_format(Some("xml")).
		if f != "json" {
			acdatError(w, fmt.Sprintf("Unsupported format %s. Omit format for binary data or use format=json for supported file types.", rustDebug(f)), http.StatusBadRequest)
			return
		}
		wantJSON = true
	}
	notFound := func() { acdatError(w, fmt.Sprintf("File not found with ID %d (0x%X)", id, id), http.StatusNotFound) }
	d := h.acdatDB(which)
	if d == nil {
		notFound()
		return
	}
	rec, err := d.storedRecord(r, id)
	switch {
	case errors.Is(err, datfetch.ErrNotFound):
		notFound()
		return
	case err != nil && r.Context().Err() != nil:
		return
	case err != nil:
		d.log.Printf("serve: %s record 0x%08X: %v", d.name, id, err)
		acdatError(w, fmt.Sprintf("%s record 0x%08X is unreadable", d.name, id), http.StatusInternalServerError)
		return
	}
	if wantJSON {
		t := acdatFileType(which, id)
		if t == "CharacterGenerator" || t == "SpellTable" {
			// acdatservice renders these two through its record library; a
			// copy of that rendering is no part of an ambient sound server.
			acdatError(w, fmt.Sprintf("JSON export of file type %s is not implemented by this server; omit format for its bytes", t), http.StatusNotImplemented)
			return
		}
		acdatError(w, "JSON export is not supported for file type "+t, http.StatusBadRequest)
		return
	}
	rec.write(w, r)
}

// storedRecord returns a record as the dat stores it. acdatservice never
// inflates: a compressed record goes out as its u32 uncompressed size and
// zlib stream, and a drop-in must send the same bytes. An uncompressed
// record's stored bytes are the record itself, so those come through the
// record cache like /files/{id}; a compressed one (rare) is read each time.
// Sources without a container (the demo world in memory, a remote) hold
// records uncompressed, which is their stored form.
func (d *db) storedRecord(r *http.Request, id uint32) (cachedRecord, error) {
	sr, ok := d.src.(storedReader)
	if !ok {
		return d.record(r, id)
	}
	e, err := sr.Lookup(id)
	if err != nil {
		return cachedRecord{}, err
	}
	if !e.Compressed() {
		return d.record(r, id)
	}
	b, err := sr.ReadStored(r.Context(), e, nil)
	if err != nil {
		return cachedRecord{}, err
	}
	return cachedRecord{b: b, sum: crc64.Checksum(b, crcTable)}, nil
}

// acdatListing answers /dats/{dat}/files: files_index's paging (limit, then
// offset, each a Rust usize; X-Limit and X-Offset echo them) over the dat's
// entries in ascending id order, one JSON object a line, lines joined by
// "\n" with none after the last (file_lines.join("\n")).
func (h *Handler) acdatListing(w http.ResponseWriter, r *http.Request, which int) {
	limit, offset := uint64(acdatDefaultLimit), uint64(0)
	if s, ok := lastQuery(r, "limit"); ok {
		v, err := parseRustUsize(s)
		if err != nil {
			acdatError(w, "Invalid limit: "+err.Error(), http.StatusBadRequest)
			return
		}
		limit = v
	}
	if limit == 0 || limit > acdatMaxLimit {
		acdatError(w, "limit must be between 1 and 100000", http.StatusBadRequest)
		return
	}
	if s, ok := lastQuery(r, "offset"); ok {
		v, err := parseRustUsize(s)
		if err != nil {
			acdatError(w, "Invalid offset: "+err.Error(), http.StatusBadRequest)
			return
		}
		offset = v
	}
	var page []acdatEntry
	if d := h.acdatDB(which); d != nil {
		ents, err := h.acdatEntries(r, which, d)
		if err != nil {
			if r.Context().Err() == nil {
				d.log.Printf("serve: %s entry listing: %v", d.name, err)
				acdatError(w, d.name+" listing is unreadable", http.StatusInternalServerError)
			}
			return
		}
		if offset < uint64(len(ents)) {
			page = ents[offset:min(uint64(len(ents)), offset+limit)]
		}
	}
	b := make([]byte, 0, 128*len(page)) // a line is 100–125 bytes
	for i, e := range page {
		if i > 0 {
			b = append(b, '\n')
		}
		b = appendAcdatEntry(b, which, e)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("X-Limit", strconv.FormatUint(limit, 10))
	hdr.Set("X-Offset", strconv.FormatUint(offset, 10))
	hdr.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// appendAcdatEntry writes db.rs's FileResponse as serde_json writes it:
// compact, fields in declaration order. (strconv, not fmt: a page is 10000
// lines.)
func appendAcdatEntry(b []byte, which int, e acdatEntry) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, uint64(e.id), 10)
	b = append(b, `,"database_type":"`...)
	b = append(b, acdatDatNames[which].name...)
	b = append(b, `","file_type":"`...)
	b = append(b, acdatFileType(which, e.id)...)
	b = append(b, `","file_subtype":"None","file_offset":`...)
	b = strconv.AppendUint(b, uint64(e.offset), 10)
	b = append(b, `,"file_size":`...)
	b = strconv.AppendUint(b, uint64(e.size), 10)
	return append(b, '}')
}

// acdatEntries returns dat's entries, ascending, built on first use and kept
// (the sources do not change while served). A dat file gives its B-tree
// entries; an in-memory source has no container, so each record is one
// entry at offset 0 of its length; any other source (a remote) lists ids
// with offset and size 0 rather than fetching every record to measure it.
func (h *Handler) acdatEntries(r *http.Request, which int, d *db) ([]acdatEntry, error) {
	h.acdatSt.mu.Lock()
	defer h.acdatSt.mu.Unlock()
	if e := h.acdatSt.entries[which]; e != nil {
		return e, nil
	}
	ents := []acdatEntry{}
	switch src := d.src.(type) {
	case entryWalker:
		err := src.Walk(func(e datfetch.Entry) error {
			if e.Size != 0 { // what Get can return, as the hex listing
				ents = append(ents, acdatEntry{e.ID, e.Offset, e.Size})
			}
			return r.Context().Err()
		})
		if err != nil {
			return nil, err
		}
	default:
		ids, err := d.src.IDs(r.Context())
		if err != nil {
			return nil, err
		}
		_, inMemory := src.(*datfetch.Memory)
		for _, id := range ids {
			e := acdatEntry{id: id}
			if inMemory {
				if b, err := src.Get(r.Context(), id); err == nil {
					e.size = uint32(len(b))
				}
			}
			ents = append(ents, e)
		}
	}
	h.acdatSt.entries[which] = ents
	return ents, nil
}

// serveDats answers /dats: dats_index's pretty JSON object of the four dats.
// A dat file reports its length and SHA-256 (hashed once, on first ask: a
// cell dat is ~2 GB); a source without a file reports what acdatservice
// reports for a dat it has no metadata row for: size 0, sha256 "unknown".
func (h *Handler) serveDats(w http.ResponseWriter, r *http.Request) {
	p, err := h.datsPayload(r)
	if err != nil {
		if r.Context().Err() == nil {
			h.log.Printf("serve: /dats: %v", err)
			acdatError(w, "dat metadata is unavailable", http.StatusInternalServerError)
		}
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	p.serve(w, r)
}

// acdatDatInfo is routes.rs's DatInfo, in its field order.
type acdatDatInfo struct {
	Name      string `json:"name"`
	ObjectKey string `json:"object_key"`
	FileCount int64  `json:"file_count"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

func (h *Handler) datsPayload(r *http.Request) (*payload, error) {
	h.acdatSt.datsMu.Lock()
	defer h.acdatSt.datsMu.Unlock()
	if p := h.acdatSt.dats; p != nil {
		return p, nil
	}
	var infos [len(acdatDatNames)]acdatDatInfo
	for i, n := range acdatDatNames {
		infos[i] = acdatDatInfo{Name: n.name, ObjectKey: n.objectKey, SHA256: "unknown"}
		d := h.acdatDB(i)
		if d == nil {
			continue
		}
		ents, err := h.acdatEntries(r, i, d)
		if err != nil {
			return nil, fmt.Errorf("%s entries: %w", n.name, err)
		}
		infos[i].FileCount = int64(len(ents))
		if dg, ok := d.src.(digester); ok {
			size, sum, err := dg.Digest(r.Context())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n.name, err)
			}
			infos[i].SizeBytes, infos[i].SHA256 = size, sum
		}
	}
	// DatsResponse's keys, in its order; serde_json's pretty printer indents
	// by two spaces as MarshalIndent does, with no newline at the end.
	b, err := json.MarshalIndent(struct {
		Portal       acdatDatInfo `json:"portal"`
		Cell         acdatDatInfo `json:"cell"`
		Highres      acdatDatInfo `json:"highres"`
		LocalEnglish acdatDatInfo `json:"local_english"`
	}{infos[0], infos[1], infos[2], infos[3]}, "", "  ")
	if err != nil {
		return nil, err
	}
	h.acdatSt.dats = newPayload("application/json", b, time.Time{}, true)
	return h.acdatSt.dats, nil
}

// parseAcdatDat is parse_dat_param: a short name or its client file name,
// any case, giving the index into acdatDatNames.
func parseAcdatDat(text string) (int, error) {
	switch strings.ToLower(text) {
	case "portal", "client_portal.dat":
		return 0, nil
	case "cell", "client_cell.dat", "client_cell_1.dat":
		return 1, nil
	case "highres", "client_highres.dat":
		return 2, nil
	case "local_english", "local-english", "client_local_english.dat":
		return 3, nil
	}
	return 0, fmt.Errorf("Invalid dat name: %s. Expected portal, cell, highres, or local_english.", text)
}

// parseAcdatFileID is parse_file_id: after "0x" or "0X" a Rust u32 in base
// 16, else a Rust u32 in base 10 (so a leading "+" is allowed, a "-" is not,
// and an id beyond 32 bits is refused). Its two texts differ by the branch.
func parseAcdatFileID(text string) (uint32, error) {
	if h, ok := strings.CutPrefix(text, "0x"); ok || strings.HasPrefix(text, "0X") {
		if !ok {
			h = text[2:]
		}
		v, err := parseRustUint(h, 16, 1<<32-1)
		if err != nil {
			return 0, fmt.Errorf("Invalid file ID %s. Use a decimal ID or a hexadecimal ID such as 0x1000001.", rustDebug(text))
		}
		return uint32(v), nil
	}
	v, err := parseRustUint(text, 10, 1<<32-1)
	if err != nil {
		return 0, fmt.Errorf("Invalid file ID %s. Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.", rustDebug(text))
	}
	return uint32(v), nil
}

// parseRustUsize parses as acdatservice's `value.parse::<usize>()`. It runs
// as wasm32 on Cloudflare Workers, where usize is 32 bits.
func parseRustUsize(s string) (uint64, error) { return parseRustUint(s, 10, 1<<32-1) }

// parseRustUint follows Rust's from_str_radix for an unsigned type: one
// optional "+" (not alone), then digits; scanning left to right, the first
// bad digit or overflow decides the error, with core's ParseIntError texts.
func parseRustUint(s string, base, max uint64) (uint64, error) {
	if s == "" {
		return 0, errors.New("cannot parse integer from empty string")
	}
	if s[0] == '+' {
		if len(s) == 1 {
			return 0, errors.New("invalid digit found in string")
		}
		s = s[1:]
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitVal(s[i])
		if !ok || d >= base {
			return 0, errors.New("invalid digit found in string")
		}
		if v > (max-d)/base {
			return 0, errors.New("number too large to fit in target type")
		}
		v = v*base + d
	}
	return v, nil
}

func digitVal(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'z':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'Z':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// acdatFileType names a record's type as acdatservice's listing and its
// format=json error do (its DatFileType, strum's variant names: LandBlock and
// CharacterGenerator appear in its tests). Named here: the kinds this project
// reads, and the two records acdatservice renders as JSON; every other id is
// "Unknown", where acdatservice may name a kind this server does not know.
func acdatFileType(which int, id uint32) string {
	switch which {
	case 0:
		switch id {
		case 0x0E000002:
			return "CharacterGenerator"
		case 0x0E00000E:
			return "SpellTable"
		}
		switch dat.PortalKind(id) {
		case dat.KindRegion:
			return "Region"
		case dat.KindSoundTable:
			return "SoundTable"
		case dat.KindWave:
			return "Wave"
		}
	case 1:
		if id&0xFFFF == dat.LandInfoLow {
			return "LandBlockInfo"
		}
		switch dat.CellKind(id) {
		case dat.KindLandBlock:
			return "LandBlock"
		case dat.KindEnvCell:
			return "EnvCell"
		}
	}
	return "Unknown"
}

// acdatError answers as worker's Response::error does: the text as the
// whole body, no trailing newline (http.Error adds one).
func acdatError(w http.ResponseWriter, msg string, code int) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprint(w, msg)
}

// lastQuery returns a query parameter as acdatservice reads it: its query
// pairs collected into a HashMap, so the last of repeated keys wins.
func lastQuery(r *http.Request, key string) (string, bool) {
	if r.URL.RawQuery == "" {
		return "", false
	}
	v := r.URL.Query()[key]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// rustDebug quotes s as Rust's {:?} does for a str: in double quotes, with
// \" \\ \n \r \t \0 escaped and other control characters as \u{hex}.
func rustDebug(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			if c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) {
				fmt.Fprintf(&b, `\u{%x}`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
