//go:build !js

package datfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// countingConn counts the bytes the process reads from a connection.
type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.read.Add(int64(n))
	return n, err
}

// countingTransport is NetHTTP over connections whose reads are counted.
func countingTransport(read *atomic.Int64) Transport {
	var d net.Dialer
	return netHTTP(&http.Client{CheckRedirect: checkRedirect, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{c, read}, nil
		},
	}})
}

// A 500 MB "wave" costs the process what the cap allows and no more:
// counted by the source (its budget's peak) and at the socket (the bytes
// read from the connection), not by the runtime's heap figures.
func TestHTTPHugeWaveReadsLittle(t *testing.T) {
	s := newFaultServer(t)
	for _, tc := range []struct {
		path             string
		maxHeld, maxRead int64
		wantSize         int64
	}{
		// With its length: refused on the headers, the body never read
		// beyond what arrived with them.
		{"/hugecl/files/", 0, 16 << 10, hugeWave},
		// Chunked: read to the cap and one byte more, in chunks the budget
		// granted; what the socket gave beyond is net/http's read-ahead.
		{"/huge/files/", DefaultMaxRecordBytes, DefaultMaxRecordBytes + 64<<10, -1},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var read atomic.Int64
			h := NewHTTP(s.URL+tc.path, HTTPOptions{Transport: countingTransport(&read), Budget: NewBodyBudget(DefaultInFlightBytes)})
			_, err := h.Get(context.Background(), faultID)
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Size != tc.wantSize || tl.Limit != DefaultMaxRecordBytes {
				t.Fatalf("err = %v, want a TooLargeError of size %d at the %d-byte cap", err, tc.wantSize, DefaultMaxRecordBytes)
			}
			checkClass(t, err, ErrBadRecord)
			st := h.Stats()
			if st.InFlightPeak != tc.maxHeld || st.InFlight != 0 {
				t.Errorf("the budget held up to %d bytes (%d now), want %d (0)", st.InFlightPeak, st.InFlight, tc.maxHeld)
			}
			if n := read.Load(); n > tc.maxRead {
				t.Errorf("read %d bytes from the connection, want at most %d", n, tc.maxRead)
			}
			if n := s.count(tc.path + fmt.Sprintf("0x%08X", faultID)); n != 1 {
				t.Errorf("%d requests, want 1 (a record over the cap is not retried)", n)
			}
			t.Logf("budget peak %d bytes, %d bytes read from the connection", st.InFlightPeak, read.Load())
		})
	}
}

// When the budget is spent, a further read waits for it rather than
// allocate, for as long as its context allows, and goes once bytes are
// given back.
func TestHTTPWaitsForBudget(t *testing.T) {
	const (
		budget = 3 << 20 // a cap of 1 MiB: (3 MiB − inflate's 1 MiB probe) / 2
		first  = 600 << 10
		size   = 900 << 10
	)
	release := make(chan struct{})
	s := newRecordServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		var id uint32
		fmt.Sscanf(r.URL.Path, "/files/0x%X", &id)
		b := rec(id, size)
		if id == 0x0A000003 { // the third is whole at once
			w.Write(b)
			return
		}
		// The first two stop half way, chunked, until released.
		w.Write(b[:first])
		w.(http.Flusher).Flush()
		select {
		case <-release:
			w.Write(b[first:])
		case <-r.Context().Done(): // the test failed and closes
		}
	})
	h := NewHTTP(s.URL+"/files/", fast(HTTPOptions{Budget: NewBodyBudget(budget)}))
	if h.maxRec != 1<<20 {
		t.Fatalf("cap %d under a %d-byte budget, want 1 MiB", h.maxRec, budget)
	}
	got := make(chan error, 2)
	for _, id := range []uint32{0x0A000001, 0x0A000002} {
		go func() {
			b, err := h.Get(context.Background(), id)
			if err == nil && !bytes.Equal(b, rec(id, size)) {
				err = fmt.Errorf("0x%08X: wrong bytes", id)
			}
			got <- err
		}()
	}
	// Each holds the chunks its first 600 KiB arrived in: 1 MiB.
	waitFor(t, func() bool { return h.budget.Bytes() == 2<<20 })

	// A third read could grow to 2 MiB as they could: granting it anything
	// would leave none of the three sure to finish.
	ctx, cancel := context.WithCancel(context.Background())
	third := make(chan error, 1)
	go func() { _, err := h.Get(ctx, 0x0A000003); third <- err }()
	waitFor(t, func() bool { return h.budget.waitingNow() == 1 && s.count("/files/0x0A000003") == 1 })
	if n := h.budget.Bytes(); n != 2<<20 {
		t.Fatalf("holds %d bytes with the third waiting, want 2 MiB", n)
	}
	cancel()
	if err := <-third; !errors.Is(err, context.Canceled) {
		t.Fatalf("third: %v, want Canceled", err)
	}

	// Released, the first two finish, and then the third goes through.
	close(release)
	for range 2 {
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Get(context.Background(), 0x0A000003); err != nil {
		t.Fatal(err)
	}
	if p := h.budget.Peak(); p > budget {
		t.Fatalf("peak %d over the %d-byte budget", p, budget)
	}
}

// A record stored compressed holds its stored bytes and the record it
// inflates to, both counted.
func TestHTTPInflateIsCounted(t *testing.T) {
	s := newFaultServer(t)
	h := NewHTTP(s.URL+"/zlib/files/", HTTPOptions{Budget: NewBodyBudget(DefaultInFlightBytes)})
	if _, err := h.Get(context.Background(), faultID); err != nil {
		t.Fatal(err)
	}
	storedLen := int64(len(stored(rec(faultID, faultSize))))
	if p := h.Stats().InFlightPeak; p != storedLen+faultSize {
		t.Fatalf("peak %d, want the %d stored bytes and the %d inflated", p, storedLen, faultSize)
	}
}

// The default budget is shared by the sources that name none; a cap that
// needs more gets one of its own; a small budget lowers the cap.
func TestHTTPBudgetDefaults(t *testing.T) {
	a, b := NewHTTP("http://unused/", HTTPOptions{}), NewHTTP("http://unused/cell/", HTTPOptions{})
	if a.budget != b.budget || a.budget.Max() != DefaultInFlightBytes {
		t.Fatalf("sources naming no budget: %p and %p of %d bytes, want one of %d", a.budget, b.budget, a.budget.Max(), DefaultInFlightBytes)
	}
	if a.maxRec != DefaultMaxRecordBytes || bodyClaim(-1, a.maxRec, true) > DefaultInFlightBytes {
		t.Fatalf("cap %d: a record at it needs %d of the %d-byte budget", a.maxRec, bodyClaim(-1, a.maxRec, true), DefaultInFlightBytes)
	}
	big := NewHTTP("http://unused/", HTTPOptions{MaxRecordBytes: 100 << 20})
	if big.budget == a.budget || big.maxRec != 100<<20 || bodyClaim(-1, big.maxRec, true) > big.budget.Max() {
		t.Fatalf("a 100 MiB cap: budget %d bytes, cap %d", big.budget.Max(), big.maxRec)
	}
	for _, tc := range []struct{ budget, cap int64 }{{3 << 20, 1 << 20}, {5 << 19, 1 << 20}, {1 << 20, 512 << 10}, {100, 50}} {
		h := NewHTTP("http://unused/", HTTPOptions{Budget: NewBodyBudget(tc.budget)})
		if h.maxRec != tc.cap || bodyClaim(-1, h.maxRec, true) > tc.budget {
			t.Errorf("budget %d: cap %d, want %d", tc.budget, h.maxRec, tc.cap)
		}
	}
}

// A body whose encoded length alone is over the cap (the browser,
// cross-origin, where fetch decodes and hides Content-Encoding) is refused
// unread; one that may decode to within the cap is read.
func TestHTTPEncodedLength(t *testing.T) {
	const limit = 1 << 20
	body := rec(faultID, 3000)
	for _, tc := range []struct {
		encoded int64
		refused bool
	}{
		{hugeWave, true},
		{limit + encodedSlack(limit) + 1, true},
		{limit + encodedSlack(limit), false}, // incompressible bytes gzipped: a little over
		{2000, false},
	} {
		tr := func(ctx context.Context, url string) (*Response, error) {
			return &Response{Status: 200, ContentLength: -1, EncodedLength: tc.encoded, Header: map[string]string{},
				Body: io.NopCloser(bytes.NewReader(body))}, nil
		}
		h := NewHTTP("http://cors.example/files/", HTTPOptions{Transport: tr, MaxRecordBytes: limit, Budget: NewBodyBudget(DefaultInFlightBytes)})
		_, err := h.Get(context.Background(), faultID)
		var tl *TooLargeError
		switch {
		case tc.refused && (!errors.As(err, &tl) || !tl.Encoded || tl.Size != tc.encoded):
			t.Errorf("encoded %d: err = %v, want refused as encoded", tc.encoded, err)
		case tc.refused && h.Stats().InFlightPeak != 0:
			t.Errorf("encoded %d: %d bytes taken for a body refused unread", tc.encoded, h.Stats().InFlightPeak)
		case !tc.refused && err != nil:
			t.Errorf("encoded %d: %v", tc.encoded, err)
		}
	}
}
