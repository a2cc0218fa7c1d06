//go:build js

package datfetch

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"syscall/js"

	"acambient/core/pace"
	"acambient/internal/jsawait"
)

// Fetch returns the browser's Transport: the global fetch (a page, a worker,
// node 18+), without net/http, which would add megabytes to the wasm. ctx
// aborts the request through an AbortController, body reads included; the
// body streams through its reader, copied straight from each chunk into the
// source's buffers, so the source's idle timer, size cap and budget work on
// it as natively. Redirects are the browser's to follow: it gives up on a
// loop by itself (after 20) but reports that as it reports any network
// failure, so on a failure the transport asks once more without following
// (redirect: "manual"); an answer that is a redirect (an "opaqueredirect"
// in a browser, the 3xx itself in node) makes the failure ErrRedirectLoop.
// Cross-origin, the source sees ETag and Retry-After only when the server
// lists them in Access-Control-Expose-Headers (ours exposes ETag); without
// them it skips the CRC check and backs off by its own schedule.
func Fetch() Transport { return FetchEarly(js.Undefined()) }

// FetchEarly is Fetch that first looks in early, a table of requests the
// page made before the wasm ran (www/ambient.js EarlyFetches): an object
// whose take(url) hands over, once, what fetch(url, {signal, redirect:
// "follow"}) returned when the page asked, as {response, controller} (the
// fetch's promise and its AbortController), or undefined. What it hands
// over is used as this transport's own fetch would be, from the same
// point: its failure, its status and its body are the attempt's, and the
// source's retries ask afresh. early undefined or null: Fetch.
func FetchEarly(early js.Value) Transport {
	take := func(string) js.Value { return js.Undefined() }
	if early.Type() == js.TypeObject {
		take = func(url string) js.Value { return early.Call("take", url) }
	}
	return func(ctx context.Context, url string) (*Response, error) {
		fetch := js.Global().Get("fetch")
		if fetch.Type() != js.TypeFunction {
			return nil, fmt.Errorf("no global fetch in this JavaScript host: %w", ErrPermanent)
		}
		var ac, asked js.Value
		if e := take(url); e.Type() == js.TypeObject {
			ac, asked = e.Get("controller"), e.Get("response")
		} else {
			// A fetch() call costs the page's thread 1–3 ms: a burst of
			// them (a jump's ring, the waves after the first sound) is
			// spread over the event loop's turns.
			pace.Yield()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			ac = js.Global().Get("AbortController").New()
			asked = fetch.Invoke(url, fetchInit(ac, "follow"))
		}
		stop := context.AfterFunc(ctx, func() { ac.Call("abort") })
		v, err := jsawait.Await(asked)
		if err != nil {
			if ctx.Err() == nil && redirects(fetch, url, ac) {
				err = fmt.Errorf("%w: the answer is a redirect that fetch could not follow to an end (a loop, more than the 20 it follows, or a hop it cannot reach): %v: %w",
					ErrRedirectLoop, err, ErrPermanent)
			}
			stop()
			return nil, err
		}
		r := &Response{Status: v.Get("status").Int(), ContentLength: -1, Header: readHeaders(v.Get("headers"))}
		r.ContentLength, r.EncodedLength = fetchLengths(v.Get("type").String(), r.Header)
		body := v.Get("body")
		if body.IsNull() || body.IsUndefined() { // an old host without streams
			r.Body = &bufferBody{resp: v, stop: stop}
		} else {
			r.Body = newStreamBody(body, r.ContentLength, stop)
		}
		return r, nil
	}
}

// fetchHeaders are the headers a source reads from an answer (remote.go's
// header calls, fetchLengths). Each is asked for by name: a forEach over
// every header calls back into Go once a header, and each call is a turn
// of Go's scheduler (eight or so an answer, the most of the worker's Go
// time while the first ring's records come in, bench/firstsound).
var fetchHeaders = [...]string{"content-length", "content-encoding", "etag", "retry-after"}

// readHeaders is the headers of fetchHeaders that h (a Headers) holds.
func readHeaders(h js.Value) map[string]string {
	out := make(map[string]string, len(fetchHeaders))
	for _, name := range fetchHeaders {
		if v := h.Call("get", name); v.Type() == js.TypeString {
			out[name] = v.String()
		}
	}
	return out
}

// fetchInit is fetch's options: the abort signal, and how to redirect.
func fetchInit(ac js.Value, redirect string) js.Value {
	init := js.Global().Get("Object").New()
	init.Set("signal", ac.Get("signal"))
	init.Set("redirect", redirect)
	return init
}

// redirects reports whether url answers with a redirect: the probe after a
// failed fetch, which tells a redirect that went nowhere from a network
// that is down (then the probe fails too).
func redirects(fetch js.Value, url string, ac js.Value) bool {
	v, err := jsawait.Await(fetch.Invoke(url, fetchInit(ac, "manual")))
	if err != nil {
		return false
	}
	if b := v.Get("body"); !b.IsNull() && !b.IsUndefined() {
		b.Call("cancel").Call("catch", ignoreRejection)
	}
	s := v.Get("status").Int()
	return v.Get("type").String() == "opaqueredirect" || (300 <= s && s < 400)
}

// fetchLengths reads the body's length from an answer's headers. fetch
// hands over decoded bytes while Content-Length counts encoded ones, so the
// length is exact only where no Content-Encoding is sent, which is known
// only where every header shows (type "basic": same-origin, or node).
// Cross-origin, Content-Encoding is hidden and Content-Length, which is
// always exposed, is only the encoded length. fetch enforces the framing
// itself (a short body fails the read).
func fetchLengths(typ string, h map[string]string) (length, encoded int64) {
	n, err := strconv.ParseInt(h["content-length"], 10, 64)
	if err != nil || n < 0 {
		return -1, 0
	}
	if enc := h["content-encoding"]; typ == "basic" && (enc == "" || enc == "identity") {
		return n, 0
	}
	return -1, n
}

// jsBytes copies a Uint8Array into Go buffers piece by piece, keeping what
// is left as a view in JavaScript rather than a copy in Go.
type jsBytes struct{ rest js.Value }

func (j *jsBytes) empty() bool { return j.rest.IsUndefined() || j.rest.Get("byteLength").Int() == 0 }

func (j *jsBytes) read(p []byte) int {
	n := js.CopyBytesToGo(p, j.rest)
	if n < j.rest.Get("byteLength").Int() {
		j.rest = j.rest.Call("subarray", n)
	} else {
		j.rest = js.Undefined()
	}
	return n
}

// streamBody reads a fetch body through its reader: a BYOB reader where
// the host has one (Chromium, Firefox, node), which fills one buffer over
// and over, so that a body costs JavaScript no memory beyond it however
// long it runs; else the default reader's chunks, copied from as they come.
//
// Every read is a promise, and every promise settled is a turn of Go's
// scheduler in the worker (the most of its Go time while the first ring's
// records come in, bench/firstsound), so a body of known length is read in
// as few as it takes: into a buffer that holds it (up to byobMax), and no
// read is asked after its last byte (fetch enforces the framing itself: a
// body longer than its Content-Length does not arrive).
type streamBody struct {
	reader js.Value
	stop   func() bool
	byob   js.Value // the buffer a BYOB reader fills (undefined: default reader)
	size   int      // its length in bytes
	chunk  jsBytes  // default reader: what is left of the last chunk
	left   int64    // bytes still to come, known from the answer's length (-1: unknown)
	done   bool
}

// byobBuffer is the BYOB reader's buffer for a body of unknown length, and
// byobMax its most for one of known length: fetch hands over up to this
// much a read.
const (
	byobBuffer = 64 << 10
	byobMax    = 256 << 10
)

// newStreamBody reads body, of length bytes (-1: unknown).
func newStreamBody(body js.Value, length int64, stop func() bool) *streamBody {
	b := &streamBody{stop: stop, left: length}
	if r, ok := byobReader(body); ok {
		b.size = byobBuffer
		if length > 0 {
			b.size = int(min(length, byobMax))
		}
		b.reader, b.byob = r, js.Global().Get("ArrayBuffer").New(b.size)
	} else {
		b.reader = body.Call("getReader")
	}
	return b
}

// byobReader asks body for a BYOB reader, which throws where the stream is
// not a byte stream.
func byobReader(body js.Value) (r js.Value, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	opt := js.Global().Get("Object").New()
	opt.Set("mode", "byob")
	return body.Call("getReader", opt), true
}

func (b *streamBody) Read(p []byte) (n int, err error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.left == 0 {
		return 0, io.EOF
	}
	defer func() {
		if b.left > 0 {
			b.left -= int64(n)
		}
	}()
	if !b.byob.IsUndefined() {
		return b.readBYOB(p)
	}
	for b.chunk.empty() {
		if b.done {
			return 0, io.EOF
		}
		res, err := jsawait.Await(b.reader.Call("read"))
		if err != nil {
			return 0, err
		}
		if res.Get("done").Bool() {
			b.done = true
			continue
		}
		b.chunk.rest = res.Get("value")
	}
	return b.chunk.read(p), nil
}

// readBYOB reads at most len(p) bytes into the buffer and copies them
// out; the read hands the buffer back (transferred) for the next.
func (b *streamBody) readBYOB(p []byte) (int, error) {
	for {
		if b.done {
			return 0, io.EOF
		}
		view := js.Global().Get("Uint8Array").New(b.byob, 0, min(len(p), b.size))
		res, err := jsawait.Await(b.reader.Call("read", view))
		if err != nil {
			return 0, err
		}
		v := res.Get("value")
		if !v.IsUndefined() {
			b.byob = v.Get("buffer")
		}
		if res.Get("done").Bool() {
			b.done = true
		}
		if !v.IsUndefined() && v.Get("byteLength").Int() > 0 {
			return js.CopyBytesToGo(p, v), nil
		}
	}
}

func (b *streamBody) Close() error {
	switch {
	case b.done:
	case b.left == 0:
		// Read to its length, the stream's end not read: a cancel now
		// would abort a request that has all it will get (the browser
		// lists it as failed). The end is read, and not waited for.
		b.reader.Call("read", js.Global().Get("Uint8Array").New(1)).Call("catch", ignoreRejection)
	default:
		b.reader.Call("cancel").Call("catch", ignoreRejection)
	}
	b.stop()
	return nil
}

// ignoreRejection swallows a promise's rejection that nobody awaits.
var ignoreRejection = js.FuncOf(func(js.Value, []js.Value) any { return nil })

// bufferBody reads a whole body at once, where fetch offers no stream.
type bufferBody struct {
	resp js.Value
	stop func() bool
	rest jsBytes
	read bool
}

func (b *bufferBody) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		buf, err := jsawait.Await(b.resp.Call("arrayBuffer"))
		if err != nil {
			return 0, err
		}
		b.rest.rest = js.Global().Get("Uint8Array").New(buf)
	}
	if b.rest.empty() {
		return 0, io.EOF
	}
	return b.rest.read(p), nil
}

func (b *bufferBody) Close() error { b.stop(); return nil }

func defaultTransport() Transport { return Fetch() }
