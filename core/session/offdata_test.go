package session

import (
	"errors"
	"fmt"
	"testing"

	"acambient/core/dat"
	"acambient/core/world"
)

// placer is a Placer whose Resolve answers from a table: a POS text → the
// position, or an error.
type placer struct {
	at      map[string]world.Position
	fail    map[string]error
	moved   []uint32 // the objcells Move was given, in order
	enabled []bool   // what SetEnabled was given, in order
}

func (p *placer) Resolve(text string) (world.Spec, error) {
	if err, ok := p.fail[text]; ok {
		return world.Spec{}, err
	}
	pos, ok := p.at[text]
	if !ok {
		return world.Spec{}, fmt.Errorf("no position %q in the test's table", text)
	}
	return world.Spec{Pos: pos}, nil
}
func (p *placer) Move(pos world.Position) { p.moved = append(p.moved, pos.ObjCellID) }
func (p *placer) SetEnabled(on bool)      { p.enabled = append(p.enabled, on) }

// TestOffData: the page's calls in the order they settle (each with the
// number the page gave it), and what the listener's placement does: which
// calls move the player, when the engine is held or let go, when the fade
// runs, and where it ends off the data.
func TestOffData(t *testing.T) {
	const (
		river  = "0xA9B4001F/72,144,22"
		desert = "0xA9B5002D/120,96,22"
		off    = "10N,10E" // over a landblock the source lacks
		offB   = "20N,20E"
		netErr = "net"
	)
	missing := func(id uint32) error { return &MissingError{Kind: dat.KindLandBlock, ID: id} }
	type call struct {
		kind string // "move", "enable", "disable"
		pos  string
		seq  uint64
	}
	for _, tc := range []struct {
		name      string
		calls     []call
		moved     []uint32
		enabled   []bool
		fades     int
		landblock uint32
	}{
		{"on the data", []call{{"move", river, 1}, {"move", desert, 2}},
			[]uint32{0xA9B4001F, 0xA9B5002D}, nil, 0, 0},
		{"off the data, then back", []call{{"move", river, 1}, {"move", off, 2}, {"move", desert, 3}},
			[]uint32{0xA9B4001F, 0xA9B5002D}, []bool{false, true}, 1, 0},
		{"off twice: one fade, the latest landblock", []call{{"move", off, 1}, {"move", offB, 2}},
			nil, []bool{false}, 1, 0x3C3CFFFF},
		{"a slow call on the data settling after a later one off it is superseded",
			[]call{{"move", off, 2}, {"move", river, 1}},
			nil, []bool{false}, 1, 0x3A3AFFFF},
		{"a slow call off the data settling after a later one on it is superseded",
			[]call{{"move", river, 2}, {"move", off, 1}},
			[]uint32{0xA9B4001F}, nil, 0, 0},
		{"unnumbered calls always apply", []call{{"move", river, 5}, {"move", off, 0}},
			[]uint32{0xA9B4001F}, []bool{false}, 1, 0x3A3AFFFF},
		{"a network error leaves the listener where it was", []call{{"move", off, 1}, {"move", netErr, 2}},
			nil, []bool{false}, 1, 0x3A3AFFFF},
		{"disabled off the data stays disabled back on it",
			[]call{{"move", off, 1}, {"disable", "", 0}, {"move", river, 2}, {"enable", "", 0}},
			[]uint32{0xA9B4001F}, []bool{false, false, false, true}, 1, 0},
		{"enabled off the data waits for the data", []call{{"move", off, 1}, {"enable", "", 0}},
			nil, []bool{false, false}, 1, 0x3A3AFFFF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &placer{
				at: map[string]world.Position{river: {ObjCellID: 0xA9B4001F}, desert: {ObjCellID: 0xA9B5002D}},
				fail: map[string]error{off: missing(0x3A3AFFFF), offB: missing(0x3C3CFFFF),
					netErr: errors.New("fetch failed")},
			}
			fades := 0
			o := NewOffData(p, func() { fades++ })
			for _, c := range tc.calls {
				switch c.kind {
				case "move":
					w, err := o.SetPlayer(c.pos, c.seq)
					if pos, ok := p.at[c.pos]; ok && (err != nil || w.ObjCellID != world.WhereOf(pos).ObjCellID) {
						t.Errorf("SetPlayer(%s, %d) = %+v, %v; want its own position", c.pos, c.seq, w, err)
					}
					if _, ok := p.fail[c.pos]; ok && err == nil {
						t.Errorf("SetPlayer(%s, %d): no error; want its own", c.pos, c.seq)
					}
				case "enable", "disable":
					o.SetEnabled(c.kind == "enable")
				}
			}
			if fmt.Sprint(p.moved) != fmt.Sprint(tc.moved) {
				t.Errorf("moved to %x; want %x", p.moved, tc.moved)
			}
			if fmt.Sprint(p.enabled) != fmt.Sprint(tc.enabled) {
				t.Errorf("SetEnabled calls %v; want %v", p.enabled, tc.enabled)
			}
			if fades != tc.fades {
				t.Errorf("%d fades; want %d", fades, tc.fades)
			}
			if got := o.Landblock(); got != tc.landblock {
				t.Errorf("off the data at %08X; want %08X", got, tc.landblock)
			}
		})
	}
}
