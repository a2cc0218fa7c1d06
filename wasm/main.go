//go:build js && wasm

// Command wasm is the browser build (GOOS=js): it wires the page's
// JavaScript (www/ambient.js, contracts §3) to the Go core. Wiring only: the
// logic is in core/webapi, core/session, core/mix and below, tested natively.
//
// www/ambient.js runs it with argv[1] naming a global callback, which
// receives the API object (one per load()).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"syscall/js"

	"github.com/norunners/vert"

	"acambient/core/mix"
	"acambient/core/webapi"
	"acambient/datfetch"
)

func main() {
	name := "__acambient"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	cb := js.Global().Get(name)
	if cb.Type() != js.TypeFunction {
		js.Global().Get("console").Call("error", "ambient.wasm: no callback "+name+" to hand the API to")
		return
	}
	cb.Invoke(newAPI().object())
	select {}
}

type api struct {
	ctx    context.Context
	cancel context.CancelFunc
	bridge *webapi.Bridge
	audio  *audioOut
	funcs  []js.Func
}

func newAPI() *api {
	ctx, cancel := context.WithCancel(context.Background())
	return &api{ctx: ctx, cancel: cancel}
}

var errNotOpen = errors.New("not loaded yet: call open first")

// pageCacheBytes bounds each record source's byte cache in the page: the
// host holds what it decoded, so this only saves refetching nearby records.
const pageCacheBytes = 16 << 20

func (a *api) object() js.Value {
	o := js.Global().Get("Object").New()
	add := func(name string, f js.Func) {
		a.funcs = append(a.funcs, f)
		o.Set(name, f)
	}
	add("open", async("open", a.open))
	add("setPlayer", async("setPlayer", func(args []js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		return jsonOf(a.bridge.SetPlayer(arg(args, 0).String()))
	}))
	add("setCamera", async("setCamera", func(args []js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		heading := 0.0
		if h := arg(args, 1); h.Type() == js.TypeNumber {
			heading = h.Float()
		}
		return jsonOf(a.bridge.SetCamera(arg(args, 0).String(), heading))
	}))
	add("setVolume", fn("setVolume", func(args []js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		a.bridge.Host().SetVolume(float32(arg(args, 0).Float()))
		return nil, nil
	}))
	add("setEnabled", fn("setEnabled", func(args []js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		a.bridge.Host().SetEnabled(arg(args, 0).Truthy())
		return nil, nil
	}))
	add("state", fn("state", func([]js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		return jsonOf(a.bridge.State(), nil)
	}))
	add("poll", fn("poll", func([]js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		return jsonOf(a.bridge.Poll(), nil)
	}))
	add("info", fn("info", func([]js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		return jsonOf(a.bridge.Info(), nil)
	}))
	add("tile", async("tile", func(args []js.Value) (any, error) {
		if a.bridge == nil {
			return nil, errNotOpen
		}
		t, err := a.bridge.Tile(arg(args, 0).Int(), arg(args, 1).Int())
		if errors.Is(err, datfetch.ErrNotFound) {
			return nil, nil // no land there: the map leaves it blank
		}
		if err != nil {
			return nil, err
		}
		return vert.ValueOf(t).JSValue(), nil
	}))
	add("start", fn("start", func(args []js.Value) (any, error) {
		if a.audio == nil {
			return nil, errNotOpen
		}
		return nil, a.audio.start(arg(args, 0))
	}))
	add("stop", fn("stop", func([]js.Value) (any, error) {
		if a.audio != nil {
			a.audio.stop()
		}
		return nil, nil
	}))
	add("dispose", fn("dispose", func([]js.Value) (any, error) {
		if a.audio != nil {
			a.audio.stop()
			a.audio.live.Store(true) // and the pump ends
		}
		a.cancel()
		return nil, nil
	}))
	return o
}

// open(portalBase, cellBase): load the region, make the host, the mixer and
// the silent pump.
func (a *api) open(args []js.Value) (any, error) {
	if a.bridge != nil {
		return nil, errors.New("already open")
	}
	// datfetch's HTTP source over the browser's fetch: retries, one request
	// per id, checks, and a byte cache (the host keeps what it decoded).
	opt := datfetch.HTTPOptions{CacheBytes: pageCacheBytes}
	portal := datfetch.NewHTTP(arg(args, 0).String(), opt)
	cell := datfetch.NewHTTP(arg(args, 1).String(), opt)
	// A fresh seed per page: Math.random is enough for which bird sings
	// first, and keeps crypto out of the wasm.
	seed := uint32(js.Global().Get("Math").Call("random").Float() * (1 << 32))
	b, err := webapi.New(a.ctx, portal, cell, seed)
	if err != nil {
		return nil, err
	}
	m, err := mix.New(b, mix.Options{Rate: sampleRate})
	if err != nil {
		return nil, err
	}
	a.bridge, a.audio = b, newAudioOut(m)
	return jsonOf(b.Info(), nil)
}

func jsonOf(v any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(out), nil
}

var _ mix.Host = (*webapi.Bridge)(nil)
