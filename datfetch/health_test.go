//go:build !js

package datfetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestTrouble: while a source waits to retry it says why (a 429 with its
// Retry-After; no answer at all; a body that stopped), and the next answer
// clears it and counts.
func TestTrouble(t *testing.T) {
	s := newFaultServer(t)
	type seen struct {
		tr   Trouble
		wait time.Duration
	}
	// watch notes the source's Trouble at each wait; its idle timers are
	// on a clock that fires only when a test says (driveStalls), never
	// because the machine was slow.
	watch := func(h *HTTP) *[]seen {
		h.afterIdle = (&stallClock{}).afterFunc
		var got []seen
		h.wait = func(ctx context.Context, d time.Duration, cause error) error {
			got = append(got, seen{h.Trouble(), d})
			return nil
		}
		return &got
	}

	h := NewHTTP(s.URL+"/429/files/", HTTPOptions{CacheBytes: -1})
	waits := watch(h)
	if _, err := h.Get(context.Background(), faultID); err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 1 {
		t.Fatalf("%d waits, want 1", len(*waits))
	}
	w := (*waits)[0]
	if tr := w.tr; !tr.Failing || tr.Reason != "status" || tr.Status != 429 || tr.RetryAfter != time.Second ||
		tr.RetryAt.Sub(tr.Since) < time.Second-10*time.Millisecond {
		t.Errorf("waiting on a 429: %+v; want failing, status 429, Retry-After 1 s, retrying 1 s after", tr)
	}
	if tr := h.Trouble(); tr.Failing || tr.Answers != 1 {
		t.Errorf("after the answer: %+v; want not failing, 1 answer", tr)
	}

	// Nobody listens: no answer, and after the retries the source gives up
	// (RetryAt zero: its caller asks again).
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	h = NewHTTP(dead.URL+"/files/", HTTPOptions{CacheBytes: -1})
	waits = watch(h)
	_, err := h.Get(context.Background(), faultID)
	if !errors.Is(err, ErrNetwork) || !errors.Is(err, ErrNoAnswer) {
		t.Errorf("err = %v; want ErrNetwork and ErrNoAnswer", err)
	}
	if tr := h.Trouble(); !tr.Failing || tr.Reason != "no-answer" || !tr.RetryAt.IsZero() || len(*waits) != DefaultRetries {
		t.Errorf("given up: %+v after %d waits; want failing, no-answer, no retry planned, %d waits", tr, len(*waits), DefaultRetries)
	}

	// A body that stops half way is given up on after BodyIdleTimeout,
	// however long IdleTimeout is: once it has begun, its timer is armed
	// for BodyIdleTimeout, and it fires when the server has stopped on
	// purpose (the server ends the stall after 30 s, which would be a body
	// cut short, not a stall).
	const bodyIdle = 7 * time.Second
	h = NewHTTP(s.URL+"/stall/files/", HTTPOptions{CacheBytes: -1, IdleTimeout: time.Minute, BodyIdleTimeout: bodyIdle})
	waits = watch(h)
	driven := driveStalls(h, func() (int, error) { return s.stalled(fmt.Sprintf("/stall/files/0x%08X", faultID)) }, 1, faultSize/2)
	_, err = h.Get(context.Background(), faultID)
	fired, driveErr := driven()
	if err != nil {
		t.Fatal(err)
	}
	if driveErr != nil || len(fired) != 1 || fired[0] != bodyIdle {
		t.Fatalf("idle timers fired armed for %v (%v); want one, for BodyIdleTimeout %v", fired, driveErr, bodyIdle)
	}
	if len(*waits) != 1 || (*waits)[0].tr.Reason != "stalled" {
		t.Fatalf("waits %+v; want one, stalled", *waits)
	}
	if !strings.Contains((*waits)[0].tr.Err.Error(), fmt.Sprintf("no byte for %v mid-body", bodyIdle)) {
		t.Errorf("stall: %v", (*waits)[0].tr.Err)
	}
	if n := s.count(fmt.Sprintf("/stall/files/0x%08X", faultID)); n != 2 {
		t.Errorf("the server saw %d requests, want 2: the stalled one and its retry", n)
	}
}

// TestBodyIdleDefault: the body's silence allowed is the shorter of
// DefaultBodyIdleTimeout and IdleTimeout unless set.
func TestBodyIdleDefault(t *testing.T) {
	for _, c := range []struct {
		opt  HTTPOptions
		want time.Duration
	}{
		{HTTPOptions{}, DefaultBodyIdleTimeout},
		{HTTPOptions{IdleTimeout: time.Second}, time.Second},
		{HTTPOptions{IdleTimeout: time.Minute, BodyIdleTimeout: 7 * time.Second}, 7 * time.Second},
	} {
		if got := NewHTTP("http://x/", c.opt).bodyIdle; got != c.want {
			t.Errorf("%+v: body idle %v, want %v", c.opt, got, c.want)
		}
	}
}
