package e2e

// The page when the browser will not start audio without a gesture. Headless
// Chromium lets every page play (it ignores --autoplay-policy), so the test
// installs the policy itself before any page script: an AudioContext made or
// resumed before the user has interacted stays suspended, and one resumed
// from a trusted input event runs, as Chrome and Safari behave. Trusted
// input is what Chromium dispatches for the driver's mouse and keyboard;
// the test's own evaluations and synthetic events are not.

import (
	"net/http/httptest"
	"testing"
	"time"

	"acambient/datfetch/source"
	"acambient/server"
)

const gestureGate = `(() => {
  let interacted = false;
  for (const ev of ["pointerdown", "mousedown", "mouseup", "keydown", "keyup", "touchstart", "touchend", "click"]) {
    window.addEventListener(ev, (e) => { if (e.isTrusted) interacted = true; }, true);
  }
  const Native = window.AudioContext;
  window.__contexts = [];
  window.AudioContext = class extends Native {
    constructor(o) {
      super(o); window.__contexts.push(this);
      // suspend() takes effect on the audio thread a render chunk or so
      // later (0.021 s seen): what counts is the time that passes after.
      if (!interacted) Native.prototype.suspend.call(this).then(() => { this.__suspendedAt = this.currentTime; });
    }
    resume() { return interacted ? Native.prototype.resume.call(this) : new Promise(() => {}); }
  };
})();`

// TestPageWaitsForGesture: started without a gesture (the overlay's Enter
// key, dispatched by script), the page says the browser is waiting, the
// audio pill says suspended and no audio flows; start() itself answers
// {running: false, waitingForGesture: true} at once rather than hanging.
// The user's next key press (Shift, which no page control handles) starts
// the audio: a "state" event reports it, the overlay goes, the pill says
// "audio on", and sound reaches the destination.
func TestPageWaitsForGesture(t *testing.T) {
	spec := needBrowser(t, "chromium") // the only engine whose driver's evaluations are not gestures
	www, w := site(t)
	srv := httptest.NewServer(server.New(server.Options{
		Portal: source.NewMemory(w.Portal), Cell: source.NewMemory(w.Cell), Name: "demo world", WWW: www, CORS: "*",
	}))
	t.Cleanup(srv.Close)
	b := lfLaunch(t, spec)
	b.do("initScript", "source", gestureGate)
	b.do("initScript", "source", lfProbe)
	b.do("goto", "url", srv.URL+"/#0xA9B5002D/120,96,22.85") // the river
	b.waitFor(`window.ambient && window.ambient.info.landmarks.length > 0 && window.ambient.state().sounds.length > 0`, 60*time.Second)

	type view struct {
		Msg      string    `json:"msg"`
		Hidden   bool      `json:"hidden"`
		Pill     string    `json:"pill"`
		Running  bool      `json:"running"`
		States   []string  `json:"states"`
		Contexts []float64 `json:"contexts"` // each AudioContext's time since the gate suspended it
		RMS      float64   `json:"rms"`
	}
	const look = `({
		msg: document.getElementById("overlayMsg").textContent,
		hidden: document.getElementById("overlay").classList.contains("hidden"),
		pill: document.querySelector(".pill").textContent,
		running: window.ambient.running,
		states: window.__states,
		contexts: window.__contexts.map((c) => c.currentTime - (c.__suspendedAt ?? 0)),
		rms: window.probe.rms(),
	})`
	b.eval(nil, `(() => {
		window.__states = [];
		window.ambient.on("state", (s) => window.__states.push(s.audio));
		document.getElementById("overlay").dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
	})()`)
	b.waitFor(`document.getElementById("overlayMsg").textContent.includes("waiting")`, 10*time.Second)
	// Sixty of the page's animation frames (a second at 60 Hz) for audio
	// that should not flow. (Not the engine's clock: once start() was
	// called it stands still until the audio runs.)
	b.eval(nil, `new Promise((ok) => { let n = 0; const f = () => (++n >= 60 ? ok() : requestAnimationFrame(f)); requestAnimationFrame(f); })`)
	var v view
	b.eval(&v, look)
	if v.Msg != "The browser is waiting for a click or key press…" || v.Hidden || v.Pill != "audio suspended" || v.Running {
		t.Errorf("before a gesture the page shows %+v; want the waiting message, the overlay, the pill \"audio suspended\"", v)
	}
	if len(v.Contexts) != 1 || v.Contexts[0] != 0 || v.RMS != 0 {
		t.Errorf("before a gesture audio flows: contexts at %v s, RMS %v", v.Contexts, v.RMS)
	}
	// start() answers without a gesture, and says so; how long it took is
	// a figure, not a test. (A start() that waited for the gesture would
	// not answer before the page's generous timer.)
	var r struct {
		Running           bool   `json:"running"`
		WaitingForGesture bool   `json:"waitingForGesture"`
		Answered          bool   `json:"answered"`
		Context           string `json:"context"` // the context's state when start() answered
		Ms                float64
	}
	b.eval(&r, `(async () => {
		const t0 = performance.now();
		const r = await Promise.race([window.ambient.start().then((r) => ({ ...r, answered: true })),
			new Promise((ok) => setTimeout(() => ok({ answered: false }), 30000))]);
		return { ...r, context: window.__contexts[0].state, Ms: performance.now() - t0 };
	})()`)
	if !r.Answered || r.Running || !r.WaitingForGesture || r.Context != "suspended" {
		t.Errorf("start() without a gesture: %+v; want an answer (running false, waitingForGesture true) while the context waits, suspended", r)
	}
	if r.Answered {
		t.Logf("start() without a gesture answered in %.0f ms", r.Ms)
	}

	b.do("key", "key", "Shift")
	b.waitFor(`window.ambient.running && window.probe.rms() > 0`, 10*time.Second)
	b.eval(&v, look)
	sawRunning := false
	for _, s := range v.States {
		sawRunning = sawRunning || s == "running"
	}
	if !v.Hidden || v.Pill != "audio on" || !sawRunning {
		t.Errorf("after a key press the page shows %+v; want the overlay gone, \"audio on\", a running state event", v)
	}
	lfNoErrors(t, b)
}
