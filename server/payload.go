package server

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// payload is a body served from memory: a www file, a listing, the generated
// index. Its gzip form is made once, on first demand, and kept with it, so a
// file is compressed once per version (the cache key holds its mtime).
type payload struct {
	ctype        string
	b            []byte
	mod          time.Time // zero: no Last-Modified
	etag         string
	compressible bool

	gzOnce sync.Once
	gz     []byte // nil when gzip does not make it smaller

	verOnce sync.Once
	ver     string // contentVersion(b), made on first demand
}

func newPayload(ctype string, b []byte, mod time.Time, compressible bool) *payload {
	return &payload{ctype: ctype, b: b, mod: mod, etag: bytesETag(b), compressible: compressible}
}

// serve writes the payload, gzipped when the client accepts it. Both forms
// carry Vary: Accept-Encoding and distinct ETags (RFC 9110 §8.8.3: a
// validator names one representation).
func (p *payload) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", p.ctype)
	body, etag := p.b, p.etag
	if p.compressible {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			if gz := p.gzipped(); gz != nil {
				body, etag = gz, strings.TrimSuffix(etag, `"`)+`-gz"`
				h.Set("Content-Encoding", "gzip")
			}
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", p.mod, bytes.NewReader(body))
}

// version is the payload's contentVersion (pagever.go), computed once.
func (p *payload) version() string {
	p.verOnce.Do(func() { p.ver = contentVersion(p.b) })
	return p.ver
}

func (p *payload) gzipped() []byte {
	p.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
		zw.Write(p.b)
		zw.Close()
		if buf.Len() < len(p.b) {
			p.gz = buf.Bytes()
		}
	})
	return p.gz
}

// acceptsGzip reads an Accept-Encoding value (RFC 9110 §12.5.3): gzip (or
// x-gzip) with a non-zero weight, or "*" with a non-zero weight when gzip is
// not named.
func acceptsGzip(ae string) bool { return accepts(ae, "gzip", "x-gzip") }

// acceptsBrotli is acceptsGzip for br.
func acceptsBrotli(ae string) bool { return accepts(ae, "br") }

// accepts reports whether ae accepts the coding (or one of its aliases).
func accepts(ae string, coding ...string) bool {
	named, star := -1.0, -1.0
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					f = 0
				}
				q = f
			}
		}
		switch c := strings.ToLower(strings.TrimSpace(name)); {
		case slices.Contains(coding, c):
			named = max(named, q)
		case c == "*":
			star = max(star, q)
		}
	}
	if named >= 0 {
		return named > 0
	}
	return star > 0
}
