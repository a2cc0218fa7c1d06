// Package server is the dat server of docs/interfaces.md §2: record bytes by id from a
// portal and a cell source, id listings, and the page files of www/; and the
// static export of §2.3 that any file host can serve in its place.
package server

import (
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"acambient/core/zones"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// maxURI bounds the request target. Real ones are short (/cell/files/0xXXXXXXXX
// is 22 bytes, the longest page file name a few dozen); a kilobyte is abuse.
const maxURI = 1024

// Options configure a Handler.
type Options struct {
	Portal, Cell source.Lister // record sources; nil serves none
	Name         string        // what is served ("demo world", file names), for the index and logs

	// WWW is the folder of page files served under "/" ("" serves none). When
	// it has no index.html, "/" answers a generated index of what is served.
	WWW string
	// CORS is the Access-Control-Allow-Origin value on every answer; "" sends none.
	CORS string
	// NoZones leaves /zones.json and /zones.png, the sound-zone layer of
	// the records served (zones.go), to the www folder.
	NoZones bool

	// CacheBytes bounds the memory of the cache of served records, which
	// the sources other than source.Memory (dat files) share, entry
	// overhead included: 0 means DefaultCacheBytes, negative none.
	CacheBytes int64

	Log     *log.Logger // errors and, with Verbose, one line per request; nil = log.Default()
	Verbose bool
}

// exposeHeaders is what CORS answers let scripts read: acdatservice exposes
// its paging headers (with_cors_headers); X-R2-Read-Count, its storage read
// count, has no meaning here.
var exposeHeaders = []string{"ETag, X-Limit, X-Offset"}[:1:1]

// Handler answers the routes of docs/interfaces.md §2. It is safe for concurrent use;
// the sources are treated as immutable while it serves.
type Handler struct {
	opt    Options
	log    *log.Logger
	portal *db
	cell   *db
	www    *static
	// corsOrigin is the Access-Control-Allow-Origin value, one slice for
	// every answer (as octetStream).
	corsOrigin []string

	indexMu sync.Mutex
	index   *payload // the generated index, built on first use

	acdatSt acdatState // what acdatservice's routes build once (acdat.go)
	zones   zoneLayer  // the sound-zone layer, computed on first ask (zones.go)
	hints   hintStore  // the landblocks' hints, computed on first ask (hints.go)
}

// New returns a Handler over opt's sources.
func New(opt Options) *Handler {
	h := &Handler{opt: opt, log: opt.Log}
	if h.log == nil {
		h.log = log.Default()
	}
	if h.opt.Portal == nil {
		h.opt.Portal = source.NewMemory(nil)
	}
	if h.opt.Cell == nil {
		h.opt.Cell = source.NewMemory(nil)
	}
	cache := opt.CacheBytes
	if cache == 0 {
		cache = DefaultCacheBytes
	}
	shared := NewBlobCache(cache)
	h.portal = newDB("portal", 1, h.opt.Portal, h.log, shared)
	h.cell = newDB("cell", 2, h.opt.Cell, h.log, shared)
	h.www = newStatic(opt.WWW)
	h.corsOrigin = []string{opt.CORS}[:1:1]
	return h
}

// ServeHTTP routes a request: record and listing routes first, then the www
// folder. Only GET and HEAD are answered (and CORS preflights, see preflight).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.opt.Verbose {
		start := time.Now()
		lw := &loggingWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			h.log.Printf("%s %s %s %d %dB %v", r.RemoteAddr, r.Method, r.RequestURI, lw.status, lw.n, time.Since(start).Round(time.Microsecond))
		}()
		w = lw
	}
	if h.opt.CORS != "" {
		w.Header()["Access-Control-Allow-Origin"] = h.corsOrigin
		w.Header()["Access-Control-Expose-Headers"] = exposeHeaders
	}
	if len(r.RequestURI) > maxURI || len(r.URL.RawPath) > maxURI || len(r.URL.Path) > maxURI {
		http.Error(w, "request URI longer than 1024 bytes", http.StatusRequestURITooLong)
		return
	}
	if r.RequestURI == "*" {
		// "OPTIONS *" asks what the server as a whole allows. net/http
		// answers it 200 itself unless NewHTTPServer turns that off; the
		// answer is the one every other method gets (docs/interfaces.md §2.1).
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method "+r.Method+" not allowed on *: the server is read-only (GET, HEAD)", http.StatusMethodNotAllowed)
		return
	}
	segs, ok := splitPath(r.URL)
	if !ok {
		http.Error(w, "invalid URL path", http.StatusBadRequest)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		if h.preflight(w, r) {
			return
		}
		fallthrough
	default:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method "+r.Method+" not allowed: the server is read-only (GET, HEAD)", http.StatusMethodNotAllowed)
		return
	}

	switch {
	case len(segs) >= 1 && segs[0] == "files":
		h.records(w, r, h.portal, segs[1:])
	case len(segs) == 3 && segs[0] == "cell" && segs[1] == "files" && segs[2] == datfetch.LandblocksListing:
		// Before the id parser, which would answer it 400.
		h.cell.serveLandblocks(w, r)
	case len(segs) >= 2 && segs[0] == "cell" && segs[1] == "files":
		h.records(w, r, h.cell, segs[2:])
	case len(segs) == 1 && segs[0] == "dats":
		h.serveDats(w, r)
	case len(segs) >= 3 && segs[0] == "dats" && segs[2] == "files":
		// acdatservice's surface (acdat.go): a client configured for that
		// service can point here unchanged.
		h.acdat(w, r, segs[1], segs[3:])
	case len(segs) == 2 && segs[0] == HintsDir:
		h.serveHint(w, r, segs[1])
	case len(segs) == 1 && (segs[0] == zones.IndexFile || segs[0] == zones.ImageFile) && !h.opt.NoZones:
		h.serveZones(w, r, segs[0])
	default:
		h.static(w, r, segs)
	}
}

// records answers /files, /files/{id} and /files/index.txt for one db.
func (h *Handler) records(w http.ResponseWriter, r *http.Request, d *db, rest []string) {
	switch {
	case len(rest) == 0 || (len(rest) == 1 && rest[0] == "index.txt"):
		d.serveListing(w, r)
	case len(rest) == 1:
		d.serveRecord(w, r, rest[0])
	default:
		http.NotFound(w, r)
	}
}

// preflight answers a CORS preflight (an OPTIONS carrying Origin and
// Access-Control-Request-Method) for GET or HEAD with 204 and reports true.
// docs/interfaces.md §2.1 makes every other method 405; a preflight is not a request
// for the resource but the browser asking permission, and a page that adds a
// header of its own (If-None-Match, Range) to a cross-origin fetch needs one.
// Simple GETs, which the ambient client makes, need none.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) bool {
	if h.opt.CORS == "" || r.Header.Get("Origin") == "" {
		return false
	}
	switch r.Header.Get("Access-Control-Request-Method") {
	case http.MethodGet, http.MethodHead:
	default:
		return false
	}
	hdr := w.Header()
	hdr.Set("Access-Control-Allow-Methods", "GET, HEAD")
	if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" && isTokenList(rh) {
		hdr.Set("Access-Control-Allow-Headers", rh)
	}
	hdr.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// splitPath returns the unescaped segments of the path. It refuses "." and
// ".." segments (also when percent-encoded), encoded slashes, NUL and
// backslashes, as net/http's file server refuses "..": no route, and no file
// under www, is reached by traversal, and no id or file name needs any of them.
// A trailing slash gives a last empty segment.
func splitPath(u *url.URL) ([]string, bool) {
	p := u.EscapedPath()
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	p = p[1:]
	if p == "" {
		return nil, true
	}
	raw := strings.Split(p, "/")
	segs := make([]string, 0, len(raw))
	for i, s := range raw {
		seg, err := url.PathUnescape(s)
		if err != nil || seg == "." || seg == ".." || strings.ContainsAny(seg, "/\\\x00") {
			return nil, false
		}
		if seg == "" && i < len(raw)-1 { // "//"
			return nil, false
		}
		segs = append(segs, seg)
	}
	return segs, true
}

// isTokenList reports whether s is a comma-separated list of header names,
// so that nothing else is echoed back.
func isTokenList(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == ',', c == ' ':
		default:
			return false
		}
	}
	return len(s) <= 256
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}

// loggingWriter records the status and size of an answer for the access log.
type loggingWriter struct {
	http.ResponseWriter
	status      int
	n           int64
	wroteHeader bool
}

func (l *loggingWriter) WriteHeader(code int) {
	if !l.wroteHeader {
		l.status, l.wroteHeader = code, true
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *loggingWriter) Write(b []byte) (int, error) {
	l.wroteHeader = true
	n, err := l.ResponseWriter.Write(b)
	l.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (l *loggingWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }
