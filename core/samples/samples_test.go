package samples

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// lengths span the block edges: none, one, a block less one, a block, a
// block and one, several blocks and a part.
var lengths = []int{0, 1, BlockLen - 1, BlockLen, BlockLen + 1, 3*BlockLen + 5}

// ramp is n distinct samples (i+1)/8 … , as a flat slice.
func ramp(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(i+1) / 8
	}
	return s
}

// TestBlockEdges: a Buf of any length, built by Append, by From or by
// Make and Set, reads the same samples as the flat slice it copies, by At,
// by Span in any step across block edges and by Block; it holds
// ceil(n/BlockLen) blocks.
func TestBlockEdges(t *testing.T) {
	for _, n := range lengths {
		want := ramp(n)
		appended := New()
		for _, v := range want {
			appended.Append(v)
		}
		set := Make(n)
		for i, v := range want {
			set.Set(i, v)
		}
		for name, b := range map[string]*Buf{"Append": appended, "From": From(want), "Set": set} {
			if b.Len() != n {
				t.Fatalf("%s %d: Len %d", name, n, b.Len())
			}
			if blocks := (n + BlockLen - 1) / BlockLen; b.Blocks() != blocks || b.Bytes() != int64(blocks)*4*BlockLen {
				t.Errorf("%s %d: %d blocks, %d bytes; want %d blocks of %d bytes", name, n, b.Blocks(), b.Bytes(), blocks, 4*BlockLen)
			}
			for i, v := range want {
				if b.At(i) != v {
					t.Fatalf("%s %d: At(%d) = %v, want %v", name, n, i, b.At(i), v)
				}
			}
			if !slices.Equal(b.Flat(), want) {
				t.Errorf("%s %d: Flat differs from the slice", name, n)
			}
			for _, step := range []int{1, 7, BlockLen - 1, BlockLen, 2*BlockLen + 3} {
				var got []float32
				for i := 0; i < n; {
					s := b.Span(i, step)
					if len(s) == 0 || len(s) > step {
						t.Fatalf("%s %d: Span(%d, %d) has %d samples", name, n, i, step, len(s))
					}
					got = append(got, s...)
					i += len(s)
				}
				if !slices.Equal(got, want[:len(got)]) || len(got) != n {
					t.Errorf("%s %d: Span steps of %d read other samples", name, n, step)
				}
			}
		}
	}
}

// TestResizeZeros: a Buf grown after a shrink reads zeros past the cut,
// in the block it kept and in the blocks it takes again.
func TestResizeZeros(t *testing.T) {
	b := From(ramp(2*BlockLen + 10))
	b.Resize(BlockLen + 3)
	if b.Blocks() != 2 {
		t.Fatalf("%d blocks after the shrink, want 2", b.Blocks())
	}
	b.Resize(3 * BlockLen)
	for i := 0; i < b.Len(); i++ {
		want := float32(0)
		if i < BlockLen+3 {
			want = float32(i+1) / 8
		}
		if b.At(i) != want {
			t.Fatalf("sample %d = %v after shrink and grow, want %v", i, b.At(i), want)
		}
	}
}

// TestPoolHoldsTheMostHeld: waves of mixed sizes made, let go and made
// again, round after round, leave the pool with the most blocks held at
// once (the largest round's), not the sum of every round's.
func TestPoolHoldsTheMostHeld(t *testing.T) {
	settle(t) // every block of earlier tests back in the pool: let them go
	pool.Lock()
	pool.free, pool.made = nil, 0
	pool.Unlock()
	// Rounds of waves, in samples: 2.5 blocks and 1 sample, a block and
	// a third, 9 blocks less one sample... each round's waves held at once.
	rounds := [][]int{
		{5*BlockLen/2 + 1, BlockLen + BlockLen/3, 9*BlockLen - 1},      // 3 + 2 + 9 = 14 blocks
		{1, 2, 3, 4*BlockLen + 1},                                      // 1+1+1+5 = 8
		{13 * BlockLen},                                                // 13
		{BlockLen / 2, BlockLen / 2, BlockLen / 2, BlockLen / 2, 1000}, // 5
		{7*BlockLen + 7, 6*BlockLen + 6},                               // 8 + 7 = 15: the most
		{3 * BlockLen, 3 * BlockLen, 3 * BlockLen},                     // 9
	}
	most, sum := int64(0), int64(0)
	for _, sizes := range rounds {
		held := hold(sizes)
		most, sum = max(most, held), sum+held
		settle(t)
	}
	want := most * BlockBytes
	if got := Stats(); got.Total != want || got.Free != got.Total {
		t.Errorf("pool total %d bytes, %d free; want %d (the most held, %d blocks), all free — the sum would be %d blocks",
			got.Total, got.Free, want, most, sum)
	}
	if most != 15 || sum != 64 {
		t.Fatalf("the rounds hold %d blocks at most, %d in all; the test wants 15 and 64", most, sum)
	}
}

// TestPoolKeepsAtMostMaxFree: a place that held more blocks than MaxFree
// leaves, once its waves are collected, MaxFree blocks in the pool and lets
// the rest go to the heap (they would count as live for the rest of the
// session); the next place takes the kept ones first.
func TestPoolKeepsAtMostMaxFree(t *testing.T) {
	settle(t)
	pool.Lock()
	pool.free, pool.made = nil, 0
	pool.Unlock()
	if held := hold([]int{30 * BlockLen, 20*BlockLen + 1}); held != 51 {
		t.Fatalf("held %d blocks; the test wants 51", held)
	}
	settle(t)
	if got := Stats(); got.Total != MaxFree*BlockBytes || got.Free != got.Total {
		t.Errorf("after a place of 51 blocks: pool total %d bytes, %d free; want %d (MaxFree blocks), all free", got.Total, got.Free, MaxFree*BlockBytes)
	}
	b := Make(10 * BlockLen)
	if got := Stats(); got.Total != MaxFree*BlockBytes || got.Free != (MaxFree-10)*BlockBytes {
		t.Errorf("a 10-block Buf after it: total %d, free %d; want %d and %d (taken from the kept blocks)", got.Total, got.Free, MaxFree*BlockBytes, (MaxFree-10)*BlockBytes)
	}
	runtime.KeepAlive(b)
}

// hold makes Bufs of the given sizes (half by Append, half by Make, as the
// decoders and the mixer do) and returns the blocks they held together.
func hold(sizes []int) int64 {
	bufs := make([]*Buf, len(sizes))
	blocks := int64(0)
	for i, n := range sizes {
		if i%2 == 0 {
			bufs[i] = Make(n)
		} else {
			bufs[i] = New()
			for range n {
				bufs[i].Append(1)
			}
		}
		blocks += int64(bufs[i].Blocks())
	}
	runtime.KeepAlive(bufs)
	return blocks
}

// settle collects until every block made is back in the pool (the
// cleanups of collected Bufs run on their own goroutine), waiting on that
// state with a generous bound.
func settle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		runtime.GC()
		if s := Stats(); s.Free == s.Total {
			return
		}
		if time.Now().After(deadline) {
			s := Stats()
			t.Fatalf("after 20 s of collections the pool has %d of %d bytes free", s.Free, s.Total)
		}
		time.Sleep(time.Millisecond) // let the cleanup goroutine run
	}
}

// TestReusedBlocksAreZero: a block a collected Buf gave back comes to the
// next Buf zeroed.
func TestReusedBlocksAreZero(t *testing.T) {
	func() {
		b := Make(2 * BlockLen)
		for i := range b.Len() {
			b.Set(i, 1)
		}
	}()
	settle(t)
	free := Stats().Free
	if free < 2*BlockBytes {
		t.Fatalf("%d bytes free after the collection, want 2 blocks at least", free)
	}
	b := Make(2 * BlockLen)
	if Stats().Free != free-2*BlockBytes {
		t.Errorf("a new Buf did not take its blocks from the pool")
	}
	for i := range b.Len() {
		if b.At(i) != 0 {
			t.Fatalf("sample %d of a reused block = %v, want 0", i, b.At(i))
		}
	}
}
