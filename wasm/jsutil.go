//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"acambient/core/pace"
	"acambient/core/session"

	"github.com/norunners/vert"
)

func arg(a []js.Value, i int) js.Value {
	if i < len(a) {
		return a[i]
	}
	return js.Undefined()
}

// fn wraps a synchronous API method: a Go panic becomes a returned JS Error,
// never a crash of the program (docs/architecture.md §4.5: no panic crosses into JS).
func fn(name string, f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		pace.Enter()
		defer func() {
			if r := recover(); r != nil {
				out = newError(fmt.Errorf("%s: internal error: %v", name, r))
			}
		}()
		v, err := f(args)
		if err != nil {
			return newError(fmt.Errorf("%s: %w", name, err))
		}
		return v
	})
}

// async wraps a method that may wait on the network: it returns a Promise
// settled from a goroutine, so the event loop keeps turning meanwhile.
func async(name string, f func(args []js.Value) (any, error)) js.Func {
	return fn(name, func(args []js.Value) (any, error) {
		var exec js.Func
		exec = js.FuncOf(func(_ js.Value, pa []js.Value) any {
			resolve, reject := pa[0], pa[1]
			go func() {
				defer func() {
					if r := recover(); r != nil {
						reject.Invoke(newError(fmt.Errorf("%s: internal error: %v", name, r)))
					}
				}()
				v, err := f(args)
				if err != nil {
					reject.Invoke(newError(fmt.Errorf("%s: %w", name, err)))
					return
				}
				resolve.Invoke(v)
			}()
			return nil
		})
		p := js.Global().Get("Promise").New(exec)
		exec.Release()
		return p, nil
	})
}

// newError is err as the page sees every error (docs/interfaces.md §3.4): an
// Error with a code, and the record it is about where the code has one.
func newError(err error) js.Value {
	p := session.Classify(err)
	e := js.Global().Get("Error").New(p.Message)
	// The code and the record it is about, through vert (boundary.go);
	// empty ones are "" or 0, which the page reads as absent.
	js.Global().Get("Object").Call("assign", e, vert.ValueOf(problemOf(p)).JSValue())
	return e
}
