package datfile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzOpenDat feeds arbitrary bytes to NewDat and, when they open, to every
// reading path. Nothing may panic or hang, and the reader must agree with
// itself: each id a successful listing gives is found by Lookup.
func FuzzOpenDat(f *testing.F) {
	one, _, _ := onePortal()
	f.Add(one.b)
	two, _ := twoLevel()
	f.Add(two.b)
	mb, _ := multiBlock()
	f.Add(mb.b)
	f.Add(writeDat(f, WriteOptions{DataSet: Cell, Compress: func(uint32, []byte) bool { return true }}, map[uint32][]byte{
		0x01010100: didRecord(0x01010100, "EnvCell EnvCell EnvCell EnvCell"),
		0x0101FFFF: didRecord(0x0101FFFF, string(make([]byte, 248))),
		0xFFFF0001: {1, 0, 0, 0, 1, 0, 0, 0},
		0x01010101: nil,
	}))

	f.Fuzz(fuzzOpenDat)
}

// fuzzOpenDat is the fuzz body, callable from ordinary tests.
func fuzzOpenDat(t *testing.T, data []byte) {
	d, err := NewDat(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return
	}
	ctx := context.Background()
	ids, listErr := d.IDs(ctx)
	if listErr != nil && ids != nil {
		t.Fatalf("IDs failed (%v) but returned %d ids", listErr, len(ids))
	}
	for i, id := range ids {
		if i == 64 {
			break
		}
		if _, err := d.Lookup(id); err != nil {
			t.Fatalf("IDs listed 0x%08X but Lookup says %v", id, err)
		}
		d.Get(ctx, id)
	}
	// Probe every aligned word past the header as an id: that hits the
	// entries of trees the walk rejected too.
	for i := 1024; i+4 <= len(data) && i < 8192; i += 4 {
		id := binary.LittleEndian.Uint32(data[i:])
		if _, err := d.Lookup(id); err == nil {
			d.Get(ctx, id)
		}
	}
	n := 0
	walkErr := d.Walk(func(Entry) error { n++; return nil })
	if (walkErr == nil) != (listErr == nil) {
		t.Fatalf("Walk error %v but IDs error %v", walkErr, listErr)
	}
	stop := errors.New("stop")
	if n > 0 && d.Walk(func(Entry) error { return stop }) != stop {
		t.Fatal("Walk did not return fn's error")
	}
}
