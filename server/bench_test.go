package server

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"acambient/datfetch"
)

// discard is a ResponseWriter that keeps nothing, so the benchmarks time the
// handler rather than a recorder's buffer. Like net/http's own writer it
// takes bodies through ReadFrom with a buffer it reuses.
type discard struct {
	h   http.Header
	buf []byte
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
func (d *discard) ReadFrom(r io.Reader) (int64, error) {
	if d.buf == nil {
		d.buf = make([]byte, 32<<10)
	}
	var n int64
	for {
		m, err := r.Read(d.buf)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func benchHandler(b *testing.B, recs map[uint32][]byte) *Handler {
	return New(Options{Portal: datfetch.NewMemory(recs), Cell: datfetch.NewMemory(recs), CORS: "*", Log: log.New(io.Discard, "", 0)})
}

// BenchmarkRecord times one record answer in the handler: route, id parse,
// source lookup, ETag, headers, body. 252 B is a landblock; 64 KiB and 1 MiB
// span the waves (the ETag of those is hashed once, then remembered).
func BenchmarkRecord(b *testing.B) {
	for _, tc := range []struct {
		name string
		id   uint32
		size int
	}{
		{"landblock-252B", 0xA9B4FFFF, 252},
		{"wave-64KiB", 0x0A000100, 64 << 10},
		{"wave-1MiB", 0x0A000101, 1 << 20},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rec := make([]byte, tc.size)
			copy(rec, le32(tc.id))
			h := benchHandler(b, map[uint32][]byte{tc.id: rec})
			req := httptest.NewRequest("GET", "/cell/files/0x"+hex8(tc.id), nil)
			if tc.id>>24 == 0x0A {
				req = httptest.NewRequest("GET", "/files/0x"+hex8(tc.id), nil)
			}
			w := &discard{h: http.Header{}}
			b.SetBytes(int64(tc.size))
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkETag is the per-request hashing cost of records below etagCacheMin.
func BenchmarkETag(b *testing.B) {
	rec := make([]byte, etagCacheMin-1)
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		bytesETag(rec)
	}
}

func hex8(id uint32) string {
	const digits = "0123456789ABCDEF"
	var s [8]byte
	for i := 7; i >= 0; i-- {
		s[i] = digits[id&0xF]
		id >>= 4
	}
	return string(s[:])
}
