// Package soak is the long-session harness behind bench/soak and the e2e
// soak test: the demo world served as `serve` serves it (the page's own
// origin) and as an `export` on a second origin, each behind a request log
// and a switch of faults (a server that is down, answers 503 with
// Retry-After, or stalls in the middle of a wave's body), a control route
// the browser script (soak.mjs) drives them with, and a check of the page's
// instances against gather's, computed natively. Run starts it all and the
// script, and hands back what the script measured.
package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"acambient/core/ambient"
	"acambient/core/demo"
	"acambient/core/session"
	"acambient/datfetch/source"
)

// Fault modes of a server's record routes.
const (
	FaultNone = ""
	// FaultDown drops every connection, as a server that died does.
	FaultDown = "down"
	// Fault503 answers 503 Service Unavailable with a Retry-After of the
	// seconds the fault has left (a server in a maintenance window that
	// knows its end).
	Fault503 = "503"
	// FaultStall sends a wave's headers and half its body, then nothing:
	// the connection hangs until the client gives up on it. Other records
	// are served.
	FaultStall = "stall"
)

// Request is one record request a server saw.
type Request struct {
	At     int64  `json:"at"` // Unix ms, when the answer ended
	Server string `json:"server"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	Bytes  int    `json:"bytes"`
	Whole  bool   `json:"whole"` // the body went out in full
	Fault  string `json:"fault,omitempty"`
}

// origin is one server: a handler behind the request log and the fault
// switch.
type origin struct {
	name string
	h    http.Handler
	log  *requestLog

	mu    sync.Mutex
	fault string
	until time.Time // the fault's end (zero: until cleared)
	clear chan struct{}
}

type requestLog struct {
	mu   sync.Mutex
	reqs []Request
}

func (l *requestLog) add(r Request) {
	l.mu.Lock()
	l.reqs = append(l.reqs, r)
	l.mu.Unlock()
}

func (l *requestLog) since(i int) []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	i = max(0, min(i, len(l.reqs)))
	return append([]Request(nil), l.reqs[i:]...)
}

func (l *requestLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

// setFault switches the mode for d (0: until cleared). A stalled answer
// stays stalled when the fault ends: a hung connection does not resume.
func (o *origin) setFault(mode string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.fault, o.until = mode, time.Time{}
	if d > 0 {
		o.until = time.Now().Add(d)
	}
}

// current is the fault in force and how long it has left (0: open-ended).
func (o *origin) current() (string, time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fault != FaultNone && !o.until.IsZero() && !time.Now().Before(o.until) {
		o.fault, o.until = FaultNone, time.Time{}
	}
	if o.until.IsZero() {
		return o.fault, 0
	}
	return o.fault, time.Until(o.until)
}

// isRecord is a record route: /files/…, /cell/files/…, and the landblock
// listing beside them.
func isRecord(path string) bool { return strings.Contains(path, "/files/") }

// isWave is a Wave record (0x0A…) on a portal route.
func isWave(path string) bool {
	name := strings.ToUpper(path[strings.LastIndex(path, "/")+1:])
	return !strings.Contains(path, "/cell/") && strings.HasPrefix(name, "0X0A")
}

func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !isRecord(r.URL.Path) {
		o.h.ServeHTTP(w, r)
		return
	}
	fault, left := o.current()
	rec := Request{Server: o.name, Path: r.URL.Path, Fault: fault}
	defer func() {
		rec.At = time.Now().UnixMilli()
		o.log.add(rec)
	}()
	switch {
	case fault == FaultDown:
		rec.Status = -1
		panic(http.ErrAbortHandler) // the connection drops: a network error in the page
	case fault == Fault503:
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Retry-After")
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(left.Seconds())))))
		w.Header().Set("Cache-Control", "no-store")
		rec.Status, rec.Whole = http.StatusServiceUnavailable, true
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	case fault == FaultStall && isWave(r.URL.Path):
		o.stall(w, r, &rec)
		return
	}
	cw := &countingWriter{ResponseWriter: w, status: 200}
	o.h.ServeHTTP(cw, r)
	rec.Status, rec.Bytes, rec.Whole = cw.status, cw.n, true
}

// stall answers with the record's headers and the first half of its body,
// then waits for the client to give up.
func (o *origin) stall(w http.ResponseWriter, r *http.Request, rec *Request) {
	full := httptest.NewRecorder()
	o.h.ServeHTTP(full, r)
	body := full.Body.Bytes()
	for k, v := range full.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Cache-Control", "no-store") // the browser must not keep it either
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(full.Code)
	n, _ := w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	rec.Status, rec.Bytes = full.Code, n
	<-r.Context().Done()
}

type countingWriter struct {
	http.ResponseWriter
	status, n int
}

func (w *countingWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }
func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// withCORS lets any page read a static tree's answers (what a static host
// configured for the page does), Retry-After and ETag included.
func withCORS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "ETag, Retry-After")
		h.ServeHTTP(w, r)
	})
}

// gatherer answers the page's instances against gather's at a position: a
// fresh engine, one ChangePosition, as the gather command computes them.
type gatherer struct {
	w *demo.World

	mu   sync.Mutex
	memo map[string][]string
}

func (g *gatherer) sounds(pos string) ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.memo[pos]; ok {
		return s, nil
	}
	h, err := session.New(context.Background(), source.NewMemory(g.w.Portal), source.NewMemory(g.w.Cell),
		session.Options{Config: ambient.DefaultConfig(), Sync: true})
	if err != nil {
		return nil, err
	}
	sp, err := h.Resolve(pos)
	if err != nil {
		return nil, err
	}
	h.Move(sp.Pos)
	h.Tick(0)
	b, err := json.Marshal(h.Snapshot().State.Sounds)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	s, err := canon(raw)
	if err == nil {
		g.memo[pos] = s
	}
	return s, err
}

// canon re-encodes sounds so that key order and spacing cannot differ.
func canon(raw []json.RawMessage) ([]string, error) {
	out := []string{}
	for _, r := range raw {
		var v map[string]any
		if err := json.Unmarshal(r, &v); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out, nil
}

// gatherCheck is the control route's answer to a check.
type gatherCheck struct {
	Equal bool   `json:"equal"`
	Got   int    `json:"got"`
	Want  int    `json:"want"`
	Diff  string `json:"diff,omitempty"`
}

func (g *gatherer) check(pos string, sounds []json.RawMessage) (gatherCheck, error) {
	want, err := g.sounds(pos)
	if err != nil {
		return gatherCheck{}, err
	}
	got, err := canon(sounds)
	if err != nil {
		return gatherCheck{}, err
	}
	c := gatherCheck{Got: len(got), Want: len(want), Equal: len(got) == len(want)}
	for i := 0; c.Equal && i < len(got); i++ {
		if got[i] != want[i] {
			c.Equal, c.Diff = false, fmt.Sprintf("sound %d: page %s, gather %s", i, got[i], want[i])
		}
	}
	if !c.Equal && c.Diff == "" {
		c.Diff = fmt.Sprintf("page lists %d sounds, gather %d", len(got), len(want))
	}
	return c, nil
}
