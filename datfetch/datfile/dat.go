// Package datfile reads and writes the retail dat container
// (docs/dat-format.md §1), as debug/elf reads its format: lazily, with a
// B-tree descent and then an in-memory index, every size checked against
// caps before anything is allocated. A *Dat is a source.Source.
package datfile

// The retail dat container (docs/dat-format.md §1): a 1024-byte header, then
// fixed-size blocks chained by a leading u32 link, indexed by a B-tree of
// 1716-byte directory nodes stored through the same chains.

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unsafe"

	"acambient/datfetch/source"
)

// DataSet is the DiskFileInfo data_set field (docs/dat-format.md §1.1).
type DataSet uint32

const (
	Portal DataSet = 1 // client_portal.dat (also highres), block size 1024
	Cell   DataSet = 2 // client_cell_N.dat, block size 256
	Local  DataSet = 3 // client_local_*.dat, block size 1024
)

// Layout constants, docs/dat-format.md §1.1–1.5.
const (
	headerOffset = 0x140      // DiskFileInfo_t
	headerLen    = 0x50       // DiskFileInfo_t size, SaveFileInfo writes 0x50 bytes at 320
	headerEnd    = 0x190      // headerOffset + headerLen
	datMagic     = 0x5442     // "BT"; CLBlockAllocator::OpenDataFile 0x00674980 rejects others
	firstBlock   = 1024       // CreateDataFile 0x006747E0 starts the free list (all blocks) at 1024
	freeTag      = 0x80000000 // link bit 31: block is on the free list (ExpandFile, DeleteBlocks)

	nodeSize      = 1716 // BTNode: 62 branches, num_entries, 61 entries (buffer 0x6B8 = 4 + 1716)
	numBranches   = 62
	maxEntries    = 61 // BTree::HasEntry 0x00671D80 gives up on more
	entrySize     = 24
	entriesOffset = 252 // 62*4 + 4
	countOffset   = 248 // 0xF8

	compressedFlag = 1  // entry flags bit 0 (BTEntry.comp_)
	MinCompressed  = 16 // DiskController::Decompress 0x00670A80 requires a record ≥ 0x10

	// maxTreeDepth bounds a descent through a corrupt (cyclic) tree. A real
	// tree of 61-key nodes holding every block of a 2 GiB file is 5 levels deep.
	maxTreeDepth = 32
	// nodeCacheSize bounds the decoded-node cache: about 1.7 KB a node. The
	// EoR cell dat (805k entries) has ~20k nodes; its top three levels fit.
	nodeCacheSize = 1024
	// runBlocks is how many adjacent blocks one ReadAt fetches when a chain
	// is contiguous (the usual case), instead of one call per block.
	runBlocks = 64
	// InflateProbe is how much of a compressed record's declared size is
	// allocated before its stream has shown it holds that much (inflate).
	InflateProbe = 1 << 20
)

// Header is DiskFileInfo_t at 0x140 (docs/dat-format.md §1.1).
type Header struct {
	Magic          uint32   // 0x140, 0x5442
	BlockSize      uint32   // 0x144, link included: 1024 portal, 256 cell
	FileSize       uint32   // 0x148
	DataSet        DataSet  // 0x14C
	DataSubset     uint32   // 0x150, portal 0, cell region (1)
	FirstFree      uint32   // 0x154, free-list head
	FinalFree      uint32   // 0x158, free-list tail
	FreeBlockCount uint32   // 0x15C
	BTreeRoot      uint32   // 0x160, first block of the root node
	YoungLRU       uint32   // 0x164
	OldLRU         uint32   // 0x168
	UseLRU         bool     // 0x16C, u8 + 3 pad
	MasterMapID    uint32   // 0x170
	EngPackVnum    uint32   // 0x174, EoR 110 portal, 22 cell
	GamePackVnum   uint32   // 0x178
	IDStampGUID    [16]byte // 0x17C
	IDStampUint    uint32   // 0x18C, EoR 6657
}

// Entry is one 24-byte B-tree entry (docs/dat-format.md §1.3). Size is the stored byte
// count, the compressed size when Compressed.
type Entry struct {
	Flags     uint32 // bit 0 compressed; bits 16–31 record pack version
	ID        uint32
	Offset    uint32 // first block of the record's chain
	Size      uint32
	Date      int32 // unix seconds
	Iteration int32
}

// Compressed reports entry flags bit 0: the record is a u32 uncompressed
// size followed by a zlib stream (docs/dat-format.md §1.5).
func (e Entry) Compressed() bool { return e.Flags&compressedFlag != 0 }

// Dat reads a retail dat. It implements Lister and is safe for concurrent
// use. Lookups descend from the root reading only the nodes on their path
// until the in-memory index (index.go), which the first listing or the
// indexAfter-th lookup starts building in the background, is ready.
type Dat struct {
	r       io.ReaderAt
	closer  io.Closer
	hdr     Header
	bs      uint32 // block size, link included
	payload uint32 // bytes of data per block
	end     uint32 // blocks must lie wholly below this (header file_size)
	root    *node
	cache   *source.Cache[*node] // decoded nodes by offset, nodeCacheSize of them
	runs    sync.Pool            // *[]byte scratch for up to runBlocks blocks
	ix      indexState
	budget  *Budget // memory of reads in progress; nil: unbounded (limits.go)
}

// OpenDat opens a dat file; Close closes it.
func OpenDat(path string) (*Dat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	d, err := NewDat(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.closer = f
	return d, nil
}

// NewDat reads the header and the root node of the dat in r, which holds
// size bytes. Nothing else is read until asked for.
func NewDat(r io.ReaderAt, size int64) (*Dat, error) {
	if size < headerEnd {
		return nil, fmt.Errorf("dat header: file of %d bytes ends before the header end 0x%X", size, headerEnd)
	}
	var hb [headerLen]byte
	if err := readFull(r, hb[:], headerOffset); err != nil {
		return nil, fmt.Errorf("dat header: %w", err)
	}
	h := decodeHeader(hb[:])
	if err := h.check(size); err != nil {
		return nil, fmt.Errorf("dat header: %w", err)
	}
	d := &Dat{r: r, hdr: h, bs: h.BlockSize, payload: h.BlockSize - 4, end: h.FileSize}
	d.cache = newNodeCache()
	d.ix.init()
	root, err := d.readNode(h.BTreeRoot)
	if err != nil {
		return nil, fmt.Errorf("dat root: %w", err)
	}
	d.root = root
	return d, nil
}

// Header returns the DiskFileInfo the dat was opened with.
func (d *Dat) Header() Header { return d.hdr }

// Close stops an index build under way and closes the file OpenDat opened
// (for NewDat, the reader is the caller's to close).
func (d *Dat) Close() error {
	d.stopIndex()
	if d.closer == nil {
		return nil
	}
	return d.closer.Close()
}

// Lookup finds id's entry by the retail descent (docs/dat-format.md §1.4). A missing id
// gives an error wrapping ErrNotFound. Once the index is built it answers
// from memory; until then it descends, and the indexAfter-th call starts
// the build.
func (d *Dat) Lookup(id uint32) (Entry, error) {
	if x := d.ix.ready.Load(); x != nil {
		return x.lookup(id)
	}
	if d.ix.descents.Add(1) == indexAfter {
		d.startIndex()
	}
	return d.descend(id)
}

// descend is the retail lookup: from the root down the branches.
func (d *Dat) descend(id uint32) (Entry, error) {
	n := d.root
	var span idSpan // ids the node under n.branch[i] may hold; the root's is all
	for depth := 0; ; depth++ {
		i, found := n.search(id)
		if found {
			return n.ents[i], nil
		}
		if n.leaf() {
			return Entry{}, source.NotFound(id)
		}
		if depth+1 >= maxTreeDepth {
			return Entry{}, fmt.Errorf("lookup 0x%08X: btree deeper than %d levels (cycle?)", id, maxTreeDepth)
		}
		child, err := d.node(n.branch[i])
		if err == nil {
			span = span.child(n, i)
			err = span.check(child)
		}
		if err != nil {
			return Entry{}, fmt.Errorf("lookup 0x%08X: branch %d of node 0x%08X: %w", id, i, n.off, err)
		}
		n = child
	}
}

// idSpan is the open interval of ids a subtree may hold: between the parent
// entries on either side of its branch (docs/dat-format.md §1.4). Retail descends without
// checking; a branch pointing at the wrong node, a zeroed count or shifted
// ids would make records silently "not found", so a lookup checks each node
// it reaches against its span and calls a misfit corruption.
type idSpan struct {
	lo, hi       uint32
	hasLo, hasHi bool
}

// child is the span of branch i of n, inside s.
func (s idSpan) child(n *node, i int) idSpan {
	if i > 0 {
		s.lo, s.hasLo = n.ents[i-1].ID, true
	}
	if i < n.n {
		s.hi, s.hasHi = n.ents[i].ID, true
	}
	return s
}

// check accepts a non-root node whose ids lie inside s. A node below the root
// holds at least one entry: B-tree nodes split, they never empty.
func (s idSpan) check(c *node) error {
	if c.n == 0 {
		return fmt.Errorf("btree node at 0x%08X: num_entries 0 below the root", c.off)
	}
	first, last := c.ents[0].ID, c.ents[c.n-1].ID
	if (s.hasLo && first <= s.lo) || (s.hasHi && last >= s.hi) {
		return fmt.Errorf("btree node at 0x%08X: ids 0x%08X..0x%08X outside its parent's span %s", c.off, first, last, s)
	}
	return nil
}

func (s idSpan) String() string {
	lo, hi := "(start", "end)"
	if s.hasLo {
		lo = fmt.Sprintf("(0x%08X", s.lo)
	}
	if s.hasHi {
		hi = fmt.Sprintf("0x%08X)", s.hi)
	}
	return lo + ".." + hi
}

// Get returns the record's bytes, decompressed, starting at its DID. An
// absent id and an entry of size 0 ("no data", docs/dat-format.md §1.4) wrap ErrNotFound.
func (d *Dat) Get(ctx context.Context, id uint32) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, err := d.Lookup(id)
	if err != nil {
		return nil, err
	}
	if e.Size == 0 {
		return nil, fmt.Errorf("%w (entry of size 0: no data)", source.NotFound(id))
	}
	b, err := d.read(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("record 0x%08X at 0x%08X: %w", id, e.Offset, err)
	}
	if err := source.CheckDID(id, b); err != nil {
		return nil, err
	}
	return b, nil
}

// read returns e's bytes, decompressed. Every size is vetted before it is
// allocated (limits.go), and the memory is taken from the dat's budget for
// the time of the read: the stored size, plus the declared size of a
// compressed record, which is peeked from its first block so that both are
// taken at once (taking one and waiting for the other could deadlock).
func (d *Dat) read(ctx context.Context, e Entry) ([]byte, error) {
	if limit := storedCap(d.hdr.DataSet); e.Size > limit {
		return nil, fmt.Errorf("stored size %d exceeds %d, the most any record of this dat can be", e.Size, limit)
	}
	cost, want := int64(e.Size), uint32(0)
	if e.Compressed() {
		var err error
		if want, err = d.declaredSize(e); err != nil {
			return nil, err
		}
		cost += int64(want)
	}
	if err := d.budget.acquire(ctx, cost); err != nil {
		return nil, err
	}
	defer d.budget.release(cost)
	b, err := d.readChain(e.Offset, e.Size, nil)
	if err != nil || !e.Compressed() {
		return b, err
	}
	return Inflate(b, want)
}

// declaredSize reads and vets the u32 uncompressed size that starts a
// compressed record (docs/dat-format.md §1.5), in its first block.
func (d *Dat) declaredSize(e Entry) (uint32, error) {
	if e.Size < MinCompressed {
		return 0, fmt.Errorf("compressed record of %d bytes, retail requires at least %d", e.Size, MinCompressed)
	}
	if err := d.checkBlock(e.Offset); err != nil {
		return 0, fmt.Errorf("chain at 0x%08X: %w", e.Offset, err)
	}
	var w [4]byte
	if err := readFull(d.r, w[:], int64(e.Offset)+4); err != nil {
		return 0, fmt.Errorf("declared size: %w", err)
	}
	want := binary.LittleEndian.Uint32(w[:])
	return want, checkDeclared(d.hdr.DataSet, e.ID, e.Size, want)
}

// IDs lists, ascending, the ids Get can return: every entry except those of
// size 0, which hold no data. The first call builds the index (or waits for
// the build under way); later ones copy its id column.
func (d *Dat) IDs(ctx context.Context) ([]uint32, error) {
	if err := d.Index(ctx); err != nil {
		return nil, err
	}
	return d.ix.ready.Load().listing(), nil
}

// Walk calls fn for every entry in ascending id order (an in-order walk).
// It stops at fn's first error and returns it. Nodes it reads from the file
// are not cached, so a full walk does not evict the hot top of the tree.
func (d *Dat) Walk(fn func(Entry) error) error {
	return d.walk(context.Background(), fn)
}

func (d *Dat) walk(ctx context.Context, fn func(Entry) error) error {
	w := walker{d: d, ctx: ctx, fn: fn, seen: map[uint32]struct{}{d.root.off: {}}}
	return w.visit(d.root, 0)
}

// walker holds an in-order walk's state. seen makes each node visit once:
// a corrupt tree whose branches share or loop back to a node would otherwise
// be walked exponentially often.
type walker struct {
	d     *Dat
	ctx   context.Context
	fn    func(Entry) error
	seen  map[uint32]struct{}
	last  uint32
	count int
}

func (w *walker) visit(n *node, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	for i := 0; i <= n.n; i++ {
		if !n.leaf() {
			if err := w.child(n, i, depth); err != nil {
				return err
			}
		}
		if i == n.n {
			break
		}
		e := n.ents[i]
		if w.count > 0 && e.ID <= w.last {
			return fmt.Errorf("btree node 0x%08X entry %d: id 0x%08X after 0x%08X, not ascending", n.off, i, e.ID, w.last)
		}
		w.last, w.count = e.ID, w.count+1
		if err := w.fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) child(n *node, i, depth int) error {
	off := n.branch[i]
	if depth+1 >= maxTreeDepth {
		return fmt.Errorf("btree node 0x%08X: deeper than %d levels", n.off, maxTreeDepth)
	}
	if _, dup := w.seen[off]; dup {
		return fmt.Errorf("btree node 0x%08X branch %d: node 0x%08X reached twice", n.off, i, off)
	}
	w.seen[off] = struct{}{}
	c, ok := w.d.cache.Get(off)
	if !ok {
		var err error
		if c, err = w.d.readNode(off); err != nil {
			return fmt.Errorf("btree node 0x%08X branch %d: %w", n.off, i, err)
		}
	}
	// The ascending check in visit covers the spans; an empty node would
	// pass it, so it is refused here as a lookup refuses it.
	if c.n == 0 {
		return fmt.Errorf("btree node 0x%08X branch %d: node at 0x%08X has num_entries 0 below the root", n.off, i, off)
	}
	return w.visit(c, depth+1)
}

// node is a decoded directory node (docs/dat-format.md §1.3).
type node struct {
	off    uint32
	n      int
	branch [numBranches]uint32 // only [0, n] are meaningful; the rest is junk on disk
	ents   [maxEntries]Entry
}

// leaf is retail's test: no first branch (docs/dat-format.md §1.3).
func (n *node) leaf() bool { return n.branch[0] == 0 }

// search returns the index of the first entry with ID ≥ id and whether it
// is id; on a miss the index is also the branch to descend (docs/dat-format.md §1.4).
func (n *node) search(id uint32) (int, bool) {
	lo, hi := 0, n.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.ents[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n.n && n.ents[lo].ID == id
}

// node returns the decoded node whose chain starts at off, through the cache.
func (d *Dat) node(off uint32) (*node, error) {
	if off == d.root.off {
		return d.root, nil
	}
	if n, ok := d.cache.Get(off); ok {
		return n, nil
	}
	n, err := d.readNode(off)
	if err != nil {
		return nil, err
	}
	d.cache.Put(off, n)
	return n, nil
}

func (d *Dat) readNode(off uint32) (*node, error) {
	b, err := d.readChain(off, nodeSize, nil)
	if err != nil {
		return nil, fmt.Errorf("btree node at 0x%08X: %w", off, err)
	}
	return decodeNode(off, b)
}

// decodeNode checks what lookups rely on: a count within 0..61 (retail
// treats more as "not found"; we call the node corrupt), ids strictly
// ascending, and for a non-leaf the n+1 branches non-zero. Branch slots past
// n hold junk in retail dats and are never read.
func decodeNode(off uint32, b []byte) (*node, error) {
	cnt := int32(binary.LittleEndian.Uint32(b[countOffset:]))
	if cnt < 0 || cnt > maxEntries {
		return nil, fmt.Errorf("btree node at 0x%08X: num_entries %d at +0x%X, want 0..%d", off, cnt, countOffset, maxEntries)
	}
	n := &node{off: off, n: int(cnt)}
	for i := range numBranches {
		n.branch[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	for i := 0; i < n.n; i++ {
		p := b[entriesOffset+entrySize*i:]
		n.ents[i] = Entry{
			Flags:     binary.LittleEndian.Uint32(p),
			ID:        binary.LittleEndian.Uint32(p[4:]),
			Offset:    binary.LittleEndian.Uint32(p[8:]),
			Size:      binary.LittleEndian.Uint32(p[12:]),
			Date:      int32(binary.LittleEndian.Uint32(p[16:])),
			Iteration: int32(binary.LittleEndian.Uint32(p[20:])),
		}
		if i > 0 && n.ents[i].ID <= n.ents[i-1].ID {
			return nil, fmt.Errorf("btree node at 0x%08X: entry %d id 0x%08X not above entry %d id 0x%08X",
				off, i, n.ents[i].ID, i-1, n.ents[i-1].ID)
		}
	}
	if !n.leaf() {
		for i := 1; i <= n.n; i++ {
			if n.branch[i] == 0 {
				return nil, fmt.Errorf("btree node at 0x%08X: branch %d of %d is 0 in a non-leaf", off, i, n.n+1)
			}
		}
	} else {
		clear(n.branch[1:]) // junk; keep the struct honest
	}
	return n, nil
}

// readChain returns the size bytes stored through the block chain at off
// (docs/dat-format.md §1.2, retail CLBlockAllocator::Load_Data 0x006744E0), in dst's
// array when they fit. A chain of S bytes is exactly ceil(S/P) blocks, so
// the loop is bounded by the blocks the file has. The output grows as the
// chain proves itself (growChain), so a size field that lies costs about
// the blocks actually walked, not what it claims. A link with bit 31 set —
// the block is on the free list — fails the read as in retail, also on the
// last block. A non-zero last link, which retail rejects, is accepted (docs/dat-format.md
// §1.2 step 3, as ACE and DRW do): the bytes are all there.
func (d *Dat) readChain(off, size uint32, dst []byte) ([]byte, error) {
	out := dst[:0]
	if size == 0 {
		if out == nil {
			out = []byte{}
		}
		return out, nil
	}
	nblocks := (uint64(size) + uint64(d.payload) - 1) / uint64(d.payload)
	if have := d.blocks(); nblocks > have {
		return nil, fmt.Errorf("chain at 0x%08X: %d bytes need %d blocks, the file has %d", off, size, nblocks, have)
	}
	scratch := d.scratch(int(min(nblocks, runBlocks)) * int(d.bs))
	defer d.runs.Put(scratch)
	var seen blockSet
	pos, done := off, uint32(0)
	for blk := uint64(0); done < size; {
		if err := d.checkBlock(pos); err != nil {
			return nil, fmt.Errorf("chain at 0x%08X (%d bytes), block %d: %w", off, size, blk, err)
		}
		// Fetch up to runBlocks adjacent blocks at once, betting the chain is
		// contiguous; the links decide how many of them belong to it.
		k := min(nblocks-blk, runBlocks, uint64((d.end-pos)/d.bs))
		buf := (*scratch)[:k*uint64(d.bs)]
		if err := readFull(d.r, buf, int64(pos)); err != nil {
			return nil, fmt.Errorf("chain at 0x%08X, block %d at 0x%08X: %w", off, blk, pos, err)
		}
		out = growChain(out, min(uint64(size-done), k*uint64(d.payload)), size)
		used, next := uint32(0), uint32(0)
		for j := range k {
			b := buf[j*uint64(d.bs):]
			here := pos + uint32(j)*d.bs
			link := binary.LittleEndian.Uint32(b)
			n := min(d.payload, size-done)
			out = append(out, b[4:4+n]...)
			done += n
			used++
			if link&freeTag != 0 {
				return nil, fmt.Errorf("chain at 0x%08X, block %d at 0x%08X: link 0x%08X has bit 31 set (free block)", off, blk+j, here, link)
			}
			if done == size {
				break
			}
			if link == 0 {
				return nil, fmt.Errorf("chain at 0x%08X: link 0 at block 0x%08X after %d of %d bytes (chain too short)", off, here, done, size)
			}
			if link != here+d.bs || j == k-1 {
				next = link
				break
			}
		}
		if !seen.add(pos, used, d.bs) {
			return nil, fmt.Errorf("chain at 0x%08X (%d bytes): a block in 0x%08X..0x%08X visited twice (cycle)", off, size, pos, pos+(used-1)*d.bs)
		}
		blk += uint64(used)
		pos = next
	}
	return out, nil
}

// growChain makes room for n more bytes of a chain of size bytes. The
// capacity at least doubles each time, never past size: a record that is
// what it claims is allocated once when it fits the first run of blocks and
// otherwise costs under twice its size in total, and one that lies costs
// about twice the blocks walked before the chain broke.
func growChain(out []byte, n uint64, size uint32) []byte {
	n = min(n, uint64(size)-uint64(len(out)))
	if uint64(cap(out)-len(out)) >= n {
		return out
	}
	c := min(max(2*uint64(cap(out)), uint64(len(out))+n), uint64(size))
	grown := make([]byte, len(out), c)
	copy(grown, out)
	return grown
}

// checkBlock accepts an offset that starts a whole block inside the file:
// at or after 1024, on the block grid, ending by file_size.
func (d *Dat) checkBlock(off uint32) error {
	switch {
	case off&freeTag != 0:
		return fmt.Errorf("block offset 0x%08X has bit 31 set (free block)", off)
	case off < firstBlock:
		return fmt.Errorf("block offset 0x%08X is inside the header (< 0x%X)", off, firstBlock)
	case (off-firstBlock)%d.bs != 0:
		return fmt.Errorf("block offset 0x%08X is not on the %d-byte block grid", off, d.bs)
	case uint64(off)+uint64(d.bs) > uint64(d.end):
		return fmt.Errorf("block offset 0x%08X ends past file_size 0x%08X", off, d.end)
	}
	return nil
}

// blocks is how many whole blocks lie between 1024 and file_size.
func (d *Dat) blocks() uint64 { return uint64(d.end-firstBlock) / uint64(d.bs) }

// scratch returns a pooled buffer of at least n bytes.
func (d *Dat) scratch(n int) *[]byte {
	if p, ok := d.runs.Get().(*[]byte); ok && len(*p) >= n {
		return p
	}
	b := make([]byte, n)
	return &b
}

// blockSet records the blocks a chain has used, as runs of adjacent blocks.
// Chains that only move forward (every chain the writer makes, and nearly
// every retail one) are checked against the highest block so far; the first
// backward link builds a map of everything seen.
type blockSet struct {
	hi    uint32 // one past the highest block seen; 0 before the first
	first [4]blockRun
	runs  []blockRun
	m     map[uint32]struct{}
}

type blockRun struct{ start, n uint32 }

// add adds the n adjacent blocks from start and reports false if one of
// them was already seen.
func (s *blockSet) add(start, n, bs uint32) bool {
	if s.m == nil && start >= s.hi {
		if s.runs == nil {
			s.runs = s.first[:0]
		}
		s.runs = append(s.runs, blockRun{start, n})
		s.hi = start + n*bs
		return true
	}
	if s.m == nil {
		s.m = make(map[uint32]struct{})
		for _, r := range s.runs {
			for i := range r.n {
				s.m[r.start+i*bs] = struct{}{}
			}
		}
	}
	for i := range n {
		b := start + i*bs
		if _, dup := s.m[b]; dup {
			return false
		}
		s.m[b] = struct{}{}
	}
	return true
}

// Inflate decodes a compressed record: u32 uncompressed size, then a zlib
// stream (docs/dat-format.md §1.5, retail DiskController::Decompress 0x00670A80, which
// calls zlib uncompress into a buffer of the declared size). want is that
// size, already vetted by declaredSize. Up to InflateProbe it is allocated
// at once; past it, the first InflateProbe bytes must come out of the stream
// before the rest is allocated, so a record that declares 32 MiB and gives
// ten bytes costs a megabyte, not 32 (declaredSize's caps bound the rest).
func Inflate(b []byte, want uint32) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(b[4:]))
	if err != nil {
		return nil, fmt.Errorf("zlib header at +4: %w", err)
	}
	defer zr.Close()
	out := make([]byte, min(want, InflateProbe))
	n, err := io.ReadFull(zr, out)
	if err == nil && want > InflateProbe {
		full := make([]byte, want)
		copy(full, out)
		out = full
		var m int
		m, err = io.ReadFull(zr, out[n:])
		n += m
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("zlib stream gives %d bytes, declared %d", n, want)
		}
		return nil, fmt.Errorf("zlib stream: %w", err)
	}
	// The stream must end here: one more byte is "too long", and reading to
	// the end makes the reader verify the Adler-32 checksum.
	var one [1]byte
	switch _, err := io.ReadFull(zr, one[:]); {
	case err == nil:
		return nil, fmt.Errorf("zlib stream gives more than the declared %d bytes", want)
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("zlib stream: %w", err)
	}
	return out, nil
}

// newNodeCache is the decoded-node cache of the descent: the
// nodeCacheSize most recently used nodes (source.Cache, bounded by their
// bytes, every node the same size).
func newNodeCache() *source.Cache[*node] {
	per := int64(unsafe.Sizeof(node{}))
	return source.NewCache(nodeCacheSize*(per+source.EntryOverhead[*node]()), func(*node) int64 { return per })
}

// decodeHeader unpacks DiskFileInfo_t (docs/dat-format.md §1.1 table; offsets relative to 0x140).
func decodeHeader(b []byte) Header {
	u := func(o int) uint32 { return binary.LittleEndian.Uint32(b[o:]) }
	h := Header{
		Magic: u(0x00), BlockSize: u(0x04), FileSize: u(0x08), DataSet: DataSet(u(0x0C)),
		DataSubset: u(0x10), FirstFree: u(0x14), FinalFree: u(0x18), FreeBlockCount: u(0x1C),
		BTreeRoot: u(0x20), YoungLRU: u(0x24), OldLRU: u(0x28), UseLRU: b[0x2C] != 0,
		MasterMapID: u(0x30), EngPackVnum: u(0x34), GamePackVnum: u(0x38), IDStampUint: u(0x4C),
	}
	copy(h.IDStampGUID[:], b[0x3C:0x4C])
	return h
}

// check validates what reading relies on (docs/dat-format.md §1.7). file_size may be
// below the real size (retail's CreateDataFile writes a 4-byte free tag past
// an empty file's end) but not above it: that file is truncated.
func (h Header) check(size int64) error {
	switch {
	case h.Magic != datMagic:
		return fmt.Errorf("magic 0x%08X at 0x%X, want 0x%X", h.Magic, headerOffset, datMagic)
	case h.BlockSize != 256 && h.BlockSize != 1024:
		return fmt.Errorf("block_size %d at 0x%X, want 256 or 1024", h.BlockSize, headerOffset+0x04)
	case h.DataSet < Portal || h.DataSet > Local:
		return fmt.Errorf("data_set %d at 0x%X, want 1 (portal), 2 (cell) or 3 (local)", h.DataSet, headerOffset+0x0C)
	case int64(h.FileSize) > size:
		return fmt.Errorf("truncated: file_size %d at 0x%X, but the file has %d bytes", h.FileSize, headerOffset+0x08, size)
	case h.FileSize < firstBlock+h.BlockSize:
		return fmt.Errorf("file_size %d at 0x%X leaves no room for a block after 0x%X", h.FileSize, headerOffset+0x08, firstBlock)
	}
	root := h.BTreeRoot
	if root < firstBlock || (root-firstBlock)%h.BlockSize != 0 || uint64(root)+uint64(h.BlockSize) > uint64(h.FileSize) {
		return fmt.Errorf("btree_root 0x%08X at 0x%X is not a block inside file_size 0x%08X", root, headerOffset+0x20, h.FileSize)
	}
	return nil
}

// readFull reads len(b) bytes at off; a ReaderAt may report io.EOF with a
// full read, which is success.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("read %d bytes at 0x%X: got %d: %w", len(b), off, n, err)
}
