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
