// Package demo is the built-in demo world: a small Dereth of 12×12
// landblocks with its own region, sound tables and synthesised waves, for
// users without the game's dats. Build gives its records as bytes, exactly
// as the retail dats store them; World.Dats encodes them as a real pair of
// dats. Everything is deterministic: the same bytes on every build.
//
// # Geography
//
// Landblocks 0xA4..0xAF (west → east) by 0xAF..0xBA (south → north), so
// Holtburg's block 0xA9B4 and the contract examples fall inside. North is
// up; each character pair is 4×4 land cells (96 m); Map draws this:
//
//	      A4  A5  A6  A7  A8  A9  AA  AB  AC  AD  AE  AF    (bx)
//	  BA  **********^^................TTTTTTTTTTTTTTTTTTTT
//	      ********^^^^................TTTTTTTTTTTTTTTTTTTT
//	  B9  ********^^^^..............,,TTTTTTTTTTTTTTTTTTTT
//	      ******~~^^^^..............,,TTTTTTTTTTTTTTTTTTTT
//	  B8  ^^^^^^~~~~..................TTTTTTTTTTTTTTTTTTTT
//	      ^^^^^^^^~~~~....,,,,........TTTTTTTTTTTTTTTTTTTT
//	  B7  ,,,,,,....~~~~....,,,,..,,,,TTTTTTTTTTTTTTTTTTTT
//	      ,,,,,,,,,,..~~~~....,,,,,,,,TTTTTTTTTTTTTTTTTTTT
//	  B6  ..,,,,,,,,....~~~~......,,,,TTTTTTTTTTTTTTTTTTTT
//	      ,,,,,,,,,,......~~~~~~......TT..........,,,,,,..
//	  B5  ,,,,,,,,,,........~~~~~~......^^^^^^....,,,,,,..
//	      ,,,,,,,,,,............~~~~....^^^^^^^^^^^^^^^^..
//	  B4  ..==========............~~~~..^^^^^^^^^^^^^^^^..
//	      ....,,,,,,,,======....HH==~~....^^^^^^^^^^^^....
//	  B3  ....,,,,,,,,........====..~~~~....^^^^^^^^......
//	      dddddddddd,,..dd,,,,,,,,,,,,~~....^^^^^^^^......
//	  B2  dddddddddddddddd..,,,,,,,,,,~~~~,,,,^^^^^^....,,
//	      dddddddddddddddd,,,,,,,,,,,,,,~~~~,,,,^^......ss
//	  B1  dddddddddddddddd,,,,..,,,,,,,,..~~~~,,....sswwww
//	      dddddddddddddddd....%%%%%%%%....,,~~~~..sswwwwww
//	  B0  dddddddddddddddd..%%%%oooo%%..,,,,,,~~~~wwwwwwww
//	      dddddddddddddddd....%%%%%%%%....,,,,,,wwwwwwwwww
//	  AF  dddddddddddddddd....................sswwwwwwwwww
//	      dddddddddddddddd....................sswwwwwwwwww
//	 (by)
//	. meadow (lively)   , meadow (quiet)   = road   T forest   ~ river
//	s beach   w sea   * snow/ice   ^ rock   d desert   % marsh   o pond   H cottage
//
// A river runs from the snowy mountain in the north-west, past Holtburg
// (where the road meets it at a ford) and into the bay in the south-east. A
// marsh with a pond lies west of the river's mouth, a desert of dunes
// fills the south-west, a forest the north-east, and bare-topped hills
// rise east of the river; one knoll, the bluff, stands 63 m straight above
// the water, and hears less of it than the bank across, since retail's
// ambient distance is 3D. Above 190 m the ground is snow, between 115 and
// 190 m rock. The cottage (EnvCells 0xA9B40100 with a loft 0x0102, both
// seen_outside, and a cellar 0x0101 that is not) stands by the village
// green. Landmarks names listening spots in each.
//
// Heights come from the region's height table, z(i) = i/2 + i³/40000 m:
// half-metre steps in the lowlands, over 5 m a step near the 542 m top.
// Terrain and heights are functions of global vertex coordinates, so
// neighbouring landblocks agree on their shared edges.
//
// # Sound sets
//
// Each terrain class resolves (terrain type → scene type → STB) to its own
// ambient set. Every set has one constant bed, re-fired every (length −
// 0.75 s) with equal-power fades so the firings cross-fade, and a few
// intermittent one-shots:
//
//	meadow (lively)  breeze; songbirds, crickets   Grassland, LushGrass, PatchyGrassland,
//	meadow (quiet)   breeze; fewer songbirds         PatchyDirt, PackedDirt: ordinals 0 and 1
//	forest           leaves; thrushes, cuckoo,       ForestFloor, Moss, DarkMoss
//	                 woodpecker, wolves (one howl is the MP3 wave)
//	river            running water; splashes, frogs  WaterRunning, FauxWaterRunning
//	coast            surf (MS-ADPCM); gulls, splashes  the seas, SandGrey (beach)
//	snowfield        cold wind (8-bit); gusts, wolves  Snow, Ice, BlueIce
//	desert           dry wind; sand gusts, a hawk    SandYellow, SandRockStrewn
//	marsh            hum and insects (MS-ADPCM);     MarshSparseSwamp, MudRichDirt,
//	                 frogs, crickets, plops          WaterStandingFresh, SeaSlime
//	rock             hollow wind; gusts, ravens,     BarrenRock, SemiBarrenRock,
//	                 wolves                          SedimentaryRock, ObsidianPlain, Argila
//
// The village street (PackedDirt, ordinal 2) and DesolateLands name no scene
// type, and the volcanic and Olthoi ground a scene type with no STB: all of
// these are silent, and the cells around them carry the sound.
//
// Authoring follows the retail engine: a child of N ≥ 2 variants never
// plays its last (index trunc((N−1)·u)), so every such child repeats its
// first variant last; variants carry probabilities of 0.6–0.9, which gate
// each firing; the entry volume is ignored on the ambient path, so
// loudness lives in AmbientSoundDesc.volume.
//
// # Waves
//
// Thirty-one waves, synthesised at build time by internal/synth from seeded
// generators: filtered noise beds with slow modulation, FM birdsong, pulsed
// frog croaks, cricket pulse trains, wolf howls with vibrato, breath and a
// reverberant tail, gull and raven calls, gusts, splashes. They use every
// path of core/audio: 16-bit and 8-bit PCM, MS-ADPCM (cbSize 32, the seven
// standard coefficients) and one MP3 (MPEGLAYER3WAVEFORMAT, raw frames),
// at 11025, 22050 and 44100 Hz. The MP3 is committed as assets/wolf_howl.mp3
// and regenerated with `go run ./core/demo/internal/mkmp3`.
package demo
