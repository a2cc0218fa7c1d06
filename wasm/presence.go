//go:build js && wasm

package main

import (
	"syscall/js"

	"acambient/core/world"
)

// presence is what the host knows of every landblock, one byte each
// (session.Presence: 0 unknown, 1 present, 2 absent; index bx·255 + by),
// as a new Uint8Array when it changed since the last call, else null. The
// page answers landblock(bx, by) from the latest one the worker posted.
func (a *api) presence() any {
	const n = world.BlocksPerSide * world.BlocksPerSide
	if a.presenceBuf == nil {
		a.presenceBuf = make([]byte, n)
	}
	gen, changed := a.host.Landblocks(a.presenceBuf, a.presenceGen)
	if !changed {
		return nil
	}
	a.presenceGen = gen
	u := js.Global().Get("Uint8Array").New(n)
	js.CopyBytesToJS(u, a.presenceBuf)
	return u
}
