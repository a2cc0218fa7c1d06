// Package datfetch is where record bytes come from over HTTP: a
// source.Source that asks a server (ours, an export on a static host,
// acdatservice) for a record by id through a one-function transport
// (net/http natively, the browser's fetch under GOOS=js), retries with
// backoff, bounds what answers may hold (a byte budget), verifies what
// arrives (length, ETag, DID), keeps its health for the page, and reads the
// servers' listings. The other sources are datfetch/datfile (the retail dat
// container) and source.Memory; datfetch/source is what they share.
package datfetch

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"acambient/core/dat"
	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
)

// Defaults of HTTPOptions' zero values.
const (
	DefaultRetries        = 3
	DefaultBackoff        = 200 * time.Millisecond
	DefaultCacheBytes     = 64 << 20
	DefaultMaxRecordBytes = datfile.MaxPortalRecordBytes
	// MaxCellRecordBytes is a cell source's MaxRecordBytes: it refuses what
	// the cell dat's reader refuses (docs/divergences.md row 11).
	MaxCellRecordBytes = datfile.MaxCellRecordBytes
	// DefaultInFlightBytes is the budget the HTTP sources of a process share
	// for answers under way (BodyBudget): what one record at the cap may
	// need at once (bodyClaim: 2 × 32 MiB + inflate's 1 MiB probe), and 15
	// MiB for the others read meanwhile, which the page's eight loads at
	// once of real waves (under 2 MiB each) fit in.
	DefaultInFlightBytes = 80 << 20
	// DefaultIdleTimeout bounds how long one request may go without a byte
	// arriving, headers included: a server that stalls mid-body fails after
	// it and the request is retried.
	DefaultIdleTimeout = 15 * time.Second
	// DefaultBodyIdleTimeout bounds the silence once a body has begun: a
	// server thinks before it answers, not between two packets of an
	// answer, so a body that stops is given up on sooner (a slow link's
	// packets come a second apart at worst; 20 kbit/s is 0.6 s a packet).
	DefaultBodyIdleTimeout = 5 * time.Second
	// stallGrace is how long an attempt whose idle timer fired waits for
	// bytes already on their way to its reader before it is called stalled.
	stallGrace = 20 * time.Millisecond

	maxBackoff = 10 * time.Second
	// maxRetryAfter is the longest Retry-After (429, 503) waited out; a
	// server asking for more is given up on rather than blocking a load.
	maxRetryAfter   = 60 * time.Second
	maxListingBytes = 16 << 20 // 805 348 cell ids × 11 bytes ≈ 8.9 MB; one JSON Lines page of 10 000 ≈ 1.3 MB

	// listingPage is the limit asked of a paged (acdatservice) listing: its
	// default page size; its maximum is 100 000.
	listingPage = 10000
)

// Response is one answer as a Transport hands it over, its body unread.
type Response struct {
	Status int
	// ContentLength is the body's length in bytes as it will be read, or -1
	// when unknown (none sent, or the transport decodes a Content-Encoding).
	ContentLength int64
	// EncodedLength, when ContentLength is unknown, is the Content-Length of
	// a body the transport may decode (the browser, cross-origin, where
	// Content-Encoding is hidden): the body cannot be much shorter, so one
	// far over the cap is refused unread. 0 or -1: none.
	EncodedLength int64
	// Header holds the answer's headers by lower-case name, first value only.
	Header map[string]string
	Body   io.ReadCloser
}

func (r *Response) header(name string) string { return r.Header[name] }

// Transport sends one GET for url and returns the answer. It follows
// redirects itself. An error wrapping ErrPermanent (a redirect loop, which
// also wraps ErrRedirectLoop, or a URL that does not parse) is not retried;
// any other error counts as a network failure and is retried. ctx governs
// the whole exchange, Body reads included: cancelling it must abort a
// pending read.
type Transport func(ctx context.Context, url string) (*Response, error)

// ErrPermanent marks a transport error that retrying cannot cure.
var ErrPermanent = errors.New("permanent failure")

// HTTPOptions tunes an HTTP source. The zero value is usable.
type HTTPOptions struct {
	// Transport sends the requests: nil is the platform's own, net/http
	// natively and the browser's fetch under GOOS=js.
	Transport Transport

	// Retries is how many times a network error, a stall, a damaged body, a
	// 429 or a 5xx is retried after the first attempt: 0 means
	// DefaultRetries, negative means never.
	Retries int
	// Backoff is the first retry's delay; each further retry doubles it (capped
	// at 10 s), with up to 50% random jitter so that many clients don't retry in
	// step. 0 means DefaultBackoff. A Retry-After (seconds or an HTTP date)
	// wins when longer, up to 60 s; a server asking for more is given up on.
	Backoff time.Duration
	// IdleTimeout fails an attempt that receives nothing for this long: 0
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// BodyIdleTimeout is IdleTimeout once the body's first byte has come:
	// 0 means DefaultBodyIdleTimeout, or IdleTimeout where that is shorter.
	BodyIdleTimeout time.Duration
	// CacheBytes bounds the LRU cache of records: 0 means DefaultCacheBytes,
	// negative disables the cache.
	CacheBytes int64
	// MaxRecordBytes bounds a record's body and, for a compressed record, its
	// declared uncompressed size: 0 means DefaultMaxRecordBytes. A larger
	// answer is an error (a *TooLargeError), not retried: refused unread when
	// its length is declared, else once one byte past the cap has arrived.
	// It is lowered to what Budget can see through, (Max − 1 MiB) / 2.
	MaxRecordBytes int64
	// Budget bounds the bytes held for answers under way, across every
	// concurrent request (bodies being read, joined and inflated; the cache
	// is CacheBytes'): a read waits for it, as long as its context allows,
	// rather than allocate. nil shares the process's budget of
	// DefaultInFlightBytes with every other source that names none, unless
	// MaxRecordBytes needs more, which gets a budget of its own.
	Budget *BodyBudget
}

// HTTP is a Source (and Lister) reading records from a dat server, a static
// export (docs/interfaces.md §2) or an acdatservice deployment: GET base+"0x%08X". It
// retries transient failures, sends one request per id however many callers
// wait for it, checks what arrives (length, our server's ETag, the DID) and
// keeps an LRU cache of verified record bytes; what it holds for answers
// under way is bounded by a BodyBudget. A record that arrives as
// stored in a dat, compressed (acdatservice serves it so), is inflated. Safe
// for concurrent use; on GOOS=js call it from a goroutine, never from a
// JavaScript callback, since it blocks on promises.
type HTTP struct {
	base     string
	tr       Transport
	retries  int
	backoff  time.Duration
	idle     time.Duration
	bodyIdle time.Duration
	maxRec   int64
	maxList  int64
	budget   *BodyBudget
	// wait sleeps d before a retry, or returns the context's error: a
	// timer, replaced in tests to see the waits without taking them.
	wait func(ctx context.Context, d time.Duration, cause error) error
	// grace runs when the idle timer fires, before the attempt is called
	// stalled: a short sleep (stallGrace), replaced in tests.
	grace func()
	// afterIdle starts an attempt's idle timer: time.AfterFunc, replaced in
	// tests by a clock they fire once the server has stalled on purpose, so
	// that a stall is told from slow progress by what the server did, not by
	// how busy the machine was.
	afterIdle func(d time.Duration, f func()) idleTimer

	flights  source.Flights[[]byte]
	cache    *source.Cache[[]byte]
	requests atomic.Int64 // GETs sent (Stats)
	received atomic.Int64 // body bytes read (Stats)
	health   health       // the last failure since the last answer (Trouble)
}

// NewHTTP returns a source for base, e.g. "http://host/files/",
// "http://host/cell/files/" or "https://host/dats/portal/files/"; a missing
// trailing slash is added.
func NewHTTP(base string, opt HTTPOptions) *HTTP {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	h := &HTTP{base: base, tr: opt.Transport, retries: opt.Retries, backoff: opt.Backoff,
		idle: opt.IdleTimeout, maxRec: opt.MaxRecordBytes, budget: opt.Budget, wait: sleep,
		grace: func() { time.Sleep(stallGrace) }, afterIdle: afterFunc}
	if h.tr == nil {
		h.tr = defaultTransport()
	}
	switch {
	case h.retries == 0:
		h.retries = DefaultRetries
	case h.retries < 0:
		h.retries = 0
	}
	if h.backoff <= 0 {
		h.backoff = DefaultBackoff
	}
	if h.idle <= 0 {
		h.idle = DefaultIdleTimeout
	}
	if h.bodyIdle = opt.BodyIdleTimeout; h.bodyIdle <= 0 {
		h.bodyIdle = min(h.idle, DefaultBodyIdleTimeout)
	}
	if h.maxRec <= 0 {
		h.maxRec = DefaultMaxRecordBytes
	}
	if h.budget == nil {
		h.budget = defaultBodyBudget()
		if need := bodyClaim(-1, h.maxRec, true); need > h.budget.Max() {
			h.budget = NewBodyBudget(need + DefaultInFlightBytes - bodyClaim(-1, DefaultMaxRecordBytes, true))
		}
	}
	h.maxRec = min(h.maxRec, capWithin(h.budget.Max()))
	h.maxList = min(maxListingBytes, h.budget.Max()/2)
	switch {
	case opt.CacheBytes == 0:
		h.cache = source.NewCache(DefaultCacheBytes, source.ByteLen)
	case opt.CacheBytes > 0:
		h.cache = source.NewCache(opt.CacheBytes, source.ByteLen)
	}
	return h
}

// capWithin is the largest record cap whose answers a budget of max bytes
// can see through one at a time (bodyClaim of a body of unknown length).
func capWithin(max int64) int64 {
	// Up to datfile.InflateProbe a record's claim is twice the cap, past it the
	// probe buffer adds itself.
	if c := (max - datfile.InflateProbe) / 2; c >= datfile.InflateProbe {
		return c
	}
	return min(max/2, datfile.InflateProbe)
}

// idleTimer is what an attempt's idle timer does: a *time.Timer's Reset
// and Stop.
type idleTimer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// afterFunc is HTTP.afterIdle's timer.
func afterFunc(d time.Duration, f func()) idleTimer { return time.AfterFunc(d, f) }

// sleep is HTTP.wait's timer.
func sleep(ctx context.Context, d time.Duration, _ error) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// HTTPStats is what an HTTP source holds, by its own accounting.
type HTTPStats struct {
	// InFlight is what its budget holds now for answers under way,
	// InFlightPeak the most it has held, InFlightMax its size; a budget is
	// shared with the sources that name none (HTTPOptions.Budget).
	InFlight     int64 `json:"inFlight"`
	InFlightPeak int64 `json:"inFlightPeak"`
	InFlightMax  int64 `json:"inFlightMax"`
	// Cached is the bytes its record cache holds (Cache.Bytes), in
	// CachedRecords records.
	Cached        int64 `json:"cached"`
	CachedRecords int   `json:"cachedRecords"`
	// Requests counts the GETs it has sent (every attempt, retries
	// included): what reached the transport, not the cache.
	Requests int64 `json:"requests"`
	// Received counts the body bytes read off the network: over time, the
	// rate the records are arriving at.
	Received int64 `json:"received"`
}

// Stats reports what the source holds.
func (h *HTTP) Stats() HTTPStats {
	return HTTPStats{InFlight: h.budget.Bytes(), InFlightPeak: h.budget.Peak(), InFlightMax: h.budget.Max(),
		Cached: h.cache.Bytes(), CachedRecords: h.cache.Len(), Requests: h.requests.Load(),
		Received: h.received.Load()}
}

// Get returns the record's bytes, which start with the DID id (CheckDID). A 404
// is ErrNotFound, retail's "not found", and is never retried. Its errors
// are classified as remote_errors.go says.
func (h *HTTP) Get(ctx context.Context, id uint32) ([]byte, error) {
	if b, ok := h.cache.Get(id); ok {
		return b, nil
	}
	return h.flights.Do(ctx, id, func(fctx context.Context) ([]byte, error) {
		// A caller that joined just after the previous flight finished finds the
		// record cached rather than asking again.
		if b, ok := h.cache.Get(id); ok {
			return b, nil
		}
		url := h.base + fmt.Sprintf("0x%08X", id)
		b, g, err := h.fetch(fctx, url, h.maxRec, true)
		if err != nil {
			if errors.Is(err, errStatus404) {
				return nil, fmt.Errorf("%w (%s answered 404)", source.NotFound(id), url)
			}
			if errors.Is(err, ErrTooLarge) {
				return nil, fmt.Errorf("record 0x%08X: %w", id, err)
			}
			return nil, err
		}
		defer g.close()
		// A compressed record is inflated beside its stored bytes: take
		// what inflating costs first.
		if source.CheckDID(id, b) != nil && looksCompressed(b) {
			want := min(int64(binary.LittleEndian.Uint32(b)), h.maxRec, int64(len(b)-4)*datfile.ZlibMaxRatio)
			if err := g.grow(fctx, inflateCost(want)); err != nil {
				return nil, fmt.Errorf("%s: %w", url, err)
			}
		}
		g.lower(0) // nothing more to take
		if b, err = h.record(id, b); err != nil {
			return nil, classify(fmt.Errorf("%s: %w", url, err), ErrBadRecord)
		}
		h.cache.Put(id, b)
		return b, nil
	})
}

// record checks that b is record id: it starts with the DID, or it is the
// record as a dat stores it compressed (docs/dat-format.md §1.5: u32 uncompressed size,
// then a zlib stream), which acdatservice serves without inflating.
func (h *HTTP) record(id uint32, b []byte) ([]byte, error) {
	didErr := source.CheckDID(id, b)
	if didErr == nil || !looksCompressed(b) {
		return b, didErr
	}
	out, err := inflateStored(b, h.maxRec)
	if err != nil {
		return nil, fmt.Errorf("%v, and as a compressed record (u32 size + zlib) it does not inflate: %w", didErr, err)
	}
	if err := source.CheckDID(id, out); err != nil {
		return nil, fmt.Errorf("inflated from %d stored bytes: %w", len(b), err)
	}
	return out, nil
}

// looksCompressed reports whether b can be a compressed record: long enough
// for retail to have compressed it, and a zlib header (RFC 1950 §2.2:
// deflate, a window of at most 32 KiB, no preset dictionary, the check bits)
// after the u32 size.
func looksCompressed(b []byte) bool {
	if len(b) < datfile.MinCompressed {
		return false
	}
	cmf, flg := b[4], b[5]
	return cmf&0x0F == 8 && cmf>>4 <= 7 && flg&0x20 == 0 && (uint16(cmf)<<8|uint16(flg))%31 == 0
}

// inflateStored inflates a compressed record under the source's size cap,
// with the dat reader's decoder (inflate) so both refuse the same records.
func inflateStored(b []byte, limit int64) ([]byte, error) {
	want := binary.LittleEndian.Uint32(b)
	if int64(want) > limit {
		return nil, fmt.Errorf("declared uncompressed size %d exceeds the %d-byte limit", want, limit)
	}
	if most := uint64(len(b)-4) * datfile.ZlibMaxRatio; uint64(want) > most {
		return nil, fmt.Errorf("declared uncompressed size %d exceeds what %d stored bytes can inflate to", want, len(b)-4)
	}
	return datfile.Inflate(b, want)
}

// IDs returns the ids of the listing at base without its trailing slash: our
// server's /files and /cell/files (ids one a line), or acdatservice's
// /dats/{dat}/files (JSON Lines of entry metadata, paged by limit and offset,
// followed here page by page). A static export has no such route (a file
// and a folder cannot share the name), and a static host answers it with a
// 404, an HTML folder listing, or (a bucket that may not be listed) a 403;
// then IDs reads base+"index.txt", where export writes the listing and which
// serve answers too. The result is ascending, without repeats.
func (h *HTTP) IDs(ctx context.Context) ([]uint32, error) {
	root := strings.TrimSuffix(h.base, "/")
	// A page's bytes are held (and counted) until the next is asked for.
	var held *bodyGrant
	defer func() { held.close() }()
	get := func(url string) ([]byte, error) {
		held.close()
		b, g, err := h.fetch(ctx, url, h.maxList, false)
		held = g
		return b, err
	}
	var ids []uint32
	for offset := 0; ; {
		url := fmt.Sprintf("%s?limit=%d&offset=%d", root, listingPage, offset)
		b, err := get(url)
		if offset == 0 && (errors.Is(err, errStatus404) || errors.Is(err, errStatus403) || (err == nil && looksLikeHTML(b))) {
			url = h.base + "index.txt"
			if b, err = get(url); err != nil {
				return nil, err
			}
			return parseListing(url, b)
		}
		if err != nil {
			return nil, err
		}
		if !isJSONLines(b) {
			if offset == 0 {
				return parseListing(url, b)
			}
			return nil, fmt.Errorf("%s: page at offset %d is not JSON Lines like the first", url, offset)
		}
		page, err := parseJSONLines(url, b)
		if err != nil {
			return nil, err
		}
		// A server that ignores offset would hand the first page forever.
		if offset > 0 && len(page) > 0 && len(ids) > 0 && page[0] == ids[0] {
			return nil, fmt.Errorf("%s: the page at offset %d repeats the first: the server ignores offset", url, offset)
		}
		ids = append(ids, page...)
		if len(page) < listingPage {
			break
		}
		offset += len(page)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// LandblocksListing is the file, beside the cell records, that lists the
// landblocks a cell source holds: "landblocks.txt", the ids 0x%08X of its
// landblock records 0xXXYYFFFF one a line, ascending (our server answers
// it, export writes it; acdatservice has none).
const LandblocksListing = "landblocks.txt"

// maxLandblocksBytes bounds that listing: 255×255 ids of 11 bytes are 715 KB.
const maxLandblocksBytes = 1 << 20

// Landblocks reads the landblock listing at base+LandblocksListing (base is
// a cell source's). A source without one (an older export, any other
// server) answers 404, which is ErrNotFound: the caller then asks for each
// landblock itself.
func (h *HTTP) Landblocks(ctx context.Context) ([]uint32, error) {
	url := h.base + LandblocksListing
	b, g, err := h.fetch(ctx, url, maxLandblocksBytes, false)
	if errors.Is(err, errStatus404) {
		return nil, fmt.Errorf("%s: %w", url, source.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	defer g.close()
	return parseLandblocks(url, b)
}

// parseLandblocks reads the landblock listing: "0x%08X\n" a line (any case,
// blank lines skipped, every line ended), in any order. It is leaner than
// parseListing, which takes every id form and sorts: this one is in the
// page's wasm.
func parseLandblocks(url string, b []byte) ([]uint32, error) {
	var ids []uint32
	for line := 1; len(b) > 0; line++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, fmt.Errorf("%s: line %d: the last line %q has no newline: the listing was cut short", url, line, truncate(b, 40))
		}
		s := strings.TrimSpace(string(b[:i]))
		b = b[i+1:]
		if s == "" {
			continue
		}
		hex, ok := strings.CutPrefix(strings.ToLower(s), "0x")
		v, err := strconv.ParseUint(hex, 16, 32)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: line %d: %q is not an id 0x%%08X", url, line, truncate([]byte(s), 40))
		}
		ids = append(ids, uint32(v))
	}
	return ids, nil
}

func looksLikeHTML(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '<'
}

func isJSONLines(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// errStatus404 and errStatus403 mark those answers inside fetch's errors.
var (
	errStatus404 = errors.New("404 Not Found")
	errStatus403 = errors.New("403 Forbidden")
)

// fetch GETs url, retrying network errors, stalls, damaged bodies, 429 and
// 5xx with backoff; it bounds the body at limit bytes. It returns the body
// with the grant on the budget that holds it (the caller closes it), its
// claim covering an inflate when inflates is set. Its errors are
// classified ErrNetwork unless they are ErrBadRecord or the context's.
func (h *HTTP) fetch(ctx context.Context, url string, limit int64, inflates bool) ([]byte, *bodyGrant, error) {
	delay := h.backoff
	for attempt := 0; ; attempt++ {
		b, g, retryAfter, err := h.fetchOnce(ctx, url, limit, inflates)
		if err == nil {
			h.health.answered()
			return b, g, nil
		}
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("%s: %w", url, ctx.Err())
		}
		if errors.Is(err, errStatus404) || errors.Is(err, errStatus403) {
			h.health.answered() // the server answers: nothing wrong with the way there
		}
		var te *transientError
		if !errors.As(err, &te) {
			return nil, nil, classify(err, ErrNetwork)
		}
		if attempt >= h.retries {
			h.health.failed(te.err, 0)
			return nil, nil, classify(fmt.Errorf("giving up after %d attempts: %w", attempt+1, te.err), ErrNetwork)
		}
		if retryAfter > maxRetryAfter {
			h.health.failed(te.err, 0)
			return nil, nil, classify(fmt.Errorf("%w; the server asks to retry after %v, more than the %v waited", te.err, retryAfter, maxRetryAfter), ErrNetwork)
		}
		wait := delay/2 + rand.N(delay/2+1)
		if retryAfter > wait {
			wait = retryAfter
		}
		h.health.failed(te.err, wait)
		if err := h.wait(ctx, wait, te.err); err != nil {
			return nil, nil, fmt.Errorf("%s: %w (last attempt: %v)", url, err, te.err)
		}
		delay = min(2*delay, maxBackoff)
	}
}

// transientError is a failure worth retrying.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// encodedSlack is how far past the cap an encoded body's length may go
// and still decode to a body within it: gzip, deflate, brotli and zstd
// expand what they cannot compress by under a thousandth (deflate's stored
// blocks: 5 bytes in 65 535), plus their headers (gzip's may hold a file
// name of any length, which no record server sends).
func encodedSlack(limit int64) int64 { return limit>>10 + 4<<10 }

// fetchOnce makes one attempt. An idle timer, reset by every byte that
// arrives and stopped while the read waits for budget, cancels the attempt
// when the server goes quiet. On success the body's bytes stay held on the
// grant it returns.
func (h *HTTP) fetchOnce(ctx context.Context, url string, limit int64, inflates bool) (body []byte, held *bodyGrant, retryAfter time.Duration, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var progress atomic.Int64 // reads that brought bytes
	idle := h.afterIdle(h.idle, func() {
		// Under GOOS=js a thread busy for longer than the timeout (a page
		// on a loaded machine) finds the timer expired when it is free
		// again, before the event loop has handed it the bytes that came
		// meanwhile: wait on the loop once (a sleep returns to it), and
		// call the server silent only if nothing came then either. A read
		// that brought bytes has re-armed the timer.
		n := progress.Load()
		h.grace()
		if progress.Load() == n {
			cancel(ErrStalled)
		}
	})
	defer idle.Stop()
	quiet := h.idle // the silence allowed now: bodyIdle once the body has begun
	stalled := func(what string, n int64) error {
		return &transientError{fmt.Errorf("%s: no byte for %v %s (after %d bytes): %w", url, quiet, what, n, ErrStalled)}
	}

	h.requests.Add(1)
	resp, err := h.tr(actx, url)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, nil, 0, ctx.Err()
		case errors.Is(context.Cause(actx), ErrStalled):
			return nil, nil, 0, stalled("waiting for the answer", 0)
		case errors.Is(err, ErrPermanent):
			return nil, nil, 0, fmt.Errorf("%s: %w", url, err)
		}
		return nil, nil, 0, &transientError{&classified{fmt.Errorf("%s: %w", url, err), ErrNoAnswer}}
	}
	defer resp.Body.Close()
	if resp.Status != 200 {
		// Read a short error body to its end rather than cancel it: the
		// connection is reused, and a browser counts a cancelled body as a
		// failed (aborted) request.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	}
	switch s := resp.Status; {
	case s == 200:
	case s == 404:
		return nil, nil, 0, fmt.Errorf("%s: %w", url, errStatus404)
	case s == 403:
		return nil, nil, 0, fmt.Errorf("%s: %w", url, errStatus403)
	case s == 429 || s >= 500:
		ra := parseRetryAfter(resp.header("retry-after"), time.Now())
		return nil, nil, ra, &transientError{&StatusError{URL: url, Status: s, RetryAfter: ra}}
	default:
		return nil, nil, 0, &StatusError{URL: url, Status: s}
	}
	// Refused unread when the length says so; closing the body then drops
	// the connection (natively) or cancels the stream (fetch).
	length := resp.ContentLength
	if length > limit {
		return nil, nil, 0, &TooLargeError{URL: url, Size: length, Limit: limit}
	}
	if length < 0 && resp.EncodedLength > limit+encodedSlack(limit) {
		return nil, nil, 0, &TooLargeError{URL: url, Size: resp.EncodedLength, Encoded: true, Limit: limit}
	}

	g := h.budget.open(bodyClaim(length, limit, inflates))
	defer func() {
		if err != nil {
			g.close()
		}
	}()
	take := func(n int64) error {
		idle.Stop() // waiting for budget is not the server's silence
		defer idle.Reset(quiet)
		return g.grow(actx, n)
	}
	idle.Reset(h.idle)
	b, n, err := readBody(progressReader{resp.Body, func(n int) {
		quiet = h.bodyIdle
		idle.Reset(quiet)
		progress.Add(1)
		h.received.Add(int64(n))
	}}, length, limit, take, g.release)
	switch {
	case err == nil:
	case err == errOverCap:
		// The cap's worth of chunks just read is garbage now: collect it
		// before the next read grows the heap past it instead (the wasm's
		// memory never shrinks). Only a server sending too much gets here.
		runtime.GC()
		return nil, nil, 0, &TooLargeError{URL: url, Size: -1, Limit: limit}
	case ctx.Err() != nil:
		return nil, nil, 0, ctx.Err()
	case errors.Is(context.Cause(actx), ErrStalled):
		return nil, nil, 0, stalled("mid-body", n)
	// A damaged transfer is worth another try: the server's bytes are fine,
	// the way here was not.
	case err == errLongerThanDeclared:
		return nil, nil, 0, &transientError{fmt.Errorf("%s: body runs past its Content-Length %d", url, length)}
	case length >= 0 && n < length:
		return nil, nil, 0, &transientError{fmt.Errorf("%s: body of %d bytes, Content-Length %d", url, n, length)}
	default:
		return nil, nil, 0, &transientError{fmt.Errorf("%s: reading body after %d bytes: %w", url, n, err)}
	}
	if err := checkETag(resp.header("etag"), b); err != nil {
		return nil, nil, 0, &transientError{fmt.Errorf("%s: %w", url, err)}
	}
	return b, g, 0, nil
}

// progressReader calls tick after every read that brought bytes, with
// their count.
type progressReader struct {
	r    io.Reader
	tick func(n int)
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.tick(n)
	}
	return n, err
}

var crcTable = crc64.MakeTable(crc64.ECMA)

// checkETag verifies body against an ETag of the form our server sends
// (server/records.go bytesETag): "CRC-LEN", the body's CRC-64 (ECMA) and its
// length in lower-case hex, with "-gz" appended for the gzip representation
// (whose CRC and length are of the decoded bytes, which is what transports
// hand over). Other servers' ETags are opaque and pass unchecked. Telling
// ours apart: a CRC-64 in hex has 9 to 16 digits but for one value in 2³²,
// while the ETags of the same two-part shape elsewhere start with a shorter
// field (nginx "MTIME-LEN", 8 digits of seconds until 2106) or end with a
// longer one (Apache "LEN-MTIME", microseconds); weak ETags are skipped.
func checkETag(etag string, body []byte) error {
	s, ok := strings.CutPrefix(etag, `"`)
	if !ok || !strings.HasSuffix(s, `"`) {
		return nil
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, `"`), "-gz")
	crcHex, lenHex, ok := strings.Cut(s, "-")
	if !ok || len(crcHex) < 9 || len(crcHex) > 16 || len(lenHex) < 1 || len(lenHex) > 8 || !isLowerHex(crcHex) || !isLowerHex(lenHex) {
		return nil
	}
	crc, _ := strconv.ParseUint(crcHex, 16, 64) // checked just above
	n, _ := strconv.ParseUint(lenHex, 16, 32)
	if n != uint64(len(body)) {
		return fmt.Errorf("body of %d bytes, the ETag %s says %d", len(body), etag, n)
	}
	if got := crc64.Checksum(body, crcTable); got != crc {
		return fmt.Errorf("body's CRC-64 is %x, the ETag %s says %x: bytes damaged in transit", got, etag, crc)
	}
	return nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseRetryAfter reads Retry-After in either form of RFC 9110 §10.2.3:
// delay-seconds or an HTTP date (relative to now).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(s) * time.Second
	}
	if t, ok := parseHTTPDate(v); ok && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// parseHTTPDate reads RFC 9110 §5.6.7's IMF-fixdate, "Sun, 06 Nov 1994
// 08:49:37 GMT", the one date form Retry-After takes from today's servers.
// By hand rather than time.Parse, whose layout machinery is 35 KB of the
// browser's wasm; the day name must be one, not the date's (as time.Parse).
func parseHTTPDate(v string) (time.Time, bool) {
	if len(v) != 29 || v[3] != ',' || v[4] != ' ' || v[7] != ' ' || v[11] != ' ' || v[16] != ' ' ||
		v[19] != ':' || v[22] != ':' || v[25:] != " GMT" {
		return time.Time{}, false
	}
	if i := strings.Index("MonTueWedThuFriSatSun", v[:3]); i < 0 || i%3 != 0 {
		return time.Time{}, false
	}
	month := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", v[8:11])
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil || s[0] == '+' || s[0] == '-' {
			return -1
		}
		return n
	}
	day, year, hh, mm, ss := num(v[5:7]), num(v[12:16]), num(v[17:19]), num(v[20:22]), num(v[23:25])
	if month < 0 || month%3 != 0 || day < 1 || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month/3+1), day, hh, mm, ss, 0, time.UTC)
	if t.Day() != day { // 31 Apr, 30 Feb: time.Date moved it on
		return time.Time{}, false
	}
	return t, true
}

// parseListing reads our listing format: one id a line ("0x%08X"; any form
// dat.ParseID takes), every line ended by a newline, so that a listing cut
// short cannot pass for a shorter one; blank lines are skipped. The result
// is ascending.
func parseListing(url string, b []byte) ([]uint32, error) {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		last := b[bytes.LastIndexByte(b, '\n')+1:]
		return nil, fmt.Errorf("%s: the last line %q has no newline: the listing was cut short", url, truncate(last, 40))
	}
	ids := make([]uint32, 0, bytes.Count(b, []byte{'\n'}))
	for line := 1; len(b) > 0; line++ {
		i := bytes.IndexByte(b, '\n')
		s := strings.TrimSpace(string(b[:i]))
		b = b[i+1:]
		if s == "" {
			continue
		}
		id, err := dat.ParseID(s)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", url, line, err)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// parseJSONLines reads one page of acdatservice's listing: a JSON object a
// line, each with the entry's numeric "id" (its db.rs FileResponse).
func parseJSONLines(url string, b []byte) ([]uint32, error) {
	ids := make([]uint32, 0, bytes.Count(b, []byte{'\n'})+1)
	for line := 1; len(b) > 0; line++ {
		s := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			s, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		s = bytes.TrimSpace(s)
		if len(s) == 0 {
			continue
		}
		if id, ok := leadingID(s); ok && json.Valid(s) {
			ids = append(ids, id)
			continue
		}
		var e struct {
			ID *int64 `json:"id"`
		}
		if err := json.Unmarshal(s, &e); err != nil {
			return nil, fmt.Errorf("%s: line %d %q: %w", url, line, truncate(s, 40), err)
		}
		if e.ID == nil || *e.ID < 0 || *e.ID > 0xFFFFFFFF {
			return nil, fmt.Errorf("%s: line %d %q: no id of 32 bits", url, line, truncate(s, 40))
		}
		ids = append(ids, uint32(*e.ID))
	}
	return ids, nil
}

// leadingID reads the id of a line in the form acdatservice writes it, the
// id first: {"id":123,…. Anything else is left to encoding/json, which is
// ten times slower (a retail cell listing is 81 pages of 10 000 lines).
func leadingID(line []byte) (uint32, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"id":`))
	if !ok {
		return 0, false
	}
	i := 0
	for i < len(rest) && i < 11 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i == 0 || i == len(rest) || (rest[i] != ',' && rest[i] != '}') || (i > 1 && rest[0] == '0') {
		return 0, false
	}
	// encoding/json lets a later "id" win, in any case or spelt with
	// escapes; leave any line that may hold another to it.
	if bytes.IndexByte(rest[i:], '\\') >= 0 {
		return 0, false
	}
	for j := i; j+3 < len(rest); j++ {
		if rest[j] == '"' && rest[j+1]|0x20 == 'i' && rest[j+2]|0x20 == 'd' && rest[j+3] == '"' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(string(rest[:i]), 10, 32)
	return uint32(v), err == nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
