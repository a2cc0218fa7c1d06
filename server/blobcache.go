package server

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// BlobCache keeps records' bytes, each with a 64-bit tag (the server keeps
// its ETag's hash there), in arenas allocated once: circular logs in which
// a new record overwrites the oldest, indexed by open-addressed tables of
// fixed size. The garbage collector sees a few pointer-free objects however
// many records are held, where a cache of slices gives it three objects a
// record to mark: with 64 MiB of 1 KB records a collection marked ~200k
// objects and took 15–20 ms, the tail latency of every request it
// overlapped (issue 12). Nothing is allocated after the first Put.
//
// What it holds is what it counts: max bytes, split among up to 8 shards
// (one lock each, so 32 busy connections seldom wait on one another), each
// an arena of 7/8 of its share and a table of the rest. Eviction is
// first-in first-out with a second chance: a record read while in the
// oldest quarter of its log is written again at the head, so records in
// steady demand (a client's landblock ring, its waves) stay while one-off
// reads pass through. A nil *BlobCache caches nothing. Safe for concurrent
// use.
type BlobCache struct {
	shards []blobShard
	shift  uint // a key's shard is its hash's top bits
}

// blobShard is one log and its table.
type blobShard struct {
	mu         sync.Mutex
	arenaBytes int64
	slots      int // table size, a power of two; at most half are used
	arena      []byte
	table      []blobSlot // nil with arena until the first put
	used       int
	// Positions count bytes written since the start, so the physical
	// offset of position p is p % arenaBytes; the log's live entries lie in
	// [tail, head).
	head, tail int64
}

// blobSlot maps a key to its entry's position plus one; 0 is empty.
type blobSlot struct {
	key uint64
	pos int64
}

// Entries in an arena: a header, then the bytes, padded to blobAlign. A
// header whose kind is blobPad marks the unused end of a lap; an end too
// short for a header is unused implicitly.
const (
	blobHeader = 24 // key u64, length u32, kind u32, tag u64
	blobAlign  = 8
	blobEntry  = 0
	blobPad    = 1
)

const (
	// blobMaxShards bounds the sharding; a shard gets at least
	// blobShardMin bytes, so small caches are one log.
	blobMaxShards = 8
	blobShardMin  = 8 << 20
	// blobTableShare is the fraction of a shard's bytes its table takes
	// (1/8): 16 bytes a slot, half the slots usable, so a 64 MiB cache
	// holds up to 262k records where its arenas hold 240k landblocks.
	blobTableShare = 8
	blobSlotBytes  = 16
	// blobMaxShare bounds the largest record kept to 1/blobMaxShare of a
	// shard's arena (7/8 MiB for the default cache), so one record never
	// flushes most of a shard.
	blobMaxShare = 8
)

// NewBlobCache returns a cache of at most max bytes as described on
// BlobCache, or nil (no caching) when max is too small to hold anything.
func NewBlobCache(max int64) *BlobCache {
	n := 1
	for n < blobMaxShards && max/int64(2*n) >= blobShardMin {
		n *= 2
	}
	per := max / int64(n)
	q := per / blobTableShare / blobSlotBytes
	if q < 2 {
		return nil
	}
	slots := 1 << (bits.Len64(uint64(q)) - 1)
	arena := (per - int64(slots)*blobSlotBytes) &^ (blobAlign - 1)
	if arena < 4*blobHeader*blobMaxShare {
		return nil
	}
	c := &BlobCache{shards: make([]blobShard, n), shift: uint(64 - bits.Len(uint(n-1)))}
	for i := range c.shards {
		c.shards[i].arenaBytes, c.shards[i].slots = arena, slots
	}
	return c
}

// Get appends the record under key to dst[:0] and returns it with its tag.
func (c *BlobCache) Get(key uint64, dst []byte) (b []byte, tag uint64, ok bool) {
	if c == nil {
		return dst, 0, false
	}
	return c.shard(key).get(key, dst)
}

// Put keeps b (copied) and tag under key, replacing what it held; a record
// larger than an eighth of a shard's arena is not kept.
func (c *BlobCache) Put(key uint64, b []byte, tag uint64) {
	if c == nil {
		return
	}
	c.shard(key).put(key, b, tag)
}

// Bytes reports the memory the cache holds: the arenas and tables of the
// shards that have been written to.
func (c *BlobCache) Bytes() int64 {
	if c == nil {
		return 0
	}
	var n int64
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += int64(len(s.arena)) + int64(len(s.table))*blobSlotBytes
		s.mu.Unlock()
	}
	return n
}

// Len reports how many records the cache holds.
func (c *BlobCache) Len() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += s.used
		s.mu.Unlock()
	}
	return n
}

// shard picks a key's shard by a Fibonacci hash: ids differ in their low
// bits (landblocks) or high ones (cells of one landblock) alike.
func (c *BlobCache) shard(key uint64) *blobShard {
	if len(c.shards) == 1 {
		return &c.shards[0]
	}
	return &c.shards[(key*0x9E3779B97F4A7C15)>>c.shift]
}

func (s *blobShard) get(key uint64, dst []byte) (b []byte, tag uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(key)
	if !ok {
		return dst, 0, false
	}
	pos := s.table[i].pos - 1
	off := pos % s.arenaBytes
	n, tag := s.header(off)
	b = append(dst[:0], s.arena[off+blobHeader:off+blobHeader+n]...)
	if s.head-pos > s.arenaBytes/4*3 {
		s.add(key, b, tag) // the second chance
	}
	return b, tag, true
}

func (s *blobShard) put(key uint64, b []byte, tag uint64) {
	if int64(len(b)) > s.arenaBytes/blobMaxShare-blobHeader {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.arena == nil {
		s.arena = make([]byte, s.arenaBytes)
		s.table = make([]blobSlot, s.slots)
	}
	s.add(key, b, tag)
}

// add writes an entry at the head, first evicting what it overwrites and,
// with the table half full, the oldest entries.
func (s *blobShard) add(key uint64, b []byte, tag uint64) {
	need := (blobHeader + int64(len(b)) + blobAlign - 1) &^ (blobAlign - 1)
	start := s.head
	if off := start % s.arenaBytes; off+need > s.arenaBytes {
		start += s.arenaBytes - off // the entry starts the next lap
	}
	for s.tail < start+need-s.arenaBytes || (s.used >= s.slots/2 && s.tail < s.head) {
		s.evictOldest()
	}
	if start != s.head {
		if off := s.head % s.arenaBytes; s.arenaBytes-off >= blobHeader {
			s.putHeader(off, 0, 0, blobPad, 0)
		}
		if s.tail == s.head {
			s.tail = start
		}
	}
	off := start % s.arenaBytes
	s.putHeader(off, key, uint32(len(b)), blobEntry, tag)
	copy(s.arena[off+blobHeader:], b)
	s.head = start + need
	if i, ok := s.find(key); ok {
		s.table[i].pos = start + 1 // the older copy becomes dead space in the log
		return
	}
	i := s.home(key)
	for s.table[i].pos != 0 {
		i = (i + 1) & (s.slots - 1)
	}
	s.table[i] = blobSlot{key: key, pos: start + 1}
	s.used++
}

// evictOldest drops the entry (or lap padding) at the tail. An entry whose
// key was written again since leaves the table alone.
func (s *blobShard) evictOldest() {
	off := s.tail % s.arenaBytes
	if s.arenaBytes-off < blobHeader || binary.LittleEndian.Uint32(s.arena[off+12:]) == blobPad {
		s.tail += s.arenaBytes - off
		return
	}
	key := binary.LittleEndian.Uint64(s.arena[off:])
	n, _ := s.header(off)
	if i, ok := s.find(key); ok && s.table[i].pos == s.tail+1 {
		s.remove(i)
	}
	s.tail += (blobHeader + n + blobAlign - 1) &^ (blobAlign - 1)
}

// find returns key's slot by linear probing from its home.
func (s *blobShard) find(key uint64) (int, bool) {
	if s.table == nil {
		return 0, false
	}
	for i := s.home(key); s.table[i].pos != 0; i = (i + 1) & (s.slots - 1) {
		if s.table[i].key == key {
			return i, true
		}
	}
	return 0, false
}

// remove empties slot i, shifting back the entries after it that probed
// past it, so no tombstones build up (Knuth's algorithm R).
func (s *blobShard) remove(i int) {
	mask := s.slots - 1
	for j := (i + 1) & mask; s.table[j].pos != 0; j = (j + 1) & mask {
		// The entry at j may move to i unless its home lies cyclically in (i, j].
		if h := s.home(s.table[j].key); (j-h)&mask < (j-i)&mask {
			continue
		}
		s.table[i] = s.table[j]
		i = j
	}
	s.table[i] = blobSlot{}
	s.used--
}

// home is key's first slot: the top bits of a hash other than the shard's
// (splitmix64's finaliser), whose top bits are one value within a shard.
func (s *blobShard) home(key uint64) int {
	h := (key ^ key>>30) * 0xBF58476D1CE4E5B9
	h = (h ^ h>>27) * 0x94D049BB133111EB
	return int((h ^ h>>31) & uint64(s.slots-1))
}

func (s *blobShard) header(off int64) (n int64, tag uint64) {
	h := s.arena[off : off+blobHeader]
	return int64(binary.LittleEndian.Uint32(h[8:])), binary.LittleEndian.Uint64(h[16:])
}

func (s *blobShard) putHeader(off int64, key uint64, n, kind uint32, tag uint64) {
	h := s.arena[off : off+blobHeader]
	binary.LittleEndian.PutUint64(h, key)
	binary.LittleEndian.PutUint32(h[8:], n)
	binary.LittleEndian.PutUint32(h[12:], kind)
	binary.LittleEndian.PutUint64(h[16:], tag)
}
