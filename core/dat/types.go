// Package dat holds the record types of the retail Asheron's Call dats that the
// ambient engine reads, and their byte codecs (docs/dat-format.md §2–§9).
//
// Every decoder takes the requested id and the record bytes exactly as the
// container stores them (decompressed, starting at the DID) and consumes every
// byte; every encoder reproduces the decoded bytes exactly. The package does no I/O.
package dat

import (
	"fmt"
	"strings"
)

// DID is a full 32-bit data id. It prints, and marshals to JSON, as "0x%08X"
// (docs/interfaces.md §0: ids are uppercase 8-digit hex strings in output).
type DID uint32

func (d DID) String() string { return fmt.Sprintf("0x%08X", uint32(d)) }

// MarshalText makes DIDs print as "0x%08X" strings in JSON, also as map keys.
func (d DID) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText accepts decimal or 0x-hex in any case (docs/interfaces.md §0).
func (d *DID) UnmarshalText(b []byte) error {
	v, err := ParseID(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	*d = DID(v)
	return nil
}

// ---- Region 0x13000000 (docs/dat-format.md §3) ----

// Region is CRegionDesc as packed on disk.
type Region struct {
	ID           DID         `json:"id"`
	RegionNumber uint32      `json:"regionNumber"`
	Version      uint32      `json:"version"` // retail refuses anything but 3
	RegionName   string      `json:"regionName"`
	LandDefs     LandDefs    `json:"landDefs"`
	GameTime     GameTime    `json:"gameTime"`
	PartsMask    uint32      `json:"partsMask"`
	SkyInfo      *SkyDesc    `json:"skyInfo,omitempty"`    // present iff PartsMask&PartSky
	SoundInfo    *SoundDesc  `json:"soundInfo,omitempty"`  // iff PartsMask&PartSound
	SceneInfo    *SceneDesc  `json:"sceneInfo,omitempty"`  // iff PartsMask&PartScene
	TerrainInfo  TerrainDesc `json:"terrainInfo"`          // always on disk (§3.4)
	RegionMisc   *RegionMisc `json:"regionMisc,omitempty"` // iff PartsMask&PartMisc

	// rawStrings keeps the stored bytes of PStrings whose on-disk form is not
	// the canonical encoding of their value, so Encode is exact (pstring.go).
	rawStrings []rawPString
}

// parts_mask bits (docs/dat-format.md §3.4).
const (
	PartSound   = 0x001
	PartScene   = 0x002
	PartTerrain = 0x004 // not tested by retail UnPack: terrain is always present
	PartSky     = 0x010
	PartMisc    = 0x200
)

// LandDefs is the 1056-byte block at region offset 0x14 (docs/dat-format.md §3.2). Retail
// ignores the eight scalars and keeps only the height table.
type LandDefs struct {
	NumBlockLength  int32        `json:"numBlockLength"`
	NumBlockWidth   int32        `json:"numBlockWidth"`
	SquareLength    float32      `json:"squareLength"`
	LBlockLength    int32        `json:"lblockLength"`
	VertexPerCell   int32        `json:"vertexPerCell"`
	MaxObjHeight    float32      `json:"maxObjHeight"`
	SkyHeight       float32      `json:"skyHeight"`
	RoadWidth       float32      `json:"roadWidth"`
	LandHeightTable [256]float32 `json:"landHeightTable"`
}

// GameTime (docs/dat-format.md §3.3).
type GameTime struct {
	ZeroTimeOfYear float64     `json:"zeroTimeOfYear"`
	ZeroYear       uint32      `json:"zeroYear"`
	DayLength      float32     `json:"dayLength"`
	DaysPerYear    uint32      `json:"daysPerYear"`
	YearSpec       string      `json:"yearSpec"`
	TimesOfDay     []TimeOfDay `json:"timesOfDay"`
	DaysOfWeek     []WeekDay   `json:"daysOfWeek"`
	Seasons        []Season    `json:"seasons"`
}

type TimeOfDay struct {
	Begin   float32 `json:"begin"`
	IsNight uint32  `json:"isNight"` // bool32, kept as stored so encoding is exact
	Name    string  `json:"name"`
}

type WeekDay struct {
	Name string `json:"name"`
}

type Season struct {
	Begin uint32 `json:"begin"`
	Name  string `json:"name"`
}

// SkyDesc (docs/dat-format.md §3.5).
type SkyDesc struct {
	TickSize      float64    `json:"tickSize"`
	LightTickSize float64    `json:"lightTickSize"`
	DayGroups     []DayGroup `json:"dayGroups"`
}

type DayGroup struct {
	ChanceOfOccur float32        `json:"chanceOfOccur"`
	DayName       string         `json:"dayName"`
	SkyObjects    []SkyObject    `json:"skyObjects"`
	SkyTimes      []SkyTimeOfDay `json:"skyTimes"`
}

type SkyObject struct {
	BeginTime        float32 `json:"beginTime"`
	EndTime          float32 `json:"endTime"`
	BeginAngle       float32 `json:"beginAngle"`
	EndAngle         float32 `json:"endAngle"`
	TexVelocityX     float32 `json:"texVelocityX"`
	TexVelocityY     float32 `json:"texVelocityY"`
	DefaultGfxObject DID     `json:"defaultGfxObject"`
	DefaultPesObject DID     `json:"defaultPesObject"`
	Properties       uint32  `json:"properties"`
}

type SkyTimeOfDay struct {
	Begin         float32            `json:"begin"`
	DirBright     float32            `json:"dirBright"`
	DirHeading    float32            `json:"dirHeading"`
	DirPitch      float32            `json:"dirPitch"`
	DirColor      uint32             `json:"dirColor"` // ColorARGB 0xAARRGGBB
	AmbBright     float32            `json:"ambBright"`
	AmbColor      uint32             `json:"ambColor"`
	MinWorldFog   float32            `json:"minWorldFog"`
	MaxWorldFog   float32            `json:"maxWorldFog"`
	WorldFogColor uint32             `json:"worldFogColor"`
	WorldFog      uint32             `json:"worldFog"`
	SkyObjReplace []SkyObjectReplace `json:"skyObjReplace"`
}

type SkyObjectReplace struct {
	ObjectIndex uint32  `json:"objectIndex"`
	GfxObjID    DID     `json:"gfxObjId"`
	Rotate      float32 `json:"rotate"`
	Transparent float32 `json:"transparent"`
	Luminosity  float32 `json:"luminosity"`
	MaxBright   float32 `json:"maxBright"`
}

// SoundDesc is the region's list of ambient sound sets (docs/dat-format.md §3.6).
type SoundDesc struct {
	STBDescs []AmbientSTBDesc `json:"stbDescs"`
}

// AmbientSTBDesc names a SoundTable and the ambient sounds drawn from it.
type AmbientSTBDesc struct {
	STBID         DID                `json:"stbId"`
	AmbientSounds []AmbientSoundDesc `json:"ambientSounds"`
}

// AmbientSoundDesc is 20 bytes on disk; is_continuous is derived, not stored.
type AmbientSoundDesc struct {
	SType      uint32  `json:"stype"` // Sound enum (docs/dat-format.md §9.1), key into the SoundTable
	Volume     float32 `json:"volume"`
	BaseChance float32 `json:"baseChance"`
	MinRate    float32 `json:"minRate"`
	MaxRate    float32 `json:"maxRate"`
}

// IsContinuous is retail's derivation at AmbientSTBDesc::UnPack 0x005519A9:
// base_chance == 0.0 selects ConstantSound (docs/retail.md §A3.1, byte-verified).
func (a AmbientSoundDesc) IsContinuous() bool { return a.BaseChance == 0 }

// SceneDesc (docs/dat-format.md §3.7).
type SceneDesc struct {
	SceneTypes []SceneType `json:"sceneTypes"`
}

// SceneType: STBIndex is an index into SoundDesc.STBDescs, 0xFFFFFFFF = none.
type SceneType struct {
	STBIndex uint32 `json:"stbIndex"`
	Scenes   []DID  `json:"scenes"`
}

// None is the "no index" sentinel of SceneType.STBIndex and TerrainType.SceneTypes.
const None = 0xFFFFFFFF

// TerrainDesc (docs/dat-format.md §3.8).
type TerrainDesc struct {
	TerrainTypes []TerrainType `json:"terrainTypes"`
	LandSurf     LandSurf      `json:"landSurf"`
}

// TerrainType is indexed by a terrain word's 5-bit type; SceneTypes by its scene ordinal.
type TerrainType struct {
	TerrainName  string   `json:"terrainName"`
	TerrainColor uint32   `json:"terrainColor"` // ColorARGB
	SceneTypes   []uint32 `json:"sceneTypes"`   // indices into SceneDesc.SceneTypes, 0xFFFFFFFF = none
}

// LandSurf (docs/dat-format.md §3.9): Selector 0 → TexMerge follows, non-zero → PalShift.
type LandSurf struct {
	Selector uint32    `json:"selector"`
	TexMerge *TexMerge `json:"texMerge,omitempty"`
	PalShift *PalShift `json:"palShift,omitempty"`
}

type TexMerge struct {
	BaseTexSize       uint32            `json:"baseTexSize"`
	CornerTerrainMaps []TerrainAlphaMap `json:"cornerTerrainMaps"`
	SideTerrainMaps   []TerrainAlphaMap `json:"sideTerrainMaps"`
	RoadMaps          []RoadAlphaMap    `json:"roadMaps"`
	TerrainDescs      []TMTerrainDesc   `json:"terrainDescs"`
}

type TerrainAlphaMap struct {
	TCode  uint32 `json:"tcode"`
	TexGID DID    `json:"texGid"`
}

type RoadAlphaMap struct {
	RCode      uint32 `json:"rcode"`
	RoadTexGID DID    `json:"roadTexGid"`
}

type TMTerrainDesc struct {
	TerrainType uint32     `json:"terrainType"`
	TerrainTex  TerrainTex `json:"terrainTex"`
}

type TerrainTex struct {
	TexGID          DID    `json:"texGid"`
	TexTiling       uint32 `json:"texTiling"`
	MaxVertBright   uint32 `json:"maxVertBright"`
	MinVertBright   uint32 `json:"minVertBright"`
	MaxVertSaturate uint32 `json:"maxVertSaturate"`
	MinVertSaturate uint32 `json:"minVertSaturate"`
	MaxVertHue      uint32 `json:"maxVertHue"`
	MinVertHue      uint32 `json:"minVertHue"`
	DetailTexTiling uint32 `json:"detailTexTiling"`
	DetailTexGID    DID    `json:"detailTexGid"`
}

// PalShift is the legacy LandSurf payload (docs/dat-format.md §3.9, [P]); EoR does not use it.
type PalShift struct {
	Entries []PalShiftEntry `json:"entries"`
}

type PalShiftEntry struct {
	TexID    DID         `json:"texId"`
	SubPals  [][2]uint32 `json:"subPals"`
	Codes    []PalCode   `json:"codes"` // each with len(SubPals) values
	Terrains [][2]uint32 `json:"terrains"`
}

type PalCode struct {
	Code   uint32   `json:"code"`
	Values []uint32 `json:"values"`
}

// RegionMisc (docs/dat-format.md §3.10).
type RegionMisc struct {
	Version         uint32 `json:"version"`
	GameMapID       DID    `json:"gameMapId"`
	AutotestMapID   DID    `json:"autotestMapId"`
	AutotestMapSize uint32 `json:"autotestMapSize"`
	ClearCellID     DID    `json:"clearCellId"`
	ClearMonsterID  DID    `json:"clearMonsterId"`
}

// ---- SoundTable 0x20xxxxxx (docs/dat-format.md §4) ----

// SoundTable is the recursive tree of cstable.c. Retail looks up only the
// root's direct children, keyed by Sound enum.
type SoundTable struct {
	ID   DID       `json:"id"`
	Root SoundNode `json:"root"`
}

type SoundNode struct {
	HashKey  uint32        `json:"hashKey"`
	Records  []SoundRecord `json:"records"`
	Children []SoundNode   `json:"children"`
}

// SoundRecord (16 bytes): one variant of a sound.
type SoundRecord struct {
	WaveID      DID     `json:"waveId"` // 0 = none
	Priority    float32 `json:"priority"`
	Probability float32 `json:"probability"`
	Volume      float32 `json:"volume"`
}

// ---- Wave 0x0Axxxxxx (docs/dat-format.md §5) ----

// Wave keeps its WAVEFORMATEX header bytes verbatim (any H ≥ 16) so that any
// format tag round-trips; Format gives the parsed fields.
type Wave struct {
	ID     DID    `json:"id"`
	Header []byte `json:"-"`
	Data   []byte `json:"-"`
}

// WaveFormat is the parsed WAVEFORMATEX (docs/dat-format.md §5).
type WaveFormat struct {
	FormatTag      uint16 `json:"formatTag"`
	Channels       uint16 `json:"channels"`
	SamplesPerSec  uint32 `json:"samplesPerSec"`
	AvgBytesPerSec uint32 `json:"avgBytesPerSec"`
	BlockAlign     uint16 `json:"blockAlign"`
	BitsPerSample  uint16 `json:"bitsPerSample"`
	CbSize         uint16 `json:"cbSize"` // 0 when the header is 16 bytes
	Extra          []byte `json:"-"`      // cbSize bytes after the 18-byte header
}

// Format tags seen in or expected of AC waves.
const (
	FormatPCM     = 0x0001
	FormatMSADPCM = 0x0002
	FormatIMA     = 0x0011
	FormatMP3     = 0x0055
)

// ---- LandBlock 0xXXYYFFFF (docs/dat-format.md §6) ----

// LandBlock is the 252-byte CellLandblock: 9×9 terrain words and heights,
// index 9·x + y with x east (major) and y north (minor), docs/dat-format.md §6.3.
type LandBlock struct {
	ID         DID        `json:"id"`
	HasObjects uint32     `json:"hasObjects"` // bool32 as stored
	Terrain    [81]uint16 `json:"terrain"`
	Height     [81]uint8  `json:"height"`
	Pad        uint8      `json:"-"` // the trailing pad4 byte, zero in retail; kept for exact encoding
}

// TerrainWord is one landblock vertex's terrain (docs/dat-format.md §6.2).
type TerrainWord uint16

func (w TerrainWord) Road() uint32  { return uint32(w) & 0x3 }
func (w TerrainWord) Type() uint32  { return (uint32(w) >> 2) & 0x1F }
func (w TerrainWord) Scene() uint32 { return uint32(w) >> 11 }

// Word is the terrain word of vertex (x, y), x, y ∈ 0..8.
func (l *LandBlock) Word(x, y int) TerrainWord { return TerrainWord(l.Terrain[9*x+y]) }

// HeightAt is the height byte of vertex (x, y); z = LandHeightTable[HeightAt].
func (l *LandBlock) HeightAt(x, y int) uint8 { return l.Height[9*x+y] }

// ---- EnvCell 0xXXYY0100–0xXXYYFFFD (docs/dat-format.md §7), prefix only ----

// EnvCell holds the prefix the ambient engine needs; Rest keeps the remaining
// bytes verbatim so the record re-encodes exactly.
type EnvCell struct {
	ID              DID    `json:"id"`
	Flags           uint32 `json:"flags"`
	CellID          DID    `json:"cellId"`
	NumSurfaces     uint8  `json:"numSurfaces"`
	NumPortals      uint8  `json:"numPortals"`
	NumVisibleCells uint16 `json:"numVisibleCells"`
	Rest            []byte `json:"-"`
}

// EnvCell flag bits (docs/dat-format.md §7).
const (
	EnvCellSeenOutside       = 0x1
	EnvCellHasStaticObjs     = 0x2
	EnvCellHasRestrictionObj = 0x8
)

// SeenOutside is retail's seen_outside = flags & 1 (CEnvCell::UnPack).
func (e *EnvCell) SeenOutside() bool { return e.Flags&EnvCellSeenOutside != 0 }
