package world

import (
	"regexp"
	"slices"
	"testing"
)

// The patterns the hand matchers replace (docs/interfaces.md §1.1's /loc and map
// forms); the tests hold the matchers to them. A coordinate holds no "]"
// (FuzzPOSMatchers: "0X0[] 0 0]" matched the pattern with "]" for x; the
// matcher ends the brackets at the first "]", and no number has one).
var (
	locRe = regexp.MustCompile(`^(?:Your location is:\s*)?(0[xX][0-9A-Fa-f]{1,8})\s*\[\s*([^\s\]]+)\s+([^\s\]]+)\s+([^\s\]]+)\s*\](?:\s+\S+\s+\S+\s+\S+\s+\S+)?$`)
	mapRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?)\s*([NSns])[\s,]+([0-9]+(?:\.[0-9]*)?)\s*([EWew])$`)
)

var posMatchSeeds = []string{
	"0x7D64000D [51.9 112.1 11.9]",
	"Your location is: 0x7D64000D [51.9 112.1 11.9] 1 0 0 0",
	"Your location is:0x7D64000D[51.9 112.1 11.9]",
	"0x7D64000D [51.9 112.1]",
	"0x7D64000D [51.9 112.1 11.9] 1 0 0",
	"0x7D64000D [51.9 112.1 11.9]1 0 0 0",
	"0x123456789 [1 2 3]",
	"0x [1 2 3]",
	"0xA9B4001F [ 1  2 3 ]",
	"42.1N,33.6E", "42.1N, 33.6E", "42.1 n 33.6 w", "42.N,33.E", "42.1N33.6E", "42.1N,,33.6E",
	".5N,1E", "42.1N,33.6E ", "42.1X,33.6E", "1N,2E,", "0S 0W",
}

func TestPOSMatchersAgreeWithThePatterns(t *testing.T) {
	for _, s := range posMatchSeeds {
		checkPOSMatchers(t, s)
	}
}

func FuzzPOSMatchers(f *testing.F) {
	for _, s := range posMatchSeeds {
		f.Add(s)
	}
	f.Fuzz(checkPOSMatchers)
}

func checkPOSMatchers(t *testing.T, s string) {
	m := locRe.FindStringSubmatch(s)
	cell, xyz, ok := matchLoc(s)
	if ok != (m != nil) || ok && (cell != m[1] || !slices.Equal(xyz, m[2:5])) {
		t.Errorf("/loc %q: matcher (%v %q %q), pattern %q", s, ok, cell, xyz, m)
	}
	mm := mapRe.FindStringSubmatch(s)
	got, ok := matchMap(s)
	if ok != (mm != nil) || ok && !slices.Equal(got[1:], mm[1:]) {
		t.Errorf("map %q: matcher (%v %q), pattern %q", s, ok, got, mm)
	}
}

func TestPOSMatchersVerticalTab(t *testing.T) {
	checkPOSMatchers(t, "0x1 [1\v2 3]")
	checkPOSMatchers(t, "0x1 [1 2 3]\v1 2 3 4")
}
