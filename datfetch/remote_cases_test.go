package datfetch

// The faults a remote source must survive, as one table run twice: natively
// over the net/http transport against faultServer (remote_fault_test.go),
// and under GOOS=js over the fetch transport in node against the same
// server, which the native TestFetchTransportUnderNode starts.

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rec is a record of n bytes starting with the DID id.
func rec(id uint32, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b, id)
	for i := 4; i < n; i++ {
		b[i] = byte(i * 7)
	}
	return b
}

// etagOf is the ETag our server sends for b (server/records.go bytesETag).
func etagOf(b []byte) string {
	return `"` + strconv.FormatUint(crc64.Checksum(b, crc64.MakeTable(crc64.ECMA)), 16) + "-" + strconv.FormatInt(int64(len(b)), 16) + `"`
}

// stored is b as a dat stores it compressed: u32 size, zlib stream (spec §1.5).
func stored(b []byte) []byte {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, uint32(len(b)))
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// The ids the fault server serves; each case has its own path so that its
// requests are counted apart.
const (
	faultID   = 0x0A000101
	faultSize = 3000
	listedIDs = 25001 // a paged listing of three pages of 10 000
	// faultIdle is the idle timeout of the stall case: short, so that the
	// test is quick, long enough for a loaded machine's first byte.
	faultIdle = 500 * time.Millisecond
)

// faultServerEnv names the fault server's URL, set by the native
// TestFetchTransportUnderNode when it runs the js tests under node.
const faultServerEnv = "ACAMBIENT_FAULT_SERVER"

type remoteCase struct {
	name       string
	path       string // under the server; the source's base
	nativeOnly bool   // what only net/http can see (the browser hides redirects)
	opt        HTTPOptions
	// wantErr is a substring of the error; "" wants faultID's record back.
	wantErr  string
	notFound bool
	hits     int           // requests the server must have seen; 0 = not checked
	minTook  time.Duration // the least time Get may take
	maxTook  time.Duration // the most; 0 = not checked
}

var remoteCases = []remoteCase{
	{name: "ok", path: "/ok/files/", hits: 1},
	{name: "404", path: "/404/files/", notFound: true, wantErr: "answered 404", hits: 1},
	{name: "503 then ok", path: "/503/files/", hits: 2},
	{name: "429 waits its Retry-After", path: "/429/files/", hits: 2, minTook: 900 * time.Millisecond},
	{name: "cut short without Content-Length", path: "/cut/files/", hits: 2},
	{name: "Content-Length smaller than the body", path: "/shortcl/files/", hits: 2},
	{name: "flipped bytes", path: "/flip/files/", hits: 2},
	{name: "another record with the id patched in", path: "/swap/files/", hits: 2},
	{name: "junk after the record", path: "/junk/files/", hits: 2},
	{name: "always damaged", path: "/bad/files/", opt: HTTPOptions{Retries: 2}, wantErr: "giving up after 3 attempts", hits: 3},
	{name: "stall mid-body", path: "/stall/files/", opt: HTTPOptions{IdleTimeout: faultIdle}, hits: 2, maxTook: 5 * time.Second},
	{name: "redirect loop", path: "/loop/files/", nativeOnly: true, wantErr: "redirect loop", hits: 2},
	{name: "stored compressed (acdatservice)", path: "/zlib/files/", hits: 1},
	{name: "stored compressed, damaged stream", path: "/zlibbad/files/", wantErr: "does not inflate", hits: 1},
	{name: "another server's ETag shape is not ours", path: "/nginx/files/", hits: 1},
	{name: "DID of another record", path: "/did/files/", wantErr: "record starts with DID 0x0A000102", hits: 1},
}

// runRemoteCases runs the table against the fault server at base over tr;
// hits reports the server's request count for a path.
func runRemoteCases(t *testing.T, base string, tr Transport, native bool, hits func(path string) int) {
	want := rec(faultID, faultSize)
	for _, tc := range remoteCases {
		if tc.nativeOnly && !native {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Transport = tr
			if opt.Backoff == 0 {
				opt.Backoff = time.Millisecond
			}
			h := NewHTTP(base+tc.path, opt)
			start := time.Now()
			got, err := h.Get(context.Background(), faultID)
			took := time.Since(start)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("got %d bytes, want the %d-byte record", len(got), len(want))
				}
				if _, ok := h.cache.Get(faultID); !ok {
					t.Error("the verified record was not cached")
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if errors.Is(err, ErrNotFound) != tc.notFound {
					t.Fatalf("errors.Is(err, ErrNotFound) = %v, want %v", !tc.notFound, tc.notFound)
				}
				if _, ok := h.cache.Get(faultID); ok {
					t.Error("a failed record was cached")
				}
			}
			if tc.hits > 0 {
				if n := hits(tc.path + fmt.Sprintf("0x%08X", faultID)); n != tc.hits {
					t.Errorf("server saw %d requests, want %d", n, tc.hits)
				}
			}
			if took < tc.minTook {
				t.Errorf("took %v, want at least %v", took, tc.minTook)
			}
			if tc.maxTook > 0 && took > tc.maxTook {
				t.Errorf("took %v, want at most %v", took, tc.maxTook)
			}
		})
	}
}

// runListingCases reads the fault server's listings at base over tr.
func runListingCases(t *testing.T, base string, tr Transport) {
	for _, tc := range []struct {
		path    string
		first   uint32
		n       int
		wantErr string
	}{
		{"/list/files/", 0x0A000002, 3, ""},
		{"/listcut/files/", 0, 0, `the last line "0x130" has no newline`},
		{"/paged/files/", 0x01000000, listedIDs, ""}, // JSON Lines in pages of 10 000
		{"/pagedbad/files/", 0, 0, "server ignores offset"},
	} {
		t.Run(strings.Trim(tc.path, "/"), func(t *testing.T) {
			ids, err := NewHTTP(base+tc.path, HTTPOptions{Transport: tr, Backoff: time.Millisecond}).IDs(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != tc.n || ids[0] != tc.first {
				t.Fatalf("%d ids from 0x%08X, want %d from 0x%08X", len(ids), ids[0], tc.n, tc.first)
			}
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("ids[%d] = 0x%08X after 0x%08X: not ascending", i, ids[i], ids[i-1])
				}
			}
		})
	}
}
