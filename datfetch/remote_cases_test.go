package datfetch

// The faults a remote source must survive, as one table run twice: natively
// over the net/http transport against faultServer (remote_fault_test.go),
// and under GOOS=js over the fetch transport in node against the same
// server, which the native TestFetchTransportUnderNode starts.

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"strconv"
	"strings"
	"testing"
	"time"

	"acambient/datfetch/source"
)

// rec is a record of n bytes starting with the DID id.
func rec(id uint32, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b, id)
	for i := 4; i < n; i++ {
		b[i] = byte(i * 7)
	}
	return b
}

// etagOf is the ETag our server sends for b (server/records.go bytesETag).
func etagOf(b []byte) string {
	return `"` + strconv.FormatUint(crc64.Checksum(b, crc64.MakeTable(crc64.ECMA)), 16) + "-" + strconv.FormatInt(int64(len(b)), 16) + `"`
}

// stored is b as a dat stores it compressed: u32 size, zlib stream (docs/dat-format.md §1.5).
func stored(b []byte) []byte {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, uint32(len(b)))
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// The ids the fault server serves; each case has its own path so that its
// requests are counted apart.
const (
	faultID   = 0x0A000101
	faultSize = 3000
	listedIDs = 25001 // a paged listing of three pages of 10 000
	// faultIdle is the idle timeout of the stall cases: the silence their
	// errors name and their timers are armed for. The test's clock fires
	// those timers (driveStalls), not the wall clock, so it bounds nothing.
	faultIdle = 500 * time.Millisecond
	// hugeWave is the "wave" the huge cases send: 500 MB, far past the cap.
	hugeWave = 500_000_000
)

// faultServerEnv names the fault server's URL, set by the native
// TestFetchTransportUnderNode when it runs the js tests under node.
const faultServerEnv = "ACAMBIENT_FAULT_SERVER"

type remoteCase struct {
	name string
	path string // under the server; the source's base
	opt  HTTPOptions
	// wantErr is a substring of the error; "" wants faultID's record back.
	wantErr string
	// class is what the error must match (errors.Is); every error must
	// also match exactly one of the classes Get documents.
	class  error
	hits   int // requests the server must have seen; 0 = not checked
	jsHits int // the same over fetch, where it differs
	// stalls is how often the server stops on purpose, each time after
	// stallBytes body bytes; the source's idle timer fires at each, once
	// it has read them (driveStalls), and at no other time.
	stalls     int
	stallBytes int64
	// waits are the retries' waits, in order: what the source asked to wait
	// (anyWait: its jittered backoff) and a substring of what caused it.
	waits []wantWait
	// heldBelow bounds the in-flight budget's peak for the case (0: not
	// checked); sentBelow the body bytes the server's connection took.
	heldBelow, sentBelow int64
}

type wantWait struct {
	d     time.Duration
	cause string
}

const anyWait = -1

// caseGuard bounds one case: a case that hangs fails on it, minutes after
// any timeout the case configures would have ended it.
const caseGuard = 2 * time.Minute

var remoteCases = []remoteCase{
	{name: "ok", path: "/ok/files/", hits: 1},
	{name: "404", path: "/404/files/", class: source.ErrNotFound, wantErr: "answered 404", hits: 1},
	{name: "503 then ok", path: "/503/files/", hits: 2, waits: []wantWait{{anyWait, "status 503"}}},
	{name: "429 waits its Retry-After", path: "/429/files/", hits: 2, waits: []wantWait{{time.Second, "status 429"}}},
	{name: "cut short without Content-Length", path: "/cut/files/", hits: 2, waits: []wantWait{{anyWait, "body of 1500 bytes, the ETag"}}},
	{name: "Content-Length smaller than the body", path: "/shortcl/files/", hits: 2, waits: []wantWait{{anyWait, "body of 2990 bytes, the ETag"}}},
	{name: "flipped bytes", path: "/flip/files/", hits: 2, waits: []wantWait{{anyWait, "bytes damaged in transit"}}},
	{name: "another record with the id patched in", path: "/swap/files/", hits: 2, waits: []wantWait{{anyWait, "bytes damaged in transit"}}},
	{name: "junk after the record", path: "/junk/files/", hits: 2, waits: []wantWait{{anyWait, "body of 3017 bytes, the ETag"}}},
	{name: "always damaged", path: "/bad/files/", opt: HTTPOptions{Retries: 2}, class: ErrNetwork, wantErr: "giving up after 3 attempts", hits: 3,
		waits: []wantWait{{anyWait, "damaged"}, {anyWait, "damaged"}}},
	// The idle timer is what ends the stalled attempt: it fires when the
	// server has stopped on purpose, and the retry, its timer never fired,
	// gets the record however slowly.
	{name: "stall mid-body", path: "/stall/files/", opt: HTTPOptions{IdleTimeout: faultIdle}, hits: 2, stalls: 1, stallBytes: faultSize / 2,
		waits: []wantWait{{anyWait, fmt.Sprintf("no byte for %v mid-body (after %d bytes)", faultIdle, faultSize/2)}}},
	// A server that never answers the first request: the idle timeout ends
	// the wait for its headers (over fetch, by aborting the request).
	{name: "silent before the headers", path: "/silent/files/", opt: HTTPOptions{IdleTimeout: faultIdle}, hits: 2, stalls: 1,
		waits: []wantWait{{anyWait, fmt.Sprintf("no byte for %v waiting for the answer", faultIdle)}}},
	// A stall is an attempt like any other: Retries bounds them.
	{name: "always stalls", path: "/stallall/files/", opt: HTTPOptions{IdleTimeout: faultIdle, Retries: 1}, class: ErrNetwork,
		wantErr: fmt.Sprintf("giving up after 2 attempts: %s/stallall/files/0x%08X: no byte for %v mid-body (after %d bytes)", "%BASE%", faultID, faultIdle, faultSize/2),
		hits:    2, stalls: 2, stallBytes: faultSize / 2,
		waits: []wantWait{{anyWait, fmt.Sprintf("no byte for %v mid-body (after %d bytes)", faultIdle, faultSize/2)}}},
	// Natively two requests (the second returns to the first URL); fetch
	// follows 20 redirects, then the probe asks once more.
	{name: "redirect loop", path: "/loop/files/", class: ErrRedirectLoop, wantErr: "redirect loop", hits: 2, jsHits: 22},
	{name: "stored compressed (acdatservice)", path: "/zlib/files/", hits: 1},
	{name: "stored compressed, damaged stream", path: "/zlibbad/files/", class: ErrBadRecord, wantErr: "does not inflate", hits: 1},
	{name: "another server's ETag shape is not ours", path: "/nginx/files/", hits: 1},
	{name: "DID of another record", path: "/did/files/", class: ErrBadRecord, wantErr: "record starts with DID 0x0A000102", hits: 1},
	// A 500 MB "wave" is refused at the cap, not retried, and never held:
	// chunked, reading stops at the cap's byte after; with its length,
	// before the body is read.
	{name: "500 MB chunked", path: "/huge/files/", class: ErrTooLarge, hits: 1,
		wantErr:   fmt.Sprintf("record 0x%08X: %s/huge/files/0x%08X: the body runs past the %d-byte cap", faultID, "%BASE%", faultID, DefaultMaxRecordBytes),
		heldBelow: DefaultMaxRecordBytes + 1, sentBelow: 2 * DefaultMaxRecordBytes},
	{name: "500 MB with Content-Length", path: "/hugecl/files/", class: ErrTooLarge, hits: 1,
		wantErr:   fmt.Sprintf("record 0x%08X: %s/hugecl/files/0x%08X: a body of %d bytes (Content-Length) exceeds the %d-byte cap: refused unread", faultID, "%BASE%", faultID, hugeWave, DefaultMaxRecordBytes),
		heldBelow: 1, sentBelow: DefaultMaxRecordBytes},
}

// faultCounts reads the fault server's counters for a path.
type faultCounts struct {
	hits func(path string) int
	// written is -1 while the server is still sending.
	written func(path string) int64
	// stalled is how often the server has stopped on purpose.
	stalled func(path string) (int, error)
}

// getClasses are the classes one of which every error of Get matches.
var getClasses = []error{source.ErrNotFound, ErrBadRecord, ErrNetwork, context.Canceled, context.DeadlineExceeded}

// checkClass fails unless err matches want and exactly one of getClasses.
func checkClass(t *testing.T, err, want error) {
	t.Helper()
	if want != nil && !errors.Is(err, want) {
		t.Errorf("errors.Is(err, %v) = false: %v", want, err)
	}
	var in []error
	for _, c := range getClasses {
		if errors.Is(err, c) {
			in = append(in, c)
		}
	}
	if len(in) != 1 {
		t.Errorf("the error matches %d of Get's classes %v, want one: %v", len(in), in, err)
	}
}

// runRemoteCases runs the table against the fault server at base over tr.
func runRemoteCases(t *testing.T, base string, tr Transport, native bool, counts faultCounts) {
	want := rec(faultID, faultSize)
	for _, tc := range remoteCases {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Transport = tr
			if opt.Backoff == 0 {
				opt.Backoff = time.Millisecond
			}
			opt.Budget = NewBodyBudget(DefaultInFlightBytes)
			h := NewHTTP(base+tc.path, opt)
			var waits []wantWait
			var causes []error
			h.wait = func(_ context.Context, d time.Duration, cause error) error {
				waits = append(waits, wantWait{d, cause.Error()})
				causes = append(causes, cause)
				return nil
			}
			path := tc.path + fmt.Sprintf("0x%08X", faultID)
			driven := driveStalls(h, func() (int, error) { return counts.stalled(path) }, tc.stalls, tc.stallBytes)
			ctx, cancel := context.WithTimeout(context.Background(), caseGuard)
			defer cancel()
			got, err := h.Get(ctx, faultID)
			fired, driveErr := driven()
			if driveErr != nil {
				t.Error(driveErr)
			}
			if len(fired) != tc.stalls {
				t.Errorf("the idle timer fired %d times, want once at each of the server's %d stalls", len(fired), tc.stalls)
			}
			for i, d := range fired {
				if d != faultIdle {
					t.Errorf("stall %d: the idle timer was armed for %v, want %v", i+1, d, faultIdle)
				}
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("got %d bytes, want the %d-byte record", len(got), len(want))
				}
				if _, ok := h.cache.Get(faultID); !ok {
					t.Error("the verified record was not cached")
				}
			} else {
				if wantErr := strings.ReplaceAll(tc.wantErr, "%BASE%", base); err == nil || !strings.Contains(err.Error(), wantErr) {
					t.Fatalf("err = %v, want %q", err, wantErr)
				}
				checkClass(t, err, tc.class)
				if _, ok := h.cache.Get(faultID); ok {
					t.Error("a failed record was cached")
				}
			}
			wantHits := tc.hits
			if !native && tc.jsHits != 0 {
				wantHits = tc.jsHits
			}
			if wantHits > 0 {
				if n := counts.hits(path); n != wantHits {
					t.Errorf("server saw %d requests, want %d", n, wantHits)
				}
			}
			if len(waits) != len(tc.waits) {
				t.Fatalf("retried after waits %v, want %v", waits, tc.waits)
			}
			for i, w := range tc.waits {
				if (w.d != anyWait && waits[i].d != w.d) || !strings.Contains(waits[i].cause, w.cause) {
					want := fmt.Sprint(w.d)
					if w.d == anyWait {
						want = "its backoff"
					}
					t.Errorf("retry %d: waited %v for %q, want %s for %q", i+1, waits[i].d, waits[i].cause, want, w.cause)
				}
				if strings.Contains(w.cause, "no byte for") && !errors.Is(causes[i], ErrStalled) {
					t.Errorf("retry %d: %v is not the idle timer's", i+1, causes[i])
				}
			}
			st := h.Stats()
			if st.InFlight != 0 {
				t.Errorf("the budget still holds %d bytes after Get returned", st.InFlight)
			}
			if tc.heldBelow > 0 && st.InFlightPeak >= tc.heldBelow {
				t.Errorf("the budget held up to %d bytes, want under %d", st.InFlightPeak, tc.heldBelow)
			}
			if tc.sentBelow > 0 {
				// The server's writes fail once the client has let go.
				waitFor(t, func() bool { return counts.written(path) >= 0 })
				n := counts.written(path)
				if n >= tc.sentBelow {
					t.Errorf("the connection took %d body bytes, want under %d", n, tc.sentBelow)
				}
				t.Logf("held at most %d bytes; the server's connection took %d of the %d-byte body", st.InFlightPeak, n, hugeWave)
			}
		})
	}
}

// runListingCases reads the fault server's listings at base over tr.
func runListingCases(t *testing.T, base string, tr Transport) {
	for _, tc := range []struct {
		path    string
		first   uint32
		n       int
		wantErr string
	}{
		{"/list/files/", 0x0A000002, 3, ""},
		{"/listcut/files/", 0, 0, `the last line "0x130" has no newline`},
		{"/paged/files/", 0x01000000, listedIDs, ""}, // JSON Lines in pages of 10 000
		{"/pagedbad/files/", 0, 0, "server ignores offset"},
	} {
		t.Run(strings.Trim(tc.path, "/"), func(t *testing.T) {
			ids, err := NewHTTP(base+tc.path, HTTPOptions{Transport: tr, Backoff: time.Millisecond}).IDs(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != tc.n || ids[0] != tc.first {
				t.Fatalf("%d ids from 0x%08X, want %d from 0x%08X", len(ids), ids[0], tc.n, tc.first)
			}
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("ids[%d] = 0x%08X after 0x%08X: not ascending", i, ids[i], ids[i-1])
				}
			}
		})
	}
}

// waitFor polls cond until it holds, failing after a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// within runs f, failing the test if it has not returned after caseGuard:
// a guard against hanging forever, never a bound on how long f may take.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(caseGuard):
		t.Fatalf("still running after %v", caseGuard)
	}
}
