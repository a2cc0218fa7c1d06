//go:build js && wasm

package main

import (
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/oto/v2"

	"acambient/core/mix"
)

// Audio output (docs/architecture.md, "The page's threads"). The wasm runs
// in a worker (www/ambient.worker.js), where oto/v2 makes its context
// against the worker's stand-in for the few Web Audio members its js driver
// uses: the stand-in's ScriptProcessor fires "audioprocess" when the
// page's AudioWorklet (www/ambient.worklet.js) wants samples, or at the
// engine's own pace before the click, and sends what oto's mux wrote to the
// worklet's queue. So the mixer is the one clock (docs/architecture.md
// §4.2) from the first moment, and every sample goes mixer → oto's player
// → oto's mux → the stand-in → the worklet.
const (
	sampleRate = 48000
	// chunkFrames is the stand-in's ScriptProcessor buffer: one
	// "audioprocess" event, one message to the worklet. The worklet asks for
	// more a render quantum's multiple at a time (1024 frames), so a chunk
	// of that size keeps its queue within a chunk of its target.
	chunkFrames = 1024
	// playerFrames is oto's read-ahead of the mixer: its mux refills a
	// player below this (by as much again) after each event, so the heard
	// audio lags the engine's clock by 1–2× this on top of the worklet's
	// queue. It must hold a whole chunk: oto's mux zero-fills what the
	// player lacks.
	playerFrames = 2 * chunkFrames
)

type audioOut struct {
	mu       sync.Mutex
	mixer    *mix.Mixer
	ctx      *oto.Context
	player   oto.Player
	panicked bool // the mixer panicked once: reported, then silence
}

// newAudioOut makes oto's context (the worker's stand-in) and plays the
// mixer through it from now on: the stand-in paces the reads.
func newAudioOut(m *mix.Mixer) (*audioOut, error) {
	// oto truncates BufferSize to bytes; round the duration up so that the
	// chunk is whole.
	bytesPerSec := int64(sampleRate * 2 * 4)
	d := time.Duration((int64(chunkFrames*2*4)*int64(time.Second) + bytesPerSec - 1) / bytesPerSec)
	ctx, _, err := oto.NewContextWithOptions(&oto.NewContextOptions{
		SampleRate: sampleRate, ChannelCount: 2, Format: oto.FormatFloat32LE, BufferSize: d,
	})
	if err != nil {
		return nil, fmt.Errorf("audio output: %w", err)
	}
	a := &audioOut{mixer: m, ctx: ctx}
	a.player = ctx.NewPlayer(a)
	if s, ok := a.player.(oto.BufferSizeSetter); ok {
		s.SetBufferSize(playerFrames * 2 * 4)
	}
	a.player.Play()
	return a, nil
}

// Read is oto's source: the mixer. A panic in the mixer (a bug) must not
// take the page down with it (docs/architecture.md §4.5: no panic crosses
// into JS): the output goes silent and the console says why.
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
	return a.mixer.Read(p)
}
