package datfetch

import (
	"errors"
	"sync"
	"time"
)

// Trouble is an HTTP source's health, for a page to say what is wrong in
// plain words while it lasts, and for its host to ask again the moment the
// way is clear: the last failed attempt since the source last had an
// answer.
type Trouble struct {
	// Failing is set from a failed attempt until the next answer (200, or
	// a 404 or 403 the server meant).
	Failing bool
	// Reason is what failed: "no-answer" (offline, refused, no such host:
	// ErrNoAnswer), "status" (the server answered 429 or 5xx: Status,
	// RetryAfter), "stalled" (the answer stopped coming: ErrStalled), or
	// "damaged" (a body that did not verify).
	Reason     string
	Status     int
	RetryAfter time.Duration
	// Since is the first failure of this run of failures; RetryAt when the
	// source asks again, zero when it gave up (its caller asks again).
	Since, RetryAt time.Time
	// Answers counts the answers the source has had: a caller that saw
	// failures may ask again as soon as it grows.
	Answers uint64
	// Received counts the body bytes read off the network: over time, the
	// rate records arrive at (a slow link fails nothing).
	Received int64
	Err      error
}

// Troubled is a Source that reports its health: HTTP, and a host's
// landblock memory over one (core/session.Landblocks).
type Troubled interface {
	Trouble() Trouble
}

// Trouble reports the source's health.
func (h *HTTP) Trouble() Trouble {
	t := h.health.get()
	t.Received = h.received.Load()
	return t
}

// health keeps a source's Trouble.
type health struct {
	mu sync.Mutex
	t  Trouble
}

func (h *health) get() Trouble {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.t
}

// answered notes an answer: the way to the server works.
func (h *health) answered() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.t = Trouble{Answers: h.t.Answers + 1}
}

// failed notes a failed attempt, retried after wait (0: given up).
func (h *health) failed(err error, wait time.Duration) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	t := &h.t
	if !t.Failing {
		t.Since = now
	}
	t.Failing, t.Err = true, err
	if t.Reason, t.Status, t.RetryAfter = NetworkReason(err); t.Reason == "" {
		t.Reason = "damaged"
	}
	t.RetryAt = time.Time{}
	if wait > 0 {
		t.RetryAt = now.Add(wait)
	}
}

// NetworkReason sorts a network failure as Trouble.Reason does: "status"
// (with the status and the server's Retry-After), "stalled", "no-answer";
// "" for the rest (Trouble calls those "damaged": bodies that came broken
// or did not verify).
func NetworkReason(err error) (reason string, status int, retryAfter time.Duration) {
	var se *StatusError
	switch {
	case errors.As(err, &se):
		return "status", se.Status, se.RetryAfter
	case errors.Is(err, ErrStalled):
		return "stalled", 0, 0
	case errors.Is(err, ErrNoAnswer):
		return "no-answer", 0, 0
	}
	return "", 0, 0
}
