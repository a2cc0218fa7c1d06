//go:build js && wasm

package main

import (
	"math"
	"strconv"
	"syscall/js"

	"github.com/norunners/vert"

	"acambient/core/session"
	"acambient/core/world"
)

// The values that cross to JavaScript through vert (docs/architecture.md
// §4.6): flat boundary types of plain field types with js tags, made from
// the core's types here (vert rejects named scalar types such as dat.DID,
// and makes an embedded struct a nested object), ids as "0x%08X" strings
// (docs/interfaces.md §0). What has no boundary type yet (the state
// snapshot, the drained events, the region's info) still crosses as the
// JSON core/pagejson writes.

// openOptions is open's argument, taken with vert's AssignTo.
type openOptions struct {
	Portal  string `js:"portal"`  // base URL of the portal records
	Cell    string `js:"cell"`    // base URL of the cell records
	Listing bool   `js:"listing"` // the cell source lists its landblocks (landblocks.txt)
}

// jsWhere is a position in every form (docs/interfaces.md §1.2).
type jsWhere struct {
	ObjcellID string  `js:"objcellId"`
	X         float64 `js:"x"`
	Y         float64 `js:"y"`
	Z         float64 `js:"z"`
	Outdoor   bool    `js:"outdoor"`
	GX        float64 `js:"X"`
	GY        float64 `js:"Y"`
	NS        float64 `js:"ns"`
	EW        float64 `js:"ew"`
}

func whereValue(w world.Where) js.Value {
	return vert.ValueOf(jsWhere{ObjcellID: hexID(w.ObjCellID), X: f32(w.Position.X), Y: f32(w.Position.Y),
		Z: f32(w.Position.Z), Outdoor: w.Outdoor, GX: w.X, GY: w.Y, NS: w.NS, EW: w.EW}).JSValue()
}

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
		j.ID = hexID(uint32(p.ID))
	}
	if p.Landblock != 0 {
		j.Landblock = hexID(uint32(p.Landblock))
	}
	return j
}

// hexID is an id as docs/interfaces.md §0 prints it.
func hexID(id uint32) string {
	const digits = "0123456789ABCDEF"
	b := []byte("0x00000000")
	for i := range 8 {
		b[2+i] = digits[id>>(28-4*i)&0xF]
	}
	return string(b)
}

// f32 is a float32 as the shortest decimal that reads back as it, the
// number JSON had for it (core/world's MarshalJSON), not float64(v)'s
// binary tail (22.85, not 22.850000381).
func f32(v float32) float64 {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	return f
}
