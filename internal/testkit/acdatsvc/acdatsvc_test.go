package acdatsvc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func record(id uint32, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b, id)
	return b // zeros after the DID: zlib shrinks it
}

func TestRoutes(t *testing.T) {
	portal := map[uint32][]byte{0x0A000001: record(0x0A000001, 4000), 0x13000000: record(0x13000000, 12)}
	for i := uint32(0); i < 25; i++ {
		portal[0x20000000+i] = record(0x20000000+i, 8)
	}
	cell := map[uint32][]byte{0xA9B4FFFF: record(0xA9B4FFFF, 252)}
	s := httptest.NewServer(New(Store(portal, func(id uint32, _ []byte) bool { return id>>24 == 0x0A }), Store(cell, nil)))
	defer s.Close()

	for _, tc := range []struct {
		method, target string
		status         int
		body           string // prefix of the body; "" = not checked
		header         string // "Name: value" that must be set
	}{
		{"GET", "/dats/portal/files/0x13000000", 200, "\x00\x00\x00\x13", "Content-Type: application/octet-stream"},
		{"GET", "/dats/Portal/files/318767104", 200, "\x00\x00\x00\x13", ""}, // name in any case, decimal id
		{"GET", "/dats/client_portal.dat/files/0X13000000", 200, "\x00\x00\x00\x13", ""},
		{"GET", "/dats/cell/files/0xA9B4FFFF", 200, "\xFF\xFF\xB4\xA9", ""}, // above i32: the newest parses u32
		{"GET", "/dats/client_cell_1.dat/files/+2847211519", 200, "\xFF\xFF\xB4\xA9", ""},
		{"GET", "/dats/portal/files/0x0A000001", 200, "\xA0\x0F\x00\x00\x78\xDA", ""}, // stored: size 4000, zlib level 9
		{"GET", "/dats/cell/files/0x13000000", 404, "File not found with ID 318767104 (0x13000000)", ""},
		{"GET", "/dats/portal/files/0xA9B4FFFF", 404, "File not found with ID 2847211519 (0xA9B4FFFF)", ""},
		{"GET", "/dats/portal/files/zzz", 400, `Invalid file ID: Invalid file ID "zzz". Use an unsigned decimal ID`, ""},
		{"GET", "/dats/portal/files/0xZZ", 400, `Invalid file ID: Invalid file ID "0xZZ". Use a decimal ID or a hexadecimal ID`, ""},
		{"GET", "/dats/portal/files/-1", 400, "Invalid file ID", ""},
		{"GET", "/dats/portel/files/1", 400, "Invalid dat name: portel. Expected portal, cell, highres, or local_english.", ""},
		{"GET", "/dats/portal/files/0x13000000?format=json", 400, "JSON export is not supported for file type Region", ""},
		{"GET", "/dats/portal/files?limit=2", 200, `{"id":167772161,"database_type":"portal","file_type":"Wave","file_subtype":"None","file_offset":0,"file_size":`, "X-Limit: 2"},
		{"GET", "/dats/portal/files?limit=0", 400, "limit must be between 1 and 100000", ""},
		{"GET", "/dats/portal/files?limit=100001", 400, "limit must be between 1 and 100000", ""},
		{"GET", "/dats/portal/files?limit=x", 400, "Invalid limit: invalid digit found in string", ""},
		{"GET", "/dats/portal/files?offset=", 400, "Invalid offset: cannot parse integer from empty string", ""},
		{"GET", "/dats/portal/files?offset=26", 200, "", "X-Offset: 26"},
		{"OPTIONS", "/dats/portal/files/1", 200, "", "Access-Control-Allow-Methods: GET, POST, OPTIONS"},
		{"GET", "/files/0x13000000", 404, "Not Found", ""}, // the older route is gone from the newest
	} {
		req, _ := http.NewRequest(tc.method, s.URL+tc.target, nil)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tc.status || !strings.HasPrefix(string(b), tc.body) {
			t.Errorf("%s %s: %d %.120q, want %d %.120q", tc.method, tc.target, r.StatusCode, b, tc.status, tc.body)
		}
		if r.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-Offset") {
			t.Errorf("%s %s: CORS headers %v", tc.method, tc.target, r.Header)
		}
		if name, value, ok := strings.Cut(tc.header, ": "); ok && r.Header.Get(name) != value {
			t.Errorf("%s %s: %s %q, want %q", tc.method, tc.target, name, r.Header.Get(name), value)
		}
	}
}

// A compressed record is stored as u32 size + zlib stream of the record, and
// one that zlib does not shrink stays as it is.
func TestStore(t *testing.T) {
	big, small := record(0x0A000001, 4000), []byte{1, 0, 0, 0x0A, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5}
	d := Store(map[uint32][]byte{0x0A000001: big, 0x0A000002: small}, func(uint32, []byte) bool { return true })
	z := d[0x0A000001]
	if binary.LittleEndian.Uint32(z) != 4000 || len(z) >= 4000 {
		t.Fatalf("stored %d bytes declaring %d", len(z), binary.LittleEndian.Uint32(z))
	}
	zr, err := zlib.NewReader(bytes.NewReader(z[4:]))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); !bytes.Equal(got, big) {
		t.Fatal("the stream does not inflate to the record")
	}
	if !bytes.Equal(d[0x0A000002], small) {
		t.Fatal("an incompressible record was changed")
	}
}
