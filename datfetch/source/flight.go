package source

import (
	"context"
	"fmt"
	"sync"
)

// Flights runs one fetch per id at a time and hands its result to every
// caller that asked meanwhile: the HTTP source's one request per id, and the
// server's one read per record. Unlike x/sync/singleflight it honours each
// caller's context: a caller whose context ends returns at once, and the
// fetch itself is cancelled only when no caller is left waiting for it. The
// zero value is ready to use.
type Flights[V any] struct {
	mu sync.Mutex
	m  map[uint32]*flight[V]
}

type flight[V any] struct {
	done    chan struct{}
	v       V
	err     error
	waiters int
	cancel  context.CancelFunc
}

// Do returns fn's result for id, running fn unless a call for id is already
// under way, in which case it waits for that one. fn's context is cancelled
// when every caller waiting for it has left.
func (g *Flights[V]) Do(ctx context.Context, id uint32, fn func(context.Context) (V, error)) (V, error) {
	g.mu.Lock()
	if g.m == nil {
		g.m = map[uint32]*flight[V]{}
	}
	f, ok := g.m[id]
	if !ok {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight[V]{done: make(chan struct{}), cancel: cancel}
		g.m[id] = f
		go func() {
			f.v, f.err = fn(fctx)
			cancel()
			g.mu.Lock()
			if g.m[id] == f {
				delete(g.m, id)
			}
			g.mu.Unlock()
			close(f.done)
		}()
	}
	f.waiters++
	g.mu.Unlock()

	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		g.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			f.cancel()
			// A later caller must start afresh rather than join a cancelled fetch.
			if g.m[id] == f {
				delete(g.m, id)
			}
		}
		g.mu.Unlock()
		var zero V
		return zero, fmt.Errorf("0x%08X: %w", id, ctx.Err())
	}
}

// Waiters is how many callers wait on id's fetch now, 0 when none is under
// way: what a test waits for before it lets an answer through.
func (g *Flights[V]) Waiters(id uint32) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f := g.m[id]; f != nil {
		return f.waiters
	}
	return 0
}

// Waiting is the number of callers waiting for id's call in flight (0 when
// none is): how a test knows every concurrent request has joined one read
// before it lets that read finish.
func (g *Flights[V]) Waiting(id uint32) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.m[id]; ok {
		return f.waiters
	}
	return 0
}
