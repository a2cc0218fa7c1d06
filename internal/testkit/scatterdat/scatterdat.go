// Package scatterdat writes the synthetic retail-like cell dat that the
// benchmarks and load tests read (datfetch's benchmarks, bench/load): a
// fixture generator, kept out of the packages the page's wasm imports. It
// writes the container format itself (docs/dat-format.md §1.1–§1.3),
// independently of datfetch's writer, and datfetch's tests read it back.
package scatterdat

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
)

// The container's layout (docs/dat-format.md §1.1–1.3), as retail's cell dats have it.
const (
	bs, payload = 256, 252 // a cell dat's block, and what it holds past its link
	firstBlock  = 1024     // CreateDataFile 0x006747E0: blocks start after the header
	maxFileSize = 1<<31 - 1

	nodeSize      = 1716 // BTNode: 62 branches, num_entries, 61 entries
	maxEntries    = 61
	entrySize     = 24
	entriesOffset = 252 // 62·4 + 4
	countOffset   = 248
	packVersion   = 2 // entry flags bits 16–31 of an ordinary record
)

// header is the 1024 bytes in front of the blocks, as retail's
// CreateDataFile and ClearTransaction leave them: the version string, the
// cleared journal's magic, and DiskFileInfo at 0x140 for a cell dat of
// fileSize bytes with its root node at root and no free blocks.
func header(fileSize, root uint32) []byte {
	b := make([]byte, firstBlock)
	copy(b, "\nFile Header Structure Default Constructor v1.3\n")
	b[255] = 0x1A
	binary.LittleEndian.PutUint32(b[0x104:], 19536) // DiskTransactInfo::m_nMagicNumber
	p := b[0x140:]
	for _, f := range [...]struct{ off, v uint32 }{
		{0x00, 0x5442},   // magic "BT"
		{0x04, bs},       // block size
		{0x08, fileSize}, // file size
		{0x0C, 2},        // data set: cell
		{0x10, 1},        // data subset: client_cell_1
		{0x14, fileSize}, // first free: none, the next block goes at the end
		{0x18, fileSize}, // final free
		{0x20, root},     // B-tree root
		{0x34, 22},       // engine pack version (EoR's cell dat)
		{0x4C, 6657},     // id stamp (EoR)
	} {
		binary.LittleEndian.PutUint32(p[f.off:], f.v)
	}
	return b
}

// Record returns record id of a Write dat: the DID, then words of a
// sequence seeded by the id.
func Record(id uint32) []byte {
	b := make([]byte, recordSize(id))
	fillRecord(id, b)
	return b
}

func fillRecord(id uint32, b []byte) {
	binary.LittleEndian.PutUint32(b, id)
	x := id | 1
	for j := 4; j+4 <= len(b); j += 4 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		binary.LittleEndian.PutUint32(b[j:], x)
	}
	for j := len(b) &^ 3; j < len(b); j++ {
		b[j] = byte(j)
	}
}

// recordSize is id's record size: 252 for a landblock, else 200..1600.
func recordSize(id uint32) uint32 {
	if id&0xFFFF == 0xFFFF {
		return 252
	}
	h := id * 2654435761
	return 200 + (h>>8)%1401
}

// sNode is a directory node of the scattered tree: entry indices and, in a
// non-leaf, child node indices.
type sNode struct {
	keys []int32
	kids []int32
}

// scatteredTree builds a B-tree bottom-up over n sorted entries with nodes
// of random fill 30..61 (the last of a level takes what is left, ≤ 61); the
// root is the level of one node.
func buildTree(n int, rnd *rand.Rand) (nodes []sNode, root int32) {
	fill := func() int { return 30 + rnd.IntN(32) }
	// Level 0: leaves, each followed by one separator entry going up.
	var kids, seps []int32
	for pos := 0; pos < n; {
		k := fill()
		switch rem := n - pos; {
		case rem <= maxEntries:
			k = rem // the last leaf
		case rem-k-1 < 30:
			k = rem - 1 - 30 // leave the last leaf 30
		}
		nd := sNode{}
		for i := range k {
			nd.keys = append(nd.keys, int32(pos+i))
		}
		pos += k
		nodes = append(nodes, nd)
		kids = append(kids, int32(len(nodes)-1))
		if pos < n {
			seps = append(seps, int32(pos))
			pos++
		}
	}
	// Upper levels: a node of k keys takes k+1 children and the k separators
	// between them; the separator after them goes up.
	for len(kids) > 1 {
		var upKids, upSeps []int32
		for c := 0; c < len(kids); {
			k := fill()
			switch rem := len(kids) - c; {
			case rem-1 <= maxEntries:
				k = rem - 1 // the last node of the level
			case rem-k-1 < 31:
				k = rem - 1 - 31 // leave the last node 31 children
			}
			nd := sNode{kids: slices.Clone(kids[c : c+k+1]), keys: slices.Clone(seps[c : c+k])}
			nodes = append(nodes, nd)
			upKids = append(upKids, int32(len(nodes)-1))
			c += k + 1
			if c < len(kids) {
				upSeps = append(upSeps, seps[c-1])
			}
		}
		kids, seps = upKids, upSeps
	}
	return nodes, kids[0]
}

// sPiece is a run of contiguous blocks holding blocks [first, first+n) of
// one chain: a node (obj < 0, node -obj-1) or a record (obj = entry index).
type sPiece struct {
	obj      int32
	first, n uint32
	at       uint32 // file offset, once placed
}

// Write writes a synthetic cell dat of n entries at path and
// returns its ids, ascending. It stands in for a retail client_cell_1.dat
// in benchmarks and load tests (issue 12 measured one of 800,000 entries):
// ids are landblocks 0xXXYYFFFF of 252 bytes, each followed by twelve
// EnvCells 0xXXYY0100.. of 200..1600 bytes; the tree's nodes are 30..61
// full at random (the occupancy retail's splits leave; 800k entries make
// 17.6k nodes in 4 levels, 780 MiB); nodes and records lie in shuffled order
// over the file, and one multi-block record in eight is split into two
// chain pieces far apart, as patching leaves them. The output depends only
// on n. Record bytes are derived from the id (Record), so nothing is held
// in memory while it is written.
func Write(path string, n int) ([]uint32, error) {
	const cellsPer = 12
	rnd := rand.New(rand.NewPCG(12, 800_000))
	ids := make([]uint32, n)
	for i := range n {
		lb := uint32(i/(cellsPer+1)) + 0x0101
		ids[i] = lb<<16 | 0xFFFF
		if k := i % (cellsPer + 1); k > 0 {
			ids[i] = lb<<16 | uint32(0x0100+k-1)
		}
	}
	slices.Sort(ids)
	nodes, root := buildTree(n, rnd)

	blocksFor := func(size uint32) uint32 { return (size + payload - 1) / payload }
	var pieces []sPiece
	for i := range nodes {
		pieces = append(pieces, sPiece{obj: -int32(i) - 1, n: blocksFor(nodeSize)})
	}
	for i, id := range ids {
		nb := blocksFor(recordSize(id))
		if nb > 1 && rnd.IntN(8) == 0 {
			cut := 1 + uint32(rnd.IntN(int(nb-1)))
			pieces = append(pieces, sPiece{obj: int32(i), n: cut}, sPiece{obj: int32(i), first: cut, n: nb - cut})
			continue
		}
		pieces = append(pieces, sPiece{obj: int32(i), n: nb})
	}
	rnd.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
	// The root goes first, at 1024, where retail's CreateTree puts it.
	rootAt := slices.IndexFunc(pieces, func(p sPiece) bool { return p.obj == -root-1 })
	pieces[0], pieces[rootAt] = pieces[rootAt], pieces[0]

	// Place the pieces, then note where each object's chain starts and
	// where each piece's last block links.
	end := uint64(firstBlock)
	for i := range pieces {
		pieces[i].at = uint32(end)
		end += uint64(pieces[i].n) * bs
		if end > maxFileSize {
			return nil, fmt.Errorf("scattered dat: %d bytes exceed the i32 limit", end)
		}
	}
	nodeAt := make([]uint32, len(nodes))
	recAt := make([]uint32, n)
	next := make([]uint32, len(pieces)) // link out of each piece's last block
	secondOf := map[int32]uint32{}      // record → file offset of its second piece
	for _, p := range pieces {
		switch {
		case p.obj < 0:
			nodeAt[-p.obj-1] = p.at
		case p.first == 0:
			recAt[p.obj] = p.at
		default:
			secondOf[p.obj] = p.at
		}
	}
	for i, p := range pieces {
		if p.obj >= 0 && p.first == 0 {
			next[i] = secondOf[p.obj] // 0 for an unsplit record
		}
	}

	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(header(uint32(end), nodeAt[root]))
	var zeros [payload]byte
	obj := make([]byte, 0, 2048)
	var link [4]byte
	for i, p := range pieces {
		// The object's whole bytes, then the blocks of this piece.
		if p.obj < 0 {
			obj = obj[:nodeSize]
			clear(obj)
			nd := nodes[-p.obj-1]
			for j, k := range nd.kids {
				binary.LittleEndian.PutUint32(obj[4*j:], nodeAt[k])
			}
			binary.LittleEndian.PutUint32(obj[countOffset:], uint32(len(nd.keys)))
			for j, k := range nd.keys {
				e := obj[entriesOffset+entrySize*j:]
				binary.LittleEndian.PutUint32(e, packVersion<<16)
				binary.LittleEndian.PutUint32(e[4:], ids[k])
				binary.LittleEndian.PutUint32(e[8:], recAt[k])
				binary.LittleEndian.PutUint32(e[12:], recordSize(ids[k]))
				binary.LittleEndian.PutUint32(e[16:], 1357000000+uint32(k%7)*86400) // a few build dates
				binary.LittleEndian.PutUint32(e[20:], 1)
			}
		} else {
			obj = obj[:recordSize(ids[p.obj])]
			fillRecord(ids[p.obj], obj)
		}
		total := blocksFor(uint32(len(obj)))
		for blk := p.first; blk < p.first+p.n; blk++ {
			l := uint32(0)
			switch {
			case blk+1 < p.first+p.n:
				l = p.at + (blk-p.first+1)*bs
			case blk+1 < total:
				l = next[i]
			}
			binary.LittleEndian.PutUint32(link[:], l)
			bw.Write(link[:])
			lo := min(blk*payload, uint32(len(obj)))
			hi := min(lo+payload, uint32(len(obj)))
			bw.Write(obj[lo:hi])
			bw.Write(zeros[:payload-(hi-lo)])
		}
	}
	if err := bw.Flush(); err != nil { // the first write error, kept by bufio
		return nil, err
	}
	// Written back now, so the benchmarks read clean cached pages instead
	// of racing the kernel's writeback of 780 MiB.
	if err := f.Sync(); err != nil {
		return nil, err
	}
	return ids, f.Close()
}
