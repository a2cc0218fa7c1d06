package ambient

// playQueue is retail AC1Legacy::PQueueArray<double>: a 1-based binary
// min-heap of (absolute seconds, instance). Insert (0x00540DD0) sifts up only
// past a strictly larger parent and _Heapify (0x00540BE0) moves down only to a
// strictly smaller child, so equal keys keep roughly the order they came in.
type playQueue struct {
	nodes []queueNode // nodes[0] is unused: index 1 is the root
}

type queueNode struct {
	key  float64
	inst int32
}

func (q *playQueue) len() int { return max(0, len(q.nodes)-1) }

// minKey is the root's key; the queue must not be empty.
func (q *playQueue) minKey() float64 { return q.nodes[1].key }

func (q *playQueue) insert(key float64, inst int32) {
	if len(q.nodes) == 0 {
		q.nodes = append(q.nodes, queueNode{})
	}
	q.nodes = append(q.nodes, queueNode{})
	n := len(q.nodes) - 1
	for n > 1 {
		parent := n >> 1
		if !(key < q.nodes[parent].key) {
			break
		}
		q.nodes[n] = q.nodes[parent]
		n = parent
	}
	q.nodes[n] = queueNode{key, inst}
}

// removeMin is PQueueArray::RemoveMin: the last node replaces the root, which
// is then heapified down.
func (q *playQueue) removeMin() queueNode {
	top := q.nodes[1]
	last := len(q.nodes) - 1
	q.nodes[1] = q.nodes[last]
	q.nodes = q.nodes[:last]
	q.heapify(1)
	return top
}

func (q *playQueue) heapify(root int) {
	count := len(q.nodes) - 1
	for {
		smallest := root
		if l := 2 * root; l <= count && q.nodes[l].key < q.nodes[root].key {
			smallest = l
		}
		if r := 2*root + 1; r <= count && q.nodes[r].key < q.nodes[smallest].key {
			smallest = r
		}
		if smallest == root {
			return
		}
		q.nodes[root], q.nodes[smallest] = q.nodes[smallest], q.nodes[root]
		root = smallest
	}
}

// remove takes inst's node out of the queue (not a retail operation: the
// page's late wave, loading.go), keeping the heap's order; it reports
// whether inst was queued.
func (q *playQueue) remove(inst int32) bool {
	for i := 1; i < len(q.nodes); i++ {
		if q.nodes[i].inst != inst {
			continue
		}
		last := len(q.nodes) - 1
		moved := q.nodes[last]
		q.nodes = q.nodes[:last]
		if i == last {
			return true
		}
		q.nodes[i] = moved
		// The moved node may belong above or below i.
		for i > 1 && moved.key < q.nodes[i>>1].key {
			q.nodes[i], q.nodes[i>>1] = q.nodes[i>>1], q.nodes[i]
			i >>= 1
		}
		q.heapify(i)
		return true
	}
	return false
}
