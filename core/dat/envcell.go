package dat

// envCellPrefixSize is the part of an EnvCell the ambient engine reads (docs/dat-format.md §7).
const envCellPrefixSize = 16

// DecodeEnvCell decodes an EnvCell record's prefix (docs/dat-format.md §7): DID, flags,
// cell id, surface/portal/visible-cell counts. The rest of the record
// (surfaces, portals, statics) is kept verbatim in Rest; the cell id is kept
// as stored even when it differs from the DID, since retail's
// CEnvCell::UnPack does not compare them.
func DecodeEnvCell(id uint32, b []byte) (*EnvCell, error) {
	d := newDecoder(KindEnvCell, id, b)
	c := &EnvCell{ID: DID(id)}
	c.Flags = d.u32()
	c.CellID = d.did()
	c.NumSurfaces = d.u8()
	c.NumPortals = d.u8()
	c.NumVisibleCells = d.u16()
	c.Rest = d.bytes(d.left())
	if err := d.finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// Encode packs the prefix followed by Rest.
func (c *EnvCell) Encode() []byte {
	e := newEncoder(c.ID, envCellPrefixSize+len(c.Rest))
	e.u32(c.Flags)
	e.did(c.CellID)
	e.u8(c.NumSurfaces)
	e.u8(c.NumPortals)
	e.u16(c.NumVisibleCells)
	e.bytes(c.Rest)
	return e.b
}
