package datfetch

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// stallClock starts the idle timers of one HTTP source in a test
// (HTTP.afterIdle) and fires them when the test says, never by the wall
// clock: the fault cases fire one once the server has stalled on purpose
// and the source has read every byte sent before (driveStalls). A loaded
// machine then can neither make slow progress look like a stall (a timer
// that ran out while the answer was on its way) nor a stall like progress.
type stallClock struct {
	mu    sync.Mutex
	last  *stallTimer     // the newest timer: the attempt under way
	fired []time.Duration // what each timer fired was armed for
}

// stallTimer is one attempt's idle timer on a stallClock.
type stallTimer struct {
	c     *stallClock
	f     func()
	d     time.Duration // the silence it is armed for
	armed bool
}

func (c *stallClock) afterFunc(d time.Duration, f func()) idleTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = &stallTimer{c: c, f: f, d: d, armed: true}
	return c.last
}

func (t *stallTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.d, t.armed = d, true
	return was
}

func (t *stallTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

// fire expires the newest timer as the wall clock would have, running its
// function here; false when no timer is armed.
func (c *stallClock) fire() bool {
	c.mu.Lock()
	t := c.last
	if t == nil || !t.armed {
		c.mu.Unlock()
		return false
	}
	t.armed = false
	c.fired = append(c.fired, t.d)
	c.mu.Unlock()
	t.f()
	return true
}

// driveStalls puts h's idle timers on a stallClock and fires the running
// attempt's timer at each of the server's first n deliberate stalls: once
// stalled counts the i-th and h has read i×before body bytes (each stalled
// answer sends before bytes, then stops; the stalled attempts come before
// any other's body). With n = 0 no timer of h ever fires. Call the
// function it returns once Get has returned: it stops the driving and
// returns the silences the fired timers were armed for, or what went wrong.
func driveStalls(h *HTTP, stalled func() (int, error), n int, before int64) func() ([]time.Duration, error) {
	c := &stallClock{}
	h.afterIdle = c.afterFunc
	stop, finished := make(chan struct{}), make(chan error, 1)
	// until polls cond, returning false once the driving is stopped.
	until := func(cond func() bool) bool {
		for !cond() {
			select {
			case <-stop:
				return false
			case <-time.After(time.Millisecond):
			}
		}
		return true
	}
	go func() {
		var err error
		defer func() { finished <- err }()
		for i := 1; i <= n; i++ {
			if !until(func() bool {
				k, e := stalled()
				if e != nil {
					err = fmt.Errorf("asking the server for its stalls: %w", e)
					return true
				}
				return k >= i
			}) || err != nil {
				return
			}
			if !until(func() bool { return h.received.Load() >= int64(i)*before }) {
				return
			}
			if !c.fire() {
				err = fmt.Errorf("stall %d: the server stopped and the source had read its %d bytes, and no idle timer was armed", i, h.received.Load())
				return
			}
		}
	}()
	return func() ([]time.Duration, error) {
		close(stop)
		err := <-finished
		c.mu.Lock()
		defer c.mu.Unlock()
		if err == nil && len(c.fired) < n {
			err = errors.New("the source gave up before the server's stalls had all come")
		}
		return c.fired, err
	}
}
