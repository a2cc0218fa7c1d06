// Package spots holds the demo world's names and places — its region name,
// its landblock bounds and its named listening spots — apart from the world
// itself, so that a page can show them without carrying the generator (the
// synthesiser and its assets) into its wasm.
package spots

// RegionName is the demo region's name, which tells a client it is reading
// the demo world.
const RegionName = "Dereth (demo)"

// The demo's landblocks: bx in [BlockX0, BlockX0+BlocksX), by in
// [BlockY0, BlockY0+BlocksY). A map of the demo asks for nothing outside.
const (
	BlockX0, BlockY0 = 0xA4, 0xAF
	BlocksX, BlocksY = 12, 12
)

// The cottage's interior cells and their heights.
const (
	CottageBlock = 0xA9B4
	CellCottage  = CottageBlock<<16 | 0x0100
	CellCellar   = CottageBlock<<16 | 0x0101
	CellLoft     = CottageBlock<<16 | 0x0102
	CellarDepth  = 3.0 // metres below the cottage floor
	LoftHeight   = 3.0
)

// Landmark is a named listening spot. X and Y are landblock-local metres,
// Z absolute. Outdoor landmarks stand exactly on a terrain vertex, the SW
// corner of their cell, so Z is that vertex's height-table value whatever
// interpolation a reader uses, and the cell's ambient set is the one its
// terrain word names (retail reads each cell's SW vertex word, docs/dat-format.md §6.3).
type Landmark struct {
	Name, Description string
	ObjCellID         uint32
	X, Y, Z           float32
}

// Landmarks are the demo's named spots, for tests, docs and the page.
var Landmarks = []Landmark{
	{"meadow", "open grassland north of Holtburg: breeze, songbirds, crickets", 0xA8B6000B, 24, 48, 24.1296},
	{"pasture", "a quieter meadow to the west: breeze and the odd bird", 0xA5B40022, 96, 24, 16.244776},
	{"holtburg", "the village green by the cottage (the contract's example cell)", 0xA9B4001F, 72, 144, 22.223024},
	{"forest", "deep in the north-eastern forest: leaves, thrushes, a cuckoo, a woodpecker, wolves far off", 0xAEB90013, 48, 48, 22.8522},
	{"river", "standing in the river below Holtburg: running water, splashes, frogs", 0xA9B5002D, 120, 96, 22.8522},
	{"riverbank", "the meadow on the west bank facing the bluff, 76 m from the water", 0xAAB40004, 0, 72, 21.6},
	{"bluff", "a rock knoll on the east bank 63 m above the river, as far from it across as the riverbank: it hears less of the water", 0xAAB4003F, 168, 144, 84.126076},
	{"hills", "the bare top of the eastern hills, 90 m above the valley: hollow wind, gusts, ravens", 0xADB40021, 96, 0, 113.0094},
	{"coast", "the beach of the south-eastern bay: surf and gulls", 0xADB00011, 48, 0, 3.508575},
	{"snowfield", "high on the north-western mountain: cold wind, gusts, a distant wolf", 0xA4BA0031, 144, 0, 260.1168},
	{"desert", "the dunes of the south-west: dry wind, sand gusts, a hawk", 0xA5B00037, 144, 144, 24.778126},
	{"marsh", "the southern marsh by its pond: hum, frogs, insects, plops", 0xA9B00015, 48, 96, 6.0432},
	{"cottage", "inside the cottage (its cell sees outside: the meadow plays in)", CellCottage, 96, 48, 22.223024},
	{"loft", "the cottage loft, 3 m above the floor (sees outside)", CellLoft, 96, 48, 22.223024 + LoftHeight},
	{"cellar", "the cellar under the cottage, 3 m down (sees nothing outside: silence)", CellCellar, 96, 48, 22.223024 - CellarDepth},
}
