package session

import (
	"sync/atomic"
	"time"

	"acambient/datfetch"
)

// What the host tells the page of a bad network, and how it heals. The
// host asks again for what the listener's place lacks with backoff (1 s,
// doubling to 30 s) while the listener stays; so that the page heals as soon
// as the way is clear rather than up to 30 s later, it also asks again at
// once when a record source has had an answer since the failures (another
// record, a map tile: the server and the way to it work again), and when
// the page says the browser is back online (RetryNow). Neither hammers a
// dead server: each asks once, and only after an answer or an event.

// Trouble is why the records the listener's place needs are not all here,
// while that lasts (Stats.Trouble): the failure a record source saw last.
type Trouble struct {
	// Reason: "no-answer" (offline, the server unreachable), "status"
	// (the server answered 429 or 5xx: Status), "stalled" (an answer
	// stopped coming), "damaged" (answers that did not verify).
	Reason string `json:"reason"`
	Status int    `json:"status,omitempty"`
	// RetryAfter is what the server asked to wait, in seconds (0: none).
	RetryAfter float64 `json:"retryAfter,omitempty"`
	// RetryIn is the seconds until the next ask: the source's own retry,
	// or the host's.
	RetryIn float64 `json:"retryIn"`
	// For is how long it has lasted, in seconds.
	For     float64 `json:"for"`
	Message string  `json:"message"`
}

// troubled is how the host reads its sources' health (datfetch.HTTP and
// the Landblocks over one tell it; memory and dat sources do not).
type troubled = datfetch.Troubled

// sourceTrouble is the worst health among the host's two sources: a
// failing one, and the answers both have had.
func (h *Host) sourceTrouble() (t datfetch.Trouble, failing bool, answers uint64) {
	for _, s := range []any{h.ld.portal, h.ld.cell} {
		ts, ok := s.(troubled)
		if !ok {
			continue
		}
		st := ts.Trouble()
		answers += st.Answers
		if st.Failing && !failing {
			t, failing = st, true
		}
	}
	return t, failing, answers
}

// RetryNow makes the host ask again at its next tick for what the
// listener's place lacks, with the backoff started over: for the page when
// the browser says it is back online.
func (h *Host) RetryNow() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.retryNowLocked()
}

func (h *Host) retryNowLocked() {
	h.retryWait = retryFirst
	h.retryAt = h.now
}

// answersSeen is the sources' answers counted when the host last saw a
// failure reported (report), or −1 when none is outstanding.
type answersSeen struct{ n atomic.Int64 }

// healed reports, at a tick, whether a source has had an answer since the
// failures last reported: then the host asks again at once.
func (h *Host) healedLocked() bool {
	at := h.answersAtFail.n.Load()
	if at < 0 || !h.lacking {
		return false
	}
	_, _, answers := h.sourceTrouble()
	if int64(answers) <= at {
		return false
	}
	h.answersAtFail.n.Store(-1)
	return true
}

// noteFailure is called with each reported load problem.
func (h *Host) noteFailure() {
	_, _, answers := h.sourceTrouble()
	h.answersAtFail.n.Store(int64(answers))
}

// troubleLocked is Stats.Trouble: set while the place lacks records and a
// source is failing.
func (h *Host) troubleLocked() *Trouble {
	if !h.lacking {
		return nil
	}
	st, failing, _ := h.sourceTrouble()
	if !failing {
		return nil
	}
	t := &Trouble{Reason: st.Reason, Status: st.Status, RetryAfter: st.RetryAfter.Seconds(),
		For: time.Since(st.Since).Seconds()}
	if st.Err != nil {
		t.Message = st.Err.Error()
	}
	if !st.RetryAt.IsZero() {
		t.RetryIn = max(0, time.Until(st.RetryAt).Seconds())
	} else {
		t.RetryIn = max(0, h.retryAt-h.now)
	}
	return t
}
