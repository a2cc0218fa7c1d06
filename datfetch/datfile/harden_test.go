package datfile

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"acambient/datfetch/source"
)

// Regression tests for issue 8: sizes and tree links an attacker or a bit
// flip controls must not decide how much memory a read takes, nor turn a
// corrupt tree into a quiet "not found".

// paddedReader is a dat image followed by zeros up to size, without holding
// them: a huge file whose only real bytes are the first ones.
type paddedReader struct {
	b    []byte
	size int64
}

func (r paddedReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, errors.New("read past the end")
	}
	n := 0
	if off < int64(len(r.b)) {
		n = copy(p, r.b[off:])
	}
	end := min(int64(len(p)), r.size-off)
	clear(p[n:end])
	return int(end), nil
}

// allocated is the bytes fn allocates: the least over allocRuns runs of
// runtime.MemStats.TotalAlloc's growth (which counts every allocation, also
// those already collected), each on one P after a collection, as
// testing.AllocsPerRun measures. TotalAlloc is the process's: a goroutine
// left by an earlier test can add to a run it interrupts, never take from
// it, so the least run is fn's own cost (plus nothing, or less than a
// run's worth of that noise). fn must cost the same each run: a dat's
// node cache makes later runs cheaper by a few KiB at most.
func allocated(fn func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	least := uint64(math.MaxUint64)
	for range allocRuns {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		fn()
		runtime.ReadMemStats(&b)
		least = min(least, b.TotalAlloc-a.TotalAlloc)
	}
	return least
}

// allocRuns is how many runs allocated takes the least of.
const allocRuns = 3

// hugePortal is onePortal's image stretched to 1 GiB of blocks with its
// record's size field set to size: the padded demo portal with a
// flipped size bit, without the gigabyte.
func hugePortal(t *testing.T, size uint32) (*Dat, Entry) {
	f, e, _ := onePortal()
	const fileSize = 1 << 30
	f.u32(0x148, fileSize)
	e.Size = size
	f.chain(nodeBytes(nil, []Entry{e}), 0, 1)
	d, err := NewDat(paddedReader{f.b, fileSize}, fileSize)
	if err != nil {
		t.Fatal(err)
	}
	return d, e
}

// A size field claiming 30 MiB (under the cap) on a one-block record: the
// read fails at the zero link after one block, having allocated about what
// it walked, not the 30 MiB claimed.
func TestChainMemoryBoundedByBlocksWalked(t *testing.T) {
	d, e := hugePortal(t, 30<<20)
	var err error
	n := allocated(func() { _, err = d.Get(context.Background(), e.ID) })
	if err == nil || !strings.Contains(err.Error(), "link 0 at block 0x00000C00 after 1020 of 31457280 bytes (chain too short)") {
		t.Fatalf("Get error = %v, want a short chain", err)
	}
	if n > 1<<20 {
		t.Errorf("a 30 MiB claim over a one-block chain allocated %d bytes, want < 1 MiB", n)
	}
}

// The exact case: bit 29 of the size set (536 MB) is refused before
// any read.
func TestStoredSizeOverCap(t *testing.T) {
	d, e := hugePortal(t, 14|1<<29)
	var err error
	n := allocated(func() { _, err = d.Get(context.Background(), e.ID) })
	if err == nil || !strings.Contains(err.Error(), "record 0x0A000001 at 0x00000C00: stored size 536870926 exceeds 33554432") {
		t.Fatalf("Get error = %v, want the stored-size cap", err)
	}
	if n > 64<<10 {
		t.Errorf("refusing the size allocated %d bytes", n)
	}
}

// A record that fits its first run of blocks is allocated once at its size;
// a longer one grows to exactly its size with its bytes intact.
func TestChainGrowthKeepsBytes(t *testing.T) {
	f, e := multiBlock()
	out, err := f.open(t).readChain(e.Offset, e.Size, nil)
	if err != nil || len(out) != 600 || cap(out) != 600 {
		t.Fatalf("readChain = len %d cap %d, %v; want 600 bytes allocated once", len(out), cap(out), err)
	}
	var grown []byte
	for i := range 5 {
		grown = growChain(grown, 1000, 3500)
		grown = append(grown, bytes.Repeat([]byte{byte(i)}, min(1000, 3500-len(grown)))...)
	}
	if len(grown) != 3500 || cap(grown) != 3500 || grown[999] != 0 || grown[1000] != 1 || grown[3499] != 3 {
		t.Errorf("growChain: len %d cap %d, bytes %d %d %d", len(grown), cap(grown), grown[999], grown[1000], grown[3499])
	}
}

// compressedPortal is a portal dat whose record id is stored as s, flagged
// compressed: root in blocks 0,1, the record from block 2 on.
func compressedPortal(t *testing.T, id uint32, s []byte) *Dat {
	f := newFixture(1024, 1, 2+(len(s)+1019)/1020)
	e := Entry{Flags: 0x00020001, ID: id, Offset: uint32(f.blk(2)), Size: uint32(len(s))}
	f.chain(nodeBytes(nil, []Entry{e}), 0, 1)
	blocks := []int{}
	for i := 2; i < len(f.b)/1024-1; i++ {
		blocks = append(blocks, i)
	}
	f.chain(s, blocks...)
	return f.open(t)
}

// zrecord is a compressed record: the declared size, then zlib of rec.
func zrecord(declared uint32, rec []byte) []byte {
	var zb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zb, zlib.BestCompression)
	zw.Write(rec)
	zw.Close()
	return append(binary.LittleEndian.AppendUint32(nil, declared), zb.Bytes()...)
}

// The bomb: 65 KB of zlib that declares, and expands to, 64 MiB.
// It is refused from its declared size, before any of it is inflated.
func TestDecompressionBombRefused(t *testing.T) {
	rec := make([]byte, 64<<20)
	binary.LittleEndian.PutUint32(rec, 0x0A000001)
	s := zrecord(64<<20, rec)
	if len(s) > 70000 {
		t.Fatalf("bomb is %d bytes, want about 65 KB", len(s))
	}
	d := compressedPortal(t, 0x0A000001, s)
	rec = nil
	var err error
	n := allocated(func() { _, err = d.Get(context.Background(), 0x0A000001) })
	if err == nil || !strings.Contains(err.Error(), "declared uncompressed size 67108864 exceeds 33554432, the most a portal-dat record can be") {
		t.Fatalf("Get error = %v, want the portal cap", err)
	}
	if n > 1<<20 {
		t.Errorf("refusing the bomb allocated %d bytes", n)
	}
}

// A legitimate large compressed record is allocated once at its declared
// size after a 1 MiB probe: 4 MiB costs about 5 (a growing buffer cost 8).
func TestInflateAllocatesDeclaredOnce(t *testing.T) {
	rec := bytes.Repeat([]byte("wave data "), 4<<20/10)
	binary.LittleEndian.PutUint32(rec, 0x0A000002)
	d := compressedPortal(t, 0x0A000002, zrecord(uint32(len(rec)), rec))
	var got []byte
	var err error
	n := allocated(func() { got, err = d.Get(context.Background(), 0x0A000002) })
	if err != nil || !bytes.Equal(got, rec) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	if want := uint64(len(rec)) + InflateProbe + 256<<10; n > want {
		t.Errorf("inflating %d bytes allocated %d, want ≤ %d", len(rec), n, want)
	}
}

// A record that declares 8 MiB (within zlib's ratio of its 8 KB stream)
// but gives 8 KB costs the 1 MiB probe, not the 8 MiB it claims.
func TestInflateLyingDeclaredSize(t *testing.T) {
	rec := didRecord(0x0A000003, string(noise(8192)))
	d := compressedPortal(t, 0x0A000003, zrecord(8<<20, rec))
	var err error
	n := allocated(func() { _, err = d.Get(context.Background(), 0x0A000003) })
	if err == nil || !strings.Contains(err.Error(), "zlib stream gives 8196 bytes, declared 8388608") {
		t.Fatalf("Get error = %v", err)
	}
	if n > InflateProbe+256<<10 {
		t.Errorf("a lying 8 MiB declaration allocated %d bytes", n)
	}
}

func TestDeclaredSizeRejections(t *testing.T) {
	lb := didRecord(0x7F7FFFFF, strings.Repeat("t", 248))
	tests := []struct {
		name string
		set  uint32
		id   uint32
		s    []byte
		want string
	}{
		// A LandBlock is 252 bytes (docs/dat-format.md §6.1), whatever its record says.
		{"LandBlock over 252", 2, 0x7F7FFFFF, zrecord(253, append(lb, 0)), "declared uncompressed size 253 exceeds 252, the most a LandBlock (docs/dat-format.md §6.1) can be"},
		// 20 bytes of zlib cannot give a megabyte.
		{"beyond zlib's ratio", 1, 0x0A000001, zrecord(1<<20, didRecord(0x0A000001, "abc")), "is more than a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs := 1024
			if tt.set == 2 {
				bs = 256
			}
			f := newFixture(bs, tt.set, 12)
			nodeBlocks := []int{0, 1}
			if bs == 256 {
				nodeBlocks = []int{0, 1, 2, 3, 4, 5, 6}
			}
			e := Entry{Flags: 0x00020001, ID: tt.id, Offset: uint32(f.blk(len(nodeBlocks))), Size: uint32(len(tt.s))}
			f.chain(nodeBytes(nil, []Entry{e}), nodeBlocks...)
			f.chain(tt.s, len(nodeBlocks), len(nodeBlocks)+1, len(nodeBlocks)+2)
			_, err := f.open(t).Get(context.Background(), tt.id)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Get error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Exactly 252 is a LandBlock, and reads.
	f := newFixture(256, 2, 10)
	s := zrecord(252, lb)
	e := Entry{Flags: 0x00020001, ID: 0x7F7FFFFF, Offset: uint32(f.blk(7)), Size: uint32(len(s))}
	f.chain(nodeBytes(nil, []Entry{e}), 0, 1, 2, 3, 4, 5, 6)
	f.chain(s, 7, 8, 9)
	if b, err := f.open(t).Get(context.Background(), 0x7F7FFFFF); err != nil || !bytes.Equal(b, lb) {
		t.Errorf("252-byte LandBlock: %d bytes, %v", len(b), err)
	}
}

// Corrupt tree links are errors naming the node, on lookup and on a walk,
// where retail (and this reader before) answered "not found".
func TestTreeLinksChecked(t *testing.T) {
	// twoLevel: root at 0x400 (entry 0x20; branches leaf A at 0xB00 with
	// 0x10, 0x18 and leaf B at 0x1200 with 0x30).
	tests := []struct {
		name       string
		edit       func(f *fixture)
		id         uint32
		want, walk string
	}{
		{"branch to the sibling leaf", func(f *fixture) { f.u32(f.at(0, 0), uint32(f.blk(14))) }, 0x10,
			"branch 0 of node 0x00000400: btree node at 0x00001200: ids 0x00000030..0x00000030 outside its parent's span (start..0x00000020)",
			"id 0x00000020 after 0x00000030, not ascending"},
		{"entry count 0", func(f *fixture) { f.u32(f.at(7, 0xF8), 0) }, 0x10,
			"btree node at 0x00000B00: num_entries 0 below the root",
			"node at 0x00000B00 has num_entries 0 below the root"},
		{"ids shifted past the parent's", func(f *fixture) {
			f.u32(f.at(7, 0xFC+4), 0x21)
			f.u32(f.at(7, 0xFC+24+4), 0x28)
		}, 0x10,
			"btree node at 0x00000B00: ids 0x00000021..0x00000028 outside its parent's span (start..0x00000020)",
			"not ascending"},
		{"ids shifted below the parent's", func(f *fixture) { f.u32(f.at(14, 0xFC+4), 0x1F) }, 0x30,
			"btree node at 0x00001200: ids 0x0000001F..0x0000001F outside its parent's span (0x00000020..end)",
			"not ascending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := twoLevel()
			tt.edit(f)
			d := f.open(t)
			_, err := d.Lookup(tt.id)
			if err == nil || errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Lookup(0x%X) = %v, want an error containing %q", tt.id, err, tt.want)
			}
			if _, err := d.IDs(context.Background()); err == nil || !strings.Contains(err.Error(), tt.walk) {
				t.Errorf("IDs error = %v, want one containing %q", err, tt.walk)
			}
		})
	}
}

// A budget makes reads wait for memory others hold, and gives it back.
func TestBudget(t *testing.T) {
	f, e, rec := onePortal()
	d := f.open(t)
	b := NewBudget(100)
	d.SetBudget(b)
	if got, err := d.Get(context.Background(), e.ID); err != nil || !bytes.Equal(got, rec) {
		t.Fatalf("Get under budget = %q, %v", got, err)
	}
	// Someone else holds 90 of the 100 bytes: the 14-byte read waits, here
	// until its context ends.
	if err := b.acquire(context.Background(), 90); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := d.Get(ctx, e.ID)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get while the budget is held = %v, want the context's deadline", err)
	}
	done := make(chan error, 1)
	go func() { _, err := d.Get(context.Background(), e.ID); done <- err }()
	b.release(90)
	if err := <-done; err != nil {
		t.Fatalf("Get after release: %v", err)
	}
	// A read larger than the whole budget is refused outright.
	d.SetBudget(NewBudget(10))
	if _, err := d.Get(context.Background(), e.ID); err == nil || !strings.Contains(err.Error(), "reading needs 14 bytes at once, more than the 10-byte budget") {
		t.Fatalf("Get over the budget = %v", err)
	}
}
