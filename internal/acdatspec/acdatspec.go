// Package acdatspec holds the facts of acdatservice's HTTP surface
// (github.com/amoeba/acdatservice, the service behind dats.treestats.net)
// that both our server's acdatservice routes (server/acdat.go) and the test
// emulation of the service (internal/testkit/acdatsvc) answer with: its four dats and
// their names, its parsers of a dat name, a file id and a paging number, its
// error texts, its file-type names and the shape of a listing line.
//
// Read from its source, not copied from it: src/lib.rs (DatDatabaseType and
// its name/object_key/Display, parse_dat_param, parse_file_id), src/routes.rs
// (dats_index, files_index, files_get), src/db.rs (FileResponse),
// src/bin/create_index.rs (what the index holds) and src/lib_test.rs; and the
// crate it uses, amoeba/asheron-rs (crates/acprotocol/src/dat/enums/
// dat_file_type.rs: DatFileType::from_object_id, DatFileSubtype), whose enums
// are rendered by strum's Display: the variant's name.
//
// What each side does with these facts (routing, paging, which bytes a
// record is answered with) is its own, so that a test comparing the two
// compares behaviour; the facts here are pinned by this package's tests
// against the source's own vectors.
package acdatspec

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// DefaultLimit and MaxLimit are files_index's paging bounds (routes.rs:
// limit defaults to 10000, "limit must be between 1 and 100000").
const (
	DefaultLimit = 10000
	MaxLimit     = 100000
)

// Dat is one of acdatservice's dats: lib.rs's DatDatabaseType, whose
// as_u32 is this number (the database_type column of its index).
type Dat int

const (
	Portal Dat = iota
	Cell
	Highres
	LocalEnglish
)

// Dats are the four in DatDatabaseType's order, which is also the order of
// /dats's keys (routes.rs DatsResponse).
var Dats = [...]Dat{Portal, Cell, Highres, LocalEnglish}

// Name is DatDatabaseType::name, which its Display writes too: the key and
// "name" of /dats, and the "database_type" of a listing line (db.rs renders
// the index's number through DatDatabaseType::from_u32 and to_string).
func (d Dat) Name() string {
	switch d {
	case Portal:
		return "portal"
	case Cell:
		return "cell"
	case Highres:
		return "highres"
	case LocalEnglish:
		return "local_english"
	}
	return fmt.Sprintf("Unknown(%d)", int(d)) // db.rs's text for a number it has no variant for
}

// ObjectKey is DatDatabaseType::object_key: the R2 object /dats reports for
// a dat its index holds no metadata row for (build_dat_info's default).
func (d Dat) ObjectKey() string {
	switch d {
	case Portal:
		return "client_portal.dat"
	case Cell:
		return "client_cell_1.dat"
	case Highres:
		return "client_highres.dat"
	case LocalEnglish:
		return "client_local_English.dat"
	}
	return ""
}

// ParseDat is parse_dat_param: a short name or a client file name, any
// case; anything else is an error whose text files_index and files_get
// answer 400 with.
func ParseDat(text string) (Dat, error) {
	switch strings.ToLower(text) {
	case "portal", "client_portal.dat":
		return Portal, nil
	case "cell", "client_cell.dat", "client_cell_1.dat":
		return Cell, nil
	case "highres", "client_highres.dat":
		return Highres, nil
	case "local_english", "local-english", "client_local_english.dat":
		return LocalEnglish, nil
	}
	return 0, fmt.Errorf("Invalid dat name: %s. Expected portal, cell, highres, or local_english.", text)
}

// ParseFileID is parse_file_id: after "0x" or "0X" a Rust u32 in base 16,
// else a Rust u32 in base 10 (so one leading "+" is allowed, a "-" is not,
// and an id beyond 32 bits is refused). Its two texts differ by the branch.
func ParseFileID(text string) (uint32, error) {
	if h, ok := strings.CutPrefix(text, "0x"); ok || strings.HasPrefix(text, "0X") {
		if !ok {
			h = text[2:]
		}
		v, err := parseRustUint(h, 16, 1<<32-1)
		if err != nil {
			return 0, fmt.Errorf("Invalid file ID %s. Use a decimal ID or a hexadecimal ID such as 0x1000001.", RustDebug(text))
		}
		return uint32(v), nil
	}
	v, err := parseRustUint(text, 10, 1<<32-1)
	if err != nil {
		return 0, fmt.Errorf("Invalid file ID %s. Use an unsigned decimal ID or hexadecimal ID such as 0x1000001.", RustDebug(text))
	}
	return uint32(v), nil
}

// ParseUsize parses limit and offset as files_index does,
// `value.parse::<usize>()`, with core's ParseIntError texts. The service runs
// as wasm32 on Cloudflare Workers, where usize is 32 bits.
func ParseUsize(s string) (uint64, error) { return parseRustUint(s, 10, 1<<32-1) }

// parseRustUint follows Rust's from_str_radix for an unsigned type: one
// optional "+" (not alone), then digits; scanning left to right, the first
// bad digit or overflow decides the error.
func parseRustUint(s string, base, max uint64) (uint64, error) {
	if s == "" {
		return 0, errors.New("cannot parse integer from empty string")
	}
	if s[0] == '+' {
		if len(s) == 1 {
			return 0, errors.New("invalid digit found in string")
		}
		s = s[1:]
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitVal(s[i])
		if !ok || d >= base {
			return 0, errors.New("invalid digit found in string")
		}
		if v > (max-d)/base {
			return 0, errors.New("number too large to fit in target type")
		}
		v = v*base + d
	}
	return v, nil
}

func digitVal(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'z':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'Z':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// Query returns a query parameter as acdatservice reads one: its query
// pairs collected into a HashMap, so the last of repeated keys wins.
func Query(u *url.URL, key string) (string, bool) {
	if u.RawQuery == "" {
		return "", false
	}
	v := u.Query()[key]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// Paging reads files_index's page from a request's query as routes.rs
// does: limit (DefaultLimit when absent), then offset (0), each a Rust
// usize, limit within 1..MaxLimit. bad is the 400 text of the first that
// fails ("" when both are good).
func Paging(u *url.URL) (limit, offset uint64, bad string) {
	limit = DefaultLimit
	if s, ok := Query(u, "limit"); ok {
		v, err := ParseUsize(s)
		if err != nil {
			return 0, 0, InvalidLimit(err)
		}
		limit = v
	}
	if limit == 0 || limit > MaxLimit {
		return 0, 0, LimitRange
	}
	if s, ok := Query(u, "offset"); ok {
		v, err := ParseUsize(s)
		if err != nil {
			return 0, 0, InvalidOffset(err)
		}
		offset = v
	}
	return limit, offset, ""
}

// The texts files_index and files_get answer with (routes.rs, lib_test.rs).
const LimitRange = "limit must be between 1 and 100000"

// InvalidLimit, InvalidOffset and InvalidFileID wrap a parse error as
// files_index and files_get do.
func InvalidLimit(err error) string  { return "Invalid limit: " + err.Error() }
func InvalidOffset(err error) string { return "Invalid offset: " + err.Error() }
func InvalidFileID(err error) string { return "Invalid file ID: " + err.Error() }

// FileNotFound is files_get's 404 text: the id in decimal, then in hex
// without leading zeros.
func FileNotFound(id uint32) string { return fmt.Sprintf("File not found with ID %d (0x%X)", id, id) }

// UnsupportedFormat is parse_file_response_format's text for a format other
// than json (lib_test.rs: `Some("xml")`).
func UnsupportedFormat(format string) string {
	return fmt.Sprintf("Unsupported format %s. Omit format for binary data or use format=json for supported file types.", RustDebug(format))
}

// JSONUnsupported is files_get's 400 text for format=json on a record of a
// type it does not render.
func JSONUnsupported(fileType string) string {
	return "JSON export is not supported for file type " + fileType
}

// JSONRendered reports whether files_get renders records of the type as
// JSON for format=json (its CharGen | CharacterGenerator and SpellTable arms).
func JSONRendered(fileType string) bool {
	return fileType == "CharGen" || fileType == "CharacterGenerator" || fileType == "SpellTable"
}

// RustDebug quotes s as Rust's {:?} does for a str: in double quotes, with
// \" \\ \n \r \t \0 escaped and other control characters as \u{hex}.
func RustDebug(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			if c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) {
				fmt.Fprintf(&b, `\u{%x}`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Line is one line of files_index's JSON Lines: db.rs's FileResponse, its
// fields in declaration order (serde_json writes them so). Offset and Size
// are the B-tree entry's (create_index.rs binds file.file_offset and
// file.file_size): where the record's blocks start and its stored length.
type Line struct {
	ID           uint32 `json:"id"`
	DatabaseType string `json:"database_type"`
	FileType     string `json:"file_type"`
	FileSubtype  string `json:"file_subtype"`
	FileOffset   uint32 `json:"file_offset"`
	FileSize     uint32 `json:"file_size"`
}

// SubtypeNone is DatFileSubtype::None's Display: what create_index.rs
// records for every record but a 32×32 texture (Icon). Neither our server
// nor the emulation decodes textures, so every line says None (README).
const SubtypeNone = "None"

// NewLine is the line for record id of dat, at offset with size stored
// bytes: its file_type by FileType, its subtype None.
func NewLine(d Dat, id, offset, size uint32) Line {
	return Line{ID: id, DatabaseType: d.Name(), FileType: FileType(id), FileSubtype: SubtypeNone, FileOffset: offset, FileSize: size}
}

// AppendLine appends l as serde_json::to_string writes a FileResponse:
// compact, fields in order. (strconv, not encoding/json: a page is 10000
// lines; the strings here never need escaping.)
func AppendLine(b []byte, l Line) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, uint64(l.ID), 10)
	b = append(b, `,"database_type":"`...)
	b = append(b, l.DatabaseType...)
	b = append(b, `","file_type":"`...)
	b = append(b, l.FileType...)
	b = append(b, `","file_subtype":"`...)
	b = append(b, l.FileSubtype...)
	b = append(b, `","file_offset":`...)
	b = strconv.AppendUint(b, uint64(l.FileOffset), 10)
	b = append(b, `,"file_size":`...)
	b = strconv.AppendUint(b, uint64(l.FileSize), 10)
	return append(b, '}')
}
