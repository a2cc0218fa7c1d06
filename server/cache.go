package server

// DefaultCacheBytes bounds the record cache of a dat-file source. A client's
// working set is small (the region, a 3×3 landblock ring, a few tables and
// their waves, 1–3 MB), so 64 MiB holds many clients' worth of hot records.
const DefaultCacheBytes = 64 << 20

// cachedRecord is a served record with its ETag. The cache of them
// (datfetch.Cache) spares a dat-file source the block-chain read, the
// allocation of every answer and the hash: without it a busy serve spends its
// time collecting garbage where a file server sendfiles.
type cachedRecord struct {
	b    []byte
	etag string
}

func recordSize(r *cachedRecord) int64 { return int64(len(r.b)) }
