package dat

import "encoding/json"

// LandBlockSize is the stored size of every CellLandblock (docs/dat-format.md §6.1): DID,
// has_objects, 81 terrain words, 81 height bytes, 1 pad byte.
const LandBlockSize = 4 + 4 + 81*2 + 81 + 1

// DecodeLandBlock decodes a CellLandblock record (docs/dat-format.md §6.1), exactly 252 bytes.
func DecodeLandBlock(id uint32, b []byte) (*LandBlock, error) {
	d := newDecoder(KindLandBlock, id, b)
	l := &LandBlock{ID: DID(id)}
	l.HasObjects = d.u32()
	d.enter("terrain", -1)
	for i := range l.Terrain {
		l.Terrain[i] = d.u16()
	}
	d.leave()
	d.enter("height", -1)
	for i := range l.Height {
		l.Height[i] = d.u8()
	}
	d.leave()
	// The pad4 byte is zero in retail; it is kept whatever it holds so the
	// record re-encodes exactly.
	d.enter("pad", -1)
	l.Pad = d.u8()
	d.leave()
	if err := d.finish(); err != nil {
		return nil, err
	}
	return l, nil
}

// Encode packs the landblock.
func (l *LandBlock) Encode() []byte {
	e := newEncoder(l.ID, LandBlockSize)
	e.u32(l.HasObjects)
	for _, w := range l.Terrain {
		e.u16(w)
	}
	e.bytes(l.Height[:])
	e.u8(l.Pad)
	return e.b
}

// landBlockVertex is the decoded view of one vertex for inspect.
type landBlockVertex struct {
	X      int    `json:"x"` // 0..8, west → east
	Y      int    `json:"y"` // 0..8, south → north
	Road   uint32 `json:"road"`
	Type   uint32 `json:"type"`
	Scene  uint32 `json:"scene"`
	Height uint8  `json:"height"`
}

// MarshalJSON adds to the stored arrays a "vertices" list, in storage order
// (index 9·x + y, docs/dat-format.md §6.3), with each terrain word split into its fields.
func (l LandBlock) MarshalJSON() ([]byte, error) {
	type stored LandBlock // the same fields without this method
	v := struct {
		stored
		Vertices [81]landBlockVertex `json:"vertices"`
	}{stored: stored(l)}
	for i := range v.Vertices {
		w := TerrainWord(l.Terrain[i])
		v.Vertices[i] = landBlockVertex{
			X: i / 9, Y: i % 9,
			Road: w.Road(), Type: w.Type(), Scene: w.Scene(),
			Height: l.Height[i],
		}
	}
	return json.Marshal(v)
}
