// page_probe.js: what the page tests (page_*_test.go) install in the demo
// page before any of its scripts run, as window.__pt:
//
// - a stereo tap on whatever reaches the audio destination
//   (docs/browser-testing.md §4, both channels): an AudioWorklet that sees every
//   sample and reports bursts — runs of sound between silences of at least
//   GAP_S of exact zeros in both channels — with each channel's energy and
//   the range of the per-sample level difference right − left (dB), and
//   running counters (frames, the current run of exact zeros, non-zero
//   frames since a mark);
// - the instance's events (play, state) and the positions and headings the
//   page hands to setPlayer and setCamera, with the promises they return;
// - the walking keys held in each animation frame and the frame lengths the
//   page's own loop uses (mapcanvas.js: min(0.1 s, the frame's length));
// - snapshot: the map's canvas as drawn from the page's latest state, with
//   that state (the Go side reads the pixels).
(() => {
  const GAP_S = 0.25;
  const pt = (window.__pt = {
    bursts: [], stats: null, marks: 0, ctx: null, tap: null,
    plays: [], states: 0, state: null, onState: [],
    player: { n: 0, last: null }, camera: { n: 0, last: null },
    keys: new Set(), held: {}, frames: 0,
  });

  // ---- the tap
  const worklet = `class PTTap extends AudioWorkletProcessor {
    constructor(o) {
      super();
      this.gap = o.processorOptions.gap;
      this.zeroRun = 0; this.cur = null; this.blocks = 0; this.mark(0);
      this.port.onmessage = (e) => { if (e.data.type === "mark") this.mark(e.data.id); };
    }
    mark(id) { this.id = id; this.frames = 0; this.nonzero = 0; this.sumL = 0; this.sumR = 0; }
    process(inputs) {
      const inp = inputs[0] || [], L = inp[0], R = inp[1] || inp[0];
      const n = L ? L.length : 128;
      for (let i = 0; i < n; i++) {
        const l = L ? L[i] : 0, r = R ? R[i] : 0;
        this.frames++;
        if (l === 0 && r === 0) {
          this.zeroRun++;
          if (this.cur && this.zeroRun >= this.gap) { this.port.postMessage({ type: "burst", ...this.cur }); this.cur = null; }
          continue;
        }
        this.zeroRun = 0; this.nonzero++; this.sumL += l * l; this.sumR += r * r;
        const f = currentFrame + i;
        let b = this.cur;
        if (!b) b = this.cur = { start: f, end: f, sl: 0, sr: 0, n: 0, rmin: 1e9, rmax: -1e9, peakL: 0, peakR: 0 };
        b.end = f; b.sl += l * l; b.sr += r * r;
        const al = Math.abs(l), ar = Math.abs(r);
        if (al > b.peakL) b.peakL = al;
        if (ar > b.peakR) b.peakR = ar;
        // Below the limiter's knee (core/mix, −1 dBFS) the two channels are
        // one mono wave at two gains: their ratio is the pan law's.
        if (al > 1e-6 && ar > 1e-6 && al < 0.89 && ar < 0.89) {
          const d = 20 * Math.log10(ar / al);
          b.n++;
          if (d < b.rmin) b.rmin = d;
          if (d > b.rmax) b.rmax = d;
        }
      }
      if ((++this.blocks & 7) === 0) {
        this.port.postMessage({ type: "stats", mark: this.id, frame: currentFrame + n, zeroRun: this.zeroRun, frames: this.frames,
          nonzero: this.nonzero, sumL: this.sumL, sumR: this.sumR, inBurst: !!this.cur });
      }
      return true;
    }
  }
  registerProcessor("pt-tap", PTTap);`;
  const tapURL = URL.createObjectURL(new Blob([worklet], { type: "text/javascript" }));
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(o) {
      super(o);
      pt.ctx = this;
      const stereo = { channelCount: 2, channelCountMode: "explicit", channelInterpretation: "discrete" };
      this.__ptIn = new GainNode(this, stereo);
      this.audioWorklet.addModule(tapURL).then(() => {
        const w = new AudioWorkletNode(this, "pt-tap", { numberOfInputs: 1, numberOfOutputs: 0, ...stereo,
          processorOptions: { gap: Math.round(GAP_S * this.sampleRate) } });
        // Counters posted before the tap saw the latest mark are stale.
        w.port.onmessage = (e) => {
          if (e.data.type === "burst") pt.bursts.push(e.data);
          else if (e.data.mark === pt.marks) pt.stats = e.data;
        };
        this.__ptIn.connect(w);
        pt.tap = w;
      });
    }
  };
  const connect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    const r = connect.call(this, dest, ...rest);
    if (dest instanceof AudioDestinationNode && this.context.__ptIn) connect.call(this, this.context.__ptIn);
    return r;
  };
  // mark restarts the tap's counters (frames, non-zero frames, energy).
  // Counters from before it are dropped (a message in flight carries the
  // old mark's number).
  pt.mark = () => { pt.stats = null; pt.marks++; if (pt.tap) pt.tap.port.postMessage({ type: "mark", id: pt.marks }); };

  // ---- the instance: events, and what the page asks of it
  const hook = setInterval(() => {
    const a = window.ambient;
    if (!a) return;
    clearInterval(hook);
    pt.amb = a;
    a.on("play", (ev) => pt.plays.push(ev));
    // Registered after the page's own handler (app.js): when this runs, the
    // panel shows s and the map will draw s at its next frame.
    a.on("state", (s) => { pt.state = s; pt.states++; for (const f of pt.onState) f(s); });
    for (const name of ["setPlayer", "setCamera"]) {
      const f = a[name].bind(a), rec = pt[name === "setPlayer" ? "player" : "camera"];
      a[name] = (pos, heading) => {
        const p = f(pos, heading);
        rec.n++;
        rec.last = { pos, heading: heading ?? pos?.heading, promise: p.catch(() => {}) };
        return p;
      };
    }
  }, 5);
  // settled resolves once the last setPlayer and setCamera the page made
  // have answered and no new one came for two frames.
  pt.settled = async () => {
    for (;;) {
      const n = pt.player.n + pt.camera.n;
      await pt.player.last?.promise;
      await pt.camera.last?.promise;
      await pt.nextFrame();
      await pt.nextFrame();
      if (n === pt.player.n + pt.camera.n) return;
    }
  };

  // ---- the walking keys: per key, the seconds of frames it was held in,
  // as the page's loop counts them.
  addEventListener("keydown", (e) => pt.keys.add(e.code));
  addEventListener("keyup", (e) => pt.keys.delete(e.code));
  let last = null;
  const frame = (now) => {
    if (last !== null) {
      const dt = Math.min(0.1, (now - last) / 1000);
      for (const k of pt.keys) pt.held[k] = (pt.held[k] || 0) + dt;
    }
    last = now;
    pt.frames++;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  pt.nextFrame = () => new Promise((r) => requestAnimationFrame(() => r()));

  // ---- the canvas: snapshot is the map as drawn from the state the page
  // last had, once two frames have passed with no new state (the map draws
  // the page's latest state at its next frame) and the map has nothing left
  // to draw, as a PNG data URL.
  pt.snapshot = async () => {
    for (;;) {
      const n = pt.states;
      await pt.nextFrame();
      await pt.nextFrame();
      // The map draws what changed at its next frame: a tile still on its
      // way shows as a placeholder until its own drawing.
      if (n !== pt.states || (window.mapCanvas && !window.mapCanvas.drawn)) continue;
      const c = document.getElementById("map");
      return { png: c.toDataURL("image/png"), state: pt.state, states: n, hash: location.hash };
    }
  };
})();
