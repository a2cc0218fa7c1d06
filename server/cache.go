package server

import (
	"unsafe"

	"acambient/datfetch"
)

// DefaultCacheBytes bounds the record cache of dat-file sources. A client's
// working set is small (the region, a 3×3 landblock ring, a few tables and
// their waves, 1–3 MB), so 64 MiB holds many clients' worth of hot records.
const DefaultCacheBytes = 64 << 20

// recordCache is the one cache of served records that the portal and the
// cell source share, so CacheBytes bounds both together. It counts what an
// entry really holds (recordSize and datfetch.EntryOverhead): a landblock
// of 252 bytes costs 380 bytes of heap, not 252.
type recordCache = datfetch.Cache[*cachedRecord]

// cachedRecord is a served record with its ETag. The cache of them spares a
// dat-file source the block-chain read, the allocation of every answer and
// the hash: without it a busy serve spends its time collecting garbage where
// a file server sendfiles.
type cachedRecord struct {
	src  *db // whose record it is: a portal and a cell id can be equal
	b    []byte
	etag string
}

// cachedRecordBytes is the allocation of a cachedRecord itself.
var cachedRecordBytes = datfetch.AllocSize(int(unsafe.Sizeof(cachedRecord{})))

// recordSize is the heap a cached record keeps alive: the struct, the
// record's backing array and the ETag string.
func recordSize(r *cachedRecord) int64 {
	return cachedRecordBytes + datfetch.AllocSize(cap(r.b)) + datfetch.AllocSize(len(r.etag))
}
