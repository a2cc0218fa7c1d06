package server

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
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
	return New(Options{Portal: source.NewMemory(recs), Cell: source.NewMemory(recs), CORS: "*", Log: log.New(io.Discard, "", 0)})
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

// BenchmarkDatRecord times landblock and EnvCell answers from a cell dat
// file of 20k records: "hit" answers one record again and again from the
// cache; "miss" walks all 20k with a 1 MiB cache, so nearly every answer
// reads the file (in memory here) and fills the cache.
func BenchmarkDatRecord(b *testing.B) {
	recs := map[uint32][]byte{}
	var ids []uint32
	for i := range uint32(20000) {
		id := (0x0101+i/16)<<16 | 0x0100 + i%16
		rec := make([]byte, 200+int(i%8)*200)
		copy(rec, le32(id))
		recs[id] = rec
		ids = append(ids, id)
	}
	var buf bytes.Buffer
	if err := datfile.WriteDat(&buf, datfile.Cell, recs); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cache int64
		ids   []uint32
	}{{"hit", 0, ids[:1]}, {"miss", 1 << 20, ids}} {
		b.Run(tc.name, func(b *testing.B) {
			cell, err := datfile.NewDat(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				b.Fatal(err)
			}
			if err := cell.Index(context.Background()); err != nil {
				b.Fatal(err)
			}
			h := New(Options{Cell: cell, CacheBytes: tc.cache, Log: log.New(io.Discard, "", 0)})
			reqs := make([]*http.Request, len(tc.ids))
			for i, id := range tc.ids {
				reqs[i] = httptest.NewRequest("GET", "/cell/files/0x"+hex8(id), nil)
			}
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, reqs[i%len(reqs)])
				i++
			}
		})
	}
}
