//go:build js

// Package jsawait waits for a JavaScript promise from Go, under GOOS=js:
// the one implementation the fetch transport (datfetch) and the wasm main
// share.
package jsawait

import (
	"errors"
	"syscall/js"

	"acambient/core/pace"
)

// Await blocks the calling goroutine until p settles, and returns its
// value, or its rejection as an error (Error). The Go wasm runtime returns
// to the JavaScript event loop while every goroutine waits, so the promise
// gets to settle; calling it from inside a js.Func (a JavaScript callback)
// would deadlock. Each settlement counts as JavaScript calling into Go for
// core/pace.
func Await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		pace.Enter()
		ch <- result{v: arg(args)}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		pace.Enter()
		ch <- result{err: Error(arg(args))}
		return nil
	})
	p.Call("then", then, catch)
	r := <-ch
	then.Release()
	catch.Release()
	return r.v, r.err
}

// arg is a callback's first argument, undefined when it was given none.
func arg(args []js.Value) js.Value {
	if len(args) > 0 {
		return args[0]
	}
	return js.Undefined()
}

// Error turns a rejection reason into an error: an Error object's name and
// message, with its cause's message when the host gives one (node's "fetch
// failed" keeps the reason there); anything else as JavaScript prints it.
func Error(v js.Value) error {
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
