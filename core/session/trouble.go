package session

import (
	"fmt"
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
// A slow link fails nothing: the host calls it trouble when records have
// been on their way for slowAfter while arriving slower than slowRate.

// Trouble is why the records the listener's place needs are not all here,
// while that lasts (Stats.Trouble): the failure a record source saw last.
type Trouble struct {
	// Reason: "no-answer" (offline, the server unreachable), "status"
	// (the server answered 429 or 5xx: Status), "stalled" (an answer
	// stopped coming), "damaged" (answers that did not verify), "slow"
	// (nothing failed, but records arrive at Rate).
	Reason string `json:"reason"`
	Status int    `json:"status,omitempty"`
	// Rate is the body bytes a second the sources received over the last
	// slowAfter ("slow").
	Rate float64 `json:"rate,omitempty"`
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
	t, failing, answers, _ = h.sourceHealth()
	return t, failing, answers
}

// sourceHealth is sourceTrouble with the body bytes both have received.
func (h *Host) sourceHealth() (t datfetch.Trouble, failing bool, answers uint64, received int64) {
	for _, s := range []any{h.ld.portal, h.ld.cell} {
		ts, ok := s.(troubled)
		if !ok {
			continue
		}
		st := ts.Trouble()
		answers += st.Answers
		received += st.Received
		if st.Failing && !failing {
			t, failing = st, true
		}
	}
	return t, failing, answers, received
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
	if at < 0 || !h.rebuild.lacking() {
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
	st, failing, _, received := h.sourceHealth()
	rate, slow := h.slow.observe(time.Now(), h.ld.snapshot().Pending > 0, received)
	if !h.rebuild.lacking() {
		return nil
	}
	if !failing {
		if slow {
			return &Trouble{Reason: "slow", Rate: rate, For: time.Since(h.slow.start).Seconds(),
				Message: fmt.Sprintf("records arrive at %.0f bytes/s", rate)}
		}
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

// A link is slow when records have been on their way for slowAfter and the
// sources received less than slowRate a second over it: the demo world's
// waves average 140 KB, so at slowRate one takes over 8 s.
const (
	slowAfter = 5 * time.Second
	slowRate  = 16 << 10
)

// slowWatch keeps, while fetches are in flight, the bytes received over
// the last slowAfter (sampled at each Stats; the page polls every 100 ms).
type slowWatch struct {
	start time.Time // when fetches began to be in flight; zero when none are
	at    []time.Time
	rx    []int64
}

// observe notes the received total at now, with fetches in flight or not,
// and reports the rate over the window and whether it is slow.
func (w *slowWatch) observe(now time.Time, inFlight bool, received int64) (rate float64, slow bool) {
	if !inFlight {
		w.start, w.at, w.rx = time.Time{}, w.at[:0], w.rx[:0]
		return 0, false
	}
	if w.start.IsZero() {
		w.start = now
	}
	w.at, w.rx = append(w.at, now), append(w.rx, received)
	// Keep one sample at or before the window's start.
	i := 0
	for i+1 < len(w.at) && !w.at[i+1].After(now.Add(-slowAfter)) {
		i++
	}
	w.at, w.rx = w.at[i:], w.rx[i:]
	span := now.Sub(w.at[0])
	if span < slowAfter {
		return 0, false
	}
	rate = float64(received-w.rx[0]) / span.Seconds()
	return rate, rate < slowRate
}
