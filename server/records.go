package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc64"
	"log"
	"net/http"
	"strconv"
	"sync"
	"time"

	"acambient/core/dat"
	"acambient/datfetch"
)

// Record answers are immutable: an id names the same bytes for the life of a
// dat, so caches may keep them a year without asking again (contracts §2.1).
const recordCacheControl = "public, max-age=31536000, immutable"

// etagCacheMin is the size from which a record's ETag is remembered rather
// than hashed per request: waves run to hundreds of KiB, while landblocks
// (252 B) and the many small records hash in well under a microsecond and
// would only fill memory (a cell dat has 805 348 of them).
const etagCacheMin = 16 << 10

var crcTable = crc64.MakeTable(crc64.ECMA)

// db is one record source as served: its name for messages, the source, and
// what is computed once (the listing, large records' ETags).
type db struct {
	name string
	src  datfetch.Lister
	log  *log.Logger

	etags sync.Map     // uint32 → string, records ≥ etagCacheMin only
	cache *recordCache // shared with the other source; nil for in-memory sources, which need none
	// reads makes concurrent requests for one record share one read of a
	// source that has to work for it (a dat file): without it, n cold
	// requests for a large record cost n reads and n times its memory.
	reads    *datfetch.Flights[*cachedRecord]
	inMemory bool

	mu      sync.Mutex
	listing *payload // nil until first built
}

func newDB(name string, src datfetch.Lister, l *log.Logger, cache *recordCache) *db {
	d := &db{name: name, src: src, log: l}
	if _, d.inMemory = src.(*datfetch.Memory); !d.inMemory {
		d.cache = cache
		d.reads = &datfetch.Flights[*cachedRecord]{}
	}
	return d
}

// serveRecord answers one record: its bytes with a strong ETag, or 400/404/500.
func (d *db) serveRecord(w http.ResponseWriter, r *http.Request, seg string) {
	id, err := dat.ParseID(seg)
	if err != nil {
		http.Error(w, fmt.Sprintf("bad %s record id: %v", d.name, err), http.StatusBadRequest)
		return
	}
	rec, err := d.record(r, id)
	switch {
	case errors.Is(err, datfetch.ErrNotFound):
		http.Error(w, fmt.Sprintf("%s record 0x%08X not found", d.name, id), http.StatusNotFound)
		return
	case err != nil && r.Context().Err() != nil:
		return // the client left; nothing to answer or log
	case err != nil:
		d.log.Printf("serve: %s record 0x%08X: %v", d.name, id, err)
		http.Error(w, fmt.Sprintf("%s record 0x%08X is unreadable", d.name, id), http.StatusInternalServerError)
		return
	}
	rec.write(w, r)
}

// write answers the record's bytes with its validator and caching headers.
// ServeContent does HEAD, If-None-Match (lists, "*", weak comparison as RFC
// 9110 §13.1.2 asks) → 304, and Range.
func (rec *cachedRecord) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("ETag", rec.etag)
	h.Set("Cache-Control", recordCacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(rec.b))
}

// record returns a record and its ETag, from the cache or the source; one
// read serves every request for the record that arrives while it runs.
func (d *db) record(r *http.Request, id uint32) (*cachedRecord, error) {
	if rec, ok := d.cache.Get(id); ok && rec.src == d {
		return rec, nil
	}
	if d.inMemory {
		return d.load(r.Context(), id)
	}
	return d.reads.Do(r.Context(), id, func(ctx context.Context) (*cachedRecord, error) {
		// A request that joined just after the previous read finished
		// finds the record cached.
		if rec, ok := d.cache.Get(id); ok && rec.src == d {
			return rec, nil
		}
		return d.load(ctx, id)
	})
}

// load reads a record from the source, checks it, and caches it with its ETag.
func (d *db) load(ctx context.Context, id uint32) (*cachedRecord, error) {
	b, err := d.src.Get(ctx, id)
	if err == nil {
		// A source that hands out bytes of another record is as corrupt as a
		// broken block chain; the client would refuse them anyway.
		err = datfetch.CheckDID(id, b)
	}
	if err != nil {
		return nil, err
	}
	rec := &cachedRecord{src: d, b: b, etag: d.etag(id, b)}
	d.cache.Put(id, rec)
	return rec, nil
}

// etag is a strong validator derived from the bytes alone, so it survives
// restarts and matches across servers holding the same dat: CRC-64 and length.
func (d *db) etag(id uint32, b []byte) string {
	if len(b) >= etagCacheMin {
		if e, ok := d.etags.Load(id); ok {
			return e.(string)
		}
	}
	e := bytesETag(b)
	if len(b) >= etagCacheMin {
		d.etags.Store(id, e)
	}
	return e
}

func bytesETag(b []byte) string {
	return `"` + strconv.FormatUint(crc64.Checksum(b, crcTable), 16) + "-" + strconv.FormatInt(int64(len(b)), 16) + `"`
}

// serveListing answers the newline-separated ids, "0x%08X" one a line,
// ascending. It is built on first use and kept: the sources do not change.
func (d *db) serveListing(w http.ResponseWriter, r *http.Request) {
	p, err := d.listingPayload(r)
	if err != nil {
		if r.Context().Err() == nil {
			d.log.Printf("serve: %s listing: %v", d.name, err)
			http.Error(w, d.name+" listing is unreadable", http.StatusInternalServerError)
		}
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	p.serve(w, r)
}

func (d *db) listingPayload(r *http.Request) (*payload, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.listing != nil {
		return d.listing, nil
	}
	ids, err := d.src.IDs(r.Context())
	if err != nil {
		return nil, err
	}
	d.listing = newPayload("text/plain; charset=utf-8", Listing(ids), time.Time{}, true)
	return d.listing, nil
}

// Listing formats ids as the listing routes answer them: "0x%08X\n" each.
func Listing(ids []uint32) []byte {
	b := make([]byte, 0, 11*len(ids))
	for _, id := range ids {
		b = fmt.Appendf(b, "0x%08X\n", id)
	}
	return b
}
