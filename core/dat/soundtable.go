package dat

// MaxSoundNodeDepth bounds SoundTable nesting: the root is depth 0, its
// children (the Sound enum entries) depth 1. Retail's SoundTableData::UnPack
// recurses without a limit; EoR tables are 2 levels deep (every child has no
// children, docs/dat-format.md §4) and retail's Lookup never looks past depth 1, so 16
// accepts any plausible table while bounding the decoder's stack.
const MaxSoundNodeDepth = 16

const (
	soundRecordSize  = 16 // wave DID, priority, probability, volume
	soundNodeMinSize = 12 // hash_key and two zero counts
)

// DecodeSoundTable decodes a SoundTable record (docs/dat-format.md §4): the DID and the
// recursive root node. The trailing pad4 is always a no-op, every field being
// 4 bytes.
func DecodeSoundTable(id uint32, b []byte) (*SoundTable, error) {
	d := newDecoder(KindSoundTable, id, b)
	t := &SoundTable{ID: DID(id)}
	d.enter("root", -1)
	d.soundNode(&t.Root, 0)
	d.leave()
	if err := d.finish(); err != nil {
		return nil, err
	}
	return t, nil
}

// Encode packs the table (SoundTableData::Pack order).
func (t *SoundTable) Encode() []byte {
	e := newEncoder(t.ID, 4+t.Root.packSize())
	e.soundNode(&t.Root)
	return e.b
}

// Lookup is retail CSoundTable::Lookup: the first of the root's direct
// children whose hash key is stype, or nil. Deeper nodes are unreachable in
// retail and are not searched.
func (t *SoundTable) Lookup(stype uint32) *SoundNode {
	for i := range t.Root.Children {
		if t.Root.Children[i].HashKey == stype {
			return &t.Root.Children[i]
		}
	}
	return nil
}

// WaveIDs lists, once each in first-seen order, the waves a client can
// play from the table: those of the root's direct children, the only nodes
// Lookup reaches (docs/dat-format.md §4). A wave id of 0 means none and is left out.
func (t *SoundTable) WaveIDs() []uint32 {
	var ids []uint32
	seen := map[DID]bool{}
	for _, c := range t.Root.Children {
		for _, r := range c.Records {
			if r.WaveID != 0 && !seen[r.WaveID] {
				seen[r.WaveID] = true
				ids = append(ids, uint32(r.WaveID))
			}
		}
	}
	return ids
}

// soundNode reads hash_key, n records, c children (each a full node).
func (d *decoder) soundNode(n *SoundNode, depth int) {
	if depth > MaxSoundNodeDepth {
		d.failf(d.off, ErrMalformed, "node nesting deeper than %d", MaxSoundNodeDepth)
		return
	}
	n.HashKey = d.u32()
	n.Records = make([]SoundRecord, d.count("record", soundRecordSize))
	for i := range n.Records {
		r := &n.Records[i]
		r.WaveID = d.did()
		r.Priority = d.f32()
		r.Probability = d.f32()
		r.Volume = d.f32()
	}
	n.Children = make([]SoundNode, d.count("child", soundNodeMinSize))
	for i := range n.Children {
		d.enter("child", i)
		d.soundNode(&n.Children[i], depth+1)
		d.leave()
		if d.err != nil {
			return // the record is rejected; spare the siblings' walk
		}
	}
}

func (e *encoder) soundNode(n *SoundNode) {
	e.u32(n.HashKey)
	e.count(len(n.Records))
	for _, r := range n.Records {
		e.did(r.WaveID)
		e.f32(r.Priority)
		e.f32(r.Probability)
		e.f32(r.Volume)
	}
	e.count(len(n.Children))
	for i := range n.Children {
		e.soundNode(&n.Children[i])
	}
}

func (n *SoundNode) packSize() int {
	size := soundNodeMinSize + soundRecordSize*len(n.Records)
	for i := range n.Children {
		size += n.Children[i].packSize()
	}
	return size
}
