package source

import (
	"slices"
	"sync"
	"unsafe"
)

// Cache keeps the most recently used values by record id, bounded by the
// memory they take; the least recently used go first. What counts is what
// the cache really holds: the sizer's figure for a value (the allocations
// it keeps alive, see AllocSize) plus the cache's own bookkeeping for the
// entry (EntryOverhead). The HTTP source keeps its verified record bytes in
// one (the server keeps its answers in a BlobCache instead). A nil *Cache
// caches nothing. Safe for concurrent use.
//
// The entries live in one slice, linked in LRU order by index, and the id
// map holds indices: no allocation per entry, and nothing for the garbage
// collector to chase but the values.
type Cache[V any] struct {
	mu    sync.Mutex
	max   int64
	size  int64
	sizer func(V) int64
	slots []cacheSlot[V] // slots[0] is the list head: next is the most recent
	free  int32          // first free slot, linked by next; 0 if none
	byID  map[uint32]int32
}

type cacheSlot[V any] struct {
	id         uint32
	prev, next int32
	size       int64 // the sizer's figure plus EntryOverhead
	v          V
}

// mapSlotBytes is what the id map costs an entry: 8 bytes of key and index
// and a control byte, at a load between 7/16 and 7/8 (the map doubles when
// full and never shrinks), so ~20 bytes at the worst.
const mapSlotBytes = 20

// EntryOverhead is the cache's own memory for an entry of a Cache[V]: its
// slot (the value inline) and its share of the id map.
func EntryOverhead[V any]() int64 {
	return int64(unsafe.Sizeof(cacheSlot[V]{})) + mapSlotBytes
}

// NewCache returns a cache of at most max bytes as described on Cache, or
// nil (no caching) when max ≤ 0.
func NewCache[V any](max int64, sizer func(V) int64) *Cache[V] {
	if max <= 0 {
		return nil
	}
	return &Cache[V]{max: max, sizer: sizer, slots: make([]cacheSlot[V], 1), byID: map[uint32]int32{}}
}

// Get returns the value for id and marks it most recently used.
func (c *Cache[V]) Get(id uint32) (v V, ok bool) {
	if c == nil {
		return v, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.byID[id]
	if !ok {
		return v, false
	}
	c.unlink(i)
	c.pushFront(i)
	return c.slots[i].v, true
}

// Put adds or replaces the value for id; one larger than the whole cache is
// not kept.
func (c *Cache[V]) Put(id uint32, v V) {
	if c == nil {
		return
	}
	n := c.sizer(v) + EntryOverhead[V]()
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.byID[id]; ok {
		c.remove(i)
	}
	for c.size+n > c.max {
		c.remove(c.slots[0].prev)
	}
	i := c.alloc()
	c.slots[i] = cacheSlot[V]{id: id, size: n, v: v}
	c.pushFront(i)
	c.byID[id] = i
	c.size += n
}

// Remove drops the value for id, if held.
func (c *Cache[V]) Remove(id uint32) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.byID[id]; ok {
		c.remove(i)
	}
}

// Clear drops every value, keeping the cache's bound.
func (c *Cache[V]) Clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots, c.free, c.size, c.byID = make([]cacheSlot[V], 1), 0, 0, map[uint32]int32{}
}

// Bytes reports the memory the cache counts as holding.
func (c *Cache[V]) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// Len reports how many values the cache holds.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byID)
}

// alloc returns a free slot, growing the slice when there is none. The
// slice only grows to the most entries held at once.
func (c *Cache[V]) alloc() int32 {
	if i := c.free; i != 0 {
		c.free = c.slots[i].next
		return i
	}
	c.slots = append(c.slots, cacheSlot[V]{})
	return int32(len(c.slots) - 1)
}

// remove drops slot i from the list and the map and frees it, clearing the
// value so the collector can take it.
func (c *Cache[V]) remove(i int32) {
	c.unlink(i)
	delete(c.byID, c.slots[i].id)
	c.size -= c.slots[i].size
	c.slots[i] = cacheSlot[V]{next: c.free}
	c.free = i
}

func (c *Cache[V]) unlink(i int32) {
	s := &c.slots[i]
	c.slots[s.prev].next, c.slots[s.next].prev = s.next, s.prev
}

func (c *Cache[V]) pushFront(i int32) {
	head := c.slots[0].next
	c.slots[i].prev, c.slots[i].next = 0, head
	c.slots[head].prev = i
	c.slots[0].next = i
}

// ByteLen sizes a record for a Cache of record bytes: its backing array as
// allocated.
func ByteLen(b []byte) int64 { return AllocSize(cap(b)) }

// AllocSize is the memory the Go allocator gives an object of n bytes: n
// rounded up to its size class, or past 32 KiB to whole 8 KiB pages.
func AllocSize(n int) int64 {
	if n <= 0 {
		return 0
	}
	cs := sizeClasses()
	if n > cs[len(cs)-1] {
		return int64(n+8<<10-1) &^ (8<<10 - 1)
	}
	i, _ := slices.BinarySearch(cs, n)
	return int64(cs[i])
}

// sizeClasses are the runtime's small-object size classes, learnt from the
// runtime itself: append rounds a new slice's capacity up to the class of
// its size. One probe a class, ~70 allocations of 300 KB in all.
var sizeClasses = sync.OnceValue(func() []int {
	var cs []int
	for n := 1; n <= 32<<10; {
		c := cap(append([]byte(nil), make([]byte, n)...))
		cs = append(cs, c)
		n = c + 1
	}
	return cs
})
