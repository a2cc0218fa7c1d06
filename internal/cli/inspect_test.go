package cli

import (
	"strings"
	"testing"
)

// inspect landblock reads an 8-digit id as written; only 0xXXYY (four
// digits) is the short form (issue 8 item 5). The demo world has landblock
// 0xA9B4 and no 0x0000 or 0x0100, so the error names the landblock read.
func TestInspectLandblockIDForms(t *testing.T) {
	cases := []struct{ arg, read string }{
		{"0x0000FFFF", "landblock 0x0000FFFF"}, // was read as 0xFFFFFFFF
		{"0x00000100", "landblock 0x0000FFFF"}, // a cell of block 0x0000; was 0x0100FFFF
		{"0x00000001", "landblock 0x0000FFFF"},
		{"0x0100", "landblock 0x0100FFFF"}, // the short form
		{"256", "landblock 0x0000FFFF"},    // decimal is a full id
	}
	for _, c := range cases {
		_, errs, code := runCmd(t, "inspect", "landblock", c.arg)
		if code == 0 || !strings.Contains(errs, c.read+":") {
			t.Errorf("inspect landblock %s: exit %d, %q; want an error naming %s", c.arg, code, errs, c.read)
		}
	}
	for _, arg := range []string{"0xA9B4", "0xa9b4", "0xA9B4FFFF", "0xA9B4001F", "0xA9B40100"} {
		out, errs, code := runCmd(t, "inspect", "landblock", arg)
		if code != 0 || !strings.Contains(out, `"0xA9B4FFFF"`) {
			t.Errorf("inspect landblock %s: exit %d, %s; want landblock 0xA9B4FFFF", arg, code, errs)
		}
	}
}
