package datfetch

import "testing"

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	c := NewCache(250, ByteLen)
	c.Put(1, make([]byte, 100))
	c.Put(2, make([]byte, 100))
	if _, ok := c.Get(1); !ok { // 1 is now the most recent
		t.Fatal("1 missing")
	}
	c.Put(3, make([]byte, 100)) // 300 > 250: evicts 2, the least recent
	if _, ok := c.Get(2); ok {
		t.Error("2 should have been evicted")
	}
	if _, ok := c.Get(1); !ok {
		t.Error("1 evicted, but it was used more recently than 2")
	}
	if got := c.Bytes(); got != 200 {
		t.Errorf("Bytes = %d, want 200", got)
	}
	c.Put(1, make([]byte, 50)) // replacing adjusts the total
	if got := c.Bytes(); got != 150 {
		t.Errorf("after replace Bytes = %d, want 150", got)
	}
	c.Put(9, make([]byte, 251)) // larger than the cache: not kept
	if _, ok := c.Get(9); ok || c.Bytes() != 150 {
		t.Error("an oversized value was cached")
	}
	var off *Cache[[]byte] = NewCache(0, ByteLen)
	off.Put(1, []byte{1})
	if _, ok := off.Get(1); ok || off != nil {
		t.Error("a zero-size cache cached")
	}
}
