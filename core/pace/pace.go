// Package pace keeps a single-threaded host's event loop turning while Go
// works in bursts.
//
// Under GOOS=js every goroutine runs on the browser's main thread, and the
// browser has the thread back only when every goroutine waits. A landmark
// jump's burst (a rebuild, a dozen fetch() calls, the decodes of what
// arrives together) ran 150–250 ms in one task; the audio callback (a
// ScriptProcessor of 171 ms, docs/browser-testing.md §5) missed its turn and
// the listener heard a gap, ~0.7 a jump (issue 23), and the first load's
// burst held "Click to listen" back by ~230 ms (issue 18). Work that can
// wait calls Yield between its steps: once the current slice of Go work has
// run Budget, the caller waits for the event loop's next turn, and so does
// every other caller, until all of Go waits and the browser runs its
// callbacks, paints, and audio.
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
// back: well under the ScriptProcessor's 171 ms, and long enough that a
// burst's dozens of small steps (a fetch() call, a record's decode: ~1–3 ms
// each) take a few turns, not dozens.
const Budget = 25 * time.Millisecond
