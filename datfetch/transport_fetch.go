//go:build js

package datfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall/js"
)

// Fetch returns the browser's Transport: the global fetch (a page, a worker,
// node 18+), without net/http, which would add megabytes to the wasm. ctx
// aborts the request through an AbortController, body reads included; the
// body streams through its reader, so the source's idle timer and size
// limit work on it as natively. Redirects are the browser's to follow: it
// gives up on a loop by itself, but reports that as it reports any network
// failure, so a loop here is retried like one. Cross-origin, the source
// sees ETag and Retry-After only when the server lists them in
// Access-Control-Expose-Headers (ours exposes ETag); without them it skips
// the CRC check and backs off by its own schedule.
func Fetch() Transport {
	return func(ctx context.Context, url string) (*Response, error) {
		fetch := js.Global().Get("fetch")
		if fetch.Type() != js.TypeFunction {
			return nil, fmt.Errorf("no global fetch in this JavaScript host: %w", ErrPermanent)
		}
		ac := js.Global().Get("AbortController").New()
		init := js.Global().Get("Object").New()
		init.Set("signal", ac.Get("signal"))
		stop := context.AfterFunc(ctx, func() { ac.Call("abort") })

		v, err := await(fetch.Invoke(url, init))
		if err != nil {
			stop()
			return nil, err
		}
		r := &Response{Status: v.Get("status").Int(), ContentLength: -1, Header: map[string]string{}}
		headers := v.Get("headers")
		each := js.FuncOf(func(_ js.Value, args []js.Value) any {
			r.Header[strings.ToLower(args[1].String())] = args[0].String()
			return nil
		})
		headers.Call("forEach", each)
		each.Release()
		// ContentLength stays unknown: the header counts encoded bytes while
		// fetch hands over decoded ones, and a cross-origin answer hides
		// Content-Encoding, so the two cannot be compared. fetch enforces the
		// framing itself (a short body fails the read); the ETag check and
		// the size limit cover the rest.
		body := v.Get("body")
		if body.IsNull() || body.IsUndefined() { // an old host without streams
			r.Body = &bufferBody{resp: v, stop: stop}
		} else {
			r.Body = &streamBody{reader: body.Call("getReader"), stop: stop}
		}
		return r, nil
	}
}

// streamBody reads a fetch body chunk by chunk through its reader.
type streamBody struct {
	reader js.Value
	stop   func() bool
	chunk  []byte // what is left of the last chunk
	done   bool
}

func (b *streamBody) Read(p []byte) (int, error) {
	for len(b.chunk) == 0 {
		if b.done {
			return 0, io.EOF
		}
		res, err := await(b.reader.Call("read"))
		if err != nil {
			return 0, err
		}
		if res.Get("done").Bool() {
			b.done = true
			continue
		}
		v := res.Get("value")
		b.chunk = make([]byte, v.Get("byteLength").Int())
		js.CopyBytesToGo(b.chunk, v)
	}
	n := copy(p, b.chunk)
	b.chunk = b.chunk[n:]
	return n, nil
}

func (b *streamBody) Close() error {
	if !b.done {
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
	rest []byte
	read bool
}

func (b *bufferBody) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		buf, err := await(b.resp.Call("arrayBuffer"))
		if err != nil {
			return 0, err
		}
		u8 := js.Global().Get("Uint8Array").New(buf)
		b.rest = make([]byte, u8.Get("byteLength").Int())
		js.CopyBytesToGo(b.rest, u8)
	}
	if len(b.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *bufferBody) Close() error { b.stop(); return nil }

// await blocks the calling goroutine until p settles. The Go wasm runtime
// returns to the JavaScript event loop while every goroutine waits, so the
// promise gets to settle; calling it from inside a JavaScript callback
// would deadlock.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{err: jsError(args[0])}
		return nil
	})
	p.Call("then", then, catch)
	r := <-ch
	then.Release()
	catch.Release()
	return r.v, r.err
}

// jsError turns a rejection reason into an error, with its cause when the
// host gives one (node's "fetch failed" hides the reason there).
func jsError(v js.Value) error {
	if v.Type() != js.TypeObject {
		return errors.New(v.String())
	}
	msg := v.Get("message").String()
	if name := v.Get("name"); name.Type() == js.TypeString {
		msg = name.String() + ": " + msg
	}
	if c := v.Get("cause"); c.Type() == js.TypeObject {
		if m := c.Get("message"); m.Type() == js.TypeString {
			msg += " (" + m.String() + ")"
		}
	}
	return errors.New(msg)
}

func defaultTransport() Transport { return Fetch() }
