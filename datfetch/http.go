//go:build !js

package datfetch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Defaults of HTTPOptions' zero values.
const (
	DefaultRetries        = 3
	DefaultBackoff        = 200 * time.Millisecond
	DefaultCacheBytes     = 64 << 20
	DefaultMaxRecordBytes = 32 << 20 // the largest EoR record (a Wave) is well under 2 MiB

	maxBackoff      = 10 * time.Second
	maxListingBytes = 64 << 20 // 805 348 cell ids × 11 bytes ≈ 8.9 MB
)

// HTTPOptions tunes an HTTP source. The zero value is usable.
type HTTPOptions struct {
	Client *http.Client // nil: a client with a 60 s overall timeout per request

	// Retries is how many times a network error or a 5xx is retried after the
	// first attempt: 0 means DefaultRetries, negative means never.
	Retries int
	// Backoff is the first retry's delay; each further retry doubles it (capped
	// at 10 s), with up to 50% random jitter so that many clients don't retry in
	// step. 0 means DefaultBackoff. A Retry-After header in seconds wins when longer.
	Backoff time.Duration
	// CacheBytes bounds the LRU cache of records: 0 means DefaultCacheBytes,
	// negative disables the cache.
	CacheBytes int64
	// MaxRecordBytes bounds a record's body: 0 means DefaultMaxRecordBytes. A
	// larger answer is an error, not retried.
	MaxRecordBytes int64
}

// HTTP is a Source (and Lister) reading records from a dat server or a static
// export (contracts §2): GET base+"0x%08X". It retries transient failures,
// sends one request per id however many callers wait for it, and keeps an LRU
// cache of record bytes. Safe for concurrent use.
type HTTP struct {
	base    string
	client  *http.Client
	retries int
	backoff time.Duration
	maxRec  int64

	flights flightGroup
	cache   *Cache[[]byte]
}

// NewHTTP returns a source for base, e.g. "http://host/files/" or
// "http://host/cell/files/"; a missing trailing slash is added.
func NewHTTP(base string, opt HTTPOptions) *HTTP {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	h := &HTTP{base: base, client: opt.Client, retries: opt.Retries, backoff: opt.Backoff, maxRec: opt.MaxRecordBytes}
	if h.client == nil {
		h.client = &http.Client{Timeout: 60 * time.Second}
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
	if h.maxRec <= 0 {
		h.maxRec = DefaultMaxRecordBytes
	}
	switch {
	case opt.CacheBytes == 0:
		h.cache = NewCache(DefaultCacheBytes, ByteLen)
	case opt.CacheBytes > 0:
		h.cache = NewCache(opt.CacheBytes, ByteLen)
	}
	return h
}

// Get returns the record's bytes, which start with the DID id (CheckDID). A 404
// is ErrNotFound, retail's "not found", and is never retried.
func (h *HTTP) Get(ctx context.Context, id uint32) ([]byte, error) {
	if b, ok := h.cache.Get(id); ok {
		return b, nil
	}
	b, err := h.flights.do(ctx, id, func(fctx context.Context) ([]byte, error) {
		// A caller that joined just after the previous flight finished finds the
		// record cached rather than asking again.
		if b, ok := h.cache.Get(id); ok {
			return b, nil
		}
		url := h.base + fmt.Sprintf("0x%08X", id)
		b, err := h.fetch(fctx, url, h.maxRec)
		if err != nil {
			if errors.Is(err, errStatus404) {
				return nil, fmt.Errorf("%w (%s answered 404)", NotFound(id), url)
			}
			return nil, err
		}
		if err := CheckDID(id, b); err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
		h.cache.Put(id, b)
		return b, nil
	})
	return b, err
}

// IDs returns the ids of the listing at base without its trailing slash (the
// serve route /files or /cell/files). A static export has no such route (a
// file and a folder cannot share the name), and a static host answers it
// with a 404 or an HTML folder listing; then IDs reads base+"index.txt",
// where export writes the listing and which serve answers too.
func (h *HTTP) IDs(ctx context.Context) ([]uint32, error) {
	url := strings.TrimSuffix(h.base, "/")
	b, err := h.fetch(ctx, url, maxListingBytes)
	if errors.Is(err, errStatus404) || (err == nil && looksLikeHTML(b)) {
		url = h.base + "index.txt"
		b, err = h.fetch(ctx, url, maxListingBytes)
	}
	if err != nil {
		return nil, err
	}
	return parseListing(url, b)
}

func looksLikeHTML(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '<'
}

// errStatus404 marks a 404 answer inside fetch's errors.
var errStatus404 = errors.New("404 Not Found")

// fetch GETs url, retrying network errors and 5xx with backoff; it bounds the
// body at limit bytes.
func (h *HTTP) fetch(ctx context.Context, url string, limit int64) ([]byte, error) {
	delay := h.backoff
	for attempt := 0; ; attempt++ {
		b, retryAfter, err := h.fetchOnce(ctx, url, limit)
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", url, ctx.Err())
		}
		var te *transientError
		if !errors.As(err, &te) {
			return nil, err
		}
		if attempt >= h.retries {
			return nil, fmt.Errorf("giving up after %d attempts: %w", attempt+1, te.err)
		}
		wait := delay/2 + rand.N(delay/2+1)
		if retryAfter > wait {
			wait = retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s: %w (last attempt: %v)", url, ctx.Err(), te.err)
		case <-t.C:
		}
		delay = min(2*delay, maxBackoff)
	}
}

// transientError is a failure worth retrying: the network or a 5xx.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

func (h *HTTP) fetchOnce(ctx context.Context, url string, limit int64) (body []byte, retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", url, err)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, 0, &transientError{err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusNotFound:
		return nil, 0, fmt.Errorf("%s: %w", url, errStatus404)
	case resp.StatusCode >= 500:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // let the connection be reused
		return nil, parseRetryAfter(resp.Header.Get("Retry-After")),
			&transientError{fmt.Errorf("%s: %s", url, resp.Status)}
	default:
		return nil, 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, 0, fmt.Errorf("%s: body of %d bytes exceeds the %d-byte limit", url, resp.ContentLength, limit)
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength)) // bounded by limit just above
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, 0, &transientError{fmt.Errorf("%s: reading body after %d bytes: %w", url, n, err)}
	}
	if n > limit {
		return nil, 0, fmt.Errorf("%s: body exceeds the %d-byte limit", url, limit)
	}
	return buf.Bytes(), 0, nil
}

// parseRetryAfter reads the delay-seconds form; the HTTP-date form is rare
// from dat servers and ignored.
func parseRetryAfter(v string) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(min(s, int(maxBackoff/time.Second))) * time.Second
}

// parseListing reads one id a line ("0x%08X", decimal also accepted); blank
// lines are skipped. The result is ascending.
func parseListing(url string, b []byte) ([]uint32, error) {
	ids := make([]uint32, 0, bytes.Count(b, []byte{'\n'})+1)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		var v uint64
		var err error
		if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
			v, err = strconv.ParseUint(s[2:], 16, 32)
		} else {
			v, err = strconv.ParseUint(s, 10, 32)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: id %q is not decimal or 0x-hex", url, line, s)
		}
		ids = append(ids, uint32(v))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	if !sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i] < ids[j] }) {
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	}
	return ids, nil
}
