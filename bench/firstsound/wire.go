package main

// The server's side of the measurement. Since issue 32 the page's records
// and its wasm are fetched by a dedicated Worker (www/ambient.worker.js),
// whose requests a CDP session on the page does not see (they belong to
// another target) and Network.emulateNetworkConditions on the page does not
// slow. The bench starts the server, so it measures the wire there instead:
// every request the page or its worker makes is logged as the server
// answers it (wall-clock times, mapped to the page's clock through
// performance.timeOrigin: the browser and the server share the machine's
// clock), and the emulated links are made by the server: one round trip
// before each answer's headers and one shared rate for every byte sent,
// as Chromium's network emulation does (latency per request, throughput
// per target).

import (
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// wireLog is the server's record of one navigation's requests.
type wireLog struct {
	mu       sync.Mutex
	entries  []*wireEntry
	inflight int
	last     time.Time // the last request's start or end
}

// wireEntry is one answered request. Times are Unix ms (fractional).
type wireEntry struct {
	Path   string       `json:"path"`
	Status int          `json:"status"`
	Start  float64      `json:"start"`
	End    float64      `json:"end"` // -1 while in flight
	Bytes  int64        `json:"bytes"`
	Chunks [][2]float64 `json:"chunks"` // [Unix ms, bytes] as they were written
}

func unixMs(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// wrap logs every request h answers, after the link's round trip.
func (l *wireLog) wrap(h http.Handler, sh *shaper) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		e := &wireEntry{Path: r.URL.RequestURI(), Start: unixMs(now), End: -1}
		l.mu.Lock()
		l.entries = append(l.entries, e)
		l.inflight++
		l.last = now
		l.mu.Unlock()
		// The emulated link's latency: the answer's headers leave one round
		// trip after the request arrived (Chromium's "latency" field).
		if d := sh.latency(); d > 0 {
			time.Sleep(d)
		}
		cw := &countingWriter{ResponseWriter: w, l: l, e: e}
		h.ServeHTTP(cw, r)
		l.mu.Lock()
		if e.Status == 0 {
			e.Status = http.StatusOK
		}
		e.End = unixMs(time.Now())
		l.inflight--
		l.last = time.Now()
		l.mu.Unlock()
	})
}

// snapshot is what the node half polls: the requests so far, how many are
// in flight and how long the wire has been quiet.
func (l *wireLog) snapshot() map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, _ := json.Marshal(l.entries) // copied under the lock
	return map[string]any{"entries": json.RawMessage(b), "inflight": l.inflight,
		"quietMs": float64(time.Since(l.last)) / float64(time.Millisecond)}
}

func (l *wireLog) reset() {
	l.mu.Lock()
	l.entries, l.inflight, l.last = nil, 0, time.Now()
	l.mu.Unlock()
}

// control is the node half's window on the log, on its own listener so
// that its requests are neither logged nor slowed.
func (l *wireLog) control() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, r *http.Request) { l.reset() })
	mux.HandleFunc("GET /log", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(l.snapshot())
	})
	return mux
}

// countingWriter counts an answer's bytes: its status line and headers
// (as HTTP/1.1 writes them) and its body as sent (encoded: the brotli
// sibling's bytes when the server picked it).
type countingWriter struct {
	http.ResponseWriter
	l       *wireLog
	e       *wireEntry
	written bool
}

func (c *countingWriter) WriteHeader(code int) {
	if !c.written {
		c.written = true
		n := int64(len("HTTP/1.1 200 OK\r\n\r\n"))
		for k, vs := range c.Header() {
			for _, v := range vs {
				n += int64(len(k) + len(": \r\n") + len(v))
			}
		}
		c.l.mu.Lock()
		c.e.Status = code
		c.e.Bytes += n
		c.e.Chunks = append(c.e.Chunks, [2]float64{unixMs(time.Now()), float64(n)})
		c.l.mu.Unlock()
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if !c.written {
		c.WriteHeader(http.StatusOK)
	}
	n, err := c.ResponseWriter.Write(b)
	c.l.mu.Lock()
	c.e.Bytes += int64(n)
	c.e.Chunks = append(c.e.Chunks, [2]float64{unixMs(time.Now()), float64(n)})
	c.l.mu.Unlock()
	return n, err
}

// shaper is the emulated link: a round trip per request and one download
// rate shared by every connection (0: loopback as it is).
type shaper struct {
	bps  atomic.Int64 // bytes a second
	lat  atomic.Int64 // ns
	mu   sync.Mutex
	free time.Time // when the link has sent everything reserved so far
}

func (s *shaper) set(l link) {
	s.bps.Store(int64(l.mbit * 1e6 / 8))
	s.lat.Store(int64(l.latency))
}

func (s *shaper) latency() time.Duration { return time.Duration(s.lat.Load()) }

// pace returns when n more bytes have left the shared link.
func (s *shaper) pace(n int) time.Time {
	bps := s.bps.Load()
	if bps <= 0 {
		return time.Time{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.free.Before(now) {
		s.free = now
	}
	s.free = s.free.Add(time.Duration(float64(n) / float64(bps) * float64(time.Second)))
	return s.free
}

// listener slows every connection's writes to the link's rate.
type shapedListener struct {
	net.Listener
	s *shaper
}

func (l shapedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return shapedConn{Conn: c, s: l.s}, nil
}

type shapedConn struct {
	net.Conn
	s *shaper
}

// Write sends b a slice at a time, each when the shared link has room for
// it, so that concurrent answers share the rate as they would on a wire.
func (c shapedConn) Write(b []byte) (int, error) {
	const slice = 4096
	sent := 0
	for sent < len(b) {
		n := min(slice, len(b)-sent)
		if at := c.s.pace(n); !at.IsZero() {
			time.Sleep(time.Until(at)) // the emulated wire's own time, not a wait for an event
		}
		m, err := c.Conn.Write(b[sent : sent+n])
		sent += m
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}
