// Package samples holds decoded audio — the float32 samples of a decoded
// wave (core/audio) or of its copy at the output rate (core/mix) — in
// blocks of one fixed size drawn from one pool the process shares.
//
// Why blocks: the page's wasm linear memory never shrinks, and waves come
// in every length. Held as one slice each, a freed wave leaves a hole in
// Go's page heap that the next wave fits only if it is no larger, so the
// heap's idle pages grew with the hour while what it held live stayed flat
// (docs/architecture.md §4.8). Held as blocks, every large allocation the
// waves make is the same size, and a block one wave lets go of is the next
// wave's, whatever that wave's length. The pool keeps up to MaxFree blocks
// free for the next wave and lets the rest go back to the heap, where a
// hole one leaves is exactly the next block's size.
//
// A Buf's blocks go back to the pool when the Buf is collected
// (runtime.AddCleanup), not when its owner says so: a wave is shared by the
// host, the mixer's caches and the voices playing it, and none of them
// knows when the others are done; the collector does. So nothing may keep
// a block's slice (Block, Span) past the Buf it came from.
package samples

import (
	"runtime"
	"sync"
)

// BlockLen is the samples of one block: 32 KiB of float32, a power of two
// (so a mono or stereo frame never straddles two blocks). A wave wastes
// half a block at its end on average: of the demo world's waves and their
// 48 kHz copies (62 buffers, 35.7 MiB) 2.4% at 32 KiB, 4.9% at 64 KiB,
// 11% at 128 KiB; smaller blocks cost the mixer's loop more edges, one
// every 4096 stereo frames here: in core/mix's BenchmarkMixer16Voices the
// voices' loop took 50.5 µs an op against 49 with flat slices, within
// the noise of the shared machine it was measured on.
const BlockLen = 1 << blockShift

const (
	blockShift = 13
	blockMask  = BlockLen - 1
	// BlockBytes is one block's size in memory.
	BlockBytes = 4 * BlockLen
)

type block = [BlockLen]float32

// Buf is a sequence of samples held in blocks. The zero value is not
// usable: make one with New, Make or From, and share it by pointer.
type Buf struct {
	s *store // what the cleanup hands back: never points to the Buf
	n int
}

// store is a Buf's blocks, apart from the Buf so that the cleanup can hold
// them without holding the Buf alive.
type store struct{ blocks []*block }

// New returns an empty Buf; Append grows it a block at a time.
func New() *Buf {
	b := &Buf{s: &store{}}
	runtime.AddCleanup(b, release, b.s)
	return b
}

// Make returns a Buf of n zero samples.
func Make(n int) *Buf {
	b := New()
	b.Resize(n)
	return b
}

// From returns a Buf holding a copy of s (tests and tools that build
// waves by hand).
func From(s []float32) *Buf {
	b := Make(len(s))
	for k := 0; k < len(s); k += BlockLen {
		copy(b.s.blocks[k>>blockShift][:], s[k:])
	}
	return b
}

// Len is the number of samples; 0 for a nil Buf.
func (b *Buf) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

// Bytes is the memory the Buf holds: its blocks, the last one whole.
func (b *Buf) Bytes() int64 {
	if b == nil {
		return 0
	}
	return int64(len(b.s.blocks)) * BlockBytes
}

// BytesFor is the memory a Buf of n samples holds.
func BytesFor(n int) int64 { return int64((n+blockMask)>>blockShift) * BlockBytes }

// At is sample i (0 ≤ i < Len).
func (b *Buf) At(i int) float32 {
	if uint(i) >= uint(b.n) {
		panic("samples: index out of range")
	}
	return b.s.blocks[i>>blockShift][i&blockMask]
}

// Set sets sample i (0 ≤ i < Len).
func (b *Buf) Set(i int, v float32) {
	if uint(i) >= uint(b.n) {
		panic("samples: index out of range")
	}
	b.s.blocks[i>>blockShift][i&blockMask] = v
}

// Append adds v at the end.
func (b *Buf) Append(v float32) {
	if b.n&blockMask == 0 && b.n>>blockShift == len(b.s.blocks) {
		b.s.blocks = append(b.s.blocks, get())
	}
	b.s.blocks[b.n>>blockShift][b.n&blockMask] = v
	b.n++
}

// Resize makes the Buf n samples long: samples past the old length are
// zero, blocks past the new one go back to the pool at once.
func (b *Buf) Resize(n int) {
	if n < 0 {
		panic("samples: negative length")
	}
	// Past Len a block holds zeros (blocks come zeroed; Append and Set
	// write below Len): what a shrink cuts from the last block kept is
	// zeroed, so a later grow reads zeros there too.
	if k := n >> blockShift; n < b.n && k < len(b.s.blocks) && n&blockMask != 0 {
		clear(b.s.blocks[k][n&blockMask:])
	}
	need := (n + blockMask) >> blockShift
	if need < len(b.s.blocks) {
		put(b.s.blocks[need:])
		clear(b.s.blocks[need:])
		b.s.blocks = b.s.blocks[:need]
	}
	for len(b.s.blocks) < need {
		b.s.blocks = append(b.s.blocks, get())
	}
	b.n = n
}

// Span is the samples from i on that lie in i's block, at most n of them:
// the contiguous run a loop reads (or writes) before the next block edge.
// Its slice must not outlive the Buf.
func (b *Buf) Span(i, n int) []float32 {
	if uint(i) > uint(b.n) || n < 0 {
		panic("samples: span out of range")
	}
	if i == b.n || n == 0 {
		return nil
	}
	off := i & blockMask
	m := min(n, b.n-i, BlockLen-off)
	return b.s.blocks[i>>blockShift][off : off+m : off+m]
}

// Blocks is the number of blocks.
func (b *Buf) Blocks() int {
	if b == nil {
		return 0
	}
	return len(b.s.blocks)
}

// Block is block k's samples in use (the last one cut at Len). Its slice
// must not outlive the Buf.
func (b *Buf) Block(k int) []float32 {
	end := min(BlockLen, b.n-k*BlockLen)
	return b.s.blocks[k][:end:end]
}

// Flat copies the samples into one slice: for tests and tools, never the
// page (it is the wave-sized allocation the blocks exist to avoid).
func (b *Buf) Flat() []float32 {
	out := make([]float32, 0, b.Len())
	for k := range b.Blocks() {
		out = append(out, b.Block(k)...)
	}
	return out
}

// pool is the blocks made and not in a Buf.
var pool struct {
	sync.Mutex
	free []*block
	made int64 // blocks in being: in Bufs and free
}

// PoolStats is what the pool holds, in bytes.
type PoolStats struct {
	Total int64 // every block in being: in use (garbage not yet collected among it) and free
	Free  int64 // blocks waiting for the next Buf
}

// Stats reports the pool. Safe from any goroutine.
func Stats() PoolStats {
	pool.Lock()
	defer pool.Unlock()
	return PoolStats{Total: pool.made * BlockBytes, Free: int64(len(pool.free)) * BlockBytes}
}

// get takes a zeroed block from the pool, or makes one.
func get() *block {
	pool.Lock()
	if n := len(pool.free); n > 0 {
		blk := pool.free[n-1]
		pool.free[n-1] = nil
		pool.free = pool.free[:n-1]
		pool.Unlock()
		clear(blk[:])
		return blk
	}
	pool.made++
	pool.Unlock()
	return new(block)
}

// MaxFree is the most the pool keeps free, in blocks: 1 MiB, the churn of
// a place's waves leaving while the next place's arrive. Blocks past it go
// back to Go's heap, where, all of one size, they leave holes only the next
// block fills; kept, they would count as the Go heap's live bytes for the
// rest of the session, at the high-water mark of the busiest place seen
// (30 min of bench/soak: go.live 1.29× its minute-5 figure with every
// block kept, while the linear memory stayed at 1.09×).
const MaxFree = 32

// put gives blocks back: up to MaxFree are kept for the next Buf, the rest
// are let go.
func put(blocks []*block) {
	pool.Lock()
	keep := min(len(blocks), max(0, MaxFree-len(pool.free)))
	pool.free = append(pool.free, blocks[:keep]...)
	pool.made -= int64(len(blocks) - keep)
	pool.Unlock()
}

// release is a collected Buf's cleanup.
func release(s *store) {
	put(s.blocks)
	s.blocks = nil
}
