package datfile

// Writing a dat in the retail layout (docs/dat-format.md §1): what retail's
// CreateDataFile and BTree insertion would leave, packed with no free blocks.
//
// File order: the 1024-byte header; the B-tree nodes in preorder, so the root
// sits at 1024 where retail's CreateTree puts it; then the records in id
// order. Every chain is contiguous and ends with link 0.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
)

const (
	// versionString is what retail's file header constructor writes at 0
	// (docs/dat-format.md §1.1); byte 255 is 0x1A.
	versionString = "\nFile Header Structure Default Constructor v1.3\n"

	// transactMagic is DiskTransactInfo::m_nMagicNumber (0x006761C0). Retail
	// OpenDataFile (0x00674980) reads the 64-byte journal at 0x100 through
	// ReadTransaction and refuses the file unless this magic is there.
	transactMagic = 19536

	// packVersion is the entry version word (flags bits 16–31) of ordinary
	// records [P]; the iteration list must carry 1 (DiskController::
	// LoadIterationList 0x00670DE0 rejects any other).
	packVersion          = 2
	iterationPackVersion = 1
	iterationID          = 0xFFFF0001

	// Retail keeps offsets in i32 (entry offset, branches, links).
	maxFileSize = math.MaxInt32

	// EoR header constants (docs/dat-format.md §1.1).
	portalEngVnum = 110
	cellEngVnum   = 22
	idStampUint   = 6657
)

// WriteOptions controls WriteDatOptions.
type WriteOptions struct {
	DataSet    DataSet // Portal or Cell; decides block size 1024/256 and defaults
	BlockSize  uint32  // 0 = default for the data set; else 256 or 1024
	DataSubset uint32  // 0 = default: 0 portal, 1 cell (client_cell_1.dat)
	// Compress picks records to store zlib-compressed (nil = none). As in
	// retail's AttemptToCompress, a record is only compressed when it is
	// over 16 bytes and the result is no larger; the iteration list never is.
	Compress func(id uint32, b []byte) bool
}

// WriteDat writes recs as a dat of the given set with default options.
func WriteDat(w io.Writer, set DataSet, recs map[uint32][]byte) error {
	return WriteDatOptions(w, WriteOptions{DataSet: set}, recs)
}

// WriteDatOptions writes recs as a dat. The output depends only on the
// input: dates and iterations are 0. A record may be empty (an entry of
// size 0 with offset 0, which readers treat as "no data").
func WriteDatOptions(w io.Writer, opt WriteOptions, recs map[uint32][]byte) error {
	l, err := opt.layout()
	if err != nil {
		return fmt.Errorf("write dat: %w", err)
	}
	ids := slices.Sorted(maps.Keys(recs))
	stored, ents, err := storeRecords(opt.Compress, ids, recs)
	if err != nil {
		return fmt.Errorf("write dat: %w", err)
	}
	t := buildTree(len(ids))

	nodeBlocks := l.blocksFor(nodeSize)
	end := uint64(firstBlock) + uint64(len(t.nodes))*nodeBlocks*uint64(l.bs)
	for i := range ents {
		if ents[i].Size == 0 {
			continue
		}
		if end > maxFileSize {
			break
		}
		ents[i].Offset = uint32(end)
		end += l.blocksFor(ents[i].Size) * uint64(l.bs)
	}
	if end > maxFileSize {
		return fmt.Errorf("write dat: %d records need more than %d bytes, retail's i32 offset limit", len(ids), uint64(maxFileSize))
	}

	h := Header{
		Magic: datMagic, BlockSize: l.bs, FileSize: uint32(end), DataSet: opt.DataSet,
		DataSubset: l.subset, BTreeRoot: firstBlock, EngPackVnum: l.engVnum, IDStampUint: idStampUint,
		// No free blocks. Retail's CreateDataFile (0x006747E0) leaves an
		// empty file with first_free = final_free = file_size = 1024 and a
		// count of 0: the next block would go at the end. Same here.
		FirstFree: uint32(end), FinalFree: uint32(end),
	}
	cw := chainWriter{w: bufio.NewWriterSize(w, 1<<20), l: l}
	cw.header(h)
	var nb [nodeSize]byte
	for i := range t.nodes {
		t.encode(nb[:], i, ents, func(k int32) uint32 {
			return firstBlock + uint32(uint64(k)*nodeBlocks*uint64(l.bs))
		})
		cw.chain(nb[:], firstBlock+uint32(uint64(i)*nodeBlocks*uint64(l.bs)))
	}
	for i := range ents {
		cw.chain(stored[i], ents[i].Offset)
	}
	if cw.err != nil {
		return fmt.Errorf("write dat: %w", cw.err)
	}
	if err := cw.w.Flush(); err != nil {
		return fmt.Errorf("write dat: %w", err)
	}
	return nil
}

// layout is the resolved geometry and header constants of a dat to write.
type layout struct {
	bs, payload     uint32
	subset, engVnum uint32
}

func (o WriteOptions) layout() (layout, error) {
	var l layout
	switch o.DataSet {
	case Portal:
		l = layout{bs: 1024, subset: 0, engVnum: portalEngVnum}
	case Cell:
		l = layout{bs: 256, subset: 1, engVnum: cellEngVnum}
	default:
		return l, fmt.Errorf("data set %d, want 1 (portal) or 2 (cell)", o.DataSet)
	}
	switch o.BlockSize {
	case 0:
	case 256, 1024:
		l.bs = o.BlockSize
	default:
		return l, fmt.Errorf("block size %d, want 256 or 1024", o.BlockSize)
	}
	if o.DataSubset != 0 {
		l.subset = o.DataSubset
	}
	l.payload = l.bs - 4
	return l, nil
}

// blocksFor is ceil(size / payload): the blocks a chain of size bytes takes.
func (l layout) blocksFor(size uint32) uint64 {
	return (uint64(size) + uint64(l.payload) - 1) / uint64(l.payload)
}

// storeRecords returns each record's stored bytes (the input itself, or a
// compressed copy) and its entry, offsets not yet assigned.
func storeRecords(compress func(uint32, []byte) bool, ids []uint32, recs map[uint32][]byte) ([][]byte, []Entry, error) {
	stored := make([][]byte, len(ids))
	ents := make([]Entry, len(ids))
	var zw *zlib.Writer
	for i, id := range ids {
		b := recs[id]
		if uint64(len(b)) > maxFileSize {
			return nil, nil, fmt.Errorf("record 0x%08X: %d bytes, over retail's i32 limit", id, len(b))
		}
		version := uint32(packVersion)
		if id == iterationID {
			version = iterationPackVersion
		}
		ents[i] = Entry{Flags: version << 16, ID: id, Size: uint32(len(b))}
		stored[i] = b
		if compress == nil || id == iterationID || len(b) <= MinCompressed || len(b) > maxRecordSize || !compress(id, b) {
			continue
		}
		z, err := deflate(&zw, b)
		if err != nil {
			return nil, nil, fmt.Errorf("record 0x%08X: compress: %w", id, err)
		}
		// Retail gives zlib a buffer of len-4 bytes, so a record never
		// grows, and SaveDataEx refuses a compressed record under 16 bytes,
		// which Decompress could not read back.
		if len(z) > len(b) || len(z) < MinCompressed {
			continue
		}
		stored[i] = z
		ents[i].Flags |= compressedFlag
		ents[i].Size = uint32(len(z))
	}
	return stored, ents, nil
}

// deflate returns u32 len(b) + zlib(b) at level 9, retail's level
// (AttemptToCompress, compress2 level 9).
func deflate(zw **zlib.Writer, b []byte) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 4, 4+len(b)/2))
	binary.LittleEndian.PutUint32(buf.Bytes(), uint32(len(b)))
	if *zw == nil {
		w, err := zlib.NewWriterLevel(buf, zlib.BestCompression)
		if err != nil {
			return nil, err
		}
		*zw = w
	} else {
		(*zw).Reset(buf)
	}
	if _, err := (*zw).Write(b); err != nil {
		return nil, err
	}
	if err := (*zw).Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tree is a B-tree shape over n sorted entries, nodes in preorder (root
// first). Every leaf is at the same depth and every node but the root holds
// 30..61 entries, the occupancy retail's insertion keeps (a full node of 61
// splits 30 + 1 + 30, BTree::SplitNodeExec 0x00672540).
type tree struct {
	nodes []treeNode
	caps  []int // caps[h]: most entries a subtree of height h holds
}

type treeNode struct {
	keys []int32 // entry indices, ascending
	kids []int32 // node indices, len(keys)+1; nil in a leaf
}

// buildTree builds the tree bottom-up in one pass: the root gets the least
// height that holds n entries, and each subtree splits its entries over the
// fewest children that can hold them, as evenly as possible (earlier
// children take the remainder). With the fewest children, each child holds
// at least half of its capacity, which keeps every non-root node ≥ 30.
func buildTree(n int) *tree {
	t := &tree{caps: []int{maxEntries}}
	for t.caps[len(t.caps)-1] < n {
		t.caps = append(t.caps, t.caps[len(t.caps)-1]*(maxEntries+1)+maxEntries)
	}
	t.build(0, n, len(t.caps)-1)
	return t
}

func (t *tree) build(lo, hi, h int) int32 {
	idx := int32(len(t.nodes))
	t.nodes = append(t.nodes, treeNode{})
	if h == 0 {
		keys := make([]int32, 0, hi-lo)
		for i := lo; i < hi; i++ {
			keys = append(keys, int32(i))
		}
		t.nodes[idx].keys = keys
		return idx
	}
	m, child := hi-lo, t.caps[h-1]
	c := (m + 1 + child) / (child + 1) // ceil((m+1)/(child+1)) children
	q, r := (m-(c-1))/c, (m-(c-1))%c
	keys := make([]int32, 0, c-1)
	kids := make([]int32, 0, c)
	pos := lo
	for i := range c {
		size := q
		if i < r {
			size++
		}
		kids = append(kids, t.build(pos, pos+size, h-1))
		pos += size
		if i < c-1 {
			keys = append(keys, int32(pos))
			pos++
		}
	}
	t.nodes[idx].keys, t.nodes[idx].kids = keys, kids
	return idx
}

// encode writes node i as its 1716 on-disk bytes (docs/dat-format.md §1.3); unused branch
// and entry slots are zero.
func (t *tree) encode(b []byte, i int, ents []Entry, nodeOff func(int32) uint32) {
	clear(b)
	nd := t.nodes[i]
	for j, k := range nd.kids {
		binary.LittleEndian.PutUint32(b[4*j:], nodeOff(k))
	}
	binary.LittleEndian.PutUint32(b[countOffset:], uint32(len(nd.keys)))
	for j, k := range nd.keys {
		e := ents[k]
		p := b[entriesOffset+entrySize*j:]
		binary.LittleEndian.PutUint32(p, e.Flags)
		binary.LittleEndian.PutUint32(p[4:], e.ID)
		binary.LittleEndian.PutUint32(p[8:], e.Offset)
		binary.LittleEndian.PutUint32(p[12:], e.Size)
		binary.LittleEndian.PutUint32(p[16:], uint32(e.Date))
		binary.LittleEndian.PutUint32(p[20:], uint32(e.Iteration))
	}
}

// chainWriter streams the file; the first write error sticks.
type chainWriter struct {
	w     *bufio.Writer
	l     layout
	err   error
	zeros [1024]byte
}

func (c *chainWriter) write(b []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(b)
	}
}

// header writes bytes 0..1023: version string, the cleared transaction
// journal, DiskFileInfo, zeros.
func (c *chainWriter) header(h Header) {
	var b [firstBlock]byte
	copy(b[:], versionString)
	b[255] = 0x1A
	// Journal at 0x100 as retail's ClearTransaction leaves it: the
	// transaction type byte (0), padding to 4 (zero [P]), then the magic.
	binary.LittleEndian.PutUint32(b[0x104:], transactMagic)
	p := b[headerOffset:]
	put := func(o int, v uint32) { binary.LittleEndian.PutUint32(p[o:], v) }
	put(0x00, h.Magic)
	put(0x04, h.BlockSize)
	put(0x08, h.FileSize)
	put(0x0C, uint32(h.DataSet))
	put(0x10, h.DataSubset)
	put(0x14, h.FirstFree)
	put(0x18, h.FinalFree)
	put(0x1C, h.FreeBlockCount)
	put(0x20, h.BTreeRoot)
	put(0x24, h.YoungLRU)
	put(0x28, h.OldLRU)
	if h.UseLRU {
		p[0x2C] = 1
	}
	put(0x30, h.MasterMapID)
	put(0x34, h.EngPackVnum)
	put(0x38, h.GamePackVnum)
	copy(p[0x3C:0x4C], h.IDStampGUID[:])
	put(0x4C, h.IDStampUint)
	c.write(b[:])
}

// chain writes data as contiguous full blocks from off, each linking to the
// next and the last to 0 (docs/dat-format.md §1.2).
func (c *chainWriter) chain(data []byte, off uint32) {
	bs, p := c.l.bs, int(c.l.payload)
	var link [4]byte
	for len(data) > 0 && c.err == nil {
		n := min(p, len(data))
		next := uint32(0)
		if n < len(data) {
			next = off + bs
		}
		binary.LittleEndian.PutUint32(link[:], next)
		c.write(link[:])
		c.write(data[:n])
		c.write(c.zeros[:p-n])
		data, off = data[n:], next
	}
}
