//go:build js

package pace

import (
	"syscall/js"
	"testing"
	"time"
)

// ticker is a JavaScript task that queues itself again each time it runs:
// how many times it ran is how many turns the event loop had.
const ticker = `(() => {
  const t = { n: 0, on: true };
  const tick = () => { t.n++; if (t.on) setImmediate(tick); };
  setImmediate(tick);
  return t;
})()`

// burst runs 200 steps of a millisecond's work each (at least 200 ms of
// it, more on a loaded machine) and reports how many turns the event loop
// had while it ran.
func burst(yield bool) int {
	t := js.Global().Call("eval", ticker)
	turns := make(chan int)
	go func() {
		for range 200 {
			for s := time.Now(); time.Since(s) < time.Millisecond; {
			}
			if yield {
				Yield()
			}
		}
		turns <- t.Get("n").Int()
	}()
	n := <-turns
	t.Set("on", false)
	return n
}

// TestYieldGivesTheEventLoopTurns: a burst of Go work that calls Yield
// between its steps gives the event loop a turn at least every Budget of
// it (200 ms of work: 8 turns, at least 4 allowing for a slow clock); one
// that does not holds the loop for the whole burst.
func TestYieldGivesTheEventLoopTurns(t *testing.T) {
	if js.Global().Get("setImmediate").Type() != js.TypeFunction {
		t.Skip("no setImmediate in this host")
	}
	if n := burst(true); n < 4 {
		t.Errorf("with Yield the event loop had %d turns during 200 ms of work; want ≥ 4 (one a Budget, %v)", n, Budget)
	} else {
		t.Logf("with Yield: %d turns", n)
	}
	if n := burst(false); n != 0 {
		t.Errorf("without Yield the event loop had %d turns during the burst; want 0 (the measure cannot tell)", n)
	}
}

// TestYieldSpreadsWaiters: a hundred goroutines that each yield once and
// then work a millisecond (a burst of fetch() calls) take a turn of the
// event loop every Budget of their work, not one turn for all: the turn
// that wakes the waiters lets through only a Budget's worth of them.
func TestYieldSpreadsWaiters(t *testing.T) {
	if js.Global().Get("setImmediate").Type() != js.TypeFunction {
		t.Skip("no setImmediate in this host")
	}
	tk := js.Global().Call("eval", ticker)
	done := make(chan struct{}, 100)
	for range 100 {
		go func() {
			Yield()
			for s := time.Now(); time.Since(s) < time.Millisecond; {
			}
			done <- struct{}{}
		}()
	}
	for range 100 {
		<-done
	}
	n := tk.Get("n").Int()
	tk.Set("on", false)
	// 100 ms of work: 4 turns at 25 ms a slice; at least 2 allowing for a slow clock.
	if n < 2 {
		t.Errorf("the event loop had %d turns while 100 waiters worked 1 ms each; want ≥ 2", n)
	}
	t.Logf("%d turns", n)
}

// TestEnterCountsATaskOnce: Go work resumed by a chain of promise
// callbacks within one task (each calling Enter, as the fetch transport's
// await does) is counted from the first, so Yield still gives the event
// loop its turns; counted from each callback, the chain was one long task.
func TestEnterCountsATaskOnce(t *testing.T) {
	if js.Global().Get("setImmediate").Type() != js.TypeFunction {
		t.Skip("no setImmediate in this host")
	}
	tk := js.Global().Call("eval", ticker)
	resolved := js.Global().Get("Promise").Call("resolve", 0)
	turns := make(chan int)
	go func() {
		for range 300 {
			ch := make(chan struct{})
			var then js.Func
			then = js.FuncOf(func(js.Value, []js.Value) any {
				Enter()
				then.Release()
				close(ch)
				return nil
			})
			resolved.Call("then", then)
			<-ch
			for s := time.Now(); time.Since(s) < time.Millisecond; {
			}
			Yield()
		}
		turns <- tk.Get("n").Int()
	}()
	n := <-turns
	tk.Set("on", false)
	// 300 ms of work: 12 turns at 25 ms a task; at least 5 allowing for a
	// slow clock (counted from each callback: 2).
	if n < 5 {
		t.Errorf("the event loop had %d turns during 300 ms of work resumed by promise callbacks; want ≥ 5", n)
	}
	t.Logf("%d turns", n)
}
