package datfetch

import (
	"context"
	"io"
	"testing"
	"time"
)

// heldBody hands out its first part at once and the rest only once
// released: bytes that have come but wait to be handed to the reader (in
// the browser: a read result queued behind a busy thread).
type heldBody struct {
	ctx      context.Context
	first    []byte
	rest     []byte
	released chan struct{}
	read     chan struct{} // closed once the rest has been read
}

func (b *heldBody) Read(p []byte) (int, error) {
	if len(b.first) > 0 {
		n := copy(p, b.first)
		b.first = b.first[n:]
		return n, nil
	}
	if b.rest == nil {
		return 0, io.EOF
	}
	select {
	case <-b.released:
	case <-b.ctx.Done():
		return 0, b.ctx.Err()
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	if len(b.rest) == 0 {
		b.rest = nil
		close(b.read)
	}
	return n, nil
}

func (b *heldBody) Close() error { return nil }

// A body whose bytes have come while the idle timer ran out is read, not
// called stalled and asked for again: the timer, once fired, gives the
// reader its grace (here: the rest is handed over only then), and the
// attempt succeeds with no second request. Without the grace the attempt
// is cancelled as stalled and the source asks again.
func TestStallGraceReadsWhatCame(t *testing.T) {
	body := append([]byte{0x01, 0x00, 0x00, 0x0A}, "456789abcdef0123456789abcdef"...) // starts with its DID
	var held *heldBody
	requests := 0
	tr := func(ctx context.Context, url string) (*Response, error) {
		requests++
		held = &heldBody{ctx: ctx, first: body[:8], rest: body[8:], released: make(chan struct{}), read: make(chan struct{})}
		return &Response{Status: 200, ContentLength: int64(len(body)), Header: map[string]string{}, Body: held}, nil
	}
	h := NewHTTP("http://test/files/", HTTPOptions{Transport: tr, IdleTimeout: time.Millisecond, Retries: -1})
	graces := 0
	h.grace = func() {
		graces++
		close(held.released)
		<-held.read // the reader has the rest: it re-armed the timer
	}
	got, err := h.Get(context.Background(), 0x0A000001)
	if err != nil {
		t.Fatalf("Get: %v (requests %d, graces %d)", err, requests, graces)
	}
	if string(got) != string(body) || requests != 1 || graces != 1 {
		t.Fatalf("got %q after %d requests, %d graces; want the whole body from one request after one grace", got, requests, graces)
	}
}
