//go:build js && wasm

package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/oto/v2"

	"acambient/core/mix"
)

// Audio output. The mixer is the one clock (docs/architecture.md §4.2): before the
// user's first gesture lets Web Audio run, a pump reads it at real-time
// pace into nothing, so the engine lives (the page shows instances and
// loads) while silent; start hands the same mixer to oto/v2, and the
// timeline carries on unbroken.
//
// The click (issue 18.2). A ScriptProcessor of spFrames plays its first
// callback's samples two buffers after its context starts (Chromium's
// ScriptProcessorHandler double-buffers: the first event fires once one
// buffer has played, and its output plays in the next), 341 ms of silence
// at 8192 frames; a smaller buffer clicks under main-thread load
// (docs/browser-testing.md §5). So the page makes its AudioContext ahead
// of the click (its constructor takes tens to hundreds of ms: www/ambient.js
// ContextAhead makes it where that costs nothing; made without a gesture it
// waits, suspended), the pump keeps the lead-in and oto's first read-ahead
// mixed in advance (mix.Ahead; once the stream has sounded: silence is as
// quick to mix at the click, and a first wave arriving late then starts
// on time), and start plays the lead-in, those two
// buffers, through an AudioBufferSourceNode from the context's first frame
// while the ScriptProcessor's first callback is on its way: oto's stream
// carries on from the lead-in's last frame at the lead-in's end. Both are
// put in place while the context is suspended, so both count from the
// first frame it renders.
const (
	sampleRate = 48000
	// spFrames is the ScriptProcessor's buffer: 8192 frames (171 ms) is the
	// size that had no dropouts with the main thread busy 45 of every 50 ms
	// (docs/browser-testing.md §5); 2048 clicks under load.
	spFrames = 8192
	// playerFrames is oto's read-ahead of the mixer, what the heard audio
	// lags the engine's clock by on top of the ScriptProcessor's buffer. Each
	// ScriptProcessor callback takes only what the player holds (oto's mux
	// zero-fills the rest), so it must hold more than one callback's worth:
	// with 4096 the page played half silence and the clock ran at half speed.
	playerFrames = 2 * spFrames
	// leadFrames is the lead-in: the ScriptProcessor's silent start.
	leadFrames = 2 * spFrames
	pumpEvery  = 20 * time.Millisecond
	// aheadStep is the most the pump mixes ahead of the clock at a time:
	// the lead (leadFrames+playerFrames, 0.68 s) mixed at once in the pump
	// step that first sounded was one task of 80–230 ms (a first play's
	// resampling and twenty host ticks), and started(), which the page's
	// "Click to listen" waits for, resolved only after it. A step is a few
	// milliseconds; while the lead fills, the pump steps every fillEvery
	// (the event loop runs between), so it is full within a few tens of ms;
	// but only while a step gains on the clock by half a step or more: on
	// a page too busy for that (a loaded machine, a slow engine), stepping
	// every millisecond would take the thread from the network and
	// everything else (WebKit's records stalled so in e2e), and the pump
	// keeps its pace (what the lead lacks at the click is mixed then).
	aheadStep = 4096
	fillEvery = time.Millisecond
)

type audioOut struct {
	mu     sync.Mutex // one reader of the mixer at a time: the pump or oto
	mixer  *mix.Mixer
	ahead  *mix.Ahead  // the mixer, as the pump and oto read it
	live   atomic.Bool // oto reads the mixer; the pump stands down
	pumpOn atomic.Bool

	ctx      *oto.Context
	player   oto.Player
	panicked bool // the mixer panicked once: reported, then silence
	// unlisten removes the document listeners oto added for the first
	// gesture (see start).
	unlisten func()
}

func newAudioOut(m *mix.Mixer) *audioOut {
	ahead, err := mix.NewAhead(m, leadFrames+playerFrames)
	if err != nil {
		panic(err) // a constant in range
	}
	ahead.SetStep(aheadStep)
	a := &audioOut{mixer: m, ahead: ahead}
	a.startPump()
	return a
}

// Read is oto's source: the mixer, under the lock the pump shares. A panic
// in the mixer (a bug) must not take the page down with it (docs/architecture.md §4.5:
// no panic crosses into JS): the output goes silent and the console says why.
func (a *audioOut) Read(p []byte) (n int, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			clear(p)
			n, err = len(p), nil
			if !a.panicked {
				a.panicked = true
				js.Global().Get("console").Call("error", fmt.Sprintf("ambient.wasm: mixer: internal error: %v", r))
			}
		}
	}()
	return a.ahead.Read(p)
}

func (a *audioOut) startPump() {
	if a.pumpOn.Swap(true) {
		return
	}
	go func() {
		defer a.pumpOn.Store(false)
		defer func() {
			if r := recover(); r != nil {
				a.mu.Unlock() // held where the mixer panicked
				js.Global().Get("console").Call("error", fmt.Sprintf("ambient.wasm: mixer: internal error: %v", r))
			}
		}()
		last := time.Now()
		for !a.live.Load() {
			now := time.Now()
			// At most a quarter second per step: a throttled background tab
			// does not make the clock race to catch up.
			frames := int(min(now.Sub(last), 250*time.Millisecond).Seconds() * sampleRate)
			last = now
			a.mu.Lock()
			filling := false
			if !a.live.Load() {
				before := a.ahead.Ahead()
				a.ahead.Advance(frames)
				filling = a.ahead.Filling() && a.ahead.Ahead()-before >= aheadStep/2
			}
			a.mu.Unlock()
			if filling {
				time.Sleep(fillEvery)
			} else {
				time.Sleep(pumpEvery)
			}
		}
	}()
}

// start creates the Web Audio output on first use (inside the user's
// gesture, so the browser lets it run) and plays the mixer through it. ac is
// the AudioContext oto is about to get when the page made it ahead and it
// is suspended: then the ScriptProcessor and the lead-in are both in place
// before it renders a frame, and the lead-in plays.
func (a *audioOut) start(ac js.Value) error {
	if a.ctx == nil {
		// oto truncates BufferSize to bytes; round the duration up so that
		// 8192 frames do not become 8191 (createScriptProcessor wants a
		// power of two; docs/browser-testing.md §5).
		bytesPerSec := int64(sampleRate * 2 * 4)
		d := time.Duration((int64(spFrames*2*4)*int64(time.Second) + bytesPerSec - 1) / bytesPerSec)
		var li *leadIn
		if ac.Type() == js.TypeObject && ac.Get("state").String() == "suspended" {
			li = catchScriptProcessor(ac)
		}
		var ctx *oto.Context
		var err error
		a.unlisten = documentListeners(func() {
			ctx, _, err = oto.NewContextWithOptions(&oto.NewContextOptions{
				SampleRate: sampleRate, ChannelCount: 2, Format: oto.FormatFloat32LE, BufferSize: d,
			})
		})
		if li != nil {
			li.release()
		}
		if err != nil {
			return err
		}
		a.ctx = ctx
		a.player = ctx.NewPlayer(a)
		if s, ok := a.player.(oto.BufferSizeSetter); ok {
			s.SetBufferSize(playerFrames * 2 * 4)
		}
		if li != nil && li.sp.Truthy() {
			raw := make([]byte, 8*leadFrames)
			a.Read(raw)
			li.play(raw)
		}
	}
	a.live.Store(true)
	a.player.Play()
	return a.ctx.Resume()
}

// stop silences the output; the engine's clock goes on through the pump.
func (a *audioOut) stop() {
	if a.ctx == nil {
		return
	}
	a.player.Pause()
	a.ctx.Suspend()
	a.live.Store(false)
	a.startPump()
}

// release lets go of what JavaScript holds of this output, so that a
// disposed instance can be collected: oto/v2 adds a touchend, a keyup and
// a mouseup listener to the document to resume its context on the first
// gesture, and each removes only itself, when its own event comes. One
// left there (a touchend on a desktop) holds a Go function, hence the whole
// wasm instance and its memory, for the page's life: every source switch
// of the demo page kept its old instance (bench/soak).
func (a *audioOut) release() {
	if a.unlisten != nil {
		a.unlisten()
		a.unlisten = nil
	}
}

// documentListeners runs f and returns a function that removes the
// listeners f added to the document.
func documentListeners(f func()) (remove func()) {
	doc := js.Global().Get("document")
	if doc.Type() != js.TypeObject {
		f()
		return func() {}
	}
	add := doc.Get("addEventListener")
	var added [][]js.Value
	spy := js.FuncOf(func(this js.Value, args []js.Value) any {
		added = append(added, append([]js.Value(nil), args...))
		return add.Call("apply", doc, js.ValueOf(toAny(args)))
	})
	doc.Set("addEventListener", spy) // an own property shadows the prototype's
	defer func() {
		doc.Delete("addEventListener")
		spy.Release()
	}()
	f()
	return func() {
		for _, args := range added {
			doc.Call("removeEventListener", toAny(args)...)
		}
	}
}

func toAny(vs []js.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
