package server

// acdatservice's surface (github.com/amoeba/acdatservice, the service behind
// dats.treestats.net), served as it serves it so that a client written for it
// can point here unchanged:
//
//	GET /dats                      JSON: the four dat names with file count, size, sha256
//	GET /dats/{dat}/files          JSON Lines, one entry's metadata a line, paged by limit/offset
//	GET /dats/{dat}/files/{id}     the record as the dat stores it
//
// The facts (names, parsers, texts, limits, type names, the line shape) are
// internal/acdatspec's, read from its source and shared with the emulation
// the client is tested against (internal/testkit/acdatsvc); how they are answered
// here is this file's. Its /icons and /setups routes, and its JSON rendering
// of the CharGen and SpellTable records, are out of scope (README, "The
// server").

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc64"
	"net/http"
	"strconv"
	"sync"
	"time"

	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
	"acambient/internal/acdatspec"
)

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

// entryWalker is a source that can list its container entries: *datfile.Dat.
type entryWalker interface {
	Walk(fn func(datfile.Entry) error) error
}

// StoredReader is a source that can say how a record is stored (its size,
// whether compressed) before reading it, and hand it out as stored, into a
// buffer: *datfile.Dat.
type StoredReader interface {
	Lookup(id uint32) (datfile.Entry, error)
	ReadStored(ctx context.Context, e datfile.Entry, dst []byte) ([]byte, error)
}

// digester is a source backed by a file it can hash: *datfile.Dat.
type digester interface {
	Digest(ctx context.Context) (int64, string, error)
}

// acdat routes /dats/{dat}/files[/{id}]: rest is what follows "files".
func (h *Handler) acdat(w http.ResponseWriter, r *http.Request, datName string, rest []string) {
	i, err := acdatspec.ParseDat(datName)
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

// acdatDB is the db serving acdatservice's dat, nil for highres and
// local_english, which this server never holds: those answer as acdatservice
// answers for a dat it has not indexed (no files), never with portal's.
func (h *Handler) acdatDB(which acdatspec.Dat) *db {
	switch which {
	case acdatspec.Portal:
		return h.portal
	case acdatspec.Cell:
		return h.cell
	}
	return nil
}

// acdatRecord answers /dats/{dat}/files/{id}: files_get's checks and texts,
// then the record as the dat stores it (see storedRecord).
func (h *Handler) acdatRecord(w http.ResponseWriter, r *http.Request, which acdatspec.Dat, seg string) {
	id, err := acdatspec.ParseFileID(seg)
	if err != nil {
		acdatError(w, acdatspec.InvalidFileID(err), http.StatusBadRequest)
		return
	}
	wantJSON := false
	if f, ok := acdatspec.Query(r.URL, "format"); ok {
		// lib_test.rs: parse_file_response_format(Some("xml")).
		if f != "json" {
			acdatError(w, acdatspec.UnsupportedFormat(f), http.StatusBadRequest)
			return
		}
		wantJSON = true
	}
	notFound := func() { acdatError(w, acdatspec.FileNotFound(id), http.StatusNotFound) }
	d := h.acdatDB(which)
	if d == nil {
		notFound()
		return
	}
	rec, err := d.storedRecord(r, id)
	switch {
	case errors.Is(err, source.ErrNotFound):
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
		t := acdatspec.FileType(id)
		if acdatspec.JSONRendered(t) {
			// acdatservice renders these through its record library; a copy
			// of that rendering is no part of an ambient sound server.
			acdatError(w, fmt.Sprintf("JSON export of file type %s is not implemented by this server; omit format for its bytes", t), http.StatusNotImplemented)
			return
		}
		acdatError(w, acdatspec.JSONUnsupported(t), http.StatusBadRequest)
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
	sr, ok := d.src.(StoredReader)
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
func (h *Handler) acdatListing(w http.ResponseWriter, r *http.Request, which acdatspec.Dat) {
	limit, offset, bad := acdatspec.Paging(r.URL)
	if bad != "" {
		acdatError(w, bad, http.StatusBadRequest)
		return
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
		b = acdatspec.AppendLine(b, acdatspec.NewLine(which, e.id, e.offset, e.size))
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("X-Limit", strconv.FormatUint(limit, 10))
	hdr.Set("X-Offset", strconv.FormatUint(offset, 10))
	hdr.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// acdatEntries returns dat's entries, ascending, built on first use and kept
// (the sources do not change while served). A dat file gives its B-tree
// entries; an in-memory source has no container, so each record is one
// entry at offset 0 of its length; any other source (a remote) lists ids
// with offset and size 0 rather than fetching every record to measure it.
func (h *Handler) acdatEntries(r *http.Request, which acdatspec.Dat, d *db) ([]acdatEntry, error) {
	h.acdatSt.mu.Lock()
	defer h.acdatSt.mu.Unlock()
	if e := h.acdatSt.entries[which]; e != nil {
		return e, nil
	}
	ents := []acdatEntry{}
	switch src := d.src.(type) {
	case entryWalker:
		err := src.Walk(func(e datfile.Entry) error {
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
		_, inMemory := src.(*source.Memory)
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
	var infos [len(acdatspec.Dats)]acdatDatInfo
	for i, n := range acdatspec.Dats {
		infos[i] = acdatDatInfo{Name: n.Name(), ObjectKey: n.ObjectKey(), SHA256: "unknown"}
		d := h.acdatDB(n)
		if d == nil {
			continue
		}
		ents, err := h.acdatEntries(r, n, d)
		if err != nil {
			return nil, fmt.Errorf("%s entries: %w", n.Name(), err)
		}
		infos[i].FileCount = int64(len(ents))
		if dg, ok := d.src.(digester); ok {
			size, sum, err := dg.Digest(r.Context())
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n.Name(), err)
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
