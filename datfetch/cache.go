package datfetch

import (
	"container/list"
	"sync"
)

// Cache keeps the most recently used values by record id, bounded by the
// total of their sizes; the least recently used go first. It serves both the
// HTTP source (record bytes) and the server (answers with their ETags). A
// nil *Cache caches nothing. Safe for concurrent use.
type Cache[V any] struct {
	mu    sync.Mutex
	max   int64
	size  int64
	sizer func(V) int64
	order *list.List // front = most recent; values are *cacheEntry[V]
	byID  map[uint32]*list.Element
}

type cacheEntry[V any] struct {
	id   uint32
	v    V
	size int64
}

// NewCache returns a cache of at most max bytes as sizer counts them, or nil
// (no caching) when max ≤ 0.
func NewCache[V any](max int64, sizer func(V) int64) *Cache[V] {
	if max <= 0 {
		return nil
	}
	return &Cache[V]{max: max, sizer: sizer, order: list.New(), byID: map[uint32]*list.Element{}}
}

// Get returns the value for id and marks it most recently used.
func (c *Cache[V]) Get(id uint32) (v V, ok bool) {
	if c == nil {
		return v, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	if !ok {
		return v, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry[V]).v, true
}

// Put adds or replaces the value for id; one larger than the whole cache is
// not kept.
func (c *Cache[V]) Put(id uint32, v V) {
	if c == nil {
		return
	}
	n := c.sizer(v)
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok {
		c.size -= e.Value.(*cacheEntry[V]).size
		c.order.Remove(e)
	}
	c.byID[id] = c.order.PushFront(&cacheEntry[V]{id, v, n})
	c.size += n
	for c.size > c.max {
		e := c.order.Back()
		old := e.Value.(*cacheEntry[V])
		c.order.Remove(e)
		delete(c.byID, old.id)
		c.size -= old.size
	}
}

// Bytes reports the cached total.
func (c *Cache[V]) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// ByteLen sizes a record by its length, for a Cache of record bytes.
func ByteLen(b []byte) int64 { return int64(len(b)) }
