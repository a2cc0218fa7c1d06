//go:build js && wasm

package main

import (
	"bytes"
	"syscall/js"

	"acambient/core/world"
)

// presence is what the host knows of every landblock, one byte each
// (datfetch.Presence: 0 unknown, 1 present, 2 absent; index bx·255 + by),
// as a new Uint8Array when it changed since the last call, else null. The
// page answers landblock(bx, by) from the latest one the worker posted.
func (a *api) presence() any {
	const n = world.BlocksPerSide * world.BlocksPerSide
	cur := make([]byte, n)
	for bx := range world.BlocksPerSide {
		for by := range world.BlocksPerSide {
			cur[bx*world.BlocksPerSide+by] = byte(a.host.Landblock(bx, by))
		}
	}
	if a.lastPresence != nil && bytes.Equal(cur, a.lastPresence) {
		return nil
	}
	a.lastPresence = cur
	u := js.Global().Get("Uint8Array").New(n)
	js.CopyBytesToJS(u, cur)
	return u
}
