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
	"unsafe"

	"acambient/core/dat"
	"acambient/datfetch/source"
)

// Record answers are immutable: an id names the same bytes for the life of a
// dat, so caches may keep them a year without asking again (docs/interfaces.md §2.1).
const recordCacheControl = "public, max-age=31536000, immutable"

// etagCacheMin is the size from which a record's ETag is remembered rather
// than hashed per request: waves run to hundreds of KiB, while landblocks
// (252 B) and the many small records hash in well under a microsecond and
// would only fill memory (a cell dat has 805 348 of them).
const etagCacheMin = 16 << 10

var crcTable = crc64.MakeTable(crc64.ECMA)

// db is one record source as served: its name for messages, the source, and
// what is computed once (the listing, large records' hashes).
type db struct {
	name string
	src  source.Lister
	log  *log.Logger
	tag  uint64 // the high half of its records' cache keys: a portal and a cell id can be equal

	sums  sync.Map     // uint32 → uint64 CRC-64, records ≥ etagCacheMin only
	cache *recordCache // shared with the other source; nil for in-memory sources, which need none
	// reads makes concurrent requests for one record share one read of a
	// source that has to work for it (a dat file): without it, n cold
	// requests for a large record cost n reads and n times its memory.
	reads    *source.Flights[cachedRecord]
	inMemory bool

	mu         sync.Mutex
	listing    *payload // nil until first built
	landblocks *payload // the cell source's landblock listing, nil until first built
}

func newDB(name string, tag uint64, src source.Lister, l *log.Logger, cache *recordCache) *db {
	d := &db{name: name, tag: tag, src: src, log: l}
	if _, d.inMemory = src.(*source.Memory); !d.inMemory {
		d.cache = cache
		d.reads = &source.Flights[cachedRecord]{}
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
	case errors.Is(err, source.ErrNotFound):
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

// write answers the record's bytes with its validator and caching headers,
// then releases its buffer. ServeContent does HEAD, If-None-Match (lists,
// "*", weak comparison as RFC 9110 §13.1.2 asks) → 304, and Range.
func (rec *cachedRecord) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = octetStream
	setETag(h, rec.sum, len(rec.b))
	h["Cache-Control"] = immutable
	h["X-Content-Type-Options"] = nosniff
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(rec.b))
	rec.release()
}

// The record answers' constant header values, shared by every answer
// rather than allocated for each: net/http only reads a value slice or
// replaces it (Set, Del, Clone), and one of length = capacity cannot be
// appended to in place.
var (
	octetStream = []string{"application/octet-stream"}[:1:1]
	immutable   = []string{recordCacheControl}[:1:1]
	nosniff     = []string{"nosniff"}[:1:1]
)

// setETag sets the ETag header to bytesETag's value, with the string and
// its one-element slice in a single allocation.
func setETag(h http.Header, sum uint64, n int) {
	box := new(struct {
		v [1]string
		b [40]byte
	})
	e := appendETag(box.b[:0], sum, n)
	box.v[0] = unsafe.String(&box.b[0], len(e))
	h["Etag"] = box.v[:]
}

// record returns a record and its hash, from the cache or the source; one
// read serves every request for the record that arrives while it runs.
func (d *db) record(r *http.Request, id uint32) (cachedRecord, error) {
	if rec, ok := d.cached(id, true); ok {
		return rec, nil
	}
	if d.inMemory {
		return d.load(r.Context(), id)
	}
	if rec, ok, err := d.readSmall(r.Context(), id); ok {
		return rec, err
	}
	return d.reads.Do(r.Context(), id, func(ctx context.Context) (cachedRecord, error) {
		// A request that joined just after the previous read finished
		// finds the record cached. The answer goes to every request that
		// joined, so its bytes must not be a pooled buffer.
		if rec, ok := d.cached(id, false); ok {
			return rec, nil
		}
		return d.load(ctx, id)
	})
}

// key is a record's key in the cache the two sources share.
func (d *db) key(id uint32) uint64 { return d.tag<<32 | uint64(id) }

// cached copies the record out of the cache, into a pooled buffer when the
// answer is the caller's alone.
func (d *db) cached(id uint32, pooled bool) (cachedRecord, bool) {
	if d.cache == nil {
		return cachedRecord{}, false
	}
	var buf *[]byte
	var dst []byte
	if pooled {
		buf = answerBufs.Get().(*[]byte)
		dst = *buf
	}
	b, sum, ok := d.cache.Get(d.key(id), dst)
	if !ok {
		if buf != nil {
			answerBufs.Put(buf)
		}
		return cachedRecord{}, false
	}
	return cachedRecord{b: b, sum: sum, buf: buf}, true
}

// soloReadMax is the stored size under which a request reads a record
// itself rather than through d.reads. Sharing one read exists to bound the
// memory of many cold requests for one large record (issue 8); for a small
// one it costs more than it saves, a goroutine, a channel and a context a
// read, and the scheduling of that goroutine stood in the tail latency of a
// busy serve. The memory it leaves unshared is bounded by the connection
// cap: 1000 × 16 KiB. Landblocks (252 bytes), most EnvCells and tables are
// under it; waves are mostly over it.
const soloReadMax = 16 << 10

// readSmall reads an uncompressed record under soloReadMax into a pooled
// buffer and caches it; ok is false for any other record, or a source
// that cannot tell.
func (d *db) readSmall(ctx context.Context, id uint32) (rec cachedRecord, ok bool, err error) {
	sr, can := d.src.(StoredReader)
	if !can {
		return cachedRecord{}, false, nil
	}
	e, err := sr.Lookup(id)
	if err != nil {
		return cachedRecord{}, true, err
	}
	if e.Compressed() || e.Size >= soloReadMax {
		return cachedRecord{}, false, nil
	}
	buf := answerBufs.Get().(*[]byte)
	b, err := sr.ReadStored(ctx, e, *buf)
	if err == nil {
		err = source.CheckDID(id, b)
	}
	if err != nil {
		answerBufs.Put(buf)
		return cachedRecord{}, true, err
	}
	rec = cachedRecord{b: b, sum: crc64.Checksum(b, crcTable), buf: buf}
	d.cache.Put(d.key(id), b, rec.sum)
	return rec, true, nil
}

// load reads a record from the source, checks it, and caches it with its hash.
func (d *db) load(ctx context.Context, id uint32) (cachedRecord, error) {
	b, err := d.src.Get(ctx, id)
	if err == nil {
		// A source that hands out bytes of another record is as corrupt as a
		// broken block chain; the client would refuse them anyway.
		err = source.CheckDID(id, b)
	}
	if err != nil {
		return cachedRecord{}, err
	}
	rec := cachedRecord{b: b, sum: d.sum(id, b)}
	d.cache.Put(d.key(id), b, rec.sum)
	return rec, nil
}

// sum is the CRC-64 of a record's bytes, remembered for large records: the
// cache may not hold them, and hashing hundreds of KiB costs more than the
// map entry.
func (d *db) sum(id uint32, b []byte) uint64 {
	if len(b) >= etagCacheMin {
		if s, ok := d.sums.Load(id); ok {
			return s.(uint64)
		}
	}
	s := crc64.Checksum(b, crcTable)
	if len(b) >= etagCacheMin {
		d.sums.Store(id, s)
	}
	return s
}

// bytesETag is a strong validator derived from the bytes alone, so it
// survives restarts and matches across servers holding the same dat: CRC-64
// and length.
func bytesETag(b []byte) string {
	var a [40]byte
	return string(appendETag(a[:0], crc64.Checksum(b, crcTable), len(b)))
}

// appendETag appends `"crc-len"`, both in hex: at most 36 bytes.
func appendETag(b []byte, sum uint64, n int) []byte {
	b = append(b, '"')
	b = strconv.AppendUint(b, sum, 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(n), 16)
	return append(b, '"')
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

// serveLandblocks answers the cell source's landblock listing,
// /cell/files/landblocks.txt: the ids of its landblock records 0xXXYYFFFF,
// "0x%08X" one a line, ascending. A client that reads it (the page) never
// asks for a landblock the source lacks. Built on first use and kept.
func (d *db) serveLandblocks(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	p := d.landblocks
	d.mu.Unlock()
	if p == nil {
		ids, err := d.src.IDs(r.Context())
		if err != nil {
			if r.Context().Err() == nil {
				d.log.Printf("serve: %s landblock listing: %v", d.name, err)
				http.Error(w, d.name+" listing is unreadable", http.StatusInternalServerError)
			}
			return
		}
		p = newPayload("text/plain; charset=utf-8", Landblocks(ids), time.Time{}, true)
		d.mu.Lock()
		d.landblocks = p
		d.mu.Unlock()
	}
	w.Header().Set("Cache-Control", "no-cache")
	p.serve(w, r)
}

// Landblocks formats the landblock records among ascending ids as
// /cell/files/landblocks.txt holds them: "0x%08X\n" each.
func Landblocks(ids []uint32) []byte {
	var lbs []uint32
	for _, id := range ids {
		if dat.CellKind(id) == dat.KindLandBlock {
			lbs = append(lbs, id)
		}
	}
	return Listing(lbs)
}

// Listing formats ids as the listing routes answer them: "0x%08X\n" each.
func Listing(ids []uint32) []byte {
	b := make([]byte, 0, 11*len(ids))
	for _, id := range ids {
		b = fmt.Appendf(b, "0x%08X\n", id)
	}
	return b
}
