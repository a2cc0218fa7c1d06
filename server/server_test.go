package server

import (
	"bytes"
	"compress/gzip"
	"errors"
	"hash/crc64"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"acambient/datfetch/source"
)

func TestRecordRoutes(t *testing.T) {
	h, _ := newTestHandler(t, Options{CORS: "*"})
	w := testWorld(t)
	for _, tc := range []struct {
		target string
		want   []byte
	}{
		{"/files/0x13000000", w.portal[0x13000000]},
		{"/files/0X13000000", w.portal[0x13000000]},
		{"/files/318767104", w.portal[0x13000000]}, // decimal
		{"/files/+318767104", w.portal[0x13000000]},
		{"/files/0x0a000101", w.portal[0x0A000101]},
		{"/cell/files/0xA9B4FFFF", w.cell[0xA9B4FFFF]},
		{"/cell/files/2847211519", w.cell[0xA9B4FFFF]},
		{"/cell/files/0xFFFF0001", w.cell[0xFFFF0001]}, // the iteration record has no DID and is served as stored
		{"/dats/portal/files/0x20000012", w.portal[0x20000012]},
		{"/dats/CELL/files/0xa9b40100", w.cell[0xA9B40100]},
		{"/dats/client_portal.dat/files/0x0A000100", w.portal[0x0A000100]},
		{"/dats/client_cell_1.dat/files/0xA9B5FFFF", w.cell[0xA9B5FFFF]},
	} {
		r := do(h, "GET", tc.target)
		got := body(t, r)
		if r.StatusCode != 200 || got != string(tc.want) {
			t.Errorf("GET %s: %d, %d bytes; want 200, %d bytes", tc.target, r.StatusCode, len(got), len(tc.want))
			continue
		}
		for k, v := range map[string]string{
			"Content-Type":                "application/octet-stream",
			"Cache-Control":               "public, max-age=31536000, immutable",
			"Access-Control-Allow-Origin": "*",
			"Content-Length":              itoa(len(tc.want)),
		} {
			if g := r.Header.Get(k); g != v {
				t.Errorf("GET %s: %s = %q, want %q", tc.target, k, g, v)
			}
		}
		if e := r.Header.Get("ETag"); e != bytesETag(tc.want) {
			t.Errorf("GET %s: ETag %s, want %s", tc.target, e, bytesETag(tc.want))
		}
	}
}

func TestETag(t *testing.T) {
	// CRC-64/XZ (Go's crc64.ECMA) check value of "123456789" is 0x995DC9BBDF1939FA
	// (the CRC catalogue), and 9 bytes.
	if got := bytesETag([]byte("123456789")); got != `"995dc9bbdf1939fa-9"` {
		t.Fatalf("ETag = %s", got)
	}
	// A strong validator: one flipped bit changes it.
	w := testWorld(t)
	a := w.portal[0x0A000100]
	b := bytes.Clone(a)
	b[len(b)-1] ^= 1
	if bytesETag(a) == bytesETag(b) {
		t.Fatal("ETag ignores the last byte")
	}
	// Large records' hashes are remembered, and remembered right.
	d := newDB("portal", 1, source.NewMemory(nil), nil, nil)
	big := bytes.Repeat([]byte{7}, etagCacheMin)
	want := crc64.Checksum(big, crcTable)
	if first := d.sum(1, big); first != want {
		t.Fatalf("sum %x, want %x", first, want)
	}
	// The second call answers from the remembered hash: poison the bytes to
	// prove it does not hash them again.
	big[0] ^= 1
	if second := d.sum(1, big); second != want {
		t.Fatalf("remembered sum %x, want the first answer %x", second, want)
	}
	big[0] ^= 1
	if _, ok := d.sums.Load(uint32(1)); !ok {
		t.Fatal("a record of etagCacheMin bytes was not remembered")
	}
	d.sum(2, big[:etagCacheMin-1])
	if _, ok := d.sums.Load(uint32(2)); ok {
		t.Fatal("a small record's hash was remembered")
	}
}

func TestConditionalAndHead(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	rec := testWorld(t).portal[0x0A000101]
	etag := bytesETag(rec)
	for _, tc := range []struct {
		method, target, inm string
		status              int
		body                string
	}{
		{"GET", "/files/0x0A000101", etag, 304, ""},
		{"GET", "/files/0x0A000101", `"nope", ` + etag, 304, ""},
		{"GET", "/files/0x0A000101", `"nope",` + etag + `, "other"`, 304, ""},
		{"GET", "/files/0x0A000101", "W/" + etag, 304, ""}, // If-None-Match compares weakly
		{"GET", "/files/0x0A000101", "*", 304, ""},
		{"GET", "/files/0x0A000101", `"nope"`, 200, string(rec)},
		{"GET", "/files/0x0A000101", bytesETag(testWorld(t).portal[0x0A000100]), 200, string(rec)},
		{"GET", "/files/0x0A000404", "*", 404, "portal record 0x0A000404 not found\n"},
		{"HEAD", "/files/0x0A000101", "", 200, ""},
		{"HEAD", "/files/0x0A000101", etag, 304, ""},
	} {
		r := do(h, tc.method, tc.target, "If-None-Match", tc.inm)
		if got := body(t, r); r.StatusCode != tc.status || got != tc.body {
			t.Errorf("%s %s If-None-Match %s: %d %q, want %d %q", tc.method, tc.target, tc.inm, r.StatusCode, trunc(got), tc.status, trunc(tc.body))
		}
		if tc.status == 304 && (r.Header.Get("ETag") != etag || r.Header.Get("Cache-Control") == "") {
			t.Errorf("%s %s: 304 without ETag/Cache-Control: %v", tc.method, tc.target, r.Header)
		}
	}
	r := do(h, "HEAD", "/files/0x0A000101")
	if r.Header.Get("Content-Length") != itoa(len(rec)) {
		t.Errorf("HEAD Content-Length %q, want %d", r.Header.Get("Content-Length"), len(rec))
	}
	// Range works as for any file.
	r = do(h, "GET", "/files/0x0A000101", "Range", "bytes=0-3")
	if got := body(t, r); r.StatusCode != 206 || got != string(rec[:4]) {
		t.Errorf("Range 0-3: %d %q", r.StatusCode, got)
	}
}

func TestListings(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	wantPortal := "0x01000001\n0x0A000100\n0x0A000101\n0x0A000102\n0x0A000666\n0x0A000777\n0x13000000\n0x20000012\n0x20000013\n"
	wantCell := "0xA9B40100\n0xA9B40101\n0xA9B4FFFE\n0xA9B4FFFF\n0xA9B5FFFF\n0xFFFF0001\n"
	for _, tc := range []struct{ target, want string }{
		{"/files", wantPortal},
		{"/files/index.txt", wantPortal},
		{"/cell/files", wantCell},
		{"/cell/files/index.txt", wantCell},
	} {
		r := do(h, "GET", tc.target)
		if got := body(t, r); r.StatusCode != 200 || got != tc.want {
			t.Errorf("GET %s: %d\n%s\nwant\n%s", tc.target, r.StatusCode, got, tc.want)
		}
		if ct := r.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", tc.target, ct)
		}
	}
	// The landblock listing: the cell source's landblock records only (not
	// the LandBlockInfo 0xXXYYFFFE, nor EnvCells), routed before the id
	// parser; the portal has none, and its name there is a bad id.
	if r := do(h, "GET", "/cell/files/landblocks.txt"); r.StatusCode != 200 || body(t, r) != "0xA9B4FFFF\n0xA9B5FFFF\n" ||
		r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("GET /cell/files/landblocks.txt: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	if r := do(h, "GET", "/files/landblocks.txt"); r.StatusCode != 400 {
		t.Errorf("GET /files/landblocks.txt: %d, want 400", r.StatusCode)
	}
	r := do(h, "GET", "/cell/files", "Accept-Encoding", "gzip")
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		t.Fatalf("gzip listing: %v (Content-Encoding %q)", err, r.Header.Get("Content-Encoding"))
	}
	if got, _ := io.ReadAll(zr); string(got) != wantCell || r.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip listing: %q, Vary %q", got, r.Header.Get("Vary"))
	}
}

func TestMissingAndBadRequests(t *testing.T) {
	h, _ := newTestHandler(t, Options{CORS: "https://map.example"})
	for _, tc := range []struct {
		method, target string
		status         int
		body           string
	}{
		{"GET", "/files/0x0A000404", 404, "portal record 0x0A000404 not found\n"},
		{"GET", "/cell/files/0xA9B40001", 404, "cell record 0xA9B40001 not found\n"},
		{"GET", "/cell/files/0x13000000", 404, "cell record 0x13000000 not found\n"}, // a portal id asked of the cell dat
		{"GET", "/files/", 400, "bad portal record id: empty record id\n"},
		{"GET", "/files/abc", 400, `bad portal record id: record id "abc": want decimal or 0x-hex` + "\n"},
		{"GET", "/files/A9B4FFFF", 400, `bad portal record id: record id "A9B4FFFF": want decimal or 0x-hex` + "\n"},
		{"GET", "/files/0x1FFFFFFFF", 400, `bad portal record id: record id "0x1FFFFFFFF" is beyond 32 bits` + "\n"},
		{"GET", "/cell/files/-1", 400, `bad cell record id: record id "-1": want decimal or 0x-hex` + "\n"},
		{"GET", "/cell/files/99999999999", 400, `bad cell record id: record id "99999999999" is beyond 32 bits` + "\n"},
		{"GET", "/files/0x%31", 404, "portal record 0x00000001 not found\n"}, // %31 is "1": percent-encoding is only spelling
		{"GET", "/files/1/2", 404, "404 page not found\n"},
		{"GET", "/nope", 404, "404 page not found\n"},
		{"GET", "/cell", 404, "404 page not found\n"},
		{"GET", "/cell/other", 404, "404 page not found\n"},
		{"POST", "/files/0x13000000", 405, "method POST not allowed: the server is read-only (GET, HEAD)\n"},
		{"PUT", "/cell/files/0xA9B4FFFF", 405, "method PUT not allowed: the server is read-only (GET, HEAD)\n"},
		{"DELETE", "/files", 405, "method DELETE not allowed: the server is read-only (GET, HEAD)\n"},
		{"PATCH", "/", 405, "method PATCH not allowed: the server is read-only (GET, HEAD)\n"},
		{"OPTIONS", "/files/0x13000000", 405, "method OPTIONS not allowed: the server is read-only (GET, HEAD)\n"},
	} {
		r := do(h, tc.method, tc.target)
		if got := body(t, r); r.StatusCode != tc.status || got != tc.body {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, r.StatusCode, got, tc.status, tc.body)
		}
		if tc.status == 405 && r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", tc.method, tc.target, r.Header.Get("Allow"))
		}
		// Errors carry CORS too, so a page can read why.
		if r.Header.Get("Access-Control-Allow-Origin") != "https://map.example" {
			t.Errorf("%s %s: no CORS header", tc.method, tc.target)
		}
	}
}

func TestPreflight(t *testing.T) {
	h, _ := newTestHandler(t, Options{CORS: "*"})
	r := do(h, "OPTIONS", "/files/0x13000000", "Origin", "https://acportalstorm.com",
		"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match, range")
	if r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD" ||
		r.Header.Get("Access-Control-Allow-Headers") != "if-none-match, range" || r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight: %d %v", r.StatusCode, r.Header)
	}
	for _, hdr := range [][]string{
		{"Origin", "https://x", "Access-Control-Request-Method", "DELETE"}, // asks for a write
		{"Access-Control-Request-Method", "GET"},                           // no Origin: not a preflight
	} {
		if r := do(h, "OPTIONS", "/files/0x13000000", hdr...); r.StatusCode != 405 {
			t.Errorf("OPTIONS %v: %d, want 405", hdr, r.StatusCode)
		}
	}
	// With CORS off there is nothing to grant.
	off, _ := newTestHandler(t, Options{})
	r = do(off, "OPTIONS", "/files/0x13000000", "Origin", "https://x", "Access-Control-Request-Method", "GET")
	if r.StatusCode != 405 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS off: %d %v", r.StatusCode, r.Header)
	}
}

func TestCorruptRecord(t *testing.T) {
	w := testWorld(t)
	portal := faulty{Lister: source.NewMemory(w.portal), Bad: map[uint32]error{
		0x0A000101: errors.New("record 0x0A000101: block chain: link 0x7FFFFC00 beyond the file end"),
	}}
	// A source handing out another record's bytes is corrupt too.
	w.cell[0xA9B5FFFF] = landblock(0xA9B6FFFF)
	h, logs := newTestHandler(t, Options{Portal: portal, Cell: source.NewMemory(w.cell)})
	for _, tc := range []struct {
		target string
		status int
		body   string
		log    string
	}{
		{"/files/0x0A000101", 500, "portal record 0x0A000101 is unreadable\n", "serve: portal record 0x0A000101: record 0x0A000101: block chain: link 0x7FFFFC00 beyond the file end\n"},
		{"/cell/files/0xA9B5FFFF", 500, "cell record 0xA9B5FFFF is unreadable\n", "serve: cell record 0xA9B5FFFF: 0xA9B5FFFF: record starts with DID 0xA9B6FFFF\n"},
		{"/files/0x0A000100", 200, string(w.portal[0x0A000100]), ""},
		{"/files/0x0A000102", 200, string(w.portal[0x0A000102]), ""},
		{"/cell/files/0xA9B4FFFF", 200, string(w.cell[0xA9B4FFFF]), ""},
	} {
		before := len(logs.String())
		r := do(h, "GET", tc.target)
		if got := body(t, r); r.StatusCode != tc.status || got != tc.body {
			t.Errorf("GET %s: %d %q, want %d %q", tc.target, r.StatusCode, trunc(got), tc.status, trunc(tc.body))
		}
		if got := logs.String()[before:]; got != tc.log {
			t.Errorf("GET %s logged %q, want %q", tc.target, got, tc.log)
		}
	}
}

func TestAccessLog(t *testing.T) {
	quiet, qlogs := newTestHandler(t, Options{})
	do(quiet, "GET", "/files/0x13000000")
	do(quiet, "GET", "/files/0x0A000404")
	if qlogs.String() != "" {
		t.Errorf("without -v, requests logged: %q", qlogs.String())
	}
	loud, logs := newTestHandler(t, Options{Verbose: true})
	do(loud, "GET", "/files/0x0A000404")
	do(loud, "HEAD", "/cell/files/0xA9B4FFFF")
	re := regexp.MustCompile(`^192\.0\.2\.1:1234 GET /files/0x0A000404 404 35B \S+\n192\.0\.2\.1:1234 HEAD /cell/files/0xA9B4FFFF 200 0B \S+\n$`)
	if !re.MatchString(logs.String()) {
		t.Errorf("access log:\n%s", logs.String())
	}
}

func TestLongURI(t *testing.T) {
	h, _ := newTestHandler(t, Options{})
	r := do(h, "GET", "/files/"+strings.Repeat("9", 2000))
	if got := body(t, r); r.StatusCode != 414 || got != "request URI longer than 1024 bytes\n" {
		t.Errorf("long URI: %d %q", r.StatusCode, got)
	}
	r = do(h, "GET", "/"+strings.Repeat("a/", 600))
	if r.StatusCode != 414 {
		t.Errorf("long static path: %d", r.StatusCode)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func trunc(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
