//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/norunners/vert"

	"acambient/core/pageval"
	"acambient/core/session"
	"acambient/core/world"
)

// The values that cross to JavaScript go through vert (docs/architecture.md
// §4.6): options in with AssignTo into the plain tagged structs here;
// state, events, captions, info, stats, positions and errors out with
// ValueOf of boundary types, flat structs of plain field types with js
// tags (vert rejects named scalar types such as dat.DID, and makes an
// embedded struct a nested object), ids as "0x%08X" strings
// (docs/interfaces.md §0). core/pageval makes them from the core's types
// (natively tested against the contract's JSON); a tile is mapview.Tile.

// openOptions is open's argument, taken with vert's AssignTo.
type openOptions struct {
	Portal  string `js:"portal"`  // base URL of the portal records
	Cell    string `js:"cell"`    // base URL of the cell records
	Listing bool   `js:"listing"` // the cell source lists its landblocks (landblocks.txt)
}

// renderOptions are render's numbers as ambient.js sends them (an object,
// taken with AssignTo), nil where a key is missing: the command's defaults
// (docs/interfaces.md §1) apply there.
type renderOptions struct {
	Seconds *float64 `js:"seconds"`
	Seed    *float64 `js:"seed"`
	Rate    *int     `js:"rate"`
	Volume  *float64 `js:"volume"`
	Tick    *float64 `js:"tick"`
}

// valueOf hands v, a boundary type, to JavaScript.
func valueOf(v any) js.Value { return vert.ValueOf(v).JSValue() }

func whereValue(w world.Where) js.Value { return valueOf(pageval.WhereOf(w)) }

// jsProblem is what an error says besides its message (docs/interfaces.md
// §3.4); empty fields are left off the Error.
type jsProblem struct {
	Code      string `js:"code"`
	ID        string `js:"id"`
	Landblock string `js:"landblock"`
	Reason    string `js:"reason"`
	Status    int    `js:"status"`
}

func problemOf(p session.Problem) jsProblem {
	j := jsProblem{Code: string(p.Code), Reason: p.Reason, Status: p.Status}
	if p.ID != 0 {
		j.ID = pageval.HexID(uint32(p.ID))
	}
	if p.Landblock != 0 {
		j.Landblock = pageval.HexID(uint32(p.Landblock))
	}
	return j
}
