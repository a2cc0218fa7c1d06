package datfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
)

// FuzzDatFields mutates the fields an attacker or a bit flip controls in
// valid dats — entry sizes, offsets and ids, branches, counts, chain links,
// declared sizes, the compressed flag — where FuzzOpenDat's blind byte
// mutations rarely land. Besides FuzzOpenDat's checks (no panic, no hang,
// listing and lookup agree), no Get may allocate more than the bytes the file
// holds allow: a few times the file, plus what a compressed record may
// declare (issue 8).
func FuzzDatFields(f *testing.F) {
	f.Add(uint8(0), []byte{0, 0, 1, 0, 0, 0, 0, 0x20})          // entry 1's size: bit 29
	f.Add(uint8(1), []byte{3, 0, 0, 0, 0x00, 0x14, 0, 0})       // a root branch elsewhere
	f.Add(uint8(2), []byte{4, 0, 1, 0, 0, 0, 0, 0})             // a leaf's count to 0
	f.Add(uint8(3), []byte{6, 0, 0, 0, 0, 0, 0, 4})             // a declared size of 64 MiB
	f.Add(uint8(2), []byte{2, 0, 5, 0, 0xFF, 0xFF, 0xFF, 0xFF}) // an id out of order
	f.Add(uint8(3), []byte{5, 0, 9, 0, 0, 0x0C, 0, 0, 8, 0, 3, 0, 0, 0, 0, 1})
	bases := fieldBases(f)
	f.Fuzz(func(t *testing.T, base uint8, edits []byte) {
		b := bases[int(base)%len(bases)]
		img := bytes.Clone(b.img)
		for len(edits) >= 8 {
			b.apply(img, edits[0], binary.LittleEndian.Uint16(edits[2:]), binary.LittleEndian.Uint32(edits[4:]))
			edits = edits[8:]
		}
		fuzzOpenDat(t, img)
		checkAllocBound(t, img, b.ids)
	})
}

// fieldBase is a valid dat and where its fields lie.
type fieldBase struct {
	img    []byte
	bs     int
	nodes  []uint32 // node offsets
	ents   []int    // file offset of each entry's first byte
	comp   []int    // file offset of each compressed record's declared size
	blocks int
	ids    []uint32
}

func fieldBases(f *testing.F) []*fieldBase {
	two, _ := twoLevel()
	cc, _ := compressedCell(f)
	some := func(id uint32, _ []byte) bool { return id%3 == 0 }
	imgs := [][]byte{
		two.b, cc.b,
		writeDat(f, WriteOptions{DataSet: Cell, Compress: some}, testRecords(300)),
		writeDat(f, WriteOptions{DataSet: Portal, Compress: some}, testRecords(200)),
	}
	var out []*fieldBase
	for _, img := range imgs {
		out = append(out, newFieldBase(f, img))
	}
	return out
}

// newFieldBase maps img's tree: every node, every entry, every compressed
// record, following the chains of the valid image.
func newFieldBase(f *testing.F, img []byte) *fieldBase {
	d, err := NewDat(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		f.Fatal(err)
	}
	b := &fieldBase{img: img, bs: int(d.bs), blocks: int(d.blocks())}
	queue := []*node{d.root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		b.nodes = append(b.nodes, n.off)
		for i := range n.n {
			e := n.ents[i]
			b.ents = append(b.ents, b.at(n.off, entriesOffset+entrySize*i))
			b.ids = append(b.ids, e.ID)
			if e.Compressed() {
				b.comp = append(b.comp, int(e.Offset)+4)
			}
		}
		if !n.leaf() {
			for i := 0; i <= n.n; i++ {
				c, err := d.readNode(n.branch[i])
				if err != nil {
					f.Fatal(err)
				}
				queue = append(queue, c)
			}
		}
	}
	return b
}

// at is the file offset of byte k of the object whose chain starts at off.
// A field that straddles two blocks is written at its first byte's offset
// only as far as the block goes; close enough for mutation.
func (b *fieldBase) at(off uint32, k int) int {
	p := b.bs - 4
	pos := int(off)
	for ; k >= p; k -= p {
		pos = int(binary.LittleEndian.Uint32(b.img[pos:]))
	}
	return pos + 4 + k
}

// apply makes one edit: target picks the field, index the entry, node or
// block, v the new value.
func (b *fieldBase) apply(img []byte, target uint8, index uint16, v uint32) {
	put := func(off int) {
		if off >= 0 && off+4 <= len(img) {
			binary.LittleEndian.PutUint32(img[off:], v)
		}
	}
	ent := func(field int) int { return b.ents[int(index)%len(b.ents)] + field }
	switch target % 9 {
	case 0: // entry size
		put(ent(12))
	case 1: // entry offset
		put(ent(8))
	case 2: // entry id
		put(ent(4))
	case 3: // branch (index: low byte the node, high byte the slot)
		n := b.nodes[int(index&0xFF)%len(b.nodes)]
		put(b.at(n, 4*(int(index>>8)%numBranches)))
	case 4: // entry count
		put(b.at(b.nodes[int(index)%len(b.nodes)], countOffset))
	case 5: // a block's link
		put(firstBlock + (int(index)%b.blocks)*b.bs)
	case 6: // a compressed record's declared size
		if len(b.comp) > 0 {
			put(b.comp[int(index)%len(b.comp)])
		}
	case 7: // the compressed flag
		off := ent(0)
		img[off] ^= 1
	case 8: // flip bits of an entry size, as a bad disk would
		if off := ent(12); off+4 <= len(img) {
			binary.LittleEndian.PutUint32(img[off:], binary.LittleEndian.Uint32(img[off:])^v)
		}
	}
}

// checkAllocBound fails when a Get allocates more than the file's bytes
// allow: twice what a chain can walk (the file), the declaration a
// compressed record may make (the data set's cap), and slack for the
// descent and the fuzzing engine.
func checkAllocBound(t *testing.T, img []byte, ids []uint32) {
	d, err := NewDat(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		return
	}
	limit := 3*uint64(len(img)) + uint64(storedCap(d.hdr.DataSet)) + 256<<10
	for i, id := range ids {
		if i == 32 {
			break
		}
		if n := allocated(func() { d.Get(context.Background(), id) }); n > limit {
			t.Fatalf("Get(0x%08X) allocated %d bytes from a %d-byte file (limit %d)", id, n, len(img), limit)
		}
	}
}
