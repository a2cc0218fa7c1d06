package datfetch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"acambient/datfetch/source"
)

// What an HTTP source's Get can fail with, for callers that tell failures
// apart (the page says what is wrong in plain words): every error it
// returns matches (errors.Is) exactly one of ErrNotFound, ErrBadRecord,
// ErrNetwork, or the caller's context.Canceled / context.DeadlineExceeded.
// ErrTooLarge is also ErrBadRecord; ErrRedirectLoop is also ErrNetwork.
var (
	// ErrNotFound is every source's not found (source.ErrNotFound): a 404
	// the server meant.
	ErrNotFound = source.ErrNotFound
	// ErrBadRecord marks an answer that arrived whole and is not the record
	// asked for: larger than the cap, the DID of another record, a
	// compressed record that does not inflate. Asking again gets the same.
	ErrBadRecord = errors.New("bad record")
	// ErrTooLarge marks a body refused at the size cap (a *TooLargeError).
	ErrTooLarge = errors.New("record larger than the cap")
	// ErrNetwork marks a record the server did not hand over: the network
	// or the server failed (after the retries, when retrying could help), a
	// stall, a damaged transfer every time, a status other than 200 and 404.
	ErrNetwork = errors.New("network")
	// ErrRedirectLoop marks redirects that never reach an answer: back to a
	// URL already visited, or more hops than are followed. Not retried.
	ErrRedirectLoop = errors.New("redirect loop")

	// The network failures, told apart for the page's words (HTTP.Trouble;
	// each is also ErrNetwork once the retries are spent): ErrNoAnswer, the
	// transport got no answer at all (offline, refused, no such host);
	// ErrStalled, the answer stopped coming (HTTPOptions.IdleTimeout,
	// BodyIdleTimeout); a *StatusError, the server answered a status other
	// than 200 and 404.
	ErrNoAnswer = errors.New("no answer")
	ErrStalled  = errors.New("stalled")
)

// StatusError is an answer whose status is neither 200 nor 404. A 429 or
// 5xx is retried (after RetryAfter, when the server sent one that is
// longer than the source's own backoff).
type StatusError struct {
	URL        string
	Status     int
	RetryAfter time.Duration // the server's Retry-After; 0: none
}

func (e *StatusError) Error() string { return fmt.Sprintf("%s: status %d", e.URL, e.Status) }

// TooLargeError is a body refused at the cap, before it is read when its
// length is declared, or once one byte more than the cap has arrived.
type TooLargeError struct {
	URL string
	// Size is the declared length (Content-Length), or -1 when the body
	// came without one and reading stopped at Limit+1 bytes.
	Size int64
	// Encoded is set when Size counts the encoded bytes of a body that the
	// transport decodes (a cross-origin answer in the browser).
	Encoded bool
	Limit   int64
}

func (e *TooLargeError) Error() string {
	switch {
	case e.Size < 0:
		return fmt.Sprintf("%s: the body runs past the %d-byte cap: reading stopped at %d bytes", e.URL, e.Limit, e.Limit+1)
	case e.Encoded:
		return fmt.Sprintf("%s: a body of %d bytes encoded (Content-Length) is more than the %d-byte cap can be encoded as: refused unread", e.URL, e.Size, e.Limit)
	}
	return fmt.Sprintf("%s: a body of %d bytes (Content-Length) exceeds the %d-byte cap: refused unread", e.URL, e.Size, e.Limit)
}

// Is makes a *TooLargeError match ErrTooLarge and ErrBadRecord.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge || target == ErrBadRecord }

// classified is err, unchanged in its message, also matching class.
type classified struct{ err, class error }

func (e *classified) Error() string   { return e.err.Error() }
func (e *classified) Unwrap() []error { return []error{e.err, e.class} }

// classify marks err as class unless it already matches a class or is the
// caller's context ending.
func classify(err, class error) error {
	if err == nil || errors.Is(err, ErrBadRecord) || errors.Is(err, ErrNetwork) || errors.Is(err, source.ErrNotFound) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &classified{err, class}
}
