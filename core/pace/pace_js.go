//go:build js

package pace

import (
	"sync"
	"syscall/js"
	"time"
)

// turns is the one pacer of the wasm: the start of the current slice and
// the turn its yielders wait for.
var turns = newPacer()

type pacer struct {
	mu    sync.Mutex
	start time.Time     // when the current slice began, as far as known
	next  chan struct{} // closed at the next turn; nil while nobody waits
	ask   func()        // schedules turn on the event loop
	turn  js.Func
}

func newPacer() *pacer {
	p := &pacer{start: time.Now()}
	p.turn = js.FuncOf(func(js.Value, []js.Value) any {
		p.mu.Lock()
		p.start = time.Now()
		ch := p.next
		p.next = nil
		p.mu.Unlock()
		if ch != nil {
			close(ch)
		}
		return nil
	})
	p.ask = scheduler(p.turn)
	return p
}

// Enter marks the start of a slice: JavaScript has just called into Go.
func Enter() {
	turns.mu.Lock()
	turns.start = time.Now()
	turns.mu.Unlock()
}

// Yield returns at once while the current slice is within Budget; past it,
// it waits for the event loop's next turn, and looks again: a turn wakes
// every waiter at once, and forty fetches that each waited once would then
// all go out in the next slice together.
func Yield() {
	p := turns
	p.mu.Lock()
	for time.Since(p.start) >= Budget {
		if p.next == nil {
			p.next = make(chan struct{})
			p.ask()
		}
		ch := p.next
		p.mu.Unlock()
		<-ch
		p.mu.Lock()
	}
	p.mu.Unlock()
}

// scheduler returns what queues f as a task of its own, behind what the
// event loop holds: setImmediate where the host has it (node), else a
// MessageChannel's message (browsers: a task, and one that hidden tabs do
// not throttle as they do setTimeout, to once a second), else setTimeout.
func scheduler(f js.Func) func() {
	g := js.Global()
	if si := g.Get("setImmediate"); si.Type() == js.TypeFunction {
		return func() { si.Invoke(f) }
	}
	if mc := g.Get("MessageChannel"); mc.Type() == js.TypeFunction {
		ch := mc.New()
		ch.Get("port1").Set("onmessage", f)
		post := ch.Get("port2")
		return func() { post.Call("postMessage", 0) }
	}
	st := g.Get("setTimeout")
	return func() { st.Invoke(f, 0) }
}
