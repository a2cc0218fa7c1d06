// drive.mjs: the browser half of the end-to-end test (e2e_test.go runs it,
// once per engine). It opens the demo page in the browser that
// ACAMBIENT_E2E_BROWSER names (browsers.mjs), with a probe that taps what
// reaches the Web Audio destination (docs/browser-testing.md §4), walks the
// scenario below, and prints one JSON object of measurements; the Go test
// asserts on them.
//
//   node drive.mjs URL CONTROL_URL EXPECT_JSON MODE
//
// EXPECT_JSON is a file of gather's instances at the landmarks the scenario
// listens at ({river: [...], desert: [...]}). MODE "full" runs everything;
// "dropouts" adds 60 s idle and 60 s with the main thread busy 30 ms of
// every 50 ms.
//
// Nothing here sleeps for a fixed time to let something happen: each step
// waits for what the page reports (its state(), its events) or for what the
// probe's tap counts at the destination (frames, runs of zeros), with a
// generous timeout. Waits whose failure is the finding are recorded as
// flags for the Go test to report; the others end the scenario.
import { readFile } from "node:fs/promises";
import { open } from "./browsers.mjs";

const [url, control, expectFile, mode = "full"] = process.argv.slice(2);
const expected = JSON.parse(await readFile(expectFile, "utf8"));

const RATE = 48000;
// What the output holds between the engine's clock and the destination:
// oto's player (16384 frames) and the ScriptProcessor (8192) in wasm/audio.go,
// and a render quantum or two; rounded up.
const PIPELINE = 32768;

const page = await open();
const out = { engine: page.info, console: [], steps: {} };
await page.initScript(`(${probeSource.toString()})();`);

const ctl = async (what) => (await fetch(control + "/" + what, { method: "POST" })).json();
const waitFor = (fn, arg, timeout = 30000) => page.waitFor(fn, arg, { timeout });
// holds is waitFor that resolves false on a timeout: for waits whose failure
// is what the Go test reports.
const holds = (fn, arg, timeout) => waitFor(fn, arg, timeout).then(() => true, () => false);
const state = () => page.eval(() => window.ambient.state());

try {
  await page.goto(url + "#0xA9B5002D/120,96,22.85"); // the river landmark
  await waitFor(() => window.ambient && window.__errors !== undefined, null, 60000);
  await settled("0xA9B5002D");
  // Nothing plays before the user acts: no context, no frames, the overlay
  // up, while the engine's own clock (the silent pump) runs half a second.
  const look = () => page.eval(() => ({
    audio: window.ambient.state().audio, ctx: !!window.probe.ctx, ctxState: window.probe.ctx ? window.probe.ctx.state : "none",
    frames: window.probe.stats ? window.probe.stats.frames : 0, overlay: !document.getElementById("overlay").classList.contains("hidden"), time: window.ambient.state().time,
  }));
  out.steps.beforeClick = await look();
  await clockAdvance(0.5);
  out.steps.beforeClick.later = await look();

  // One click on the overlay starts the audio.
  await page.clickOn("#overlay");
  await waitFor(() => window.probe.t.firstAudio !== undefined, null, 20000);
  const overlayGone = await holds(() => document.getElementById("overlay").classList.contains("hidden"), null, 10000);
  out.steps.start = await page.eval(() => ({
    clickToSound: window.probe.t.firstAudio - window.probe.t.click,
    ctxCreatedAfterClick: window.probe.t.ctxCreated - window.probe.t.click,
    state: window.probe.ctx.state, rate: window.probe.ctx.sampleRate,
  }));
  out.steps.start.overlayHidden = overlayGone;
  out.steps.firstSound = await page.eval(() => window.probe.loadingAt.firstAudio);

  out.steps.river = await listen("0xA9B5002D", expected.river, 5);

  await page.clickOn('#landmarks button[data-name="desert"]');
  await settled("0xA5B00037");
  out.steps.desert = await listen("0xA5B00037", expected.desert, 5);

  // The cellar sees nothing outside: no instances, and once the voices
  // already sounding have ended and the output has drained (a second of
  // exact zeros at the destination), a further second of exact silence.
  await page.clickOn('#landmarks button[data-name="cellar"]');
  await settled(null, (s) => !s.outdoorish);
  const voicesEnded = await holds(() => window.ambient.state().voices.length === 0, null, 40000);
  const drained = voicesEnded && await holds(() => window.probe.stats && window.probe.stats.run >= 48000, null, 30000);
  await page.eval(() => window.probe.reset());
  await frames(RATE);
  out.steps.cellar = await page.eval(() => ({ ...window.probe.summary(), sounds: window.ambient.state().sounds.filter((s) => s.soundCount > 0).length }));
  Object.assign(out.steps.cellar, { voicesEnded, drained });

  // Walk east across a landblock edge: from 24 m west of the river block's
  // east edge (the next ring is prefetched there), holding the right arrow
  // (heading north: strafe east at 12 m/s) until 8 m into the next block.
  const hostPre = (await state()).loading;
  await gotoPos("0xA9B5003F/168,144,22.85");
  await settled("0xA9B5003F");
  const log0 = (await ctl("log")).requests.length;
  const t0 = Date.now();
  const host0 = (await state()).loading;
  await page.keyDown("ArrowRight");
  await waitFor(() => (parseInt(window.ambient.state().where.objcellId, 16) >>> 24) === 0xAA, null, 20000);
  const crossedAt = Date.now();
  const hostAtCrossing = await page.eval(() => { const s = window.ambient.state(); return { ...s.loading, cell: s.where.objcellId, n: s.sounds.filter((x) => x.soundCount > 0).length }; });
  await waitFor(() => { const w = window.ambient.state().where; return (parseInt(w.objcellId, 16) >>> 24) === 0xAA && w.x >= 8; }, null, 20000);
  await page.keyUp("ArrowRight");
  await settledAny();
  const walkEnd = Date.now();
  const log1 = (await ctl("log")).requests;
  const hostEnd = (await state()).loading;
  out.steps.walk = { t0, crossedAt, walkEnd, requests: log1.slice(log0), hostPre, host0, hostAtCrossing, hostEnd,
    rebuilds: await page.eval((t) => window.__rebuilds.filter((r) => r.at >= t), t0) };

  // The dat server goes away mid-walk: the walk goes on into land not yet
  // loaded (the forest's SoundTables and Waves: the map's tiles have put
  // every landblock in the HTTP cache), an error event comes, and the sound
  // already loaded goes on.
  await gotoPos("0xAAB5002E/130,120,22.85");
  await settledAny();
  await page.eval(() => { window.__errors.length = 0; });
  await ctl("down");
  const X0 = (await state()).where.X;
  await page.keyDown("ArrowRight");
  await waitFor((X0) => window.ambient.state().where.X >= X0 + 4, X0, 20000);
  await page.keyUp("ArrowRight");
  await page.clickOn('#landmarks button[data-name="forest"]');
  const gotError = await holds(() => window.__errors.length > 0, null, 30000);
  // The voices sounding when the error comes (the host's own count: what
  // it had loaded plays on), then a second of what is heard.
  const voicesAtError = await page.eval(() => { window.probe.reset(); return window.ambient.state().voices.length; });
  await frames(RATE);
  out.steps.down = await page.eval(() => ({ errors: window.__errors.slice(0, 3), audio: window.probe.summary(), state: live(window.ambient.state()) }));
  Object.assign(out.steps.down, { gotError, voicesAtError });
  await ctl("up");
  // Recovery: the page goes on loading once the server is back.
  await page.clickOn('#landmarks button[data-name="forest"]');
  await settled("0xAEB90013", (s) => s.sounds.some((x) => x.soundCount > 0), 40000);
  await soundsHere("0xAEB90013");
  await page.eval(() => window.probe.reset());
  await frames(2 * RATE);
  out.steps.recovered = await page.eval(() => ({ state: live(window.ambient.state()), audio: window.probe.summary() }));

  // stop(): the page reports the audio suspended, and while the engine's
  // clock goes on for a second nothing at all reaches the destination;
  // start() brings the sound back.
  await page.eval(() => window.ambient.stop());
  const suspended = await holds(() => window.ambient.state().audio === "suspended", null, 20000);
  await page.eval(() => window.probe.reset());
  const clockRan = await clockAdvance(1).then(() => true, () => false);
  out.steps.stopped = await page.eval(() => ({ audio: window.probe.summary(), state: window.ambient.state().audio, running: window.ambient.running }));
  Object.assign(out.steps.stopped, { suspended, clockRan });
  out.steps.restarted = { answer: await page.eval(() => window.ambient.start()) };
  out.steps.restarted.running = await holds(() => window.ambient.state().audio === "running", null, 20000);
  await page.eval(() => window.probe.reset());
  out.steps.restarted.heard = await holds(() => window.probe.stats && window.probe.stats.frames >= 72000, null, 30000);
  out.steps.restarted.audio = await page.eval(() => window.probe.summary());

  // The world's corners: the snowfield landmark (north-west) and the
  // south-east corner block. Their rings reach past the demo's land; the
  // page knows from the landblock listing that those blocks are not there.
  await page.clickOn('#landmarks button[data-name="snowfield"]');
  await settled("0xA4BA0031");
  await gotoPos("0xAFAF0001/4,4,20");
  await settled("0xAFAF0001");
  out.steps.corners = await page.eval(() => ({
    outside: window.ambient.landblock(0xA3, 0xBB), inside: window.ambient.landblock(0xA4, 0xBA),
    unknown: window.ambient.landblock(0x10, 0x10),
  }));

  if (mode === "dropouts") {
    await page.clickOn('#landmarks button[data-name="river"]');
    await settled("0xA9B5002D");
    await page.eval(() => window.probe.reset());
    await frames(60 * RATE, 120000);
    out.steps.idle60 = await page.eval(() => window.probe.summary());
    await page.eval(() => { window.probe.reset(); window.probe.jank(30, 50); });
    await frames(60 * RATE, 120000);
    out.steps.jank60 = await page.eval(() => { window.probe.stopJank(); return window.probe.summary(); });
  }
} catch (e) {
  out.error = String(e && e.stack || e);
}
out.finalErrors = await page.eval(() => window.__errors || []).catch(() => []);
for (const m of await page.logs()) {
  if (m.type === "error" || m.type === "warning" || m.type === "pageerror") out.console.push(m);
}
await page.close();
console.log(JSON.stringify(out));

// settled waits until the page's player is at cell (or any, with null), the
// host has nothing pending and cond(state) holds, and then until the host's
// clock (state().time) has gone 0.1 s (three ticks) past that with nothing
// pending since: the host rebuilds at the first tick after the last record
// it lacked arrived (core/session), so the state read then is that rebuild's.
async function settled(cell, cond, timeout = 30000) {
  try {
    await settledOnce(cell, cond, timeout);
  } catch (e) {
    // Say what the page was waiting for: its loading figures, and the
    // records the server was asked for more than once.
    const s = await page.eval(() => { const s = window.ambient.state(); return { where: s.where.objcellId, loading: s.loading, time: s.time }; }).catch(() => null);
    const asked = {};
    for (const r of (await ctl("log").catch(() => ({ requests: [] }))).requests || []) (asked[r.path] ||= []).push(`${r.status}:${r.bytes}`);
    const again = Object.entries(asked).filter(([, v]) => v.length > 1).map(([p, v]) => `${p} ${v.join(",")}`);
    throw new Error(`${e.message}\n  state: ${JSON.stringify(s)}\n  asked more than once: ${again.join("; ") || "none"}`);
  }
}

async function settledOnce(cell, cond, timeout) {
  const end = Date.now() + timeout;
  const left = () => Math.max(1, end - Date.now());
  for (;;) {
    const t = await waitFor(({ cell, cond }) => {
      const s = window.ambient.state();
      const f = cond ? new Function("s", "return (" + cond + ")(s)") : () => true;
      return (!cell || s.where.objcellId === cell) && s.loading.pending === 0 && f(s) && { t: s.time };
    }, { cell, cond: cond ? cond.toString() : null }, left());
    const r = await waitFor((t) => {
      const s = window.ambient.state();
      return s.loading.pending !== 0 ? "busy" : s.time >= t + 0.1 ? "ok" : false;
    }, t.t, left());
    if (r === "ok") return;
  }
}
async function settledAny() { await settled(null); }

// clockAdvance waits until the engine's clock has run secs.
async function clockAdvance(secs, timeout = 30000) {
  const t = (await state()).time;
  await waitFor(({ t, secs }) => window.ambient.state().time >= t + secs, { t, secs }, timeout);
}

// frames waits until the tap has counted n frames since its last reset.
async function frames(n, timeout = 30000) {
  await waitFor((n) => window.probe.stats && window.probe.stats.frames >= n, n, timeout);
}

// gotoPos types a position into the page's box and presses Enter, waits
// for the player to be in its cell, then gives the map the keyboard (for
// the walking keys).
async function gotoPos(pos) {
  await page.eval((pos) => { const i = document.getElementById("gotoInput"); i.focus(); i.value = pos; }, pos);
  await page.press("Enter");
  await waitFor((cell) => window.ambient.state().where.objcellId === cell, pos.split("/")[0]);
  await page.eval(() => document.getElementById("map").focus());
}

// soundsHere waits until what reaches the destination is the sound of the
// spot at cell alone. Voices from the last spot play on to their end (as in
// retail): wait until voices sound and every one was started at this spot's
// last rebuild or after, then for the output to play out what the engine
// had mixed before (PIPELINE frames, as the tap counts them).
async function soundsHere(cell) {
  await waitFor((cell) => {
    // (A probe installed after the page's first rebuild, as in WebKit,
    // has no rebuild of the first spot: no voices came before it.)
    const rb = window.__rebuilds.filter((r) => r.objcellId === cell).pop();
    const v = window.ambient.state().voices;
    return (rb ? v.every((x) => x.t >= rb.t) : window.probe.late && window.__rebuilds.length === 0) && v.length > 0;
  }, cell, 40000);
  const total = await waitFor(() => window.probe.stats && window.probe.stats.total);
  await waitFor((n) => window.probe.stats && window.probe.stats.total >= n, total + PIPELINE);
}

// listen measures a spot for secs of audio after resetting the tap: the
// page's live instances, the RMS and the spectrum at the destination.
async function listen(cell, want, secs) {
  // The page's instances become gather's here (matched: false if they
  // never do; the Go test shows the difference).
  const matched = await holds((want) => window.probe.same(live(window.ambient.state()).sounds, want), want, 40000);
  await soundsHere(cell);
  await page.eval(() => window.probe.reset());
  // One spectrum per analyser window (8192 frames) of audio, as the tap
  // counts them.
  const spectra = [];
  for (let f = 8192; f <= secs * RATE; f += 8192) {
    await frames(f);
    spectra.push(await page.eval(() => window.probe.bands()));
  }
  // Mean power per band over the snapshots that hold sound: a constant
  // sound whose wave is shorter than its min_rate leaves silent gaps (retail
  // re-fires it every min_rate), and silence has no spectral shape.
  const avg = (sp) => {
    const pow = sp.map((s) => s.map((db) => Math.pow(10, db / 10)));
    const tot = pow.map((p) => p.reduce((a, b) => a + b, 0));
    const top = Math.max(...tot);
    const keep = sp.filter((_, i) => tot[i] >= top / 10);
    // The median per band: the spot's steady bed, not the calls that
    // happened to fire while listening.
    return keep[0].map((_, k) => { const v = keep.map((s) => s[k]).sort((a, b) => a - b); return v[v.length >> 1]; });
  };
  const h = spectra.length >> 1;
  const r = await page.eval(({ bands, first, second }) => ({ ...window.probe.summary(), bands, first, second, state: live(window.ambient.state()) }),
    { bands: avg(spectra), first: avg(spectra.slice(0, h)), second: avg(spectra.slice(h)) });
  r.matched = matched;
  return r;
}

function probeSource() {
  // Runs before any page script (WebKit: right after the load event, still
  // before the click that makes the page's AudioContext): taps whatever is
  // connected to the destination (docs/browser-testing.md §4) and notes the
  // click and the first non-zero sample.
  const probe = window.probe = { t: {}, stats: null, loadingAt: {}, gen: 0 };
  window.__errors = [];
  window.__rebuilds = [];
  window.live = (s) => ({ objcellId: s.where.objcellId, outdoorish: s.outdoorish, total: s.totalSoundCount, cells: s.contributingCells,
    sounds: s.sounds, held: s.heldInstances, voices: s.voices.length, loading: s.loading });
  // same compares two JSON values exactly, whatever their key order.
  const canon = (v) => (Array.isArray(v) ? v.map(canon) : v && typeof v === "object"
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v);
  probe.same = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));
  addEventListener("pointerdown", () => { if (probe.t.click === undefined) probe.t.click = performance.now(); }, true);
  // The tap: on the audio thread, every sample of the left channel. frames,
  // sumsq, zero runs and steps since the last reset; total frames ever; run,
  // the exact zeros ending at the last sample. Stats carry the reset's gen
  // so that one posted before a reset never counts after it.
  const tap = `class Tap extends AudioWorkletProcessor {
    constructor() { super(); this.total = 0; this.gen = 0; this.reset(); this.port.onmessage = (e) => { if (e.data && e.data.reset !== undefined) { this.gen = e.data.reset; this.reset(); } }; }
    reset() { const was = !!(this.s && this.s.started); this.s = { type: 'stats', started: was, frames: 0, sumsq: 0, zeroRuns: 0, zeroFrames: 0, maxZeroRun: 0, discontinuities: 0, maxStep: 0, blocks: 0 }; this.prev = 0; this.run = 0; }
    endRun() { const s = this.s; if (this.run >= 2) { s.zeroRuns++; s.zeroFrames += this.run; s.maxZeroRun = Math.max(s.maxZeroRun, this.run); } this.run = 0; }
    process(inputs) {
      const s = this.s; s.blocks++;
      const x = (inputs[0] && inputs[0][0]) || new Float32Array(128);
      for (let i = 0; i < x.length; i++) {
        const v = x[i];
        if (!s.started) { if (v === 0) continue; s.started = true; this.prev = v; this.port.postMessage({ type: 'first' }); }
        s.frames++; this.total++; s.sumsq += v * v;
        if (v !== 0) { if (this.run) this.endRun(); } else this.run++;
        const d = Math.abs(v - this.prev); if (d > s.maxStep) s.maxStep = d;
        if (d > 0.25) s.discontinuities++;
        this.prev = v;
      }
      if ((s.blocks & 15) === 0) { s.run = this.run; s.total = this.total; s.gen = this.gen; this.port.postMessage(s); }
      return true;
    }
  }
  registerProcessor('tap', Tap);`;
  const tapURL = URL.createObjectURL(new Blob([tap], { type: "text/javascript" }));
  const Native = window.AudioContext;
  // adopt taps a context: one the page makes after this script ran (the
  // class below), or the one it made ahead before (WebKit runs this after
  // the load event: the page's early context, found through its instance).
  const adopt = function () {
    if (this.__tapIn) return;
    {
      probe.ctx = this;
      probe.t.ctxCreated = performance.now();
      this.__tapIn = new GainNode(this);
      this.__an = new AnalyserNode(this, { fftSize: 8192, smoothingTimeConstant: 0 });
      this.__tapIn.connect(this.__an);
      this.audioWorklet.addModule(tapURL).then(() => {
        const w = new AudioWorkletNode(this, "tap", { numberOfOutputs: 0 });
        w.port.onmessage = (e) => {
          if (e.data.type === "first") {
            if (probe.t.firstAudio === undefined) {
              probe.t.firstAudio = performance.now();
              try { probe.loadingAt.firstAudio = window.ambient.state().loading; } catch { }
            }
          } else if (e.data.gen === probe.gen) probe.stats = e.data;
        };
        this.__tapIn.connect(w);
        probe.tap = w;
        w.port.postMessage({ reset: probe.gen });
      });
    }
  };
  window.AudioContext = class extends Native {
    constructor(o) { super(o); adopt.call(this); }
  };
  const early = setInterval(() => {
    const a = window.ambient, c = a && ((a._ahead && a._ahead._ctx) || a._ctx);
    if (c) { clearInterval(early); adopt.call(c); }
  }, 5);
  const nativeConnect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    const r = nativeConnect.call(this, dest, ...rest);
    if (dest instanceof AudioDestinationNode && this.context.__tapIn) nativeConnect.call(this, this.context.__tapIn);
    return r;
  };
  // bands: energy (dB) in 24 log-spaced bands from 60 Hz to 16 kHz.
  probe.bands = () => {
    const an = probe.ctx.__an, f = new Float32Array(an.frequencyBinCount);
    an.getFloatFrequencyData(f);
    const hz = probe.ctx.sampleRate / an.fftSize, out = [];
    for (let b = 0; b < 24; b++) {
      const lo = 60 * Math.pow(16000 / 60, b / 24), hi = 60 * Math.pow(16000 / 60, (b + 1) / 24);
      let e = 0, n = 0;
      for (let k = Math.ceil(lo / hz); k < Math.min(f.length, hi / hz); k++) { e += Math.pow(10, f[k] / 10); n++; }
      out.push(10 * Math.log10(e / Math.max(n, 1) + 1e-20));
    }
    return out;
  };
  probe.summary = () => {
    const s = probe.stats || { frames: 0, sumsq: 0, zeroRuns: 0, zeroFrames: 0, discontinuities: 0, maxStep: 0, maxZeroRun: 0 };
    return { state: probe.ctx ? probe.ctx.state : "none", frames: s.frames, secs: s.frames / (probe.ctx ? probe.ctx.sampleRate : 48000),
      rms: s.frames ? Math.sqrt(s.sumsq / s.frames) : 0, zeroRuns: s.zeroRuns, zeroFrames: s.zeroFrames, maxZeroRun: s.maxZeroRun,
      discontinuities: s.discontinuities, maxStep: s.maxStep };
  };
  probe.reset = () => { probe.gen++; probe.stats = null; if (probe.tap) probe.tap.port.postMessage({ reset: probe.gen }); };
  probe.jank = (busy, every) => { probe.jt = setInterval(() => { const e = performance.now() + busy; while (performance.now() < e) { } }, every); };
  probe.stopJank = () => clearInterval(probe.jt);
  // The page's events, recorded from the moment window.ambient appears.
  probe.late = !!window.ambient;
  const hook = setInterval(() => {
    if (!window.ambient) return;
    clearInterval(hook);
    window.ambient.on("error", (e) => window.__errors.push(e.message));
    window.ambient.on("rebuild", (ev) => window.__rebuilds.push({ at: Date.now(), ...ev }));
  }, 5);
}
