//go:build !js

package datfetch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// faultServer answers the paths of remoteCases and runListingCases with the
// faults they name, /hits?path=P with how many requests P has seen,
// /written?path=P with how many body bytes the connection took for P (an
// upper bound on what the client read: the kernel's buffers hold the rest)
// and /stalled?path=P with how often it has stopped answering P on purpose
// (what the tests fire the source's idle timer on: driveStalls).
type faultServer struct {
	*httptest.Server
	mu      sync.Mutex
	hits    map[string]int
	written map[string]int64
	sending map[string]int
	stalls  map[string]int
}

func newFaultServer(t *testing.T) *faultServer {
	t.Helper()
	s := &faultServer{hits: map[string]int{}, written: map[string]int64{}, sending: map[string]int{}, stalls: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *faultServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// stalled is how often the server has stopped answering path on purpose.
func (s *faultServer) stalled(path string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stalls[path], nil
}

// stall counts a deliberate stall of r's answer, then holds it until the
// client lets go (or 30 s, when the answer ends: a body cut short).
func (s *faultServer) stall(r *http.Request) {
	s.mu.Lock()
	s.stalls[r.URL.Path]++
	s.mu.Unlock()
	select {
	case <-r.Context().Done():
	case <-time.After(30 * time.Second):
	}
}

// wrote is the body bytes sent for path, or -1 while a handler still sends.
func (s *faultServer) wrote(path string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sending[path] > 0 {
		return -1
	}
	return s.written[path]
}

// sendHuge writes hugeWave bytes that start like faultID's record, with a
// Content-Length or (flushed first) chunked, until done or the client goes.
func (s *faultServer) sendHuge(w http.ResponseWriter, path string, withLength bool) {
	s.mu.Lock()
	s.sending[path]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.sending[path]--
		s.mu.Unlock()
	}()
	if withLength {
		w.Header().Set("Content-Length", strconv.Itoa(hugeWave))
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	buf := rec(faultID, 64<<10)
	for sent := 0; sent < hugeWave; {
		n, err := w.Write(buf[:min(len(buf), hugeWave-sent)])
		sent += n
		s.mu.Lock()
		s.written[path] += int64(n)
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (s *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/hits":
		fmt.Fprint(w, s.count(r.URL.Query().Get("path")))
		return
	case "/written":
		fmt.Fprint(w, s.wrote(r.URL.Query().Get("path")))
		return
	case "/stalled":
		n, _ := s.stalled(r.URL.Query().Get("path"))
		fmt.Fprint(w, n)
		return
	case "/reset": // the counts start again: the table runs once more
		s.mu.Lock()
		clear(s.hits)
		clear(s.written)
		clear(s.stalls)
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	s.hits[r.URL.Path]++
	n := s.hits[r.URL.Path]
	s.mu.Unlock()

	good := rec(faultID, faultSize)
	ok := func() {
		w.Header().Set("ETag", etagOf(good))
		w.Write(good)
	}
	dir, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	first := n == 1
	switch dir {
	case "ok":
		ok()
	case "404":
		http.NotFound(w, r)
	case "503":
		if first {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		ok()
	case "429":
		if first {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		ok()
	case "cut": // HTTP/1.0-style: the body ends where the connection does
		if !first {
			ok()
			return
		}
		c, bw, _ := w.(http.Hijacker).Hijack()
		fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nConnection: close\r\nETag: %s\r\n\r\n", etagOf(good))
		bw.Write(good[:faultSize/2])
		bw.Flush()
		c.Close()
	case "shortcl":
		if !first {
			ok()
			return
		}
		c, bw, _ := w.(http.Hijacker).Hijack()
		fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\nETag: %s\r\n\r\n", faultSize-10, etagOf(good))
		bw.Write(good)
		bw.Flush()
		c.Close()
	case "flip", "bad":
		if dir == "flip" && !first {
			ok()
			return
		}
		b := append([]byte(nil), good...)
		b[faultSize/2] ^= 0x10
		w.Header().Set("ETag", etagOf(good))
		w.Write(b)
	case "swap":
		if !first {
			ok()
			return
		}
		b := rec(0x0A000102, faultSize)
		copy(b, good[:4])
		b[100] ^= 0xFF // differs beyond the DID
		w.Header().Set("ETag", etagOf(good))
		w.Write(b)
	case "junk":
		if !first {
			ok()
			return
		}
		w.Header().Set("ETag", etagOf(good))
		w.Write(good)
		w.(http.Flusher).Flush() // chunked: no Content-Length to catch it
		w.Write([]byte("<!-- injected -->"))
	case "stall", "stallall": // half the body, then nothing (stall: the first time)
		if dir == "stall" && !first {
			ok()
			return
		}
		w.Header().Set("ETag", etagOf(good))
		w.Header().Set("Content-Length", strconv.Itoa(faultSize))
		w.Write(good[:faultSize/2])
		w.(http.Flusher).Flush()
		s.stall(r)
	case "silent": // no answer at all the first time
		if !first {
			ok()
			return
		}
		s.stall(r)
	case "loop":
		if r.URL.RawQuery == "" {
			http.Redirect(w, r, r.URL.Path+"?again", http.StatusFound)
			return
		}
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	case "huge":
		s.sendHuge(w, r.URL.Path, false)
	case "hugecl":
		s.sendHuge(w, r.URL.Path, true)
	case "zlib": // acdatservice: stored bytes, no ETag
		w.Write(stored(good))
	case "zlibbad":
		b := stored(good)
		b[len(b)/2] ^= 0xFF
		w.Write(b)
	case "nginx":
		w.Header().Set("ETag", `"6553f1a0-bb8"`)
		w.Write(good)
	case "did":
		b := rec(0x0A000102, faultSize)
		w.Header().Set("ETag", etagOf(b))
		w.Write(b)
	case "list":
		fmt.Fprint(w, "0x0A000002\n0x13000000\n0x20000012\n")
	case "listcut":
		fmt.Fprint(w, "0x0A000002\n0x130")
	case "paged", "pagedbad":
		servePaged(w, r, dir == "paged")
	default:
		http.NotFound(w, r)
	}
}

// servePaged answers as acdatservice's files_index does: JSON Lines of
// metadata, limit (default 10 000) and offset, no newline after the last
// line; listedIDs portal ids from 0x01000000. With honourOffset false it
// hands the first page whatever the offset.
func servePaged(w http.ResponseWriter, r *http.Request, honourOffset bool) {
	q := r.URL.Query()
	limit, offset := 10000, 0
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := q.Get("offset"); v != "" && honourOffset {
		offset, _ = strconv.Atoi(v)
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	w.Header().Set("X-Limit", strconv.Itoa(limit))
	w.Header().Set("X-Offset", strconv.Itoa(offset))
	for i := offset; i < min(offset+limit, listedIDs); i++ {
		if i > offset {
			bw.WriteByte('\n')
		}
		line, _ := json.Marshal(map[string]any{"id": 0x01000000 + i, "database_type": "Portal", "file_type": "GfxObj",
			"file_subtype": "Unknown(0)", "file_offset": 1024 * i, "file_size": 300})
		bw.Write(line)
	}
}

func TestRemoteFaults(t *testing.T) {
	s := newFaultServer(t)
	runRemoteCases(t, s.URL, NetHTTP(), true, faultCounts{s.count, s.wrote, s.stalled})
}

func TestRemoteListings(t *testing.T) {
	s := newFaultServer(t)
	runListingCases(t, s.URL, NetHTTP())
}
