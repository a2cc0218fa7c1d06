package datfetch

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Landblock listings that are not one: each error names the listing, the
// line, and what is wrong with it.
func TestParseLandblocksErrors(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{"0xA9B4FFFF", `L: line 1: the last line "0xA9B4FFFF" has no newline`},
		{"0xA9B4FFFF\n0x0A00", `L: line 2: the last line "0x0A00" has no newline`},
		{"0xA9B4FFFF\n\n0xZZ\n", `L: line 3: "0xZZ" is not an id 0x%08X`},
		{"A9B4FFFF\n", `L: line 1: "A9B4FFFF" is not an id 0x%08X`},
		{"0x1A9B4FFFF\n", `L: line 1: "0x1A9B4FFFF" is not an id`},
		{"0x\n", `L: line 1: "0x" is not an id`},
		{"0x-1\n", `L: line 1: "0x-1" is not an id`},
		{"0x+1\n", `L: line 1: "0x+1" is not an id`},
		{"0xA9B4FFFF 0xA9B5FFFF\n", `L: line 1: "0xA9B4FFFF 0xA9B5FFFF" is not an id`},
		{"<!doctype html>\n", `L: line 1: "<!doctype html>" is not an id`},
		{"0x00000001\n" + strings.Repeat("x", 100) + "\n", `L: line 2: "` + strings.Repeat("x", 40)},
	} {
		ids, err := parseLandblocks("L", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %X, %v; want an error with %q", tc.in, ids, err, tc.err)
		}
	}
}

// landblockLine is the form a listing's line takes once trimmed, after the
// id's "0x" in any case.
var landblockLine = regexp.MustCompile(`^0[xX][0-9a-fA-F]{1,8}$`)

// FuzzParseLandblocks: any bytes give ids or an error naming the listing
// and a line; ids, written back one "0x%08X" a line, read back the same;
// every line of an accepted listing is blank or one id.
func FuzzParseLandblocks(f *testing.F) {
	for _, s := range []string{
		"", "\n", "0xA9B4FFFF\n", "0xa9b4ffff\r\n0X0A00FFFF\n\n", " 0x1 \n", "0xA9B4FFFF", "0x\n", "0x1FFFFFFFF\n",
		"A9B4FFFF\n", "0x+1\n", "0x_1\n", "<html>\n", "\x00\n", "0xA9B4FFFF\n0xA9B4",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := parseLandblocks("L", b)
		if err != nil {
			if !regexp.MustCompile(`^L: line [1-9][0-9]*: `).MatchString(err.Error()) {
				t.Fatalf("%q: error %q names no line", b, err)
			}
			return
		}
		lines := 0
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				if !landblockLine.MatchString(l) {
					t.Fatalf("%q: line %q accepted", b, l)
				}
				lines++
			}
		}
		if lines != len(ids) {
			t.Fatalf("%q: %d ids from %d id lines", b, len(ids), lines)
		}
		var out strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&out, "0x%08X\n", id)
		}
		again, err := parseLandblocks("L", []byte(out.String()))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(ids) {
			t.Fatalf("%q: %X written back reads %X, %v", b, ids, again, err)
		}
	})
}

// FuzzRetryAfter: Retry-After in any text is a delay ≥ 0, never more than
// the header says; a date parseHTTPDate takes is the IMF-fixdate
// net/http writes for it (bar the day name, which it does not check).
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{
		"", "0", "120", " 7 ", "-1", "4294967296", "1.5", "+5",
		"Wed, 02 Dec 2026 12:01:00 GMT", "Wed, 02 Dec 2026 11:59:00 GMT", "Mon, 31 Apr 2026 00:00:00 GMT",
		"Sun, 29 Feb 2028 23:59:59 GMT", "Xyz, 02 Dec 2026 12:01:00 GMT", "Wed, 02 Dec 2026 24:00:00 GMT",
		"Wed, +2 Dec 2026 12:01:00 GMT", "Wednesday, 02-Dec-26 12:01:00 GMT",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := parseRetryAfter(v, now)
		if d < 0 {
			t.Fatalf("%q: delay %v", v, d)
		}
		at, ok := parseHTTPDate(v)
		if ok {
			if w := at.Format(http.TimeFormat); w[3:] != v[3:] {
				t.Fatalf("%q read as %s", v, w)
			}
			if want := at.Sub(now); want > 0 && d != want {
				t.Fatalf("%q: delay %v, want %v", v, d, want)
			}
		}
		if d > 0 && !ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil || d != time.Duration(n)*time.Second {
				t.Fatalf("%q: delay %v from neither a date nor seconds", v, d)
			}
		}
	})
}
