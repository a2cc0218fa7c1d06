package datfile

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"strings"
	"testing"

	"acambient/datfetch/source"
)

// The fixtures here are laid out byte by byte from docs/dat-format.md §1,
// independently of writer.go.

// fixture is a dat image under construction.
type fixture struct {
	b  []byte
	bs int
}

// newFixture makes a dat of nblocks blocks after the 1024-byte header with
// DiskFileInfo filled in and the root at the first block (1024).
func newFixture(bs int, set uint32, nblocks int) *fixture {
	f := &fixture{b: make([]byte, 1024+nblocks*bs), bs: bs}
	f.u32(0x140, 0x5442)
	f.u32(0x144, uint32(bs))
	f.u32(0x148, uint32(len(f.b)))
	f.u32(0x14C, set)
	f.u32(0x160, 1024)
	return f
}

// blk is the offset of block i (0 = the block at 1024).
func (f *fixture) blk(i int) int { return 1024 + i*f.bs }

// at is the file offset of byte k of an object stored in consecutive
// blocks from block first.
func (f *fixture) at(first, k int) int { return f.blk(first+k/(f.bs-4)) + 4 + k%(f.bs-4) }

func (f *fixture) u32(off int, v uint32) { binary.LittleEndian.PutUint32(f.b[off:], v) }

// chain stores data through the given blocks in order, each linking to the
// next, the last to 0.
func (f *fixture) chain(data []byte, blocks ...int) {
	p := f.bs - 4
	for i, b := range blocks {
		off := f.blk(b)
		link := uint32(0)
		if i+1 < len(blocks) {
			link = uint32(f.blk(blocks[i+1]))
		}
		f.u32(off, link)
		end := min((i+1)*p, len(data))
		if i*p < end {
			copy(f.b[off+4:], data[i*p:end])
		}
	}
}

func (f *fixture) open(t *testing.T) *Dat {
	t.Helper()
	d, err := NewDat(bytes.NewReader(f.b), int64(len(f.b)))
	if err != nil {
		t.Fatalf("NewDat: %v", err)
	}
	return d
}

// nodeBytes lays out a 1716-byte directory node: branches at 0, count at
// 0xF8, 24-byte entries from 0xFC.
func nodeBytes(branches []uint32, ents []Entry) []byte {
	b := make([]byte, 1716)
	for i, br := range branches {
		binary.LittleEndian.PutUint32(b[4*i:], br)
	}
	binary.LittleEndian.PutUint32(b[0xF8:], uint32(len(ents)))
	for i, e := range ents {
		p := b[0xFC+24*i:]
		binary.LittleEndian.PutUint32(p[0:], e.Flags)
		binary.LittleEndian.PutUint32(p[4:], e.ID)
		binary.LittleEndian.PutUint32(p[8:], e.Offset)
		binary.LittleEndian.PutUint32(p[12:], e.Size)
		binary.LittleEndian.PutUint32(p[16:], uint32(e.Date))
		binary.LittleEndian.PutUint32(p[20:], uint32(e.Iteration))
	}
	return b
}

// didRecord is id's DID followed by body.
func didRecord(id uint32, body string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, id), body...)
}

// onePortal is a portal dat (1024-byte blocks): root over blocks 0,1 (1716
// bytes need 2 blocks of 1020), one 14-byte Wave record in block 2.
func onePortal() (*fixture, Entry, []byte) {
	f := newFixture(1024, 1, 3)
	rec := didRecord(0x0A000001, "hello wave")
	e := Entry{Flags: 0x00020000, ID: 0x0A000001, Offset: 1024 + 2*1024, Size: 14, Date: 1357000000, Iteration: 5}
	f.chain(nodeBytes(nil, []Entry{e}), 0, 1)
	f.chain(rec, 2)
	return f, e, rec
}

func TestOneRecordPortal(t *testing.T) {
	f, want, rec := onePortal()
	if len(f.b) != 4096 {
		t.Fatalf("fixture is %d bytes, want 4096", len(f.b))
	}
	d := f.open(t)
	h := d.Header()
	if h.Magic != 0x5442 || h.BlockSize != 1024 || h.FileSize != 4096 || h.DataSet != Portal || h.BTreeRoot != 1024 {
		t.Errorf("header = %+v", h)
	}
	got, err := d.Lookup(0x0A000001)
	if err != nil || got != want {
		t.Fatalf("Lookup = %+v, %v; want %+v", got, err, want)
	}
	if got.Compressed() {
		t.Error("flags 0x00020000 reported compressed")
	}
	b, err := d.Get(context.Background(), 0x0A000001)
	if err != nil || !bytes.Equal(b, rec) {
		t.Fatalf("Get = % X, %v; want % X", b, err, rec)
	}
	ids, err := d.IDs(context.Background())
	if err != nil || len(ids) != 1 || ids[0] != 0x0A000001 {
		t.Errorf("IDs = %X, %v", ids, err)
	}
	for _, id := range []uint32{0, 0x0A000000, 0x0A000002, 0xFFFFFFFF} {
		if _, err := d.Get(context.Background(), id); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("Get(0x%08X) = %v, want ErrNotFound", id, err)
		}
	}
}

// storedZlib is a zlib stream holding data in one stored (uncompressed)
// deflate block, by RFC 1950/1951: CMF 0x78, FLG 0x01 (0x7801 % 31 == 0),
// BFINAL=1 BTYPE=00, LEN, NLEN, data, Adler-32 big-endian.
func storedZlib(data []byte) []byte {
	b := []byte{0x78, 0x01, 0x01, byte(len(data)), byte(len(data) >> 8), ^byte(len(data)), ^byte(len(data) >> 8)}
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, adler32.Checksum(data))
}

// compressedCell is a cell dat (256-byte blocks): root over blocks 0..6
// (1716 bytes need 7 blocks of 252), a stored-block zlib record in block 7,
// a real deflate record from block 8 over as many blocks as it needs (≥ 2).
func compressedCell(t testing.TB) (*fixture, map[uint32][]byte) {
	small := didRecord(0x01010100, "ABCDEFGHIJKL")
	body := make([]byte, 0, 800)
	x := uint32(12345)
	for range 400 { // incompressible half: an LCG's high bytes
		x = x*1103515245 + 12345
		body = append(body, byte(x>>24))
	}
	body = append(body, strings.Repeat("terrain ", 50)...)
	big := didRecord(0x01010101, string(body))
	var zb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zb, 9)
	zw.Write(big)
	zw.Close()

	s1 := binary.LittleEndian.AppendUint32(nil, uint32(len(small)))
	s1 = append(s1, storedZlib(small)...)
	s2 := binary.LittleEndian.AppendUint32(nil, uint32(len(big)))
	s2 = append(s2, zb.Bytes()...)
	n2 := (len(s2) + 251) / 252
	if len(s1) != 4+7+16+4 || n2 < 2 {
		t.Fatalf("stored sizes %d, %d do not fit the layout", len(s1), len(s2))
	}
	f := newFixture(256, 2, 8+n2)
	ents := []Entry{
		{Flags: 0x00020001, ID: 0x01010100, Offset: uint32(f.blk(7)), Size: uint32(len(s1))},
		{Flags: 0x00020001, ID: 0x01010101, Offset: uint32(f.blk(8)), Size: uint32(len(s2))},
	}
	f.chain(nodeBytes(nil, ents), 0, 1, 2, 3, 4, 5, 6)
	f.chain(s1, 7)
	list := make([]int, n2)
	for i := range list {
		list[i] = 8 + i
	}
	f.chain(s2, list...)
	return f, map[uint32][]byte{0x01010100: small, 0x01010101: big}
}

func TestCompressedRecords(t *testing.T) {
	f, want := compressedCell(t)
	d := f.open(t)
	if d.Header().BlockSize != 256 || d.Header().DataSet != Cell {
		t.Fatalf("header = %+v", d.Header())
	}
	for id, w := range want {
		e, err := d.Lookup(id)
		if err != nil || !e.Compressed() {
			t.Fatalf("Lookup(0x%08X) = %+v, %v; want a compressed entry", id, e, err)
		}
		b, err := d.Get(context.Background(), id)
		if err != nil || !bytes.Equal(b, w) {
			t.Errorf("Get(0x%08X) = %d bytes, %v; want %d bytes", id, len(b), err, len(w))
		}
	}
}

// twoLevel is a cell dat whose root (blocks 0..6) holds 0x20 and branches
// to leaf A (blocks 7..13: 0x10, 0x18) and leaf B (14..20: 0x30); records
// are blocks 21..24. Root branch slots past the two real ones hold retail's
// junk 0xCDCDCDCD.
func twoLevel() (*fixture, map[uint32][]byte) {
	f := newFixture(256, 2, 25)
	recs := map[uint32][]byte{}
	ent := func(id uint32, blk int) Entry {
		recs[id] = didRecord(id, "cell "+string(rune('a'+blk-21)))
		f.chain(recs[id], blk)
		return Entry{Flags: 0x00020000, ID: id, Offset: uint32(f.blk(blk)), Size: uint32(len(recs[id]))}
	}
	e10, e18, e20, e30 := ent(0x10, 21), ent(0x18, 22), ent(0x20, 23), ent(0x30, 24)
	br := []uint32{uint32(f.blk(7)), uint32(f.blk(14))}
	for len(br) < 62 {
		br = append(br, 0xCDCDCDCD)
	}
	f.chain(nodeBytes(br, []Entry{e20}), 0, 1, 2, 3, 4, 5, 6)
	f.chain(nodeBytes(nil, []Entry{e10, e18}), 7, 8, 9, 10, 11, 12, 13)
	f.chain(nodeBytes(nil, []Entry{e30}), 14, 15, 16, 17, 18, 19, 20)
	return f, recs
}

func TestTwoLevelTree(t *testing.T) {
	f, recs := twoLevel()
	d := f.open(t)
	if d.root.leaf() || d.root.n != 1 {
		t.Fatalf("root: leaf=%v n=%d, want a non-leaf with 1 entry", d.root.leaf(), d.root.n)
	}
	for id, w := range recs {
		b, err := d.Get(context.Background(), id)
		if err != nil || !bytes.Equal(b, w) {
			t.Errorf("Get(0x%X) = %q, %v; want %q", id, b, err, w)
		}
	}
	// 0x25 descends into leaf B, 0x05 into leaf A, 0x40 past B's end.
	for _, id := range []uint32{0x05, 0x14, 0x25, 0x40} {
		if _, err := d.Lookup(id); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("Lookup(0x%X) = %v, want ErrNotFound", id, err)
		}
	}
	ids, err := d.IDs(context.Background())
	if want := []uint32{0x10, 0x18, 0x20, 0x30}; err != nil || !equalIDs(ids, want) {
		t.Errorf("IDs = %X, %v; want %X", ids, err, want)
	}
}

func equalIDs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A chain whose blocks run backwards (root at 6,5,...,0) is legal: links,
// not positions, define it; it must not be mistaken for a cycle.
func TestBackwardChain(t *testing.T) {
	_, e, rec := onePortal()
	g := newFixture(256, 2, 8)
	e.Offset = uint32(g.blk(7))
	g.chain(nodeBytes(nil, []Entry{e}), 6, 5, 4, 3, 2, 1, 0)
	g.chain(rec, 7)
	g.u32(0x160, uint32(g.blk(6)))
	d := g.open(t)
	b, err := d.Get(context.Background(), e.ID)
	if err != nil || !bytes.Equal(b, rec) {
		t.Fatalf("Get = %q, %v; want %q", b, err, rec)
	}
}

// A non-zero link on a chain's last block is accepted (docs/dat-format.md §1.2 step 3).
func TestFinalLinkNonZero(t *testing.T) {
	f, e, rec := onePortal()
	f.u32(int(e.Offset), 1024) // points back at the root; never followed
	d := f.open(t)
	if b, err := d.Get(context.Background(), e.ID); err != nil || !bytes.Equal(b, rec) {
		t.Fatalf("Get = %q, %v", b, err)
	}
}

func TestSizeZeroEntry(t *testing.T) {
	f := newFixture(1024, 1, 3)
	rec := didRecord(0x0A000002, "x")
	ents := []Entry{
		{Flags: 0x00020000, ID: 0x0A000001, Offset: 0, Size: 0},
		{Flags: 0x00020000, ID: 0x0A000002, Offset: uint32(f.blk(2)), Size: 5},
	}
	f.chain(nodeBytes(nil, ents), 0, 1)
	f.chain(rec, 2)
	d := f.open(t)
	if _, err := d.Get(context.Background(), 0x0A000001); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Get of a size-0 entry = %v, want ErrNotFound", err)
	}
	if e, err := d.Lookup(0x0A000001); err != nil || e.Size != 0 {
		t.Errorf("Lookup of a size-0 entry = %+v, %v; want the entry", e, err)
	}
	ids, _ := d.IDs(context.Background())
	if !equalIDs(ids, []uint32{0x0A000002}) {
		t.Errorf("IDs = %X, want only 0A000002", ids)
	}
	var walked []uint32
	d.Walk(func(e Entry) error { walked = append(walked, e.ID); return nil })
	if !equalIDs(walked, []uint32{0x0A000001, 0x0A000002}) {
		t.Errorf("Walk = %X, want both entries", walked)
	}
}

func TestHeaderRejections(t *testing.T) {
	tests := []struct {
		name string
		edit func(f *fixture)
		want string
	}{
		{"magic", func(f *fixture) { f.u32(0x140, 0x1234) }, "magic 0x00001234 at 0x140, want 0x5442"},
		{"block size 512", func(f *fixture) { f.u32(0x144, 512) }, "block_size 512 at 0x144"},
		{"data set 7", func(f *fixture) { f.u32(0x14C, 7) }, "data_set 7 at 0x14C"},
		{"truncated", func(f *fixture) { f.u32(0x148, 4097) }, "truncated: file_size 4097"},
		{"short file", func(f *fixture) { f.b = f.b[:0x18F] }, "ends before the header end"},
		{"root misaligned", func(f *fixture) { f.u32(0x160, 1024+512) }, "btree_root 0x00000600"},
		{"root past end", func(f *fixture) { f.u32(0x160, 4096) }, "btree_root 0x00001000"},
		{"root in header", func(f *fixture) { f.u32(0x160, 0) }, "btree_root 0x00000000"},
		{"num_entries 62", func(f *fixture) { f.u32(1024+4+0xF8, 62) }, "num_entries 62 at +0xF8"},
		{"num_entries -1", func(f *fixture) { f.u32(1024+4+0xF8, 0xFFFFFFFF) }, "num_entries -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := onePortal()
			tt.edit(f)
			_, err := NewDat(bytes.NewReader(f.b), int64(len(f.b)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewDat error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// A file larger than file_size is fine: retail leaves bytes past it.
func TestFileLongerThanFileSize(t *testing.T) {
	f, e, rec := onePortal()
	f.b = append(f.b, 0, 0, 0, 0x80)
	d := f.open(t)
	if b, err := d.Get(context.Background(), e.ID); err != nil || !bytes.Equal(b, rec) {
		t.Fatalf("Get = %q, %v", b, err)
	}
}

// multiBlock is a cell dat whose one record spans blocks 7, 8, 9 (600 bytes).
func multiBlock() (*fixture, Entry) {
	f := newFixture(256, 2, 10)
	rec := didRecord(0x7F7FFFFF, strings.Repeat("h", 596))
	e := Entry{Flags: 0x00020000, ID: 0x7F7FFFFF, Offset: uint32(f.blk(7)), Size: 600}
	f.chain(nodeBytes(nil, []Entry{e}), 0, 1, 2, 3, 4, 5, 6)
	f.chain(rec, 7, 8, 9)
	return f, e
}

func TestChainRejections(t *testing.T) {
	tests := []struct {
		name string
		edit func(f *fixture)
		want string
	}{
		{"free-tagged link", func(f *fixture) { f.u32(f.blk(7), uint32(f.blk(8))|0x80000000) }, "link 0x80000C00 has bit 31 set"},
		{"free-tagged last link", func(f *fixture) { f.u32(f.blk(9), 0x80000000) }, "link 0x80000000 has bit 31 set"},
		{"link 0 mid-record", func(f *fixture) { f.u32(f.blk(8), 0) }, "link 0 at block 0x00000C00 after 504 of 600 bytes"},
		{"link to itself", func(f *fixture) { f.u32(f.blk(8), uint32(f.blk(8))) }, "visited twice"},
		{"link back to start", func(f *fixture) { f.u32(f.blk(8), uint32(f.blk(7))) }, "visited twice"},
		{"misaligned link", func(f *fixture) { f.u32(f.blk(7), uint32(f.blk(8))+4) }, "not on the 256-byte block grid"},
		{"link past the end", func(f *fixture) { f.u32(f.blk(7), uint32(f.blk(10))) }, "ends past file_size"},
		{"link into the header", func(f *fixture) { f.u32(f.blk(7), 0x100) }, "inside the header"},
		{"size beyond the file", func(f *fixture) { f.u32(f.at(0, 0xFC+12), 100000) }, "100000 bytes need 397 blocks, the file has 10"},
		{"DID mismatch", func(f *fixture) { f.u32(f.blk(7)+4, 0x7F7F0100) }, "starts with DID 0x7F7F0100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, e := multiBlock()
			d := f.open(t)
			if _, err := d.Get(context.Background(), e.ID); err != nil {
				t.Fatalf("unedited fixture: %v", err)
			}
			tt.edit(f)
			d = f.open(t)
			_, err := d.Get(context.Background(), e.ID)
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, source.ErrNotFound) {
				t.Fatalf("Get error = %v, want one containing %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "0x7F7FFFFF") {
				t.Errorf("error %q does not name the record", err)
			}
		})
	}
}

func TestNodeRejections(t *testing.T) {
	tests := []struct {
		name string
		edit func(f *fixture)
		want string
	}{
		// Leaf A's entry count lives at 0xF8 of its node, in its first block.
		{"leaf num_entries 62", func(f *fixture) { f.u32(f.at(7, 0xF8), 62) }, "num_entries 62"},
		{"ids not ascending", func(f *fixture) { f.u32(f.at(7, 0xFC+24+4), 0x08) }, "entry 1 id 0x00000008 not above entry 0 id 0x00000010"},
		{"missing branch", func(f *fixture) { f.u32(1024+4+4, 0) }, "branch 1 of 2 is 0"},
		// The root as its own child holds its parent's bounding id itself.
		{"branch cycle", func(f *fixture) { f.u32(1024+4, 1024) }, "node at 0x00000400: ids 0x00000020..0x00000020 outside its parent's span (start..0x00000020)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := twoLevel()
			tt.edit(f)
			d, err := NewDat(bytes.NewReader(f.b), int64(len(f.b)))
			if err == nil {
				_, err = d.Lookup(0x10)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// Two branches naming the same node would make a walk revisit it.
func TestWalkSharedNode(t *testing.T) {
	f, _ := twoLevel()
	f.u32(1024+4+4, uint32(f.blk(7))) // branch 1 := leaf A
	d := f.open(t)
	_, err := d.IDs(context.Background())
	if err == nil || !strings.Contains(err.Error(), "reached twice") {
		t.Fatalf("IDs error = %v, want a revisit", err)
	}
}

func TestCompressionRejections(t *testing.T) {
	tests := []struct {
		name   string
		stored func(rec []byte) []byte
		want   string
	}{
		{"declared too large", func(rec []byte) []byte {
			return append(binary.LittleEndian.AppendUint32(nil, uint32(len(rec)+1)), storedZlib(rec)...)
		}, "gives 16 bytes, declared 17"},
		{"declared too small", func(rec []byte) []byte {
			return append(binary.LittleEndian.AppendUint32(nil, uint32(len(rec)-1)), storedZlib(rec)...)
		}, "more than the declared 15 bytes"},
		{"declared over the cap", func(rec []byte) []byte {
			return append(binary.LittleEndian.AppendUint32(nil, 1<<20+1), storedZlib(rec)...)
		}, "declared uncompressed size 1048577 exceeds 1048576, the most a cell-dat record can be"},
		{"bad checksum", func(rec []byte) []byte {
			z := storedZlib(rec)
			z[len(z)-1] ^= 1
			return append(binary.LittleEndian.AppendUint32(nil, uint32(len(rec))), z...)
		}, "checksum"},
		{"under 16 bytes", func([]byte) []byte {
			return append(binary.LittleEndian.AppendUint32(nil, 4), storedZlib([]byte("abcd"))[:11]...)
		}, "compressed record of 15 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := didRecord(0x01010100, "ABCDEFGHIJKL")
			s := tt.stored(rec)
			f := newFixture(256, 2, 8)
			e := Entry{Flags: 0x00020001, ID: 0x01010100, Offset: uint32(f.blk(7)), Size: uint32(len(s))}
			f.chain(nodeBytes(nil, []Entry{e}), 0, 1, 2, 3, 4, 5, 6)
			f.chain(s, 7)
			_, err := f.open(t).Get(context.Background(), e.ID)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Get error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestGetCanceled(t *testing.T) {
	f, e, _ := onePortal()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.open(t).Get(ctx, e.ID); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get = %v, want context.Canceled", err)
	}
}

// A contiguous chain longer than one read run (64 blocks) is stitched
// across runs.
func TestLongChain(t *testing.T) {
	const blocks = 150
	f := newFixture(256, 2, 7+blocks)
	rec := didRecord(0x0A0000FF, strings.Repeat("0123456789", 252*blocks/10)[:252*blocks-4])
	e := Entry{Flags: 0x00020000, ID: 0x0A0000FF, Offset: uint32(f.blk(7)), Size: uint32(len(rec))}
	f.chain(nodeBytes(nil, []Entry{e}), 0, 1, 2, 3, 4, 5, 6)
	list := make([]int, blocks)
	for i := range list {
		list[i] = 7 + i
	}
	// Jump once mid-way to exercise a run that ends on a link elsewhere.
	list[100], list[101] = list[101], list[100]
	f.chain(rec, list...)
	b, err := f.open(t).Get(context.Background(), e.ID)
	if err != nil || !bytes.Equal(b, rec) {
		t.Fatalf("Get = %d bytes, %v; want %d bytes equal", len(b), err, len(rec))
	}
}

// The descent's node cache holds nodeCacheSize nodes, whatever their
// count in bytes, and lets the least recently used go first.
func TestNodeCacheHoldsNodeCacheSize(t *testing.T) {
	c := newNodeCache()
	for off := range uint32(nodeCacheSize) {
		c.Put(off, &node{off: off})
	}
	c.Get(0) // now the most recent: node 1 is the least
	c.Put(nodeCacheSize, &node{off: nodeCacheSize})
	if _, ok := c.Get(1); ok || c.Len() != nodeCacheSize {
		t.Errorf("after one more than it holds: node 1 kept %v, %d nodes; want it evicted and %d", ok, c.Len(), nodeCacheSize)
	}
	if n, ok := c.Get(0); !ok || n.off != 0 {
		t.Error("the most recently used node was evicted")
	}
}

// failingReader fails every read past the header, as a dying disk would.
type failingReader struct{ b []byte }

func (r failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= 1024 {
		return 0, errors.New("disk on fire")
	}
	return bytes.NewReader(r.b).ReadAt(p, off)
}

func TestReadErrorsWrapped(t *testing.T) {
	f, _, _ := onePortal()
	_, err := NewDat(failingReader{f.b}, int64(len(f.b)))
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "0x00000400") {
		t.Fatalf("NewDat = %v, want the read error with the root offset", err)
	}
}

// Leaf A holding an id above the root's separator breaks the order only
// across nodes; the listing must fail whole, not return a prefix.
func TestIDsNotAscendingAcrossNodes(t *testing.T) {
	f, _ := twoLevel()
	f.u32(f.at(7, 0xFC+24+4), 0x1918) // leaf A: 0x10, 0x1918; root: 0x20
	d := f.open(t)
	ids, err := d.IDs(context.Background())
	if err == nil || ids != nil || !strings.Contains(err.Error(), "id 0x00000020 after 0x00001918, not ascending") {
		t.Fatalf("IDs = %X, %v; want nil and an ordering error", ids, err)
	}
}
