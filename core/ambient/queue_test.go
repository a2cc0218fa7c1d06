package ambient

import (
	"slices"
	"testing"
)

func TestPlayQueueOrder(t *testing.T) {
	var q playQueue
	for i, k := range []float64{5, 3, 8, 1, 9, 2, 7} {
		q.insert(k, int32(i))
	}
	var got []float64
	for q.len() > 0 {
		got = append(got, q.removeMin().key)
	}
	if want := []float64{1, 2, 3, 5, 7, 8, 9}; !slices.Equal(got, want) {
		t.Errorf("pop order %v, want %v", got, want)
	}
}

func TestPlayQueueTies(t *testing.T) {
	// Hand trace of retail Insert/RemoveMin with ties (1-based heap):
	// insert a(1) b(1) c(1) d(0) e(1):
	//   [a] → [a b] (1 < 1 false, no swap) → [a b c] → d sifts past b and a:
	//   [d a c b] → e: parent a(1), 1 < 1 false: [d a c b e].
	// RemoveMin → d; e to the root; children a(1), c(1) are not strictly
	//   smaller: [e a c b] → e pops next, although a came first.
	var q playQueue
	for _, n := range []struct {
		key  float64
		inst int32
	}{{1, 'a'}, {1, 'b'}, {1, 'c'}, {0, 'd'}, {1, 'e'}} {
		q.insert(n.key, n.inst)
	}
	var got []byte
	for q.len() > 0 {
		got = append(got, byte(q.removeMin().inst))
	}
	// After e: [b a c] → b (last) to the root, a and c equal: b stays → b,
	// then [c a] → c, then a.
	if string(got) != "debca" {
		t.Errorf("tie order %q, want %q", got, "debca")
	}
}

func TestUseTimeStrict(t *testing.T) {
	// A constant sound fired at t=0 is re-keyed at 0 + min_rate = 5.
	r := testRegion(stb(0x20000001, constant(1, 5)))
	e := New(r, newLand(flatBlock(10, 10, word(0))), newLib(table(0x20000001, 0x0A000001)), DefaultConfig())
	e.ChangePosition(0, at(10, 10, 96, 96, 0), false)
	if k := kinds(decisions(e)); k[string(KindPlay)] != 1 {
		t.Fatalf("rebuild events %v, want one play", k)
	}
	if evs := e.UseTime(5); len(evs) != 0 {
		t.Errorf("UseTime(5) with the key at 5 fired %d events; retail pops only keys < now", len(evs))
	}
	if evs := e.UseTime(5.0000001); len(evs) != 1 || evs[0].Kind != KindPlay {
		t.Errorf("UseTime(5.0000001) = %+v, want one play", evs)
	}
}
