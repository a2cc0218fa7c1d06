package datfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"acambient/datfetch/source"
)

// testRecords makes n records with ids spread over the 32-bit space (the
// top bit set on some, to catch signed comparisons), lengths cycling through
// 4..3003 so that some span many blocks, and every 500th empty.
func testRecords(n int) map[uint32][]byte {
	recs := make(map[uint32][]byte, n)
	for i := range n {
		id := uint32(i)*2654435761 + 0x100
		size := 4 + (i*7919)%3000
		if i%500 == 499 {
			recs[id] = nil
			continue
		}
		b := make([]byte, size)
		binary.LittleEndian.PutUint32(b, id)
		for j := 4; j < size; j++ {
			b[j] = byte(i + j*j)
		}
		recs[id] = b
	}
	return recs
}

func writeDat(t testing.TB, opt WriteOptions, recs map[uint32][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteDatOptions(&buf, opt, recs); err != nil {
		t.Fatalf("WriteDatOptions: %v", err)
	}
	return buf.Bytes()
}

func TestWriteRead(t *testing.T) {
	for _, set := range []DataSet{Portal, Cell} {
		for _, n := range []int{0, 1, 61, 62, 5000} {
			t.Run(fmt.Sprintf("set%d/%d", set, n), func(t *testing.T) {
				recs := testRecords(n)
				img := writeDat(t, WriteOptions{DataSet: set}, recs)
				d, err := NewDat(bytes.NewReader(img), int64(len(img)))
				if err != nil {
					t.Fatalf("NewDat: %v", err)
				}
				checkHeader(t, d.Header(), set, len(img))
				checkShape(t, d, n)

				var all, nonEmpty []uint32
				for id, b := range recs {
					all = append(all, id)
					if len(b) > 0 {
						nonEmpty = append(nonEmpty, id)
					}
				}
				slices.Sort(all)
				slices.Sort(nonEmpty)
				ids, err := d.IDs(context.Background())
				if err != nil || !slices.Equal(ids, nonEmpty) {
					t.Fatalf("IDs: %d ids, %v; want %d", len(ids), err, len(nonEmpty))
				}
				var walked []uint32
				d.Walk(func(e Entry) error { walked = append(walked, e.ID); return nil })
				if !slices.Equal(walked, all) {
					t.Fatalf("Walk gave %d ids, want %d ascending", len(walked), len(all))
				}
				for id, want := range recs {
					got, err := d.Get(context.Background(), id)
					if len(want) == 0 {
						if !errors.Is(err, source.ErrNotFound) {
							t.Fatalf("Get(0x%08X) of an empty record = %v, want ErrNotFound", id, err)
						}
						continue
					}
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("Get(0x%08X) = %d bytes, %v; want %d bytes", id, len(got), err, len(want))
					}
				}
			})
		}
	}
}

func checkHeader(t *testing.T, h Header, set DataSet, size int) {
	t.Helper()
	bs, subset, vnum := uint32(1024), uint32(0), uint32(110)
	if set == Cell {
		bs, subset, vnum = 256, 1, 22
	}
	want := Header{
		Magic: 0x5442, BlockSize: bs, FileSize: uint32(size), DataSet: set, DataSubset: subset,
		FirstFree: uint32(size), FinalFree: uint32(size), BTreeRoot: 1024,
		EngPackVnum: vnum, IDStampUint: 6657,
	}
	if h != want {
		t.Errorf("header\n got %+v\nwant %+v", h, want)
	}
	if (size-1024)%int(bs) != 0 {
		t.Errorf("file size %d is not 1024 + whole blocks of %d", size, bs)
	}
}

// checkShape walks the tree: every leaf at one depth, every non-root node
// with 30..61 entries, every non-leaf with n+1 branches, and entries whose
// flags carry pack version 2.
func checkShape(t *testing.T, d *Dat, n int) {
	t.Helper()
	leafDepth, total := -1, 0
	var visit func(nd *node, depth int)
	visit = func(nd *node, depth int) {
		total += nd.n
		if depth > 0 && (nd.n < 30 || nd.n > 61) {
			t.Errorf("node 0x%08X at depth %d has %d entries, want 30..61", nd.off, depth, nd.n)
		}
		for i := range nd.n {
			if v := nd.ents[i].Flags >> 16; v != 2 && nd.ents[i].ID != 0xFFFF0001 {
				t.Errorf("entry 0x%08X pack version %d, want 2", nd.ents[i].ID, v)
			}
		}
		if nd.leaf() {
			if leafDepth == -1 {
				leafDepth = depth
			} else if leafDepth != depth {
				t.Errorf("leaf 0x%08X at depth %d, others at %d", nd.off, depth, leafDepth)
			}
			return
		}
		for i := 0; i <= nd.n; i++ {
			c, err := d.readNode(nd.branch[i])
			if err != nil {
				t.Fatalf("node 0x%08X branch %d: %v", nd.off, i, err)
			}
			visit(c, depth+1)
		}
	}
	visit(d.root, 0)
	if total != n {
		t.Errorf("tree holds %d entries, want %d", total, n)
	}
	if n > 61 && d.root.leaf() {
		t.Errorf("root of %d entries is a leaf", n)
	}
	if n == 5000 && leafDepth != 2 {
		t.Errorf("5000 entries: leaves at depth %d, want 2 (61·62 = 3782 < 5000)", leafDepth)
	}
}

// Hand-computed layouts (docs/dat-format.md §1.2–1.3).
func TestWriteLayoutVectors(t *testing.T) {
	t.Run("portal one record", func(t *testing.T) {
		// 1024 header + 2 root blocks (1716 > 1020) + 1 record block.
		rec := didRecord(0x0A000001, strings.Repeat("w", 96))
		img := writeDat(t, WriteOptions{DataSet: Portal}, map[uint32][]byte{0x0A000001: rec})
		if len(img) != 4096 {
			t.Fatalf("size %d, want 4096", len(img))
		}
		le := binary.LittleEndian
		checks := []struct {
			name      string
			off       int
			got, want uint32
		}{
			{"root block 0 link", 1024, le.Uint32(img[1024:]), 2048},
			{"root block 1 link", 2048, le.Uint32(img[2048:]), 0},
			{"root num_entries", 1028 + 0xF8, le.Uint32(img[1028+0xF8:]), 1},
			{"entry flags", 1028 + 0xFC, le.Uint32(img[1028+0xFC:]), 0x00020000},
			{"entry id", 1028 + 0xFC + 4, le.Uint32(img[1028+0xFC+4:]), 0x0A000001},
			{"entry offset", 1028 + 0xFC + 8, le.Uint32(img[1028+0xFC+8:]), 3072},
			{"entry size", 1028 + 0xFC + 12, le.Uint32(img[1028+0xFC+12:]), 100},
			{"entry date", 1028 + 0xFC + 16, le.Uint32(img[1028+0xFC+16:]), 0},
			{"record link", 3072, le.Uint32(img[3072:]), 0},
			{"record DID", 3076, le.Uint32(img[3076:]), 0x0A000001},
			{"journal magic", 0x104, le.Uint32(img[0x104:]), 19536},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s at 0x%X = 0x%X, want 0x%X", c.name, c.off, c.got, c.want)
			}
		}
		if s := string(img[:48]); s != "\nFile Header Structure Default Constructor v1.3\n" || img[48] != 0 || img[255] != 0x1A {
			t.Errorf("version string %q, byte 255 = 0x%02X", s, img[255])
		}
		if !bytes.Equal(img[3076+100:4096], make([]byte, 4096-3176)) {
			t.Error("record block padding is not zero")
		}
	})
	t.Run("cell 62 records", func(t *testing.T) {
		// 62 keys: root holds 1, leaves 31 and 30. 3 nodes x 7 blocks x 256
		// = 5376; 62 records of 252 bytes fill one block each = 15872.
		recs := map[uint32][]byte{}
		var ids []uint32
		for i := range 62 {
			id := uint32(0x0101FFFF + i<<16)
			ids = append(ids, id)
			recs[id] = didRecord(id, strings.Repeat("t", 248))
		}
		img := writeDat(t, WriteOptions{DataSet: Cell}, recs)
		if len(img) != 1024+5376+15872 {
			t.Fatalf("size %d, want 22272", len(img))
		}
		d, err := NewDat(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		r := d.root
		if r.n != 1 || r.ents[0].ID != ids[31] || r.branch[0] != 1024+7*256 || r.branch[1] != 1024+14*256 {
			t.Fatalf("root n=%d key=0x%08X branches 0x%X 0x%X; want 1, 0x%08X, 0x%X, 0x%X",
				r.n, r.ents[0].ID, r.branch[0], r.branch[1], ids[31], 1024+7*256, 1024+14*256)
		}
		for i, want := range []int{31, 30} {
			c, err := d.readNode(r.branch[i])
			if err != nil || c.n != want {
				t.Errorf("leaf %d: %v, %d entries; want %d", i, err, c.n, want)
			}
		}
		// Records follow the 21 node blocks in id order, one block each.
		if e, _ := d.Lookup(ids[0]); e.Offset != 1024+21*256 {
			t.Errorf("first record at 0x%X, want 0x%X", e.Offset, 1024+21*256)
		}
		if e, _ := d.Lookup(ids[61]); e.Offset != 1024+82*256 {
			t.Errorf("last record at 0x%X, want 0x%X", e.Offset, 1024+82*256)
		}
	})
}

func TestWriteBlockSizeOverride(t *testing.T) {
	recs := testRecords(100)
	img := writeDat(t, WriteOptions{DataSet: Cell, BlockSize: 1024, DataSubset: 7}, recs)
	d, err := NewDat(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	if h := d.Header(); h.BlockSize != 1024 || h.DataSubset != 7 || h.DataSet != Cell || h.EngPackVnum != 22 {
		t.Errorf("header %+v", h)
	}
	for id, want := range recs {
		if got, err := d.Get(context.Background(), id); len(want) > 0 && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("Get(0x%08X): %v", id, err)
		}
	}
}

func TestWriteDeterministic(t *testing.T) {
	recs := testRecords(3000)
	opt := WriteOptions{DataSet: Cell, Compress: func(id uint32, _ []byte) bool { return id&1 == 0 }}
	a, b := writeDat(t, opt, recs), writeDat(t, opt, recs)
	if !bytes.Equal(a, b) {
		t.Fatal("two writes of the same records differ")
	}
}

func TestWriteCompressed(t *testing.T) {
	recs := map[uint32][]byte{
		0x0A000001: didRecord(0x0A000001, strings.Repeat("compressible ", 300)),
		0x0A000002: didRecord(0x0A000002, "tiny"),                                        // 8 bytes: never compressed (retail needs > 16)
		0x0A000003: didRecord(0x0A000003, string(noise(2000))),                           // would grow: stored raw
		0xFFFF0001: append([]byte{3, 0, 0, 0}, bytes.Repeat([]byte{1, 0, 0, 0}, 100)...), // iteration list
		0x0A000004: didRecord(0x0A000004, strings.Repeat("a", 13)),                       // 17 bytes, compresses under 16: raw
	}
	img := writeDat(t, WriteOptions{DataSet: Portal, Compress: func(uint32, []byte) bool { return true }}, recs)
	d, err := NewDat(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	wantFlags := map[uint32]uint32{
		0x0A000001: 0x00020001, 0x0A000002: 0x00020000, 0x0A000003: 0x00020000,
		0x0A000004: 0x00020000, 0xFFFF0001: 0x00010000,
	}
	for id, want := range recs {
		e, err := d.Lookup(id)
		if err != nil || e.Flags != wantFlags[id] {
			t.Errorf("0x%08X flags 0x%08X, %v; want 0x%08X", id, e.Flags, err, wantFlags[id])
		}
		got, err := d.Get(context.Background(), id)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Get(0x%08X) = %d bytes, %v; want %d", id, len(got), err, len(want))
		}
	}
	if e, _ := d.Lookup(0x0A000001); e.Size >= 200 {
		t.Errorf("3904 compressible bytes stored as %d", e.Size)
	}
}

func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestWriteOptionErrors(t *testing.T) {
	for _, opt := range []WriteOptions{{DataSet: 7}, {DataSet: 0}, {DataSet: Portal, BlockSize: 512}} {
		err := WriteDatOptions(&bytes.Buffer{}, opt, nil)
		if err == nil {
			t.Errorf("WriteDatOptions(%+v) succeeded", opt)
		}
	}
}

// 16 goroutines Get random ids from one file; run with -race.
func TestConcurrentGet(t *testing.T) {
	recs := testRecords(5000)
	path := filepath.Join(t.TempDir(), "client_cell_1.dat")
	if err := os.WriteFile(path, writeDat(t, WriteOptions{DataSet: Cell}, recs), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDat(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ids := slices.Sorted(func(yield func(uint32) bool) {
		for id, b := range recs {
			if len(b) > 0 && !yield(id) {
				return
			}
		}
	})
	errs := make(chan error, 16)
	for g := range 16 {
		go func() {
			x := uint32(g + 1)
			for range 500 {
				x = x*1664525 + 1013904223
				id := ids[int(x>>8)%len(ids)]
				b, err := d.Get(context.Background(), id)
				if err != nil || !bytes.Equal(b, recs[id]) {
					errs <- fmt.Errorf("goroutine %d: Get(0x%08X): %v", g, id, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestOpenDatNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.dat")
	os.WriteFile(path, make([]byte, 2048), 0o644)
	_, err := OpenDat(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "magic 0x00000000 at 0x140") {
		t.Fatalf("OpenDat error = %v", err)
	}
}

func TestWriteDatDefaults(t *testing.T) {
	var a, b bytes.Buffer
	recs := testRecords(10)
	if err := WriteDat(&a, Cell, recs); err != nil {
		t.Fatal(err)
	}
	if err := WriteDatOptions(&b, WriteOptions{DataSet: Cell, BlockSize: 256, DataSubset: 1}, recs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("WriteDat(Cell) differs from explicit cell defaults")
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	err := WriteDat(&failingWriter{n: 1 << 20}, Cell, testRecords(5000))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("WriteDat = %v, want the write error", err)
	}
}

// buildTree's shapes around the capacity edges: 61 (one leaf), 62 (first
// split), 3843 = 61 + 62·61 (a full two-level tree), 3844 (three levels),
// 238327 (a full three-level tree) and 238328.
func TestTreeShapes(t *testing.T) {
	for _, n := range []int{0, 1, 60, 61, 62, 63, 122, 123, 1000, 3782, 3843, 3844, 5000, 238327, 238328} {
		tr := buildTree(n)
		next, leafDepth := 0, -1
		var visit func(i int32, depth int)
		visit = func(i int32, depth int) {
			nd := tr.nodes[i]
			if len(nd.keys) > 61 || (depth > 0 && len(nd.keys) < 30) {
				t.Fatalf("n=%d: node %d at depth %d has %d keys", n, i, depth, len(nd.keys))
			}
			if nd.kids == nil {
				if leafDepth == -1 {
					leafDepth = depth
				} else if depth != leafDepth {
					t.Fatalf("n=%d: leaves at depths %d and %d", n, leafDepth, depth)
				}
			} else if len(nd.kids) != len(nd.keys)+1 {
				t.Fatalf("n=%d: node %d has %d keys and %d kids", n, i, len(nd.keys), len(nd.kids))
			}
			for j := 0; j <= len(nd.keys); j++ {
				if nd.kids != nil {
					if nd.kids[j] <= i {
						t.Fatalf("n=%d: node %d child %d is not after it in preorder", n, i, nd.kids[j])
					}
					visit(nd.kids[j], depth+1)
				}
				if j < len(nd.keys) {
					if int(nd.keys[j]) != next {
						t.Fatalf("n=%d: in-order key %d, want %d", n, nd.keys[j], next)
					}
					next++
				}
			}
		}
		visit(0, 0)
		if next != n {
			t.Errorf("n=%d: tree holds %d keys", n, next)
		}
		wantDepth := map[bool]int{true: 0, false: 1}[n <= 61]
		if n > 3843 {
			wantDepth = 2
		}
		if n > 238327 {
			wantDepth = 3
		}
		if leafDepth != wantDepth {
			t.Errorf("n=%d: leaves at depth %d, want %d", n, leafDepth, wantDepth)
		}
	}
}
