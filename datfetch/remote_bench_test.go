//go:build !js

package datfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkHTTPGet is one record over loopback as our server sends it (with
// its ETag), uncached: request, body, length and CRC-64 checks, DID. 252 B
// is a landblock, 64 KiB and 1 MiB span the waves. "zlib" is a 64 KiB wave
// stored compressed, as acdatservice serves it; "cached" a cache hit.
func BenchmarkHTTPGet(b *testing.B) {
	for _, tc := range []struct {
		name  string
		size  int
		zlib  bool
		cache int64
	}{
		{"252B", 252, false, -1},
		{"64KiB", 64 << 10, false, -1},
		{"1MiB", 1 << 20, false, -1},
		{"64KiB-zlib", 64 << 10, true, -1},
		{"cached", 64 << 10, false, 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := rec(0x0A000001, tc.size)
			etag := etagOf(body)
			if tc.zlib {
				body, etag = stored(body), ""
			}
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if etag != "" {
					w.Header().Set("ETag", etag)
				}
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				w.Write(body)
			}))
			defer s.Close()
			h := NewHTTP(s.URL+"/files/", HTTPOptions{CacheBytes: tc.cache})
			ctx := context.Background()
			b.SetBytes(int64(tc.size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Get(ctx, 0x0A000001); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseJSONLines is one full page (10 000 lines) of acdatservice's
// listing; a retail cell dat's 805 348 ids are 81 of them.
func BenchmarkParseJSONLines(b *testing.B) {
	var page []byte
	for i := range listingPage {
		if i > 0 {
			page = append(page, '\n')
		}
		page = fmt.Appendf(page, `{"id":%d,"database_type":"Cell","file_type":"EnvCell","file_subtype":"Unknown(0)","file_offset":%d,"file_size":%d}`,
			0xA9B40100+i, 256*i, 300+i%200)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if ids, err := parseJSONLines("L", page); err != nil || len(ids) != listingPage {
			b.Fatal(len(ids), err)
		}
	}
}

// BenchmarkHTTPCancel is how long Get takes to return once its caller's
// context is cancelled while the server sits on the request: what a page
// waits when it moves on (the tests assert that it returns, not how fast).
func BenchmarkHTTPCancel(b *testing.B) {
	arrived := make(chan struct{}, 1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer s.Close()
	h := NewHTTP(s.URL+"/files/", HTTPOptions{CacheBytes: -1})
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan time.Time, 1)
		go func() { h.Get(ctx, uint32(0x0A000000+i)); done <- time.Now() }()
		<-arrived // cancel once the server holds the request
		start := time.Now()
		cancel()
		total += (<-done).Sub(start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/cancel")
}

// BenchmarkHTTPStall is how long past its IdleTimeout a stalled body is
// given up on: the idle timer's overshoot, which the 15 s default dwarfs.
func BenchmarkHTTPStall(b *testing.B) {
	const idle = 20 * time.Millisecond
	body := rec(0x0A000001, 4096)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:100])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer s.Close()
	h := NewHTTP(s.URL+"/files/", HTTPOptions{CacheBytes: -1, IdleTimeout: idle, Retries: -1})
	var over time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := h.Get(context.Background(), 0x0A000001); !errors.Is(err, ErrStalled) {
			b.Fatalf("err = %v, want a stall", err)
		}
		over += time.Since(start) - idle
	}
	b.ReportMetric(float64(over.Nanoseconds())/float64(b.N), "ns-over-idle/op")
}
