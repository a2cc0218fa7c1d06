// Package pace keeps a single-threaded host's event loop turning while Go
// works in bursts.
//
// Under GOOS=js every goroutine runs on one thread (the page's engine
// worker, www/ambient.worker.js), and that thread's event loop turns only
// when every goroutine waits. A landmark jump's burst (a rebuild, a dozen
// fetch() calls, the decodes of what arrives together) ran 150–250 ms in
// one task. When Go shared the page's main thread, the audio callback
// missed its turn and the listener heard a gap, ~0.7 a jump (issue 23);
// in the worker, the same burst holds back the worklet's feed (the
// worker's replies to its queue reports) and the page's answers. Work that
// can wait calls Yield between its steps: once the current slice of Go
// work has run Budget, the caller waits for the event loop's next turn,
// and so does every other caller, until all of Go waits and the worker
// runs its callbacks: the worklet's feed, the page's messages.
//
// A slice starts when JavaScript calls into Go: Enter marks it, and the
// callbacks that resume Go (a promise's settling, an API call, Yield's own
// turn) call it. A slice that started elsewhere (the Go runtime's timers)
// is counted from the last mark, so a Yield there may wait a turn it did not
// need: a few milliseconds, never a burst.
//
// Natively, and wherever there is no event loop to give back, Yield
// returns at once: renders and traces run as they always did.
package pace

import "time"

// Budget is how long a slice of Go work runs before Yield gives the thread
// back: far under the worklet's queue (683 ms, www/ambient.js QUEUE) and the
// 171 ms audio buffer it was first set against, and long enough that a
// burst's dozens of small steps (a fetch() call, a record's decode: ~1–3 ms
// each) take a few turns, not dozens.
const Budget = 25 * time.Millisecond
