package demo

// The demo's landblocks: bx in [BlockX0, BlockX0+BlocksX), by in
// [BlockY0, BlockY0+BlocksY). A map of the demo asks for nothing outside.
const (
	BlockX0, BlockY0 = blockX0, blockY0
	BlocksX, BlocksY = blocksX, blocksY
)
