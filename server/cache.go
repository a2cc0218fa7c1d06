package server

import (
	"sync"
)

// DefaultCacheBytes bounds the record cache of dat-file sources. A client's
// working set is small (the region, a 3×3 landblock ring, a few tables and
// their waves, 1–3 MB), so 64 MiB holds many clients' worth of hot records.
const DefaultCacheBytes = 64 << 20

// recordCache is the one cache of served records that the portal and the
// cell source share, so CacheBytes bounds both together: their bytes and
// the hash of each, in one arena (BlobCache), keyed by cacheKey.
type recordCache = BlobCache

// cachedRecord is a record as answered: its bytes, their CRC-64 (the ETag
// is made of it and the length), and the pooled buffer that holds the
// bytes when the answer is one request's alone (a cache hit, a small read).
type cachedRecord struct {
	b   []byte
	sum uint64
	buf *[]byte
}

// answerBufs recycles the buffers cache hits are copied into, so a hit
// allocates no record-sized garbage: a busy serve's collections then come
// from net/http's own allocations alone.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// maxPooledAnswer is the largest buffer kept for reuse: landblocks, cells
// and tables are far smaller, and a wave of hundreds of KiB pinned per
// pooled buffer would cost more than it saves.
const maxPooledAnswer = 64 << 10

// release hands the record's buffer back for reuse once its answer is written.
func (rec *cachedRecord) release() {
	if rec.buf == nil {
		return
	}
	if cap(rec.b) <= maxPooledAnswer {
		*rec.buf = rec.b[:0]
		answerBufs.Put(rec.buf)
	}
	rec.buf, rec.b = nil, nil
}

// CacheBytes reports the memory the record cache holds, portal and cell
// together: what Options.CacheBytes (serve's -cache) bounds.
func (h *Handler) CacheBytes() int64 { return h.portal.cache.Bytes() }
