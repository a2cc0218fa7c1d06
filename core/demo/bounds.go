package demo

import "acambient/core/demo/spots"

// The demo's landblocks: bx in [BlockX0, BlockX0+BlocksX), by in
// [BlockY0, BlockY0+BlocksY). A map of the demo asks for nothing outside.
const (
	BlockX0, BlockY0 = spots.BlockX0, spots.BlockY0
	BlocksX, BlocksY = spots.BlocksX, spots.BlocksY
)
