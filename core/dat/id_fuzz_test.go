package dat

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseID holds ParseID to docs/interfaces.md §0 on any text: decimal
// with at most one leading "+", or hex after "0x"/"0X", within 32 bits;
// strconv's explicit-base ParseUint (no sign, prefix or underscore) is the
// reference. An id it takes reads back from DID's "0x%08X" and from
// decimal; an error names the text (or, past 64 characters, its length).
func FuzzParseID(f *testing.F) {
	for _, s := range []string{
		"0xA9B4001F", "0Xa9b4001f", "2847146015", "+1", "0x", "0x+1", "-1", "", " 1", "1 ", "0x1_0", "1_0",
		"4294967295", "4294967296", "0xFFFFFFFF", "0x100000000", "0b101", "0o7", "00017", "++1", "0x0x1",
		strings.Repeat("0", 64), strings.Repeat("0", 65),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		rest, base := s, 10
		if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
			rest, base = s[2:], 16
		} else {
			rest = strings.TrimPrefix(rest, "+")
		}
		want, werr := strconv.ParseUint(rest, base, 32)
		if len(s) > 64 {
			werr = strconv.ErrSyntax
		}
		if (err == nil) != (werr == nil) || err == nil && uint64(id) != want {
			t.Fatalf("%q: %d, %v; want %d, %v", s, id, err, want, werr)
		}
		if err != nil {
			if len(s) <= 64 && !strings.Contains(err.Error(), strconv.Quote(s)) && s != "" {
				t.Fatalf("%q: error %q does not name it", s, err)
			}
			return
		}
		for _, again := range []string{DID(id).String(), strconv.FormatUint(uint64(id), 10)} {
			if back, err := ParseID(again); err != nil || back != id {
				t.Fatalf("%q: 0x%08X written %q reads 0x%08X, %v", s, id, again, back, err)
			}
		}
	})
}
