package dat

import (
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
		err  string // substring; "" = success
	}{
		{"0x13000000", 0x13000000, ""},
		{"0X13000000", 0x13000000, ""},
		{"0xa9b4ffff", 0xA9B4FFFF, ""},
		{"0xA9b4FfFf", 0xA9B4FFFF, ""},
		{"318767104", 0x13000000, ""},  // decimal, as acdatservice's README examples
		{"+318767104", 0x13000000, ""}, // Rust's i32 parse takes a "+"
		{"2847211519", 0xA9B4FFFF, ""}, // above i32: acdatservice refuses, we don't
		{"0xFFFFFFFF", 0xFFFFFFFF, ""},
		{"4294967295", 0xFFFFFFFF, ""},
		{"0x0A", 0x0A, ""},
		{"0", 0, ""},
		{"0x00000000A9B4FFFF", 0xA9B4FFFF, ""}, // leading zeros do not overflow
		{"0x1FFFFFFFF", 0, "beyond 32 bits"},
		{"4294967296", 0, "beyond 32 bits"},
		{"99999999999", 0, "beyond 32 bits"},
		{"-1", 0, "want decimal or 0x-hex"},
		{"0x-1", 0, "want decimal or 0x-hex"},
		{"0x+1", 0, "want decimal or 0x-hex"},
		{"A9B4FFFF", 0, "want decimal or 0x-hex"}, // bare hex
		{"0x", 0, "want decimal or 0x-hex"},
		{"0xG", 0, "want decimal or 0x-hex"},
		{"1_000", 0, "want decimal or 0x-hex"},
		{" 12", 0, "want decimal or 0x-hex"},
		{"12.0", 0, "want decimal or 0x-hex"},
		{"", 0, "empty"},
		{strings.Repeat("1", 65), 0, "65 characters"},
	} {
		got, err := ParseID(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseID(%q): %v", tc.in, err)
		case tc.err == "" && got != tc.want:
			t.Errorf("ParseID(%q) = 0x%08X, want 0x%08X", tc.in, got, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseID(%q) = 0x%08X, %v; want error %q", tc.in, got, err, tc.err)
		}
	}
}
