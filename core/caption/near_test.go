package caption_test

import (
	"strings"
	"testing"

	"acambient/core/ambient"
	"acambient/core/caption"
	"acambient/core/dat"
)

// The README's "Near is −20 dB or louder": a call sent at −20 whole dB is
// near, one at −21 far, in the words and in the event's near.
func TestNearIsMinus20dBOrLouder(t *testing.T) {
	w := demoWorld(t)
	r, err := dat.DecodeRegion(dat.RegionID, w.Portal[uint32(dat.RegionID)])
	if err != nil {
		t.Fatal(err)
	}
	if caption.NearDB != -20 {
		t.Fatalf("NearDB %d; the README says −20 dB", caption.NearDB)
	}
	for _, tc := range []struct {
		db   int
		near bool
	}{{-19, true}, {-20, true}, {-21, false}, {-35, false}} {
		c := caption.New(r)
		l := caption.Listener{Camera: true}
		c.Tick(0, []ambient.Event{{Kind: ambient.KindPlay, STBIndex: 2, Dir: 3, DB: tc.db, Wave: 0x0A000112}}, false, nil, l)
		got, ok := c.Tick(1, nil, false, nil, l)
		word := map[bool]string{true: ", near", false: ", far"}[tc.near]
		if !ok || got.Near != tc.near || !strings.HasSuffix(got.Text, word) || got.DB != tc.db {
			t.Errorf("a call at %d dB: %+v %v; want near %v, %q", tc.db, got, ok, tc.near, word)
		}
	}
}
