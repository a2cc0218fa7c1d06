package datfetch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"acambient/datfetch/source"
)

func TestCheckETag(t *testing.T) {
	body := []byte("ABCD")
	// hash/crc64's ECMA table with its all-ones init and xorout is
	// CRC-64/XZ, whose check value (of "123456789") is 995dc9bbdf1939fa.
	// That of "ABCD" came from a bitwise implementation of it outside Go.
	if got := etagOf([]byte("123456789")); got != `"995dc9bbdf1939fa-9"` {
		t.Fatalf("etagOf(check string) = %s", got)
	}
	const good = `"2784b2d5b79ad8cf-4"`
	if got := etagOf(body); got != good {
		t.Fatalf("etagOf = %s, want %s", got, good)
	}
	for _, tc := range []struct {
		etag string
		body []byte
		want string // "" = accepted
	}{
		{good, body, ""},
		{`"2784b2d5b79ad8cf-4-gz"`, body, ""}, // the gzip representation's, of the decoded bytes
		{good, []byte("ABCE"), "CRC-64 is"},
		{good, []byte("ABC"), "body of 3 bytes, the ETag " + good + " says 4"},
		{good, []byte("ABCDE"), "says 4"},
		{`W/"2784b2d5b79ad8cf-4"`, []byte("x"), ""},             // weak: not ours
		{`"6553f1a0-4"`, []byte("xxxx"), ""},                    // nginx mtime-len: 8 digits
		{`"4-5f1a2b3c4d5e6"`, []byte("xx"), ""},                 // Apache len-mtime
		{`"d41d8cd98f00b204e9800998ecf8427e"`, []byte("x"), ""}, // S3 MD5
		{`"2784B2D5B79AD8CF-4"`, []byte("x"), ""},               // upper case: not the form we send
		{"", body, ""},
		{`"`, body, ""},
	} {
		err := checkETag(tc.etag, tc.body)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s on %q: %v", tc.etag, tc.body, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s on %q: err %v, want %q", tc.etag, tc.body, err, tc.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"1", time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"Mon, 30 Nov 2026 20:00:30 GMT", 30 * time.Second},
		{"Mon, 30 Nov 2026 19:59:00 GMT", 0}, // past
		{"Tue, 01 Dec 2026 00:00:00 GMT", 4 * time.Hour},
		{"Mon, 30 Nov 2026 20:00:30 UTC", 0}, // not IMF-fixdate
		{"Mon, 31 Nov 2026 20:00:30 GMT", 0}, // no 31 November
		{"Mon, 30 Nov 2026 24:00:30 GMT", 0}, // no hour 24
		{"Mon, 30 Noo 2026 20:00:30 GMT", 0}, // no month
		{"Mon, 30 ovD 2026 20:00:30 GMT", 0}, // not a month's name, though in the list
		{"Mon, +3 Nov 2026 20:00:30 GMT", 0}, // signs are not digits
		{"Xyz, 30 Nov 2026 20:00:30 GMT", 0},
		{"onT, 30 Nov 2026 20:00:30 GMT", 0},                 // no day
		{"Mon, 30 Nov 2026 20:00:30 GMT ", 30 * time.Second}, // trimmed
		{"-1", 0},
		{"soon", 0},
		{"", 0},
	} {
		if got := parseRetryAfter(tc.v, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestLooksCompressed(t *testing.T) {
	z := stored(rec(0x0A000001, 100))
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"stored by zlib at level 9 (78 DA)", z, true},
		{"a record starting with its DID", rec(0x0A000001, 100), false},
		{"15 bytes: retail compresses nothing that short", z[:15], false},
		{"78 9C, the default level", append([]byte{0, 1, 0, 0, 0x78, 0x9C}, make([]byte, 10)...), true},
		{"check bits wrong (78 9D)", append([]byte{0, 1, 0, 0, 0x78, 0x9D}, make([]byte, 10)...), false},
		{"preset dictionary (78 BB)", append([]byte{0, 1, 0, 0, 0x78, 0xBB}, make([]byte, 10)...), false},
		{"not deflate (79 ..)", append([]byte{0, 1, 0, 0, 0x79, 0x9C}, make([]byte, 10)...), false},
	} {
		if got := looksCompressed(tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRecordInflatesUnderTheCap(t *testing.T) {
	want := rec(0x0A000001, 5000)
	h := NewHTTP("http://unused/", HTTPOptions{MaxRecordBytes: 4999})
	if _, err := h.record(0x0A000001, stored(want)); err == nil || !strings.Contains(err.Error(), "declared uncompressed size 5000 exceeds the 4999-byte limit") {
		t.Fatalf("err = %v, want the cap", err)
	}
	h = NewHTTP("http://unused/", HTTPOptions{MaxRecordBytes: 5000})
	got, err := h.record(0x0A000001, stored(want))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, %v; want the record", len(got), err)
	}
	// Another record compressed: it inflates, and then its DID is wrong.
	if _, err := h.record(0x0A000002, stored(want)); err == nil || !strings.Contains(err.Error(), "inflated from") {
		t.Fatalf("err = %v, want the inflated record's DID named", err)
	}
}

func TestParseListing(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  string
	}{
		{"", "[]", ""},
		{"0x0A000002\n", "[A000002]", ""},
		{"0x13000000\r\n0x0A000002\n\n318767105\n", "[A000002 13000000 13000001]", ""},
		{"0x0A000002\n0x13", "", `the last line "0x13" has no newline`},
		{"0x0A000002\n0xZZ\n", "", `line 2: record id "0xZZ"`},
		{"0x1FFFFFFFF\n", "", "beyond 32 bits"},
	} {
		ids, err := parseListing("L", []byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprintf("%X", ids) != tc.want {
			t.Errorf("%q: %X, %v; want %s", tc.in, ids, err, tc.want)
		}
	}
}

func TestParseJSONLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  string
	}{
		{`{"id":16777217,"database_type":"Portal","file_type":"GfxObj","file_subtype":"Unknown(0)","file_offset":1024,"file_size":300}`, "[1000001]", ""},
		{"{\"id\":1}\n{\"id\":4294967295}", "[1 FFFFFFFF]", ""},
		{"{\"id\":1}\n{\"id\":2}\n", "[1 2]", ""},
		{`{"id":1677`, "", "unexpected end of JSON"},
		{`{"file_size":3}`, "", "no id of 32 bits"},
		{`{"id":-1}`, "", "no id of 32 bits"},
		{`{"id":4294967296}`, "", "no id of 32 bits"},
		{`{"id":"0x10"}`, "", "cannot unmarshal string"},
	} {
		ids, err := parseJSONLines("L", []byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprintf("%X", ids) != tc.want {
			t.Errorf("%q: %X, %v; want %s", tc.in, ids, err, tc.want)
		}
	}
}

// FuzzListings feeds arbitrary bytes to both listing decoders: no panic, and
// a listing that parses has one id per non-blank line.
func FuzzListings(f *testing.F) {
	f.Add([]byte("0x0A000002\n0x13000000\n"))
	f.Add([]byte("0x0A000002\n0x13"))
	f.Add([]byte("{\"id\":16777217,\"file_size\":300}\n{\"id\":16777218}"))
	f.Add([]byte("{\"id\":-1}\n"))
	f.Add([]byte("{\"id\":007}\n{\"id\":4294967296,\"x\":1}"))
	f.Add([]byte("{\"id\":5,\"id\":6}")) // encoding/json: the last wins
	f.Add([]byte("{\"id\":5,\"ID\":6}")) // in any case
	f.Fuzz(func(t *testing.T, b []byte) {
		if ids, err := parseListing("L", b); err == nil {
			lines := 0
			for _, l := range strings.Split(string(b), "\n") {
				if strings.TrimSpace(l) != "" {
					lines++
				}
			}
			if len(ids) != lines {
				t.Fatalf("%d ids from %d lines", len(ids), lines)
			}
		}
		// The fast path for acdatservice's own lines agrees with encoding/json.
		if ids, err := parseJSONLines("L", b); err == nil {
			var want []uint32
			for _, l := range bytes.Split(b, []byte{'\n'}) {
				if l = bytes.TrimSpace(l); len(l) == 0 {
					continue
				}
				var e struct{ ID int64 }
				if json.Unmarshal(l, &e) != nil {
					t.Fatalf("accepted %q, which encoding/json refuses", l)
				}
				want = append(want, uint32(e.ID))
			}
			if fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Fatalf("ids %v, encoding/json reads %v", ids, want)
			}
		}
	})
}

// FuzzRecord feeds arbitrary bodies to the record check: no panic, and a
// record it accepts starts with the id asked for.
func FuzzRecord(f *testing.F) {
	f.Add(rec(0x0A000001, 64))
	f.Add(stored(rec(0x0A000001, 64)))
	f.Add([]byte{0x40, 0, 0, 0, 0x78, 0xDA, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	h := NewHTTP("http://unused/", HTTPOptions{MaxRecordBytes: 1 << 20})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := h.record(0x0A000001, b)
		if err == nil && source.CheckDID(0x0A000001, out) != nil {
			t.Fatalf("accepted a record of DID %X", out[:4])
		}
	})
}
