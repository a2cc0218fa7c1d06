package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// blobSized is a cache of one shard whose arena is exactly 8192 bytes, with
// a table of 64 slots (1024 bytes), so room for 32 entries.
func blobSized(t *testing.T) (*BlobCache, *blobShard) {
	t.Helper()
	c := NewBlobCache(9216)
	if len(c.shards) != 1 || c.shards[0].arenaBytes != 8192 || c.shards[0].slots != 64 {
		t.Fatalf("%d shards, arena %d bytes, %d slots; want 1, 8192 and 64", len(c.shards), c.shards[0].arenaBytes, c.shards[0].slots)
	}
	return c, &c.shards[0]
}

// pos is where key's entry starts in the shard's log, -1 if it holds none.
func (s *blobShard) pos(key uint64) int64 {
	if i, ok := s.find(key); ok {
		return s.table[i].pos - 1
	}
	return -1
}

// rec1000 is a 1000-byte record for key k: with its 24-byte header, one
// 1024-byte entry, so the arena holds 8.
func rec1000(k uint64) []byte { return bytes.Repeat([]byte{byte(k)}, 1000) }

func held(s *blobShard, keys ...uint64) string {
	var h []uint64
	for _, k := range keys {
		if s.pos(k) >= 0 {
			h = append(h, k)
		}
	}
	return fmt.Sprint(h)
}

func TestBlobCacheRoundTrip(t *testing.T) {
	c, _ := blobSized(t)
	c.Put(1<<32|7, []byte("portal seven"), 0xAAAA)
	c.Put(2<<32|7, []byte("cell seven"), 0xBBBB)
	for _, tc := range []struct {
		key  uint64
		want string
		tag  uint64
	}{{1<<32 | 7, "portal seven", 0xAAAA}, {2<<32 | 7, "cell seven", 0xBBBB}} {
		b, tag, ok := c.Get(tc.key, make([]byte, 3, 64))
		if !ok || string(b) != tc.want || tag != tc.tag {
			t.Errorf("Get(%x) = %q %x %v, want %q %x", tc.key, b, tag, ok, tc.want, tc.tag)
		}
	}
	if _, _, ok := c.Get(3<<32|7, nil); ok {
		t.Error("a key never put was found")
	}
	if got, want := c.Bytes(), int64(8192+1024); got != want {
		t.Errorf("Bytes = %d, want %d", got, want)
	}
}

// Eviction is first in, first out: the ninth 1024-byte entry overwrites the
// first.
func TestBlobCacheEvictsOldest(t *testing.T) {
	c, s := blobSized(t)
	for k := uint64(1); k <= 10; k++ {
		c.Put(k, rec1000(k), k)
	}
	if got := held(s, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10); got != "[3 4 5 6 7 8 9 10]" {
		t.Errorf("held %s, want keys 3–10", got)
	}
	if s.head != 10*1024 || s.tail != 2*1024 {
		t.Errorf("log [%d, %d), want [2048, 10240)", s.tail, s.head)
	}
}

// A record read while in the oldest quarter is written again at the head:
// reading key 1 of a full cache keeps it past the next put, which evicts
// key 2 instead. A record read while young is not moved.
func TestBlobCacheSecondChance(t *testing.T) {
	c, s := blobSized(t)
	for k := uint64(1); k <= 8; k++ {
		c.Put(k, rec1000(k), k)
	}
	if b, tag, ok := c.Get(8, nil); !ok || tag != 8 || !bytes.Equal(b, rec1000(8)) || s.pos(8) != 7*1024 {
		t.Fatalf("young key 8: ok %v tag %d, at %d; want it unmoved at 7168", ok, tag, s.pos(8))
	}
	if b, _, ok := c.Get(1, nil); !ok || !bytes.Equal(b, rec1000(1)) {
		t.Fatal("key 1 lost before the cache was full")
	}
	c.Put(9, rec1000(9), 9)
	if got := held(s, 1, 2, 3, 4, 5, 6, 7, 8, 9); got != "[1 3 4 5 6 7 8 9]" {
		t.Errorf("held %s, want 1 and 3–9", got)
	}
	if b, tag, ok := c.Get(1, nil); !ok || tag != 1 || !bytes.Equal(b, rec1000(1)) {
		t.Error("key 1's second copy reads wrong")
	}
}

// An entry that does not fit before the arena's end starts the next lap;
// the end is padding, which eviction skips.
func TestBlobCacheWraps(t *testing.T) {
	c, s := blobSized(t)
	rec := func(k uint64) []byte { return bytes.Repeat([]byte{byte(k)}, 976) } // 1000-byte entries
	for k := uint64(1); k <= 9; k++ {
		c.Put(k, rec(k), k)
	}
	// 1–8 fill [0, 8000); 9 would end at 9000 > 8192, so it starts the
	// next lap at 8192, overwriting 1 only: 192 bytes of padding.
	if s.pos(9) != 8192 || held(s, 1, 2, 3, 4, 5, 6, 7, 8, 9) != "[2 3 4 5 6 7 8 9]" {
		t.Fatalf("key 9 at %d, held %s; want 8192, 2–9", s.pos(9), held(s, 1, 2, 3, 4, 5, 6, 7, 8, 9))
	}
	for k := uint64(10); k <= 16; k++ {
		c.Put(k, rec(k), k)
	}
	if s.tail != 8000 || s.head != 16192 {
		t.Fatalf("log [%d, %d), want [8000, 16192): the tail at the padding", s.tail, s.head)
	}
	// 17 starts the third lap at 16384: the tail skips the padding and 9.
	c.Put(17, rec(17), 17)
	if got := held(s, 9, 10, 17); got != "[10 17]" || s.tail != 9192 || s.pos(17) != 16384 {
		t.Errorf("held %s of 9, 10, 17, tail %d, 17 at %d; want [10 17], 9192, 16384", got, s.tail, s.pos(17))
	}
	for k := uint64(10); k <= 17; k++ {
		if b, _, ok := c.Get(k, nil); !ok || !bytes.Equal(b, rec(k)) {
			t.Errorf("key %d reads wrong", k)
		}
	}
}

// The table is at most half full: with records too small for the arena to
// bind, the entry count stops at 32 and the oldest go.
func TestBlobCacheEntryCap(t *testing.T) {
	c, s := blobSized(t)
	for k := uint64(1); k <= 100; k++ {
		c.Put(k, []byte{byte(k)}, k)
	}
	if c.Len() != 32 || held(s, 68, 69) != "[69]" {
		t.Errorf("%d entries, 68/69 held %s; want 32 entries, the newest (69–100)", c.Len(), held(s, 68, 69))
	}
	for k := uint64(69); k <= 100; k++ {
		if b, tag, ok := c.Get(k, nil); !ok || tag != k || len(b) != 1 || b[0] != byte(k) {
			t.Errorf("key %d: %v %d %v", k, b, tag, ok)
		}
	}
	if got := c.Bytes(); got != 9216 {
		t.Errorf("Bytes = %d, want the 9216 given", got)
	}
}

func TestBlobCacheLimits(t *testing.T) {
	if c := NewBlobCache(0); c != nil {
		t.Error("a zero budget made a cache")
	}
	var nilCache *BlobCache
	nilCache.Put(1, []byte("x"), 1)
	if _, _, ok := nilCache.Get(1, nil); ok || nilCache.Bytes() != 0 || nilCache.Len() != 0 {
		t.Error("a nil cache held something")
	}
	c, s := blobSized(t)
	c.Put(1, make([]byte, 8192/8-24), 1) // the largest kept
	c.Put(2, make([]byte, 8192/8-23), 2)
	if held(s, 1, 2) != "[1]" {
		t.Errorf("held %s, want only the record of an eighth of the arena", held(s, 1, 2))
	}
}

// Against a model, over random sizes, keys and reads: every hit returns the
// bytes and tag last put, the log never spans more than the arena, the
// count never passes the cap, and the newest record is always held.
func TestBlobCacheModel(t *testing.T) {
	c, s := blobSized(t)
	r := rand.New(rand.NewPCG(1, 2))
	// Sizes up to the largest kept (1000 bytes), keys enough to overflow
	// both the arena and the map.
	model := map[uint64][]byte{}
	hits := 0
	for i := range 20000 {
		k := uint64(r.IntN(60))
		if r.IntN(3) == 0 {
			b := make([]byte, r.IntN(1001))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			binaryTag := uint64(i)
			c.Put(k, b, binaryTag)
			model[k] = append(b, byte(i), byte(i>>8)) // the tag, kept alongside
			if s.pos(k) < 0 {
				t.Fatalf("step %d: key %d just put is not held", i, k)
			}
		} else if got, tag, ok := c.Get(k, nil); ok {
			hits++
			want := model[k]
			if !bytes.Equal(got, want[:len(want)-2]) || byte(tag) != want[len(want)-2] || byte(tag>>8) != want[len(want)-1] {
				t.Fatalf("step %d: key %d reads %d bytes tag %d, want %d bytes", i, k, len(got), tag, len(want)-2)
			}
		}
		if s.head-s.tail > s.arenaBytes || s.used > s.slots/2 {
			t.Fatalf("step %d: log [%d, %d) over %d, %d entries", i, s.tail, s.head, s.arenaBytes, s.used)
		}
		if n := tableEntries(s); n != s.used {
			t.Fatalf("step %d: %d slots filled, %d counted", i, n, s.used)
		}
	}
	if hits < 1000 {
		t.Errorf("%d hits in 20000 steps: the cache holds too little", hits)
	}
}

func tableEntries(s *blobShard) int {
	n := 0
	for _, e := range s.table {
		if e.pos != 0 {
			n++
		}
	}
	return n
}

// A cache is sharded by 8 MiB up to 8 shards; each shard's table is an
// eighth of its bytes, rounded down to a power of two slots, and its arena
// the rest. 64 MiB: 8 shards of a 7 MiB arena and 65536 slots.
func TestBlobCacheShards(t *testing.T) {
	for _, tc := range []struct {
		max           int64
		shards, slots int
		arena         int64
	}{
		{64 << 20, 8, 65536, 7 << 20},
		{16 << 20, 2, 65536, 7 << 20},
		{12 << 20, 1, 65536, 11 << 20},
		{1 << 30, 8, 1 << 20, 112 << 20},
	} {
		c := NewBlobCache(tc.max)
		if len(c.shards) != tc.shards || c.shards[0].slots != tc.slots || c.shards[0].arenaBytes != tc.arena {
			t.Errorf("%d MiB: %d shards of %d slots and %d bytes, want %d, %d, %d", tc.max>>20,
				len(c.shards), c.shards[0].slots, c.shards[0].arenaBytes, tc.shards, tc.slots, tc.arena)
		}
	}
	// Keys spread over the shards, and each shard's table over its slots.
	c := NewBlobCache(64 << 20)
	for id := range uint64(20000) {
		c.Put(2<<32|0xA9B40000+id<<16|0xFFFF, make([]byte, 252), id)
	}
	for i := range c.shards {
		if n := c.shards[i].used; n < 2000 || n > 3000 {
			t.Errorf("shard %d holds %d of 20000 keys, want about 2500", i, n)
		}
	}
	if c.Len() != 20000 || c.Bytes() != 64<<20 {
		t.Errorf("%d keys in %d bytes, want 20000 in 64 MiB", c.Len(), c.Bytes())
	}
}

func TestBlobCacheConcurrent(t *testing.T) {
	c := NewBlobCache(1 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			var buf []byte
			for i := range 5000 {
				k := uint64((g*7919 + i) % 500)
				if i%4 == 0 {
					c.Put(k, bytes.Repeat([]byte{byte(k)}, int(k)), k)
				} else if b, tag, ok := c.Get(k, buf); ok {
					if tag != k || len(b) != int(k) || (k > 0 && b[0] != byte(k)) {
						t.Errorf("key %d: %d bytes tag %d", k, len(b), tag)
						return
					}
					buf = b
				}
			}
		})
	}
	wg.Wait()
}

// FuzzBlobCache drives a one-shard cache of an 8192-byte arena with the
// operations the input spells (3 bytes each: op and key, two size bytes)
// and checks it against a model after each: every hit returns the bytes
// and tag last put, the newest put is held, the log spans at most the
// arena, the table is at most half full and agrees with its count.
func FuzzBlobCache(f *testing.F) {
	f.Add([]byte{0x01, 0xE8, 0x03, 0x02, 0xE8, 0x03, 0x81, 0, 0})
	f.Add(bytes.Repeat([]byte{0x07, 0xD0, 0x03, 0x87, 0, 0, 0x08, 0x01, 0x00}, 40))
	f.Fuzz(func(t *testing.T, ops []byte) {
		c := NewBlobCache(9216)
		s := &c.shards[0]
		model := map[uint64][]byte{}
		for i := 0; i+3 <= len(ops); i += 3 {
			key := uint64(ops[i] & 0x3F)
			if ops[i]&0x80 == 0 {
				n := int(ops[i+1]) | int(ops[i+2]&0x07)<<8 // up to 2047: some too large to keep
				b := bytes.Repeat([]byte{byte(i)}, n)
				c.Put(key, b, uint64(i))
				if n <= 8192/8-24 {
					model[key] = append(b, byte(i), byte(i>>8))
					if s.pos(key) < 0 {
						t.Fatalf("op %d: key %d just put is not held", i, key)
					}
				}
			} else if got, tag, ok := c.Get(key, nil); ok {
				want := model[key]
				if want == nil || !bytes.Equal(got, want[:len(want)-2]) || byte(tag) != want[len(want)-2] || byte(tag>>8) != want[len(want)-1] {
					t.Fatalf("op %d: key %d reads %d bytes, tag %d", i, key, len(got), tag)
				}
			}
			if s.head-s.tail > s.arenaBytes || s.used > s.slots/2 || tableEntries(s) != s.used {
				t.Fatalf("op %d: log [%d, %d), %d used, %d in the table", i, s.tail, s.head, s.used, tableEntries(s))
			}
		}
	})
}
