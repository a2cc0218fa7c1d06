// drive.mjs: the browser half of the end-to-end test (e2e_test.go runs it).
// It opens the demo page in headless Chromium with a probe that taps what
// reaches the Web Audio destination (browser-testing.md §4), walks the
// scenario below, and prints one JSON object of measurements; the Go test
// asserts on them.
//
//   node drive.mjs PLAYWRIGHT_DIR CHROMIUM URL CONTROL_URL MODE
//
// MODE "full" runs everything; "dropouts" measures 60 s idle and 60 s with
// the main thread busy 30 ms of every 50 ms.
const [pwDir, chromium, url, control, mode = "full"] = process.argv.slice(2);
const { chromium: launcher } = await import(pwDir + "/node_modules/playwright-core/index.mjs");

const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"];
const browser = await launcher.launch({ executablePath: chromium, headless: true, args });
const out = { console: [], steps: {} };
const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
page.on("console", (m) => {
  if (m.type() === "error" || m.type() === "warning") out.console.push({ type: m.type(), text: m.text(), url: m.location().url || "" });
});
page.on("pageerror", (e) => out.console.push({ type: "pageerror", text: String(e.message), url: "" }));
page.on("requestfailed", () => {}); // failed fetches while the server is down are expected; reported by the page as "error" events

await page.addInitScript(probeSource);

const ctl = async (what) => (await fetch(control + "/" + what, { method: "POST" })).json();
const T = (ms) => new Promise((r) => setTimeout(r, ms));
const waitFor = (fn, arg, timeout = 30000) => page.waitForFunction(fn, arg, { timeout, polling: 50 });

try {
  await page.goto(url + "#0xA9B5002D/120,96,22.85"); // the river landmark
  await waitFor(() => window.ambient && window.__errors !== undefined);
  await settled("0xA9B5002D");
  out.steps.beforeClick = await page.evaluate(() => ({
    ctx: !!window.probe.ctx, frames: window.probe.stats ? window.probe.stats.frames : 0,
    overlay: !document.getElementById("overlay").classList.contains("hidden"),
  }));
  await T(500);
  out.steps.beforeClick.framesLater = await page.evaluate(() => (window.probe.stats ? window.probe.stats.frames : 0));

  // One click on the overlay starts the audio.
  const box = await page.locator("#overlay").boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await waitFor(() => window.probe.t.firstAudio !== undefined, null, 10000);
  out.steps.start = await page.evaluate(() => ({
    clickToSound: window.probe.t.firstAudio - window.probe.t.click,
    ctxCreatedAfterClick: window.probe.t.ctxCreated - window.probe.t.click,
    state: window.probe.ctx.state, rate: window.probe.ctx.sampleRate,
    overlayHidden: document.getElementById("overlay").classList.contains("hidden"),
  }));
  out.steps.firstSound = await page.evaluate(() => window.probe.loadingAt.firstAudio);

  out.steps.river = await listen("0xA9B5002D", 5000);

  await page.click('#landmarks button[data-name="desert"]');
  await settled("0xA5B00037");
  out.steps.desert = await listen("0xA5B00037", 5000);

  // The cellar sees nothing outside: no instances, and silence once the
  // voices already sounding have ended.
  await page.click('#landmarks button[data-name="cellar"]');
  await settled(null, (s) => !s.outdoorish);
  await waitFor(() => window.ambient.state().voices.length === 0, null, 40000);
  await T(1500); // what the output buffers still hold (about 0.7 s) drains
  await page.evaluate(() => window.probe.reset());
  await T(1500);
  out.steps.cellar = await page.evaluate(() => ({ ...window.probe.summary(), sounds: window.ambient.state().sounds.filter((s) => s.soundCount > 0).length }));

  // Walk east across a landblock edge: from 24 m west of the river block's
  // east edge (the next ring is prefetched there), holding the right arrow
  // (heading north: strafe east at 12 m/s).
  const hostPre = await page.evaluate(() => window.ambient.state().loading);
  await gotoPos("0xA9B5003F/168,144,22.85");
  await settled("0xA9B5003F");
  await T(300);
  let log0 = (await ctl("log")).requests.length;
  const t0 = Date.now();
  const host0 = await page.evaluate(() => window.ambient.state().loading);
  await page.keyboard.down("ArrowRight");
  await waitFor(() => (parseInt(window.ambient.state().where.objcellId, 16) >>> 24) === 0xAA, null, 10000);
  const crossedAt = Date.now();
  const hostAtCrossing = await page.evaluate(() => { const s = window.ambient.state(); return { ...s.loading, cell: s.where.objcellId, n: s.sounds.filter((x) => x.soundCount > 0).length }; });
  await T(1000);
  await page.keyboard.up("ArrowRight");
  await settledAny();
  const walkEnd = Date.now();
  const log1 = (await ctl("log")).requests;
  const hostEnd = await page.evaluate(() => window.ambient.state().loading);
  out.steps.walk = { t0, crossedAt, walkEnd, requests: log1.slice(log0), hostPre, host0, hostAtCrossing, hostEnd,
    rebuilds: await page.evaluate((t) => window.__rebuilds.filter((r) => r.at >= t), t0) };

  // The dat server goes away mid-walk: the walk goes on into land not yet
  // loaded (the forest's SoundTables and Waves: the map's tiles have put
  // every landblock in the HTTP cache), an error event comes, and the sound
  // already loaded goes on.
  await gotoPos("0xAAB5002E/130,120,22.85");
  await settledAny();
  await page.evaluate(() => { window.__errors.length = 0; });
  await ctl("down");
  await page.keyboard.down("ArrowRight");
  await T(400);
  await page.keyboard.up("ArrowRight");
  await page.click('#landmarks button[data-name="forest"]');
  await waitFor(() => window.__errors.length > 0, null, 20000).catch(() => {});
  // The voices sounding when the error comes (the host's own count: what
  // it had loaded plays on), then a second of what is heard.
  const voicesAtError = await page.evaluate(() => { window.probe.reset(); return window.ambient.state().voices.length; });
  await T(1000);
  out.steps.down = await page.evaluate(() => ({ errors: window.__errors.slice(0, 3), audio: window.probe.summary(), state: live(window.ambient.state()) }));
  out.steps.down.voicesAtError = voicesAtError;
  await ctl("up");
  // Recovery: the page goes on loading once the server is back.
  await page.click('#landmarks button[data-name="forest"]');
  await settled("0xAEB90013", (s) => s.sounds.some((x) => x.soundCount > 0), 40000);
  await page.evaluate(() => window.probe.reset());
  await T(2000);
  out.steps.recovered = await page.evaluate(() => ({ state: live(window.ambient.state()), audio: window.probe.summary() }));

  // stop() silences the output; start() brings it back.
  await page.evaluate(() => window.ambient.stop());
  await T(800);
  await page.evaluate(() => window.probe.reset());
  await T(1000);
  out.steps.stopped = await page.evaluate(() => ({ audio: window.probe.summary(), state: window.ambient.state().audio }));
  out.steps.restarted = await page.evaluate(() => window.ambient.start());
  await page.evaluate(() => window.probe.reset());
  await T(1500);
  out.steps.restarted.audio = await page.evaluate(() => window.probe.summary());

  // The world's corners: the snowfield landmark (north-west) and the
  // south-east corner block. Their rings reach past the demo's land; the
  // page knows from the landblock listing that those blocks are not there.
  await page.click('#landmarks button[data-name="snowfield"]');
  await settled("0xA4BA0031");
  await gotoPos("0xAFAF0001/4,4,20");
  await settled("0xAFAF0001");
  out.steps.corners = await page.evaluate(() => ({
    outside: window.ambient.landblock(0xA3, 0xBB), inside: window.ambient.landblock(0xA4, 0xBA),
    unknown: window.ambient.landblock(0x10, 0x10),
  }));

  if (mode === "dropouts") {
    await page.click('#landmarks button[data-name="river"]');
    await settled("0xA9B5002D");
    await page.evaluate(() => window.probe.reset());
    await T(60000);
    out.steps.idle60 = await page.evaluate(() => window.probe.summary());
    await page.evaluate(() => { window.probe.reset(); window.probe.jank(30, 50); });
    await T(60000);
    out.steps.jank60 = await page.evaluate(() => { window.probe.stopJank(); return window.probe.summary(); });
  }
} catch (e) {
  out.error = String(e && e.stack || e);
}
out.finalErrors = await page.evaluate(() => window.__errors || []).catch(() => []);
await browser.close();
console.log(JSON.stringify(out));

// settled waits until the page's player is at cell (or any, with null) and
// the host has nothing pending, and cond(state) holds.
async function settled(cell, cond, timeout = 30000) {
  await waitFor(({ cell, cond }) => {
    const s = window.ambient.state();
    const f = cond ? new Function("s", "return (" + cond + ")(s)") : () => true;
    return (!cell || s.where.objcellId === cell) && s.loading.pending === 0 && f(s);
  }, { cell, cond: cond ? cond.toString() : null }, timeout);
  await T(250); // the rebuild on arrival
}
async function settledAny() { await settled(null); }

// gotoPos types a position into the page's box, then gives the map the
// keyboard (for the walking keys).
async function gotoPos(pos) {
  await page.fill("#gotoInput", pos);
  await page.press("#gotoInput", "Enter");
  await T(200);
  await page.focus("#map");
}

// listen measures a spot for ms after resetting the tap: the page's live
// instances, the RMS and the spectrum at the destination.
async function listen(cell, ms) {
  // Voices from the last spot play on to their end (as in retail): wait
  // until every voice sounding was started here, and for the output
  // buffers (about 0.5 s) to play out what came before.
  await waitFor((cell) => {
    const rb = window.__rebuilds.filter((r) => r.objcellId === cell).pop();
    return rb && window.ambient.state().voices.every((v) => v.t >= rb.t);
  }, cell, 40000);
  await T(800);
  await page.evaluate(() => window.probe.reset());
  const spectra = [];
  for (let i = 0; i < ms / 170; i++) {
    await T(170); // one analyser window (8192 frames at 48 kHz)
    spectra.push(await page.evaluate(() => window.probe.bands()));
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
  return await page.evaluate(({ bands, first, second }) => ({ ...window.probe.summary(), bands, first, second, state: live(window.ambient.state()) }),
    { bands: avg(spectra), first: avg(spectra.slice(0, h)), second: avg(spectra.slice(h)) });
}

function probeSource() {
  // Runs before any page script: taps whatever is connected to the
  // destination (browser-testing.md §4) and notes the click and the first
  // non-zero sample.
  const probe = window.probe = { t: {}, stats: null, loadingAt: {} };
  window.__errors = [];
  window.__rebuilds = [];
  window.live = (s) => ({ objcellId: s.where.objcellId, outdoorish: s.outdoorish, total: s.totalSoundCount, cells: s.contributingCells,
    sounds: s.sounds, held: s.heldInstances, voices: s.voices.length, loading: s.loading });
  addEventListener("pointerdown", () => { if (probe.t.click === undefined) probe.t.click = performance.now(); }, true);
  const tap = `class Tap extends AudioWorkletProcessor {
    constructor() { super(); this.reset(); this.port.onmessage = (e) => { if (e.data === 'reset') this.reset(); }; }
    reset() { const was = !!(this.s && this.s.started); this.s = { type: 'stats', started: was, frames: 0, sumsq: 0, zeroRuns: 0, zeroFrames: 0, maxZeroRun: 0, discontinuities: 0, maxStep: 0, blocks: 0 }; this.prev = 0; this.run = 0; }
    endRun() { const s = this.s; if (this.run >= 2) { s.zeroRuns++; s.zeroFrames += this.run; s.maxZeroRun = Math.max(s.maxZeroRun, this.run); } this.run = 0; }
    process(inputs) {
      const s = this.s; s.blocks++;
      const x = (inputs[0] && inputs[0][0]) || new Float32Array(128);
      for (let i = 0; i < x.length; i++) {
        const v = x[i];
        if (!s.started) { if (v === 0) continue; s.started = true; this.prev = v; this.port.postMessage({ type: 'first' }); }
        s.frames++; s.sumsq += v * v;
        if (v !== 0) { if (this.run) this.endRun(); } else this.run++;
        const d = Math.abs(v - this.prev); if (d > s.maxStep) s.maxStep = d;
        if (d > 0.25) s.discontinuities++;
        this.prev = v;
      }
      if ((s.blocks & 15) === 0) this.port.postMessage(s);
      return true;
    }
  }
  registerProcessor('tap', Tap);`;
  const tapURL = URL.createObjectURL(new Blob([tap], { type: "text/javascript" }));
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(o) {
      super(o);
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
          } else probe.stats = e.data;
        };
        this.__tapIn.connect(w);
        probe.tap = w;
      });
    }
  };
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
    return { state: probe.ctx ? probe.ctx.state : "none", secs: s.frames / (probe.ctx ? probe.ctx.sampleRate : 48000),
      rms: s.frames ? Math.sqrt(s.sumsq / s.frames) : 0, zeroRuns: s.zeroRuns, zeroFrames: s.zeroFrames, maxZeroRun: s.maxZeroRun,
      discontinuities: s.discontinuities, maxStep: s.maxStep };
  };
  probe.reset = () => { probe.stats = null; if (probe.tap) probe.tap.port.postMessage("reset"); };
  probe.jank = (busy, every) => { probe.jt = setInterval(() => { const e = performance.now() + busy; while (performance.now() < e) { } }, every); };
  probe.stopJank = () => clearInterval(probe.jt);
  // The page's events, recorded from the moment window.ambient appears.
  const hook = setInterval(() => {
    if (!window.ambient) return;
    clearInterval(hook);
    window.ambient.on("error", (e) => window.__errors.push(e.message));
    window.ambient.on("rebuild", (ev) => window.__rebuilds.push({ at: Date.now(), ...ev }));
  }, 5);
}
