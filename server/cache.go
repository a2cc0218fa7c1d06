package server

import (
	"container/list"
	"sync"
)

// DefaultCacheBytes bounds the record cache of a dat-file source. A client's
// working set is small (the region, a 3×3 landblock ring, a few tables and
// their waves, 1–3 MB), so 64 MiB holds many clients' worth of hot records.
const DefaultCacheBytes = 64 << 20

// recordCache keeps recently served records with their ETags, bounded in
// bytes, least recently used first out. It spares a dat-file source the
// block-chain read, the allocation of every answer and the hash: without it
// a busy serve spends its time collecting garbage where a file server
// sendfiles. A nil *recordCache caches nothing.
type recordCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recent; values are *cachedRecord
	byID  map[uint32]*list.Element
}

type cachedRecord struct {
	id   uint32
	b    []byte
	etag string
}

func newRecordCache(max int64) *recordCache {
	if max <= 0 {
		return nil
	}
	return &recordCache{max: max, order: list.New(), byID: map[uint32]*list.Element{}}
}

func (c *recordCache) get(id uint32) (*cachedRecord, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedRecord), true
}

// put adds a record; one larger than the whole cache is not kept.
func (c *recordCache) put(r *cachedRecord) {
	if c == nil || int64(len(r.b)) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[r.id]; ok {
		c.size -= int64(len(e.Value.(*cachedRecord).b))
		c.order.Remove(e)
	}
	c.byID[r.id] = c.order.PushFront(r)
	c.size += int64(len(r.b))
	for c.size > c.max {
		e := c.order.Back()
		old := e.Value.(*cachedRecord)
		c.order.Remove(e)
		delete(c.byID, old.id)
		c.size -= int64(len(old.b))
	}
}
