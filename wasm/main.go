//go:build js && wasm

// Command wasm is the browser build (GOOS=js): it wires the page's
// JavaScript (www/ambient.js, docs/interfaces.md §3) to the Go core. Wiring
// only: a session host (core/session) over two HTTP record sources, the
// mixer that ticks it (core/mix) handed to oto, and the map's tiles
// (core/mapview); the logic is there and below, tested natively.
//
// It runs in the page's worker (www/ambient.worker.js). A position goes
// setPlayer (ambient.js) → a message to the worker → api.setPlayer →
// session.OffData.SetPlayer (the latest call wins; Host.Resolve, then
// Host.Move) → the engine at the mixer's next tick; a sample goes engine →
// Host.Tick's play events → the mixer's voices → audioOut.Read → oto, on
// the worker's stand-in context → the AudioWorklet → Web Audio. Values
// cross to JavaScript through vert (boundary.go, core/pageval).
//
// www/ambient.js runs it with argv[1] naming a global callback, which
// receives the API object (one per load()). Every error a method returns
// or rejects with is a JS Error with a code (jsutil.go, session.Classify).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"syscall/js"
	"time"

	"acambient/core/ambient"
	"acambient/core/mapview"
	"acambient/core/mix"
	"acambient/core/pace"
	"acambient/core/pageval"
	"acambient/core/session"
	"acambient/core/world"
	"acambient/datfetch"

	"github.com/norunners/vert"
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
	debug.SetMemoryLimit(pageMemoryLimit)
	// The collector waits for the first sound (open's holdGC): until then
	// only the limit above runs it.
	debug.SetGCPercent(-1)
	cb.Invoke(newAPI().object())
	select {}
}

type api struct {
	ctx    context.Context
	cancel context.CancelFunc
	host   *session.Host
	portal *datfetch.HTTP
	cell   *datfetch.HTTP
	mixer  *mix.Mixer
	tiles  *mapview.Tiles
	audio  *audioOut
	off    *session.OffData // the listener's placement: latest-wins setPlayer, off the data

	presenceBuf []byte        // the landblocks' presence (presence.go)
	presenceGen uint64        // its change count when last posted
	lastState   pageval.State // state()'s value last handed over (the worker posts only a change)
	funcs       []js.Func
}

func newAPI() *api {
	ctx, cancel := context.WithCancel(context.Background())
	return &api{ctx: ctx, cancel: cancel}
}

var errNotOpen = errors.New("not loaded yet: call open first")

// What the page keeps, by bytes (docs/architecture.md §4.8). The wasm's
// linear memory never shrinks: its size is the most the Go heap ever
// needed, which is about twice the most it held live (GOGC), so each cache
// is bounded for a tab left open for hours, and together they make a return
// to a place visited in the last minutes touch neither the network nor the
// decoders (bench/soak measures both).
const (
	// pagePortalCache and pageCellCache bound the record sources' caches of
	// verified record bytes: the compact form, which a return to a place
	// whose decoded waves are no longer kept decodes again (the demo
	// world's 31 waves are 4.4 MB of records, 11 MB decoded). Cell records
	// are landblocks (252 bytes) and EnvCells.
	pagePortalCache = 6 << 20
	pageCellCache   = 1 << 20
	// pageKeptWaves bounds the decoded waves kept after the host lets them
	// go (session.Options.KeepWaveBytes): a return neither fetches nor
	// decodes them (an MP3 blocks the page's one thread while it decodes).
	// It is what one place's ring lets go of on leaving, less what the next
	// place shares with it: in the soak's first 5 minutes (6 places) at most
	// 2.2 MiB was kept, and at 6 MiB the cache went on filling for 10 more
	// minutes as new places came (bench/soak: the Go heap 1.43× its 5-minute
	// peak at 30). A return past it decodes again and fetches nothing (the
	// record caches above hold the bytes).
	pageKeptWaves = 2 << 20
	// pageMixerCache bounds the mixer's resampled waves (at 48 kHz, 2.2×
	// the bytes of a 22 kHz wave); the mixer lets go of a wave's copy with
	// the wave, so it only ever holds copies of the ring's waves in use,
	// and only those that played. At one place the soak's first 5 minutes
	// needed at most 6.2 MiB; at 12 MiB it reached 10.4 at the world's
	// busiest places, after 20 minutes. A clip past the bound is
	// resampled again when it plays again.
	pageMixerCache = 7 << 20
	// pageMemoryLimit is the Go runtime's soft limit (debug.SetMemoryLimit):
	// past it the collector runs before the heap doubles, so garbage does
	// not grow the linear memory past what the caches above need: without
	// it the memory followed twice the most ever held live, and climbed for
	// as long as that did. The caches' sum (16 MiB), a ring's decoded waves
	// (~8.5 MiB) and the rest (~4 MiB) are ~29 MiB at most; the demo world
	// holds 17–25 live. At 44 MiB the limit was not reached until the
	// heap's live bytes peaked, 10 minutes in, and the memory went on
	// growing until then; at 36 it binds within the first minutes, while
	// leaving the collector 7 MiB or more to work in. The collector's own
	// cap (half the CPU) keeps a heap held near the limit from stalling the
	// page.
	pageMemoryLimit = 36 << 20
)

// pageEventLog bounds the events kept between two polls (ambient.js polls
// every 100 ms; a background tab far less often).
const pageEventLog = 1024

func (a *api) object() js.Value {
	o := js.Global().Get("Object").New()
	add := func(name string, f js.Func) {
		a.funcs = append(a.funcs, f)
		o.Set(name, f)
	}
	add("open", async("open", a.open))
	add("setPlayer", async("setPlayer", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		var seq uint64 // ambient.js numbers its calls (session.OffData)
		if n := arg(args, 1); n.Type() == js.TypeNumber && n.Float() > 0 {
			seq = uint64(n.Float())
		}
		return where(a.off.SetPlayer(arg(args, 0).String(), seq))
	}))
	add("setCamera", async("setCamera", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		heading := 0.0
		if h := arg(args, 1); h.Type() == js.TypeNumber {
			heading = h.Float()
		}
		return where(a.host.SetCameraPOS(arg(args, 0).String(), heading))
	}))
	add("setVolume", fn("setVolume", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		a.host.SetVolume(float32(arg(args, 0).Float()))
		return nil, nil
	}))
	add("setEnabled", fn("setEnabled", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		a.off.SetEnabled(arg(args, 0).Truthy())
		return nil, nil
	}))
	add("offData", fn("offData", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		if lb := a.off.Landblock(); lb != 0 {
			return fmt.Sprintf("0x%08X", lb), nil
		}
		return nil, nil
	}))
	add("state", fn("state", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		// state(force): null when the state is the one last handed
		// over, unless force (the worker posts a snapshot on a change).
		st := pageval.StateOf(a.host.Snapshot())
		if !arg(args, 0).Truthy() && reflect.DeepEqual(st, a.lastState) {
			return nil, nil
		}
		a.lastState = st
		return valueOf(st), nil
	}))
	add("poll", fn("poll", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		d, err := pageval.DrainedOf(a.host.Drain())
		if err != nil {
			return nil, err
		}
		return valueOf(d), nil
	}))
	add("recaption", fn("recaption", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		a.host.Recaption()
		return nil, nil
	}))
	add("retryNow", fn("retryNow", func([]js.Value) (any, error) {
		if a.host != nil {
			a.host.RetryNow()
		}
		return nil, nil
	}))
	add("stats", fn("stats", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		return valueOf(a.stats()), nil // stats.go
	}))
	add("info", fn("info", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		return valueOf(pageval.InfoOf(mapview.InfoOf(a.host.Region()))), nil
	}))
	add("landblock", fn("landblock", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		return a.host.Landblock(arg(args, 0).Int(), arg(args, 1).Int()).String(), nil
	}))
	add("presence", fn("presence", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		return a.presence(), nil
	}))
	add("tile", async("tile", func(args []js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		// The first sound goes first: the map asks for a hundred
		// landblocks at once, which would queue the ring's records behind
		// them (a browser opens six connections to a host), share the link
		// with the first wave and keep the worker busy. Tiles of the
		// ring (loaded anyway) pass.
		bx, by := arg(args, 0).Int(), arg(args, 1).Int()
		if a.host.Placed() && !a.host.Near(bx, by) {
			select {
			case <-a.host.Started():
			case <-a.ctx.Done():
				return nil, a.ctx.Err()
			}
		}
		t, err := a.tiles.Tile(a.ctx, bx, by)
		if errors.Is(err, datfetch.ErrNotFound) {
			return nil, nil // no land there: the map leaves it blank
		}
		if err != nil {
			return nil, err
		}
		return vert.ValueOf(t).JSValue(), nil // mapview.Tile: plain fields, js tags
	}))
	add("render", async("render", a.render)) // render.go
	add("started", async("started", func([]js.Value) (any, error) {
		if a.host == nil {
			return nil, errNotOpen
		}
		select {
		case <-a.host.Started():
			return nil, nil
		case <-a.ctx.Done():
			return nil, a.ctx.Err()
		}
	}))
	add("dispose", fn("dispose", func([]js.Value) (any, error) {
		a.cancel()
		pace.Close() // its MessagePort would keep the worker's event loop busy
		return nil, nil
	}))
	return o
}

// open({portal, cell, listing}, early): load the region, make the host,
// the mixer, the tiles and the output (audio.go). portal and cell: the
// record routes' base URLs; listing true: the cell source is ours or an
// export, which list their landblocks (landblocks.txt). early: what the
// worker asked for while the wasm loaded (datfetch.FetchEarly), taken from
// there rather than asked again.
func (a *api) open(args []js.Value) (any, error) {
	if a.host != nil {
		return nil, errors.New("already open")
	}
	// datfetch's HTTP source over the browser's fetch: retries, one request
	// per id, checks, and a byte cache (the host keeps what it decoded).
	var o openOptions
	if err := (vert.Value{Value: arg(args, 0)}).AssignTo(&o); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	tr := datfetch.FetchEarly(arg(args, 1))
	portal := datfetch.NewHTTP(o.Portal, datfetch.HTTPOptions{Transport: tr, CacheBytes: pagePortalCache})
	// The cell source refuses what the cell dat's reader refuses
	// (docs/divergences.md row 11).
	cell := datfetch.NewHTTP(o.Cell, datfetch.HTTPOptions{Transport: tr, CacheBytes: pageCellCache,
		MaxRecordBytes: datfetch.MaxCellRecordBytes})
	// The resampler's filter for 22050 Hz waves (most of the ambience's:
	// the demo's beds, retail's) costs tens of milliseconds on this one
	// thread when the first such wave plays, right on the first sound's
	// path: design it now, while the region and the ring are on their way,
	// in pieces so that the network's callbacks are not held up.
	go mix.Prepare(22050, sampleRate, func() { time.Sleep(time.Millisecond) })
	// A fresh seed per page: Math.random is enough for which bird sings
	// first, and keeps crypto out of the wasm.
	cfg := ambient.DefaultConfig()
	cfg.Seed = uint32(js.Global().Get("Math").Call("random").Float() * (1 << 32))
	// Progressive: sound starts once the ring's tables are known, each wave
	// when it arrives (docs/divergences.md); decodes give the event loop
	// its turns (core/pace) so that the audio callbacks run meanwhile.
	hopt := session.Options{Config: cfg, Prefetch: true, EventLog: pageEventLog, Progressive: true,
		Yield: pace.Yield, KeepWaveBytes: pageKeptWaves, Captions: true}
	if o.Listing {
		hopt.Listing = cell.Landblocks
	}
	h, err := session.New(a.ctx, portal, cell, hopt)
	if err != nil {
		return nil, err
	}
	m, err := mix.New(h, mix.Options{Rate: sampleRate, CacheBytes: pageMixerCache})
	if err != nil {
		return nil, err
	}
	out, err := newAudioOut(m)
	if err != nil {
		return nil, err
	}
	a.host, a.portal, a.cell, a.mixer = h, portal, cell, m
	a.tiles, a.audio = mapview.NewTiles(h.Region(), h.Land()), out
	a.off = session.NewOffData(h, m.FadeAll)
	go a.holdGC()
	return valueOf(pageval.InfoOf(mapview.InfoOf(h.Region()))), nil
}

// holdGC gives the collector back its pace (GOGC 100) once a first sound
// can be heard, or gcHeld after open at the latest. Until then it runs only
// at the memory limit: the start allocates from a heap of a few MiB, whose
// doublings each cost a cycle on the worker's one thread, right on the
// first sound's path; the limit bounds what waiting costs the memory (the
// linear memory reaches it within the first minutes anyway: bench/soak).
func (a *api) holdGC() {
	t := time.NewTimer(gcHeld)
	defer t.Stop()
	select {
	case <-a.host.Started():
	case <-t.C:
	case <-a.ctx.Done():
	}
	debug.SetGCPercent(100)
}

// gcHeld bounds holdGC's wait, for a start that never sounds (off the
// data, a source that fails): a heap held near the limit collects often.
const gcHeld = 5 * time.Second

func where(w world.Where, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return whereValue(w), nil
}

var _ mix.Host = (*session.Host)(nil)
