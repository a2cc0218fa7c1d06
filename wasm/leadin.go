//go:build js && wasm

package main

import "syscall/js"

// leadIn is the start of the output (audio.go's package comment): the
// stream's first leadFrames through an AudioBufferSourceNode from the
// first frame the context renders, while oto's ScriptProcessor, routed
// through a delay, brings its first callback's samples to the lead-in's
// end.
//
// Where a browser plays the first callback's samples differs: Chromium two
// buffers in (its first event comes once one buffer has played), Firefox
// one buffer in (it fires the first event as the context starts). The
// first event's playbackTime says which (Chromium 2·spFrames, Firefox
// spFrames, measured); one buffer in, the delay holds the ScriptProcessor
// back by a buffer, so that either way its samples follow the lead-in's
// (exactly in Chromium; within a render quantum or two in Firefox, whose
// start jitters).
type leadIn struct {
	ac      js.Value
	sp      js.Value // oto's ScriptProcessor, once made
	delay   js.Value
	wrap    js.Func
	onFirst js.Func
}

// catchScriptProcessor makes the next ac.createScriptProcessor (oto's, in
// oto.NewContext) hand its node to the lead-in and connect through the
// delay. ac must be suspended: everything is in place before it renders.
func catchScriptProcessor(ac js.Value) *leadIn {
	li := &leadIn{ac: ac}
	li.delay = ac.Call("createDelay", float64(spFrames)/sampleRate)
	li.delay.Call("connect", ac.Get("destination"))
	li.wrap = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ac.Delete("createScriptProcessor") // the prototype's again, for anyone after
		vs := make([]any, len(args))
		for i, v := range args {
			vs[i] = v
		}
		sp := ac.Call("createScriptProcessor", vs...)
		li.sp = sp
		// oto connects the node to the destination: through the delay instead.
		var connect js.Func
		connect = js.FuncOf(func(js.Value, []js.Value) any {
			sp.Delete("connect")
			connect.Release()
			return sp.Call("connect", li.delay)
		})
		sp.Set("connect", connect)
		return sp
	})
	ac.Set("createScriptProcessor", li.wrap)
	return li
}

// release undoes catchScriptProcessor once oto has its node.
func (li *leadIn) release() {
	li.ac.Delete("createScriptProcessor")
	li.wrap.Release()
}

// play starts raw (the stream's next leadFrames, float32 LE stereo) at the
// context's first frame, and listens for the first callback to set the
// delay.
func (li *leadIn) play(raw []byte) {
	n := len(raw) / 8
	buf := li.ac.Call("createBuffer", 2, n, sampleRate)
	for ch := range 2 {
		s := make([]byte, 4*n)
		for i := range n {
			copy(s[4*i:4*i+4], raw[8*i+4*ch:])
		}
		buf.Call("copyToChannel", float32Array(s), ch)
	}
	src := li.ac.Call("createBufferSource")
	src.Set("buffer", buf)
	src.Call("connect", li.ac.Get("destination"))
	src.Call("start", 0)

	// A suspended context resumes where it stopped (not always at 0: a
	// browser that lets audio start without a gesture ran it a little
	// before the page suspended it).
	start := li.ac.Get("currentTime").Float()
	buffer := float64(spFrames) / sampleRate
	li.onFirst = js.FuncOf(func(_ js.Value, args []js.Value) any {
		li.sp.Call("removeEventListener", "audioprocess", li.onFirst)
		li.onFirst.Release()
		if at := arg(args, 0).Get("playbackTime"); at.Type() == js.TypeNumber && at.Float()-start < 1.5*buffer {
			li.delay.Get("delayTime").Set("value", buffer)
		}
		return nil
	})
	li.sp.Call("addEventListener", "audioprocess", li.onFirst)
}

// float32Array is a new JS Float32Array holding le (float32 little-endian).
func float32Array(le []byte) js.Value {
	u8 := js.Global().Get("Uint8Array").New(len(le))
	js.CopyBytesToJS(u8, le)
	return js.Global().Get("Float32Array").New(u8.Get("buffer"))
}
