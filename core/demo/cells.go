package demo

import (
	"acambient/core/demo/spots"
	"encoding/binary"
	"math"

	"acambient/core/dat"
)

// The cottage in Holtburg's landblock 0xA9B4: a main room that sees
// outdoors (retail's seen_outside: the outdoor ambience plays inside), a loft
// that does too, and a cellar that does not (indoors, silence: retail has no
// indoor ambience, docs/retail.md §A5).
const (
	cottageBlock = spots.CottageBlock
	cellCottage  = spots.CellCottage
	cellCellar   = spots.CellCellar
	cellLoft     = spots.CellLoft
	cellarDepth  = spots.CellarDepth
	loftHeight   = spots.LoftHeight
)

// cottageSpot is the cottage's landblock-local position: the village vertex.
var cottageSpot = [2]float32{float32(village[0]-8*(cottageBlock>>8-blockX0)) * 24, float32(village[1]-8*(cottageBlock&0xFF-blockY0)) * 24}

// envCellSpec is the part of an EnvCell the demo varies.
type envCellSpec struct {
	id        uint32
	flags     uint32
	surfaces  []uint16 // low 16 bits of 0x08xxxxxx surface ids; kept even so what follows stays 4-aligned
	env       uint16   // low 16 bits of the 0x0Dxxxxxx environment
	structure uint16
	dz        float32 // height above the ground at the cottage
	portals   []portal
	visible   []uint16
	statics   []uint32 // 0x01/0x02 object ids placed at the cell origin
}

// portal is a CellPortal: u16 flags, u16 polygon, u16 other cell (0xFFFF =
// outdoors), u16 other portal.
type portal struct{ flags, polygon, other, otherPortal uint16 }

var envCells = []envCellSpec{
	{cellCottage, dat.EnvCellSeenOutside | dat.EnvCellHasStaticObjs, []uint16{0x032A, 0x032B}, 0x0349, 0, 0,
		[]portal{{0x0002, 0, 0xFFFF, 0}, {0x0000, 3, 0x0101, 0}, {0x0000, 5, 0x0102, 0}}, []uint16{0x0101, 0x0102},
		[]uint32{0x02000A3C}},
	{cellCellar, 0, []uint16{0x032C, 0x032D}, 0x034A, 1, -cellarDepth,
		[]portal{{0x0000, 1, 0x0100, 1}}, []uint16{0x0100}, nil},
	{cellLoft, dat.EnvCellSeenOutside, []uint16{0x032A, 0x032E}, 0x034B, 2, loftHeight,
		[]portal{{0x0000, 2, 0x0100, 2}}, []uint16{0x0100}, nil},
}

// envCell builds the record after the DBObj prefix the way retail lays it
// out (ACE EnvCell.cs, DRW EnvCell): surfaces, environment, cell structure,
// position frame (origin, quaternion w x y z), portals, visible cells, then
// the static objects when flag 0x2 is set.
func (s envCellSpec) envCell(ground float32) *dat.EnvCell {
	c := &dat.EnvCell{
		ID: dat.DID(s.id), Flags: s.flags, CellID: dat.DID(s.id),
		NumSurfaces: uint8(len(s.surfaces)), NumPortals: uint8(len(s.portals)), NumVisibleCells: uint16(len(s.visible)),
	}
	var b []byte
	u16 := func(v uint16) { b = binary.LittleEndian.AppendUint16(b, v) }
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	f32 := func(v float32) { u32(math.Float32bits(v)) }
	frame := func(x, y, z float32) {
		f32(x)
		f32(y)
		f32(z)
		f32(1) // identity rotation
		f32(0)
		f32(0)
		f32(0)
	}
	for _, v := range s.surfaces {
		u16(v)
	}
	u16(s.env)
	u16(s.structure)
	frame(cottageSpot[0], cottageSpot[1], ground+s.dz)
	for _, p := range s.portals {
		u16(p.flags)
		u16(p.polygon)
		u16(p.other)
		u16(p.otherPortal)
	}
	for _, v := range s.visible {
		u16(v)
	}
	if s.flags&dat.EnvCellHasStaticObjs != 0 {
		u32(uint32(len(s.statics)))
		for _, id := range s.statics {
			u32(id)
			frame(cottageSpot[0]+2, cottageSpot[1]+1.5, ground+s.dz)
		}
	}
	c.Rest = b
	return c
}
