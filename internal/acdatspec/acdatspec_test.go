package acdatspec

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// The dats in order, with the names and keys lib.rs gives them and the
// spellings parse_dat_param accepts (lib_test.rs's
// test_parse_dat_param_recognizes_all_dats).
func TestDats(t *testing.T) {
	for i, tc := range []struct {
		name, key string
		spell     []string
	}{
		{"portal", "client_portal.dat", []string{"portal", "PORTAL", "client_portal.dat", "Client_Portal.DAT"}},
		{"cell", "client_cell_1.dat", []string{"cell", "client_cell.dat", "client_cell_1.dat"}},
		{"highres", "client_highres.dat", []string{"highres", "client_highres.dat"}},
		{"local_english", "client_local_English.dat", []string{"local_english", "local-english", "Local-English", "client_local_english.dat"}},
	} {
		d := Dats[i]
		if int(d) != i || d.Name() != tc.name || d.ObjectKey() != tc.key {
			t.Errorf("dat %d: %d %q %q, want %q %q", i, d, d.Name(), d.ObjectKey(), tc.name, tc.key)
		}
		for _, s := range tc.spell {
			if got, err := ParseDat(s); err != nil || got != d {
				t.Errorf("ParseDat(%q) = %v, %v; want %s", s, got, err, tc.name)
			}
		}
	}
	// test_parse_dat_param_explains_valid_names, and no fallback to portal.
	for _, s := range []string{"textures", "client_cell_2.dat", "", "portal.dat", "local english"} {
		_, err := ParseDat(s)
		if err == nil || err.Error() != "Invalid dat name: "+s+". Expected portal, cell, highres, or local_english." {
			t.Errorf("ParseDat(%q): %v", s, err)
		}
	}
	if got := Dat(7).Name(); got != "Unknown(7)" {
		t.Errorf("Dat(7).Name() = %q", got)
	}
}

// ParseFileID on lib_test.rs's vectors (test_parse_file_id_accepts_unsigned_
// 32_bit_values) and the edges of Rust's integer parse.
func TestParseFileID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"0xa7b2ffff", 2813526015, true},
		{"0XA7B2FFFF", 2813526015, true},
		{"2813526015", 2813526015, true},
		{"16777217", 0x01000001, true}, // its README's example
		{"0x1000001", 0x01000001, true},
		{"4294967295", 0xFFFFFFFF, true},
		{"0xFFFFFFFF", 0xFFFFFFFF, true},
		{"00000000000000000000001", 1, true}, // leading zeros are digits, not overflow
		{"+0", 0, true},
		{"0x+A", 10, true}, // from_str_radix takes a "+" after the prefix too
		{"-1481441281", 0, false},
		{"0x100000000", 0, false},
		{"4294967296", 0, false},
		{"+", 0, false},
		{"0x+", 0, false},
		{"-0", 0, false},
		{" 1", 0, false},
		{"1_000", 0, false},
		{"A9B4FFFF", 0, false},
		{"0x", 0, false},
		{"", 0, false},
	} {
		got, err := ParseFileID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseFileID(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// The two texts, by branch, with the input in Rust's Debug quoting.
	for in, want := range map[string]string{
		"-1":          `Invalid file ID "-1". Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.`,
		"0xZZ":        `Invalid file ID "0xZZ". Use a decimal ID or a hexadecimal ID such as 0x1000001.`,
		"\"a":         `Invalid file ID "\"a". Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.`,
		"0x100000000": `Invalid file ID "0x100000000". Use a decimal ID or a hexadecimal ID such as 0x1000001.`,
	} {
		if _, err := ParseFileID(in); err == nil || err.Error() != want {
			t.Errorf("ParseFileID(%q): %v, want %s", in, err, want)
		}
	}
	if got := RustDebug("a\"b\\c\n\x01é\t\x00"); got != `"a\"b\\c\n\u{1}é\t\0"` {
		t.Errorf("RustDebug: %s", got)
	}
}

// ParseUsize's texts are core's ParseIntError Display, and its range a
// wasm32 usize.
func TestParseUsize(t *testing.T) {
	for _, tc := range []struct {
		in, err string
		want    uint64
	}{
		{"10000", "", 10000},
		{"+5", "", 5},
		{"007", "", 7},
		{"4294967295", "", 1<<32 - 1},
		{"4294967296", "number too large to fit in target type", 0},
		{"99999999999999999999", "number too large to fit in target type", 0},
		{"", "cannot parse integer from empty string", 0},
		{"-1", "invalid digit found in string", 0},
		{" 5", "invalid digit found in string", 0},
		{"+", "invalid digit found in string", 0},
		{"0x10", "invalid digit found in string", 0},
	} {
		got, err := ParseUsize(tc.in)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("ParseUsize(%q) = %d, %v; want %d, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	if got := InvalidLimit(errString("x")); got != "Invalid limit: x" {
		t.Error(got)
	}
	if got := InvalidOffset(errString("x")); got != "Invalid offset: x" {
		t.Error(got)
	}
}

// Paging takes files_index's limit and offset, or says which is bad as
// the service does: limit first, the last of a repeated key.
func TestPaging(t *testing.T) {
	for _, tc := range []struct {
		query         string
		limit, offset uint64
		bad           string
	}{
		{"", DefaultLimit, 0, ""},
		{"limit=5&offset=7", 5, 7, ""},
		{"limit=1&limit=100000", MaxLimit, 0, ""},
		{"offset=4294967295", DefaultLimit, 1<<32 - 1, ""},
		{"limit=0", 0, 0, LimitRange},
		{"limit=100001", 0, 0, LimitRange},
		{"limit=x&offset=y", 0, 0, "Invalid limit: invalid digit found in string"},
		{"limit=0&offset=y", 0, 0, LimitRange},
		{"offset=-1", 0, 0, "Invalid offset: invalid digit found in string"},
		{"offset=", 0, 0, "Invalid offset: cannot parse integer from empty string"},
	} {
		limit, offset, bad := Paging(&url.URL{RawQuery: tc.query})
		if limit != tc.limit || offset != tc.offset || bad != tc.bad {
			t.Errorf("Paging(%q) = %d, %d, %q; want %d, %d, %q", tc.query, limit, offset, bad, tc.limit, tc.offset, tc.bad)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// FuzzParseFileID checks the parse against strconv, whose explicit-base
// ParseUint takes no sign, prefix or underscore: after acdatservice's "0x"
// and one "+", the two must agree on every input.
func FuzzParseFileID(f *testing.F) {
	for _, s := range []string{"0x13000000", "318767104", "+1", "0x+1", "-1", "0x", "", "99999999999", "0XaB", "++1", "0x0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseFileID(s)
		rest, base := s, 10
		if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
			rest, base = s[2:], 16
		}
		v, serr := strconv.ParseUint(strings.TrimPrefix(rest, "+"), base, 32)
		if (err == nil) != (serr == nil) || (err == nil && uint64(id) != v) {
			t.Fatalf("%q: %d, %v; strconv %d, %v", s, id, err, v, serr)
		}
	})
}

// FileType on asheron-rs's own vectors for from_object_id (its
// object_id_mapping_covers_known_dat_file_types) and the edges of the
// ranges, and on the records this project reads, in both dats.
func TestFileType(t *testing.T) {
	for _, tc := range []struct {
		id   uint32
		want string
	}{
		{0xDEADBEEF, "Unknown"},
		{0x00000000, "Unknown"},
		{0x0000FFFF, "LandBlock"},
		{0x0000FFFE, "LandBlockInfo"},
		{0x00001234, "WeenieDefaults"},
		{0x00000001, "WeenieDefaults"},
		{0x00010000, "Unknown"},
		{0x01000001, "GraphicsObject"},
		{0x0100FFFF, "GraphicsObject"},
		{0x01010000, "Unknown"},
		{0x02000001, "Setup"},
		{0x05FFFFFF, "SurfaceTexture"},
		{0x06000001, "Texture"},
		{0x07FFFFFF, "Texture"},
		{0x0A000001, "Wave"},
		{0x0A00FFFF, "Wave"}, // a cell dat's landblock 0x0A00FFFF too
		{0x0A010000, "Unknown"},
		{0x0E000001, "CharGen"},
		{0x0E000002, "CharacterGenerator"}, // lib_test's test_resolved_file_type_prefers_object_id_mapping
		{0x0E00000E, "SpellTable"},
		{0x0E000021, "CharGen"},
		{0x0E010001, "QualityFilter"},
		{0x0E020001, "MonitoredProperties"},
		{0x0E030000, "CharGen"},
		{0x13000000, "Region"},
		{0x13000001, "Region"},
		{0x20000012, "SoundTable"},
		{0x2000FFFF, "SoundTable"},
		{0x20010000, "Unknown"},
		{0x24FFFFFF, "StringTable"},
		{0x40000FFF, "Font"},
		{0x40001000, "FontLocal"},
		{0x78000001, "DbProperties"},
		{0x7FFFFFFF, "DbProperties"},
		// Cell records: by id alone, so landblocks and cells are Unknown.
		{0xA9B4FFFF, "Unknown"},
		{0xA9B4FFFE, "Unknown"},
		{0xA9B40100, "Unknown"},
		{0xFFFF0001, "Unknown"},
		{0x13B4FFFF, "Unknown"},
		{0x06B4FFFF, "Texture"}, // a landblock whose x byte is a texture's range
	} {
		if got := FileType(tc.id); got != tc.want {
			t.Errorf("FileType(0x%08X) = %s, want %s", tc.id, got, tc.want)
		}
	}
	for typ, want := range map[string]bool{"CharGen": true, "CharacterGenerator": true, "SpellTable": true, "Region": false, "Unknown": false} {
		if JSONRendered(typ) != want {
			t.Errorf("JSONRendered(%s) = %v", typ, !want)
		}
	}
}

// A line is FileResponse as serde_json writes it: the numbers and names of
// a real entry, and byte for byte what encoding/json makes of the struct in
// db.rs's field order.
func TestAppendLine(t *testing.T) {
	l := NewLine(Portal, 0x01000001, 1024, 300)
	const want = `{"id":16777217,"database_type":"portal","file_type":"GraphicsObject","file_subtype":"None","file_offset":1024,"file_size":300}`
	if got := string(AppendLine(nil, l)); got != want {
		t.Errorf("AppendLine:\n%s\nwant\n%s", got, want)
	}
	for _, l := range []Line{l, NewLine(Cell, 0xFFFFFFFF, 0xFFFFFFFF, 0), NewLine(LocalEnglish, 0, 0, 1)} {
		j, _ := json.Marshal(l)
		if got := string(AppendLine([]byte("x"), l)); got != "x"+string(j) {
			t.Errorf("AppendLine %s, encoding/json %s", got, j)
		}
	}
}

// Query takes the last of repeated keys and tells an empty value from none.
func TestQuery(t *testing.T) {
	for _, tc := range []struct {
		q, v string
		ok   bool
	}{
		{"", "", false},
		{"limit=1&limit=2", "2", true},
		{"limit=", "", true},
		{"offset=3", "", false},
		{"limit=%2B2", "+2", true},
		{"limit=+2", " 2", true}, // "+" in a query is a space
	} {
		v, ok := Query(&url.URL{RawQuery: tc.q}, "limit")
		if v != tc.v || ok != tc.ok {
			t.Errorf("Query(%q) = %q, %v; want %q, %v", tc.q, v, ok, tc.v, tc.ok)
		}
	}
	if got := FileNotFound(0xA000404); got != "File not found with ID 167773188 (0xA000404)" {
		t.Error(got)
	}
	if got := UnsupportedFormat("xml"); got != `Unsupported format "xml". Omit format for binary data or use format=json for supported file types.` {
		t.Error(got) // lib_test.rs's text
	}
	if got := JSONUnsupported("Region"); got != "JSON export is not supported for file type Region" {
		t.Error(got)
	}
}
