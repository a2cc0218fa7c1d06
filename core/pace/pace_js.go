//go:build js

package pace

import (
	"sync"
	"syscall/js"
	"time"
)

// turns is the one pacer of the wasm: the start of the current task's Go
// work and the turn its yielders wait for.
var turns = newPacer()

type pacer struct {
	mu     sync.Mutex
	start  time.Time     // when the current task's Go work began, as far as known
	marked bool          // a mark is on its way: no task has begun since start was set
	next   chan struct{} // closed at the next turn; nil while nobody waits
	closed bool          // Close ran: Yield returns at once
	ask    func()        // schedules turn on the event loop
	mark   func()        // schedules unmark on the event loop
	stop   func()        // lets go of what ask and mark schedule with
	turn   js.Func
	unmark js.Func
}

func newPacer() *pacer {
	p := &pacer{start: time.Now()}
	p.turn = js.FuncOf(func(js.Value, []js.Value) any {
		p.mu.Lock()
		p.begin()
		ch := p.next
		p.next = nil
		p.mu.Unlock()
		if ch != nil {
			close(ch)
		}
		return nil
	})
	p.unmark = js.FuncOf(func(js.Value, []js.Value) any {
		p.mu.Lock()
		p.marked = false
		p.mu.Unlock()
		return nil
	})
	ask, stopAsk := scheduler(p.turn)
	mark, stopMark := scheduler(p.unmark)
	p.ask, p.mark = ask, mark
	p.stop = func() { stopAsk(); stopMark() }
	return p
}

// Enter tells the pacer that JavaScript has just called into Go. Go's work
// in a task is counted from the first such call of the task, not from
// each: a chain of promise callbacks (early answers already settled, a
// body's reads) calls into Go a dozen times within one task, and counting
// each afresh let that task run 330 ms.
func Enter() {
	p := turns
	p.mu.Lock()
	if !p.marked {
		p.begin()
	}
	p.mu.Unlock()
}

// begin starts the count of a task's Go work and posts a mark behind it:
// until the mark arrives, no later task has begun, and a call into Go is
// the same task's. (A mark that other tasks overtake makes their work count
// with this one's: a turn waited for that was not needed, never a long
// task.) p.mu is held.
func (p *pacer) begin() {
	p.start = time.Now()
	if !p.marked && !p.closed {
		p.marked = true
		p.mark()
	}
}

// Yield returns at once while the current slice is within Budget; past it,
// it waits for the event loop's next turn, and looks again: a turn wakes
// every waiter at once, and forty fetches that each waited once would then
// all go out in the next slice together.
func Yield() {
	p := turns
	p.mu.Lock()
	for !p.closed && time.Since(p.start) >= Budget {
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

// Close ends the pacing: Yield returns at once from then on, and whoever
// waits is let go. The wasm's dispose calls it: an entangled MessagePort
// with a listener is alive for as long as it could get a message, and this
// one's listener holds the Go instance, so a disposed instance, its linear
// memory and all, would never be collected (e2e TestPageSoakShort).
func Close() {
	p := turns
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	ch := p.next
	p.next = nil
	p.stop()
	p.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// scheduler returns what queues f as a task of its own, behind what the
// event loop holds, and what lets go of that: setImmediate where the host
// has it (node), else a MessageChannel's message (browsers: a task, and one
// that hidden tabs do not throttle as they do setTimeout, to once a second;
// its ports are closed by stop), else setTimeout.
func scheduler(f js.Func) (ask, stop func()) {
	g := js.Global()
	if si := g.Get("setImmediate"); si.Type() == js.TypeFunction {
		return func() { si.Invoke(f) }, func() {}
	}
	if mc := g.Get("MessageChannel"); mc.Type() == js.TypeFunction {
		ch := mc.New()
		in, post := ch.Get("port1"), ch.Get("port2")
		in.Set("onmessage", f)
		return func() { post.Call("postMessage", 0) }, func() {
			in.Set("onmessage", js.Null())
			in.Call("close")
			post.Call("close")
		}
	}
	st := g.Get("setTimeout")
	return func() { st.Invoke(f, 0) }, func() {}
}
