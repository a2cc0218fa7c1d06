package server

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"acambient/datfetch/datfile"
	"acambient/datfetch/source"
)

// acdatWorld is the test world with the records acdatservice's README and
// tests name: GfxObj 0x01000001 (= 16777217, its README's example),
// landblock 0xA7B2FFFF (= 2813526015, its parse_file_id test) and the
// CharGen 0x0E000002 (its resolved_file_type test).
func acdatWorld(t testing.TB) world {
	w := testWorld(t)
	w.cell[0xA7B2FFFF] = landblock(0xA7B2FFFF)
	w.portal[0x0E000002] = append(le32(0x0E000002), 9, 9, 9, 9)
	return w
}

// TestAcdatRequests asks our server what acdatservice's README and tests ask
// of it, and compares status, type and body with what its source answers.
func TestAcdatRequests(t *testing.T) {
	w := acdatWorld(t)
	portal, _ := writeDat(t, datfile.Portal, w.portal)
	cell, _ := writeDat(t, datfile.Cell, w.cell)
	h, _ := newTestHandler(t, Options{Portal: portal, Cell: cell, CORS: "*"})
	const (
		bin  = "application/octet-stream"
		text = "text/plain; charset=utf-8"
		// parse_file_id's two texts, behind files_get's "Invalid file ID: ".
		badDec = `Invalid file ID: Invalid file ID %q. Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.`
		badHex = `Invalid file ID: Invalid file ID %q. Use a decimal ID or a hexadecimal ID such as 0x1000001.`
	)
	for _, tc := range []struct {
		target string
		status int
		ctype  string
		body   string
	}{
		// README: "Get a file by ID from a DAT", and the id forms of its openapi text.
		{"/dats/portal/files/16777217", 200, bin, string(w.portal[0x01000001])},
		{"/dats/portal/files/0x1000001", 200, bin, string(w.portal[0x01000001])},
		{"/dats/portal/files/0x01000001", 200, bin, string(w.portal[0x01000001])},
		// lib_test: parse_file_id accepts unsigned 32-bit values in three spellings.
		{"/dats/cell/files/0xa7b2ffff", 200, bin, string(w.cell[0xA7B2FFFF])},
		{"/dats/cell/files/0XA7B2FFFF", 200, bin, string(w.cell[0xA7B2FFFF])},
		{"/dats/cell/files/2813526015", 200, bin, string(w.cell[0xA7B2FFFF])},
		{"/dats/cell/files/+2813526015", 200, bin, string(w.cell[0xA7B2FFFF])}, // Rust's u32 parse takes a "+"
		{"/dats/cell/files/0x+A7B2FFFF", 200, bin, string(w.cell[0xA7B2FFFF])}, // and so does its from_str_radix
		// ... and refuses these, with the text for its branch.
		{"/dats/cell/files/-1481441281", 400, text, fmt.Sprintf(badDec, "-1481441281")},
		{"/dats/cell/files/0x100000000", 400, text, fmt.Sprintf(badHex, "0x100000000")},
		{"/dats/cell/files/4294967296", 400, text, fmt.Sprintf(badDec, "4294967296")},
		{"/dats/portal/files/0x", 400, text, fmt.Sprintf(badHex, "0x")},
		{"/dats/portal/files/A9B4FFFF", 400, text, fmt.Sprintf(badDec, "A9B4FFFF")},
		{"/dats/portal/files/%22a", 400, text, `Invalid file ID: Invalid file ID "\"a". Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.`},
		// parse_dat_param: names and file names in any case; anything else is 400, not 404.
		{"/dats/PORTAL/files/0x13000000", 200, bin, string(w.portal[0x13000000])},
		{"/dats/client_portal.dat/files/0x13000000", 200, bin, string(w.portal[0x13000000])},
		{"/dats/Client_Cell.dat/files/0xA9B4FFFF", 200, bin, string(w.cell[0xA9B4FFFF])},
		{"/dats/client_cell_1.dat/files/0xA9B4FFFF", 200, bin, string(w.cell[0xA9B4FFFF])},
		{"/dats/textures/files/1", 400, text, "Invalid dat name: textures. Expected portal, cell, highres, or local_english."},
		{"/dats/client_cell_2.dat/files/1", 400, text, "Invalid dat name: client_cell_2.dat. Expected portal, cell, highres, or local_english."},
		{"/dats/textures/files", 400, text, "Invalid dat name: textures. Expected portal, cell, highres, or local_english."},
		// A portal id is not looked for in the cell dat, nor the other way.
		{"/dats/cell/files/0x13000000", 404, text, "File not found with ID 318767104 (0x13000000)"},
		{"/dats/portal/files/0xA9B4FFFF", 404, text, "File not found with ID 2847211519 (0xA9B4FFFF)"},
		{"/dats/portal/files/0x0A000404", 404, text, "File not found with ID 167773188 (0xA000404)"},
		// highres and local_english are names it knows; this server holds neither.
		{"/dats/highres/files/0x13000000", 404, text, "File not found with ID 318767104 (0x13000000)"},
		{"/dats/Local-English/files/1", 404, text, "File not found with ID 1 (0x1)"},
		{"/dats/highres/files", 200, text, ""},
		// format: lib_test's "xml", then files_get's JSON refusal by type.
		{"/dats/portal/files/0x13000000?format=xml", 400, text, `Unsupported format "xml". Omit format for binary data or use format=json for supported file types.`},
		{"/dats/portal/files/0x13000000?format=", 400, text, `Unsupported format "". Omit format for binary data or use format=json for supported file types.`},
		{"/dats/portal/files/0x13000000?format=json", 400, text, "JSON export is not supported for file type Region"},
		{"/dats/portal/files/0x20000012?format=json", 400, text, "JSON export is not supported for file type SoundTable"},
		// Its type names go by the id alone (from_object_id): a cell record is Unknown.
		{"/dats/cell/files/0xA9B4FFFF?format=json", 400, text, "JSON export is not supported for file type Unknown"},
		{"/dats/portal/files/0x01000001?format=json", 400, text, "JSON export is not supported for file type GraphicsObject"},
		{"/dats/portal/files/0x0A000404?format=json", 404, text, "File not found with ID 167773188 (0xA000404)"},
		// The CharGen is one it renders; we do not (README).
		{"/dats/portal/files/0x0E000002?format=json", 501, text, "JSON export of file type CharacterGenerator is not implemented by this server; omit format for its bytes"},
		{"/dats/portal/files/0x0E000002", 200, bin, string(w.portal[0x0E000002])},
		// files_index's paging checks, in its order (limit first).
		{"/dats/portal/files?limit=0", 400, text, "limit must be between 1 and 100000"},
		{"/dats/portal/files?limit=100001", 400, text, "limit must be between 1 and 100000"},
		{"/dats/portal/files?limit=abc&offset=-1", 400, text, "Invalid limit: invalid digit found in string"},
		{"/dats/portal/files?limit=", 400, text, "Invalid limit: cannot parse integer from empty string"},
		{"/dats/portal/files?limit=+5", 400, text, "Invalid limit: invalid digit found in string"}, // " 5"
		{"/dats/portal/files?limit=-5", 400, text, "Invalid limit: invalid digit found in string"},
		{"/dats/portal/files?limit=99999999999999999999", 400, text, "Invalid limit: number too large to fit in target type"},
		{"/dats/portal/files?offset=-1", 400, text, "Invalid offset: invalid digit found in string"},
		{"/dats/portal/files?offset=%2B", 400, text, "Invalid offset: invalid digit found in string"},
		{"/dats/portal/files?offset=4294967296", 400, text, "Invalid offset: number too large to fit in target type"}, // usize is 32 bits on wasm32
		{"/dats/portal/files?offset=4294967295", 200, text, ""},
		{"/dats/portal/files?limit=0&offset=x", 400, text, "limit must be between 1 and 100000"},
		// Outside its surface.
		{"/dats/portal", 404, text, "404 page not found\n"},
		{"/dats/portal/files/1/2", 404, text, "404 page not found\n"},
	} {
		r := do(h, "GET", tc.target)
		got := body(t, r)
		if r.StatusCode != tc.status || got != tc.body {
			t.Errorf("GET %s: %d %q, want %d %q", tc.target, r.StatusCode, trunc(got), tc.status, trunc(tc.body))
		}
		if ct := r.Header.Get("Content-Type"); ct != tc.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.target, ct, tc.ctype)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no CORS header", tc.target)
		}
		// with_cors_headers exposes the paging headers to pages.
		if e := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(e, "X-Limit") || !strings.Contains(e, "X-Offset") {
			t.Errorf("GET %s: Access-Control-Expose-Headers %q", tc.target, e)
		}
	}
}

// TestAcdatListing checks the JSON Lines of /dats/{dat}/files and its paging
// against the dat's own entries.
func TestAcdatListing(t *testing.T) {
	w := acdatWorld(t)
	portal, _ := writeDat(t, datfile.Portal, w.portal, 0x0A000777)
	cell, _ := writeDat(t, datfile.Cell, w.cell)
	h, _ := newTestHandler(t, Options{Portal: portal, Cell: cell})

	line := func(d *datfile.Dat, dat, typ string, id uint32) string {
		e, err := d.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf(`{"id":%d,"database_type":"%s","file_type":"%s","file_subtype":"None","file_offset":%d,"file_size":%d}`, id, dat, typ, e.Offset, e.Size)
	}
	portalLines := []string{
		line(portal, "portal", "GraphicsObject", 0x01000001),
		line(portal, "portal", "Wave", 0x0A000100),
		line(portal, "portal", "Wave", 0x0A000101),
		line(portal, "portal", "Wave", 0x0A000102),
		line(portal, "portal", "Wave", 0x0A000666),
		line(portal, "portal", "Wave", 0x0A000777),
		line(portal, "portal", "CharacterGenerator", 0x0E000002),
		line(portal, "portal", "Region", 0x13000000),
		line(portal, "portal", "SoundTable", 0x20000012),
		line(portal, "portal", "SoundTable", 0x20000013),
	}
	cellLines := []string{
		// from_object_id knows no cell id but 0x0000FFFF and the like.
		line(cell, "cell", "Unknown", 0xA7B2FFFF),
		line(cell, "cell", "Unknown", 0xA9B40100),
		line(cell, "cell", "Unknown", 0xA9B40101),
		line(cell, "cell", "Unknown", 0xA9B4FFFE),
		line(cell, "cell", "Unknown", 0xA9B4FFFF),
		line(cell, "cell", "Unknown", 0xA9B5FFFF),
		line(cell, "cell", "Unknown", 0xFFFF0001),
	}
	// Numbers a reader can check by hand: a landblock is 252 bytes stored
	// plain; a compressed record's stored size is below its own.
	if !strings.Contains(cellLines[0], `"id":2813526015,`) || !strings.HasSuffix(cellLines[0], `"file_size":252}`) {
		t.Errorf("landblock line %s", cellLines[0])
	}
	if e, _ := portal.Lookup(0x0A000777); e.Size >= uint32(len(w.portal[0x0A000777])) {
		t.Errorf("compressed wave: file_size %d, not below its %d bytes", e.Size, len(w.portal[0x0A000777]))
	}
	for _, tc := range []struct {
		target        string
		lines         []string
		limit, offset string
	}{
		{"/dats/portal/files", portalLines, "10000", "0"},
		{"/dats/portal/files?limit=100&offset=0", portalLines, "100", "0"}, // README's example
		{"/dats/portal/files?limit=3&offset=2", portalLines[2:5], "3", "2"},
		{"/dats/portal/files?limit=3&offset=9", portalLines[9:], "3", "9"},
		{"/dats/portal/files?limit=3&offset=10", nil, "3", "10"},
		{"/dats/portal/files?limit=%2B2&offset=007", portalLines[7:9], "2", "7"}, // "+" in a query is a space
		{"/dats/portal/files?limit=1&limit=2", portalLines[:2], "2", "0"},        // the last of repeated keys, as a HashMap collects them
		{"/dats/CELL/files?limit=100000", cellLines, "100000", "0"},
		{"/dats/cell/files?offset=6", cellLines[6:], "10000", "6"},
	} {
		r := do(h, "GET", tc.target)
		want := strings.Join(tc.lines, "\n")
		if got := body(t, r); r.StatusCode != 200 || got != want {
			t.Errorf("GET %s: %d\n%s\nwant\n%s", tc.target, r.StatusCode, got, want)
		}
		if r.Header.Get("X-Limit") != tc.limit || r.Header.Get("X-Offset") != tc.offset {
			t.Errorf("GET %s: X-Limit %q X-Offset %q, want %s %s", tc.target, r.Header.Get("X-Limit"), r.Header.Get("X-Offset"), tc.limit, tc.offset)
		}
	}
	// A page of one line per entry: what a paging client reassembles.
	var all []string
	for off := 0; ; off += 4 {
		r := do(h, "GET", fmt.Sprintf("/dats/portal/files?limit=4&offset=%d", off))
		b := body(t, r)
		if b == "" {
			break
		}
		all = append(all, strings.Split(b, "\n")...)
	}
	if strings.Join(all, "\n") != strings.Join(portalLines, "\n") {
		t.Errorf("paged by 4: %d lines, want %d", len(all), len(portalLines))
	}
	// HEAD answers the headers alone.
	if r := do(h, "HEAD", "/dats/cell/files?limit=2"); r.StatusCode != 200 || body(t, r) != "" || r.Header.Get("X-Limit") != "2" {
		t.Errorf("HEAD listing: %d, X-Limit %q", r.StatusCode, r.Header.Get("X-Limit"))
	}
}

// TestAcdatStoredRecord: acdatservice sends a compressed record as stored
// (u32 uncompressed size, then the zlib stream); /files/{id} sends it inflated.
func TestAcdatStoredRecord(t *testing.T) {
	w := acdatWorld(t)
	portal, file := writeDat(t, datfile.Portal, w.portal, 0x0A000777)
	h, _ := newTestHandler(t, Options{Portal: portal})
	rec := w.portal[0x0A000777]

	r := do(h, "GET", "/dats/portal/files/0x0A000777")
	stored := []byte(body(t, r))
	e, _ := portal.Lookup(0x0A000777)
	if r.StatusCode != 200 || len(stored) != int(e.Size) {
		t.Fatalf("stored: %d, %d bytes, want 200, %d", r.StatusCode, len(stored), e.Size)
	}
	// The same bytes as in the file, block payloads after each 4-byte link.
	if e.Size <= 1020 && !bytes.Equal(stored, file[e.Offset+4:e.Offset+4+e.Size]) {
		t.Errorf("stored bytes differ from the dat's")
	}
	if got := binary.LittleEndian.Uint32(stored); got != uint32(len(rec)) {
		t.Errorf("stored size prefix %d, want %d", got, len(rec))
	}
	zr, err := zlib.NewReader(bytes.NewReader(stored[4:]))
	if err != nil {
		t.Fatalf("stored record is not a zlib stream after 4 bytes: %v", err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, rec) {
		t.Errorf("stored record inflates to %d bytes (%v), want the %d of the record", len(got), err, len(rec))
	}
	if r.Header.Get("ETag") != bytesETag(stored) {
		t.Errorf("ETag %s, want that of the stored bytes", r.Header.Get("ETag"))
	}
	if r := do(h, "GET", "/files/0x0A000777"); body(t, r) != string(rec) {
		t.Errorf("/files/0x0A000777 is not the inflated record")
	}
	// An uncompressed record is the same on both routes.
	a, b := do(h, "GET", "/dats/portal/files/0x0A000100"), do(h, "GET", "/files/0x0A000100")
	if ba := body(t, a); ba != body(t, b) || ba != string(w.portal[0x0A000100]) || a.Header.Get("ETag") != b.Header.Get("ETag") {
		t.Errorf("uncompressed record differs between the routes")
	}
}

// TestAcdatDats checks /dats: DatsResponse's pretty JSON, a dat file's
// length and SHA-256, and acdatservice's answer for a dat it has no file for.
func TestAcdatDats(t *testing.T) {
	w := acdatWorld(t)
	portal, pfile := writeDat(t, datfile.Portal, w.portal)
	cell, cfile := writeDat(t, datfile.Cell, w.cell)
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	want := fmt.Sprintf(`{
  "portal": {
    "name": "portal",
    "object_key": "client_portal.dat",
    "file_count": 10,
    "size_bytes": %d,
    "sha256": "%s"
  },
  "cell": {
    "name": "cell",
    "object_key": "client_cell_1.dat",
    "file_count": 7,
    "size_bytes": %d,
    "sha256": "%s"
  },
  "highres": {
    "name": "highres",
    "object_key": "client_highres.dat",
    "file_count": 0,
    "size_bytes": 0,
    "sha256": "unknown"
  },
  "local_english": {
    "name": "local_english",
    "object_key": "client_local_English.dat",
    "file_count": 0,
    "size_bytes": 0,
    "sha256": "unknown"
  }
}`, len(pfile), sum(pfile), len(cfile), sum(cfile))
	h, _ := newTestHandler(t, Options{Portal: portal, Cell: cell, CORS: "*"})
	r := do(h, "GET", "/dats")
	if got := body(t, r); r.StatusCode != 200 || got != want {
		t.Errorf("/dats: %d\n%s\nwant\n%s", r.StatusCode, got, want)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("/dats: Content-Type %q", ct)
	}

	// The demo world in memory: counts, and no file to measure.
	mem, _ := newTestHandler(t, Options{})
	got := body(t, do(mem, "GET", "/dats"))
	for _, s := range []string{`"file_count": 9,`, `"file_count": 6,`, `"size_bytes": 0,`} {
		if !strings.Contains(got, s) {
			t.Errorf("/dats over memory lacks %s:\n%s", s, got)
		}
	}
	if strings.Contains(got, `"sha256": "`+sum(pfile)) || strings.Count(got, `"sha256": "unknown"`) != 4 {
		t.Errorf("/dats over memory:\n%s", got)
	}
}

// BenchmarkAcdatListingPage times one default page (10000 lines) of
// /dats/cell/files from a cell source of 800 000 entries, the size of the
// retail cell dat, once the entries are built: what a client paging
// through the whole dat (81 pages) costs the server per request.
func BenchmarkAcdatListingPage(b *testing.B) {
	recs := make(map[uint32][]byte, 800000)
	rec := le32(0)
	for i := uint32(0); len(recs) < 800000; i++ {
		recs[(i/64)<<16|0x0100+i%64] = rec
	}
	h := New(Options{Cell: source.NewMemory(recs), Log: log.New(io.Discard, "", 0)})
	r := httptest.NewRequest("GET", "/dats/cell/files?offset=400000", nil)
	w := &discard{h: http.Header{}}
	h.ServeHTTP(w, r) // builds the entries
	b.ReportAllocs()
	for b.Loop() {
		w.h = http.Header{}
		h.ServeHTTP(w, r)
	}
}

// BenchmarkAcdatRecord compares one landblock answer on acdatservice's
// route with /cell/files/{id}, both from a dat file with the record cached:
// the acdatservice route adds the B-tree lookup that tells whether the
// record is stored compressed.
func BenchmarkAcdatRecord(b *testing.B) {
	w := testWorld(b)
	var buf bytes.Buffer
	if err := datfile.WriteDat(&buf, datfile.Cell, w.cell); err != nil {
		b.Fatal(err)
	}
	cell, err := datfile.NewDat(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		b.Fatal(err)
	}
	h := New(Options{Cell: cell, Log: log.New(io.Discard, "", 0)})
	for _, target := range []string{"/cell/files/0xA9B4FFFF", "/dats/cell/files/0xA9B4FFFF"} {
		b.Run(strings.ReplaceAll(target[1:], "/", "_"), func(b *testing.B) {
			r := httptest.NewRequest("GET", target, nil)
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, r)
			}
		})
	}
}
