// Package world is the landblock and cell geometry of Dereth that the ambient
// engine and its hosts share: positions, cell ids, offsets between positions,
// global and map coordinates, and terrain height (docs/dat-format.md §6, §8).
//
// A Position is what retail calls Position: an objcell id plus an origin that
// is local to the landblock (x east, y north, both in [0, 192)) and a z that is
// absolute. Everything here is pure arithmetic; nothing knows about audio.
package world

import (
	"errors"
	"fmt"
	"math"
)

// Geometry constants. Retail hardcodes them in LandDefs::get_vars
// (LandDefs.c, just before set_height_table 0x005A99E0; docs/dat-format.md §3.2)
// and ignores the copies in the region.
const (
	CellLength    = 24.0                          // square_length, metres per land cell
	CellsPerBlock = 8                             // lblock_length, land cells per landblock side
	BlockLength   = CellLength * CellsPerBlock    // 192 m per landblock side
	BlocksPerSide = 255                           // num_block_length: bx, by ∈ 0..254
	WorldLength   = BlockLength * BlocksPerSide   // 48960 m
	MaxOutdoorLow = CellsPerBlock * CellsPerBlock // outdoor cell ids are 1..0x40
)

// Position is an objcell id and a landblock-local origin (z absolute).
type Position struct {
	ObjCellID uint32
	X, Y, Z   float32
}

// Vec3 is a retail AC1Legacy::Vector3: three floats, world-axis aligned.
type Vec3 struct{ X, Y, Z float32 }

// LenSq is x²+y²+z² in float64, the precision retail's x87 code keeps
// between the multiplications and the compare.
func (v Vec3) LenSq() float64 {
	x, y, z := float64(v.X), float64(v.Y), float64(v.Z)
	return float64(x*x) + float64(y*y) + float64(z*z)
}

// Len is the vector's length as a float, as Position::distance returns it.
func (v Vec3) Len() float32 { return float32(math.Sqrt(v.LenSq())) }

// BlockX and BlockY are the landblock coordinates of any id in the block
// (docs/dat-format.md §8: bx = id>>24, by = (id>>16)&0xFF).
func BlockX(id uint32) int { return int(id>>24) & 0xFF }
func BlockY(id uint32) int { return int(id>>16) & 0xFF }

// LandBlockID is the cell-dat id of landblock (bx, by): bx<<24 | by<<16 | 0xFFFF.
func LandBlockID(bx, by int) uint32 {
	return uint32(bx&0xFF)<<24 | uint32(by&0xFF)<<16 | 0xFFFF
}

// ValidBlock reports whether (bx, by) is inside the 255×255 world.
func ValidBlock(bx, by int) bool {
	return bx >= 0 && bx < BlocksPerSide && by >= 0 && by < BlocksPerSide
}

// OutdoorCellID is land cell (cx, cy) of landblock (bx, by). Cell numbers are
// x-major, 1 + 8·cx + cy (retail lcoord_to_gid; docs/dat-format.md §8).
func OutdoorCellID(bx, by, cx, cy int) uint32 {
	return uint32(bx&0xFF)<<24 | uint32(by&0xFF)<<16 | uint32(1+CellsPerBlock*cx+cy)
}

// IsOutdoor reports whether objcell is a land cell: low 16 bits in 1..0x40
// (docs/dat-format.md §1.6). CellManager::ChangePosition's "outdoor-ish" test.
func IsOutdoor(objcell uint32) bool {
	low := objcell & 0xFFFF
	return low >= 1 && low <= MaxOutdoorLow
}

// CellXY is the inverse of OutdoorCellID for the low 16 bits; ok is false
// for an id that is not a land cell.
func CellXY(objcell uint32) (cx, cy int, ok bool) {
	if !IsOutdoor(objcell) {
		return 0, 0, false
	}
	n := int(objcell&0xFFFF) - 1
	return n >> 3, n & 7, true
}

// Global is the position in world metres: X = 192·bx + x, Y = 192·by + y, Z = z.
func (p Position) Global() (X, Y, Z float64) {
	return BlockLength*float64(BlockX(p.ObjCellID)) + float64(p.X),
		BlockLength*float64(BlockY(p.ObjCellID)) + float64(p.Y),
		float64(p.Z)
}

// ErrOutsideWorld is wrapped by FromGlobal and FromMap for points off the map.
var ErrOutsideWorld = errors.New("outside the world (0 ≤ X, Y < 48960 m)")

// FromGlobal places a global point in its landblock and derives the outdoor
// cell that contains it (cx = floor(x/24), retail adjust_to_outside).
func FromGlobal(X, Y, Z float64) (Position, error) {
	if !(X >= 0 && X < WorldLength && Y >= 0 && Y < WorldLength) {
		return Position{}, fmt.Errorf("world: global point (%g, %g): %w", X, Y, ErrOutsideWorld)
	}
	bx, by := int(X/BlockLength), int(Y/BlockLength)
	x, y := X-BlockLength*float64(bx), Y-BlockLength*float64(by)
	cx, cy := clampCell(int(x/CellLength)), clampCell(int(y/CellLength))
	return Position{
		ObjCellID: OutdoorCellID(bx, by, cx, cy),
		X:         float32(x), Y: float32(y), Z: float32(Z),
	}, nil
}

// Offset is retail Position::get_offset (ACE Position.GetOffset): the vector
// from `from` to `to` in world axes, 192 m per landblock step plus the
// difference of the origins, z included. It is not rotated by either frame.
func Offset(from, to Position) Vec3 {
	dbx := BlockX(to.ObjCellID) - BlockX(from.ObjCellID)
	dby := BlockY(to.ObjCellID) - BlockY(from.ObjCellID)
	// Retail adds the block offset to to.origin first, then subtracts
	// from.origin, each step a float.
	x := float32(BlockLength*float32(dbx)) + to.X
	y := float32(BlockLength*float32(dby)) + to.Y
	return Vec3{X: x - from.X, Y: y - from.Y, Z: to.Z - from.Z}
}

// Map coordinates (docs/dat-format.md §8, retail CellidToCoordinateString):
// EW = (X/24 − 1019.5)/10, NS = (Y/24 − 1019.5)/10, east and north positive.
const mapCentreCells = 1019.5

// MapCoords converts global metres to map coordinates.
func MapCoords(X, Y float64) (ns, ew float64) {
	return (Y/CellLength - mapCentreCells) / 10, (X/CellLength - mapCentreCells) / 10
}

// FromMap is the inverse of MapCoords: X = (10·EW + 1019.5)·24.
func FromMap(ns, ew float64) (X, Y float64) {
	return (10*ew + mapCentreCells) * CellLength, (10*ns + mapCentreCells) * CellLength
}

// clampCell keeps a point that rounds onto the block's far edge in cell 7.
func clampCell(c int) int {
	if c >= CellsPerBlock {
		return CellsPerBlock - 1
	}
	return c
}
