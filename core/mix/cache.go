package mix

import (
	"sync/atomic"

	"acambient/core/audio"
)

// cache keeps resampled waves by id under a byte budget, least recently
// used out first, and lets go of those the host no longer holds.
type cache struct {
	budget, used int64
	clock        uint64
	m            map[uint32]*cacheEntry
	// held mirrors used and len(m) for readers on other goroutines
	// (Mixer.Cached: the page's stats).
	held, clips atomic.Int64
}

type cacheEntry struct {
	src  *audio.PCM // the PCM it was made from: a new PCM under the same id is a new wave
	c    *clip
	used uint64
}

func newCache(budget int64) *cache {
	return &cache{budget: budget, m: map[uint32]*cacheEntry{}}
}

// get returns the clip made from p, or nil.
func (k *cache) get(id uint32, p *audio.PCM) *clip {
	e := k.m[id]
	if e == nil || e.src != p {
		return nil
	}
	k.clock++
	e.used = k.clock
	return e.c
}

// put keeps c, evicting the least recently used until it fits. A clip
// larger than the whole budget is not kept (its voice still plays it).
func (k *cache) put(id uint32, p *audio.PCM, c *clip) {
	k.drop(id)
	if c.bytes() > k.budget {
		return
	}
	for k.used+c.bytes() > k.budget {
		var old uint32
		var oldest *cacheEntry
		for id, e := range k.m {
			if oldest == nil || e.used < oldest.used {
				old, oldest = id, e
			}
		}
		k.drop(old)
	}
	k.clock++
	k.m[id] = &cacheEntry{src: p, c: c, used: k.clock}
	k.used += c.bytes()
	k.held.Store(k.used)
	k.clips.Store(int64(len(k.m)))
}

// sweep drops every clip whose wave the host no longer retains, or now
// holds as another PCM (decoded again after it let the first go): such a
// clip could never be played again, and it keeps the old PCM alive too,
// which its bytes do not count.
func (k *cache) sweep(retained func(uint32) bool, pcm func(uint32) *audio.PCM) {
	for id, e := range k.m {
		if !retained(id) || pcm(id) != e.src {
			k.drop(id)
		}
	}
}

func (k *cache) drop(id uint32) {
	if e := k.m[id]; e != nil {
		k.used -= e.c.bytes()
		delete(k.m, id)
		k.held.Store(k.used)
		k.clips.Store(int64(len(k.m)))
	}
}
