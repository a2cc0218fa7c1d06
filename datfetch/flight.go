package datfetch

import (
	"context"
	"fmt"
	"sync"
)

// flightGroup runs one fetch per id at a time and hands its result to every
// caller that asked meanwhile. Unlike x/sync/singleflight it honours each
// caller's context: a caller whose context ends returns at once, and the
// fetch itself is cancelled only when no caller is left waiting for it.
type flightGroup struct {
	mu sync.Mutex
	m  map[uint32]*flight
}

type flight struct {
	done    chan struct{}
	b       []byte
	err     error
	waiters int
	cancel  context.CancelFunc
}

func (g *flightGroup) do(ctx context.Context, id uint32, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	g.mu.Lock()
	if g.m == nil {
		g.m = map[uint32]*flight{}
	}
	f, ok := g.m[id]
	if !ok {
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel}
		g.m[id] = f
		go func() {
			f.b, f.err = fn(fctx)
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
		return f.b, f.err
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
		return nil, fmt.Errorf("0x%08X: %w", id, ctx.Err())
	}
}
