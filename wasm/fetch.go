//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"syscall/js"

	"acambient/datfetch"
)

// fetchSource reads records with the browser's fetch: GET base+"0x%08X".
// It is the wiring-only stand-in until datfetch's js transport lands; the
// host retries failed fetches and the browser's HTTP cache keeps the
// immutable records.
type fetchSource struct{ base string }

func (s fetchSource) Get(ctx context.Context, id uint32) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	url := fmt.Sprintf("%s0x%08X", s.base, id)
	resp, err := await(js.Global().Call("fetch", url))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	switch st := resp.Get("status").Int(); {
	case st == 404:
		return nil, datfetch.NotFound(id)
	case st < 200 || st > 299:
		return nil, fmt.Errorf("GET %s: HTTP %d", url, st)
	}
	ab, err := await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, fmt.Errorf("GET %s: body: %w", url, err)
	}
	u8 := js.Global().Get("Uint8Array").New(ab)
	b := make([]byte, u8.Get("length").Int())
	js.CopyBytesToGo(b, u8)
	if err := datfetch.CheckDID(id, b); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return b, nil
}
