package datfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"acambient/datfetch/source"
)

// countingReader counts the ReadAt calls that reach the file.
type countingReader struct {
	r     io.ReaderAt
	reads atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.r.ReadAt(p, off)
}

// indexedCell writes a cell dat of n landblock-sized records (one 256-byte
// block each) plus one 600-byte record (three blocks), ids ascending by 2 so
// that every odd id between them is a miss. 5000 entries make a 3-level tree.
func indexedCell(t *testing.T, n int) ([]byte, []uint32, map[uint32][]byte) {
	t.Helper()
	recs := map[uint32][]byte{}
	var ids []uint32
	for i := range n {
		id := uint32(0x01010000 + 2*i)
		recs[id] = didRecord(id, strings.Repeat("l", 248))
		ids = append(ids, id)
	}
	big := uint32(0x7F7F0000)
	recs[big] = didRecord(big, strings.Repeat("h", 596))
	ids = append(ids, big)
	return writeDat(t, WriteOptions{DataSet: Cell}, recs), ids, recs
}

// After the index is built, lookups and listings read nothing and a Get
// reads its record in one ReadAt; before it, a cold lookup reads nodes.
func TestIndexedLookupsDoNoReads(t *testing.T) {
	img, ids, recs := indexedCell(t, 5000)
	cr := &countingReader{r: bytes.NewReader(img)}
	d, err := NewDat(cr, int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if n := cr.reads.Load(); n != 2 {
		t.Errorf("NewDat made %d reads, want 2 (header, root)", n)
	}
	if d.IndexBytes() != 0 {
		t.Error("index built at open; it must wait for the first lookup")
	}
	before := cr.reads.Load()
	if _, err := d.descend(ids[100]); err != nil {
		t.Fatal(err)
	}
	if n := cr.reads.Load() - before; n != 2 {
		t.Errorf("a cold descent in a 3-level tree made %d reads, want 2 (two nodes below the root)", n)
	}

	ctx := context.Background()
	if err := d.Index(ctx); err != nil {
		t.Fatal(err)
	}
	before = cr.reads.Load()
	for _, id := range ids {
		if e, err := d.Lookup(id); err != nil || e.ID != id {
			t.Fatalf("Lookup(0x%08X) = %+v, %v", id, e, err)
		}
		if _, err := d.Lookup(id + 1); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("Lookup(0x%08X) = %v, want ErrNotFound", id+1, err)
		}
	}
	got, err := d.IDs(ctx)
	if err != nil || !slices.Equal(got, ids) {
		t.Fatalf("IDs = %d ids, %v; want %d", len(got), err, len(ids))
	}
	if n := cr.reads.Load() - before; n != 0 {
		t.Errorf("%d lookups and a listing after the index was built made %d reads, want 0", 2*len(ids), n)
	}

	for _, id := range []uint32{ids[0], ids[4999], 0x7F7F0000} {
		before = cr.reads.Load()
		b, err := d.Get(ctx, id)
		if err != nil || !bytes.Equal(b, recs[id]) {
			t.Fatalf("Get(0x%08X) = %d bytes, %v", id, len(b), err)
		}
		if n := cr.reads.Load() - before; n != 1 {
			t.Errorf("Get(0x%08X) of %d bytes made %d reads, want 1", id, len(b), n)
		}
	}
	// 5001 ids, 16 bytes each in ids+locs, 2 in the stamp codes, 4 per 64 in
	// top, one stamp in the dictionary, plus the struct and chunk lists.
	if got, min := d.IndexBytes(), int64(5001*18+79*4+8); got < min || got > min+512 {
		t.Errorf("IndexBytes = %d, want %d plus the struct", got, min)
	}
}

// A caller that wants a few records never builds the index: the build
// starts at the indexAfter-th lookup, in the background.
func TestIndexStartsAfterLookups(t *testing.T) {
	img, ids, _ := indexedCell(t, 5000)
	d, err := NewDat(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i := range indexAfter - 1 {
		d.Lookup(ids[i])
	}
	if len(d.ix.once) != 1 {
		t.Fatalf("the index build started after %d lookups, want %d", indexAfter-1, indexAfter)
	}
	d.Lookup(ids[0])
	if len(d.ix.once) != 0 {
		t.Fatalf("the index build did not start at lookup %d", indexAfter)
	}
	<-d.ix.done
	if d.IndexBytes() == 0 {
		t.Fatalf("no index after the build: %v", d.ix.err)
	}
}

// The index answers every lookup, hit or miss, exactly as the descent does,
// dates and iterations included.
func TestIndexAgreesWithDescent(t *testing.T) {
	one, _, _ := onePortal()
	two, _ := twoLevel()
	img, _, _ := indexedCell(t, 40_000) // three column chunks
	for name, b := range map[string][]byte{"onePortal": one.b, "twoLevel": two.b, "cell40000": img} {
		d, err := NewDat(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		var probes []uint32
		d.Walk(func(e Entry) error { probes = append(probes, e.ID-1, e.ID, e.ID+1); return nil })
		probes = append(probes, 0, 0xFFFFFFFF)
		if err := d.Index(context.Background()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		x := d.ix.ready.Load()
		for _, id := range probes {
			want, werr := d.descend(id)
			got, gerr := x.lookup(id)
			if got != want || (werr == nil) != (gerr == nil) {
				t.Fatalf("%s: 0x%08X: index %+v, %v; descent %+v, %v", name, id, got, gerr, want, werr)
			}
		}
	}
	// The hand-laid portal entry: flags, offset, size, date and iteration.
	d := one.open(t)
	d.Index(context.Background())
	want := Entry{Flags: 0x00020000, ID: 0x0A000001, Offset: 3072, Size: 14, Date: 1357000000, Iteration: 5}
	if got, err := d.Lookup(0x0A000001); got != want || err != nil {
		t.Errorf("indexed Lookup = %+v, %v; want %+v", got, err, want)
	}
}

// A tree the walk rejects has no index: the listing fails with the walk's
// error, and lookups in the good part of the tree still descend and succeed.
func TestIndexOfCorruptTree(t *testing.T) {
	f, recs := twoLevel()
	f.u32(f.blk(14)+4+countOffset, 99) // second leaf: num_entries 99
	d := f.open(t)
	if _, err := d.IDs(context.Background()); err == nil || !strings.Contains(err.Error(), "num_entries 99") {
		t.Fatalf("IDs = %v, want the leaf's num_entries error", err)
	}
	if d.IndexBytes() != 0 {
		t.Error("an index was kept for a corrupt tree")
	}
	for _, id := range []uint32{0x10, 0x18, 0x20} {
		if b, err := d.Get(context.Background(), id); err != nil || !bytes.Equal(b, recs[id]) {
			t.Errorf("Get(0x%X) = %q, %v; want %q", id, b, err, recs[id])
		}
	}
	if _, err := d.Lookup(0x30); err == nil {
		t.Error("Lookup(0x30) through the corrupt leaf succeeded")
	}
}

// After Close no build starts, and Index says why.
func TestIndexAfterClose(t *testing.T) {
	img, _, _ := indexedCell(t, 100)
	cr := &countingReader{r: bytes.NewReader(img)}
	d, err := NewDat(cr, int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	before := cr.reads.Load()
	if err := d.Index(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Index after Close = %v, want a closed error", err)
	}
	if _, err := d.IDs(context.Background()); err == nil {
		t.Error("IDs after Close succeeded")
	}
	if n := cr.reads.Load() - before; n != 0 {
		t.Errorf("%d reads after Close", n)
	}
}

// The stamp codes are 16-bit up to 65,536 distinct stamps, then 32-bit, and
// give every entry its own stamp back either way.
func TestStampColumn(t *testing.T) {
	for _, distinct := range []int{3, 1 << 16, 1<<16 + 1} {
		var b stampBuilder
		n := distinct + 1000
		for i := range n {
			s := stamp{int32(i % distinct), int32(-(i % distinct))}
			b.push(b.code(s))
		}
		col := b.column()
		if wide := col.codes32 != nil; wide != (distinct > 1<<16) {
			t.Errorf("%d distinct: 32-bit codes %v", distinct, wide)
		}
		for i := range n {
			if s := col.at(i); s.date != int32(i%distinct) || s.iteration != -int32(i%distinct) {
				t.Fatalf("%d distinct: entry %d: %+v", distinct, i, s)
			}
		}
	}
}

// Concurrent lookups while the index is built in the background all see
// right answers, through the descent or the index.
func TestLookupsDuringBuild(t *testing.T) {
	img, ids, _ := indexedCell(t, 5000)
	d, err := NewDat(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	done := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := g; i < len(ids); i += 4 {
				e, err := d.Lookup(ids[i])
				if err == nil && (e.ID != ids[i] || binary.LittleEndian.Uint32(img[e.Offset+4:]) != ids[i]) {
					err = errors.New("wrong entry")
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
