// run.mjs: the browser half of bench/firstsound (main.go runs it).
//
//   node run.mjs PLAYWRIGHT_DIR CHROMIUM URL CONFIG_JSON
//
// CONFIG: {runs, mode: "visit"|"click", link, control: the URL of the
// server's request log (main.go: wire.go)}. The link is emulated by the
// server, and the wire is read from its log: the records and the wasm are
// fetched by the engine's Worker, a target a CDP session on the page does
// not see (issue 32). Each run launches Chromium on a fresh profile; "visit" opens
// URL (cold), clicks the overlay as soon as the page says "Click to
// listen", waits for the first sample and for the load to end, then opens
// it again in the same profile (warm) and does the same; "click" waits for
// everything to load before it clicks. One JSON line per navigation.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [pwDir, chromiumPath, url, cfgJSON] = process.argv.slice(2);
const cfg = JSON.parse(cfgJSON);
const { chromium } = await import(pwDir + "/node_modules/playwright-core/index.mjs");

const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"];
const T = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
for (let run = 0; run < cfg.runs; run++) {
  const profile = mkdtempSync(join(tmpdir(), "acambient-firstsound-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true, args, viewport: { width: 1200, height: 800 },
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    // The page says it is ready through a binding, so that the click goes
    // out at once rather than at the harness's next poll.
    await page.exposeBinding("__firstsoundReady", () => { if (readyNow) readyNow(); });
    await page.addInitScript(probeSource);
    const cdp = await context.newCDPSession(page);
    const net = new ServerLog(cfg.control);
    const visits = cfg.mode === "click" ? [false] : [false, true];
    for (const warm of visits) {
      if (warm) await page.goto("about:blank");
      await net.reset();
      if (cfg.profile) {
        await cdp.send("Profiler.enable");
        await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
        await cdp.send("Profiler.start");
      }
      let m;
      try {
        m = await visit(page, net, cdp, cfg.mode);
      } catch (e) {
        m = { error: String(e && e.stack || e) };
      }
      if (cfg.profile) {
        // The profile's clock is CDP's (monotonic µs), as the network's is.
        const { profile } = await cdp.send("Profiler.stop");
        mkdirSync(cfg.profile, { recursive: true });
        const file = join(cfg.profile, `${cfg.link.replace(/\W+/g, "_")}-${cfg.mode}-${run}-${warm ? "warm" : "cold"}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
        // Its clock is CDP's monotonic one, which the server's log does not
        // share: the file alone.
        m.profile = { file };
      }
      console.log(JSON.stringify({ link: cfg.link, mode: cfg.mode, run, warm, ...m }));
    }
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
}

let readyNow = null;

async function visit(page, net, cdp, mode) {
  const ready = new Promise((r) => { readyNow = r; });
  await page.goto(url, { waitUntil: "commit" });
  const wait = (fn, timeout = 180000) => page.waitForFunction(fn, null, { timeout, polling: 10 });
  // Where to click, found before the page is ready (the overlay is in the
  // page from its first byte).
  const box = await page.locator("#overlay").boundingBox({ timeout: 180000 });
  await Promise.race([ready, wait(() => window.probe && window.probe.t.ready !== undefined)]);
  if (mode === "click") {
    await loaded(page, net);
    await T(1000);
  }
  // A trusted click, straight through CDP (no move first).
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2, button: "left", clickCount: 1 };
  await cdp.send("Input.dispatchMouseEvent", { type: "mousePressed", ...at });
  await cdp.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...at });
  await wait(() => window.probe.t.first !== undefined);
  await wait(() => window.probe.start !== undefined, 10000).catch(() => {});
  if (mode !== "click") await loaded(page, net);
  const p = await page.evaluate(() => ({
    t: window.probe.t, late: window.probe.late, start: window.probe.start || null, long: window.probe.long,
    timeOrigin: performance.timeOrigin,
  }));
  const log = await net.fetch();
  // The start's steps (ambient.js and ambient.worker.js performance
  // marks), on the page's clock: the worker's own clock starts at its
  // creation, so both go through Unix ms.
  const marks = {};
  const stepsOf = () => performance.getEntriesByType("mark").filter((e) => e.name.startsWith("acambient:"))
    .map((e) => [e.name.slice(10), performance.timeOrigin + e.startTime]);
  const lists = [await page.evaluate(stepsOf).catch(() => [])];
  for (const w of page.workers()) lists.push(await w.evaluate(stepsOf).catch(() => []));
  for (const list of lists) for (const [k, unix] of list) marks[k] ??= Math.round(unix - p.timeOrigin);
  // The server's times are Unix ms; the page's clock starts at timeOrigin
  // (Unix ms too, the same machine's clock).
  const toPage = (unix) => unix - p.timeOrigin;
  const first = p.t.first;
  // The main thread's long tasks that began before the first sound (what
  // a click during the start waits behind).
  const before = p.long.filter(([start]) => first !== undefined && start < first);
  const out = {
    ready: p.t.ready, click: p.t.click, first, firstLate: !!p.late,
    bytesFirst: bytesBefore(log, toPage, first),
    bytesAll: bytesBefore(log, toPage, Infinity),
    loaded: log.entries.reduce((t, e) => Math.max(t, e.end >= 0 ? toPage(e.end) : -1), -1),
    requests: log.entries.length,
    netRecords: 0, netRecords200: 0,
    wasm: { status: 0, fromCache: true, bytes: 0, ms: -1 },
    clicks: {},
    longBefore: before.reduce((m, [, d]) => Math.max(m, d), 0),
    longSumBefore: before.reduce((s, [, d]) => s + d, 0),
    longCountBefore: before.length,
    marks,
    startGaps: p.start ? p.start.gaps : -1, startSteps: p.start ? p.start.steps : -1,
  };
  if (cfg.timeline) {
    out.long = p.long;
    out.timeline = log.entries.map((e) => ({
      url: e.path, status: e.status, start: Math.round(toPage(e.start)), end: e.end >= 0 ? Math.round(toPage(e.end)) : -1, bytes: e.bytes,
    })).sort((a, b) => a.start - b.start);
  }
  // What the server answered came over the network (a 200 or a
  // revalidation's 304); what it never saw came from the browser's cache.
  for (const e of log.entries) {
    if (/^\/files\/0x[0-9A-Fa-f]{8}$/.test(e.path)) {
      out.netRecords++;
      if (e.status === 200) out.netRecords200++;
    }
    if (/ambient\.wasm(\?|$)/.test(e.path)) {
      out.wasm = { status: e.status, fromCache: false, bytes: e.bytes, ms: e.end >= 0 ? e.end - e.start : -1, at: toPage(e.start) };
      out.wasmRequests = (out.wasmRequests || 0) + 1;
    }
  }
  for (const k of ["clickEvent", "start", "ctx", "resume", "running", "first"]) {
    const v = p.t[k === "ctx" ? "ctxCreated" : k];
    out.clicks[k] = v !== undefined && p.t.click !== undefined ? v - p.t.click : -1;
  }
  if (mode === "click") {
    // setPlayer → the new place heard: from the river to the desert (its
    // records fetched then, over loopback), and back (the river's records
    // in memory: the engine and the queue alone).
    out.move = {};
    for (const [name, to] of [["desert", "0xA5B00037/144,144,24.78"], ["back", "0xA9B5002D/120,96,22.85"]]) {
      const r = await heard(page, to);
      for (const [k, v] of Object.entries(r)) out.move[name + k] = v;
    }
  }
  for (const [k, v] of Object.entries(p.t)) if (k.startsWith("x:") && p.t.click !== undefined) out.clicks[k] = v - p.t.click;
  return out;
}

// heard calls setPlayer(to) and measures, on the audio clock, when the
// destination leaves the range it kept over the 1.5 s before the call (its
// level by more than 3 dB, or its zero-crossing rate by more than 25 %):
// ms from the call to that window, and to the promise's answer.
async function heard(page, to) {
  const wait = (fn, arg, timeout) => page.waitForFunction(fn, arg, { timeout, polling: 20 });
  // 3 s of the place as it is (counted in the tap's windows), the last
  // 1.5 s of which are its range: a previous move has settled by then.
  const n0 = await page.evaluate(() => window.probe.rms.length);
  await wait((n) => window.probe.rms.length >= n + 130, n0, 20000);
  const call = await page.evaluate(async (to) => {
    const probe = window.probe, ctx = probe.ctx;
    const base = probe.rms.slice(-65).map(([, r]) => r), zs = probe.rms.slice(-65).map(([, , z]) => z);
    const ts = ctx.getOutputTimestamp();
    const t0 = performance.now();
    const frame = Math.round((ts.contextTime + (t0 - ts.performanceTime) / 1000) * ctx.sampleRate);
    probe.move = { frame, lo: Math.min(...base), hi: Math.max(...base), zlo: Math.min(...zs), zhi: Math.max(...zs), rate: ctx.sampleRate };
    await window.ambient.setPlayer(to);
    probe.move.resolved = performance.now() - t0;
    return probe.move;
  }, to);
  const found = await wait(() => {
    const m = window.probe.move;
    const w = window.probe.rms.find(([f, r, z]) => f >= m.frame && (r > m.hi * 1.4125 || r < m.lo / 1.4125 /* ±3 dB */ || z > m.zhi * 1.25 || z < m.zlo / 1.25));
    return w ? w[0] : false;
  }, null, 15000).then((h) => h.jsonValue()).catch(() => -1);
  return {
    Ms: found >= 0 ? (found - call.frame) / call.rate * 1000 : -1,
    Resolved: call.resolved,
    LevelLo: call.lo, LevelHi: call.hi, ZcrLo: call.zlo, ZcrHi: call.zhi,
  };
}

// loaded waits for the host to have nothing pending and the server to
// have answered everything and been quiet for a second.
async function loaded(page, net) {
  const t0 = Date.now();
  for (;;) {
    const pending = await page.evaluate(() => window.ambient ? window.ambient.state().loading.pending : -1);
    const log = await net.fetch();
    if (pending === 0 && log.inflight === 0 && log.quietMs > 1000) return;
    if (Date.now() - t0 > 180000) throw new Error(`the load did not end in 180 s (pending ${pending}, ${log.inflight} requests in flight)`);
    await T(100);
  }
}

// ServerLog reads the page server's request log (main.go's wire.go).
class ServerLog {
  constructor(control) { this.control = control; }
  async reset() { await fetch(this.control + "/reset", { method: "POST" }); }
  async fetch() { return (await fetch(this.control + "/log")).json(); }
}

// bytesBefore sums the bytes the server sent up to page time t.
function bytesBefore(log, toPage, t) {
  let n = 0;
  for (const e of log.entries) for (const [ts, b] of e.chunks || []) if (toPage(ts) <= t) n += b;
  return n;
}

await main();

function probeSource() {
  // Runs before any page script (docs/browser-testing.md §4): taps what reaches
  // the destination, and notes, on the page's clock, when the page asks for
  // the click, the click, the audio context's steps and the first non-zero
  // sample.
  const probe = window.probe = { t: {}, late: false, long: [], rms: [] };
  const now = () => performance.now();
  // The main thread's long tasks (what a click waits behind).
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) probe.long.push([Math.round(e.startTime), Math.round(e.duration)]); })
      .observe({ type: "longtask", buffered: true });
  } catch { /* no longtask timing */ }
  new MutationObserver((_, obs) => {
    const m = document.getElementById("overlayMsg");
    if (m && /Click to listen/.test(m.textContent) && probe.t.ready === undefined) {
      probe.t.ready = now();
      obs.disconnect();
      if (window.__firstsoundReady) window.__firstsoundReady();
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
  addEventListener("pointerdown", () => { if (probe.t.click === undefined) probe.t.click = now(); }, true);
  addEventListener("click", () => { if (probe.t.clickEvent === undefined) probe.t.clickEvent = now(); }, true);
  // The page's start(), timed from outside (the engine is in a Worker:
  // its own steps are not on this thread).
  const hook = setInterval(() => {
    const a = window.ambient;
    if (!a) return;
    clearInterval(hook);
    const start = a.start;
    a.start = function (...x) { if (probe.t.start === undefined) probe.t.start = now(); return start.apply(this, x); };
  }, 5);

  // firstAt records the first sample's time from its frame: the main thread
  // may hear of it late (the wasm keeps it busy), the audio clock does not.
  const firstAt = (ctx, frame, bound) => {
    // When the frame reaches the output: getOutputTimestamp pairs an output
    // frame with its time; currentTime (the next frame to render) is the
    // fallback.
    const ts = ctx.getOutputTimestamp ? ctx.getOutputTimestamp() : null;
    const t = ts && ts.performanceTime > 0 ? ts.performanceTime + (frame / ctx.sampleRate - ts.contextTime) * 1000
      : now() - (ctx.currentTime - frame / ctx.sampleRate) * 1000;
    if (probe.t.first === undefined || t < probe.t.first) { probe.t.first = t; probe.late = bound; }
  };
  // The tap also checks the start for gaps: runs of 64 or more exact zeros
  // and steps above 0.25 in the 1.5 s after the first sample (a lead-in
  // that does not meet the stream after it shows as one or the other).
  const tap = `class Tap extends AudioWorkletProcessor {
    constructor() { super(); this.blocks = 0; this.first = -1; this.run = 0; this.gaps = 0; this.steps = 0; this.prev = 0; this.done = false; }
    process(inputs) {
      this.blocks++;
      const x = inputs[0] && inputs[0][0];
      // The level and the zero-crossing rate (a crude brightness: running
      // water is hiss, dune wind a rumble) in windows of 1024 frames
      // (23 ms at 44.1 kHz), for the setPlayer → heard figure.
      if (x) {
        for (let i = 0; i < x.length; i++) {
          this.sq = (this.sq || 0) + x[i] * x[i];
          if ((x[i] >= 0) !== ((this.last || 0) >= 0)) this.zc = (this.zc || 0) + 1;
          this.last = x[i];
        }
        this.wn = (this.wn || 0) + x.length;
        if (this.wn >= 1024) {
          this.port.postMessage({ win: currentFrame + x.length - this.wn, rms: Math.sqrt(this.sq / this.wn), zcr: this.zc / this.wn });
          this.sq = 0; this.wn = 0; this.zc = 0;
        }
      }
      if (this.done || !x) return true;
      for (let i = 0; i < x.length; i++) {
        const v = x[i], f = currentFrame + i;
        if (this.first < 0) {
          if (v === 0) continue;
          this.first = f; this.prev = v;
          this.port.postMessage({ frame: f, atFirst: this.blocks === 1 });
        }
        if (v === 0) this.run++; else { if (this.run >= 64) this.gaps++; this.run = 0; }
        if (Math.abs(v - this.prev) > 0.25) this.steps++;
        this.prev = v;
        if (f - this.first >= 1.5 * sampleRate) { this.done = true; this.port.postMessage({ gaps: this.gaps + (this.run >= 64 ? 1 : 0), steps: this.steps }); break; }
      }
      return true;
    }
  }
  registerProcessor('firstsound-tap', Tap);`;
  const tapURL = URL.createObjectURL(new Blob([tap], { type: "text/javascript" }));
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(o) {
      super(o);
      probe.ctx = this;
      if (probe.t.ctxCreated === undefined) probe.t.ctxCreated = now();
      this.__tapIn = new GainNode(this);
      // The analyser sees every frame from the start, so it catches a first
      // sample that precedes the worklet's attachment.
      const an = new AnalyserNode(this, { fftSize: 32768 });
      this.__tapIn.connect(an);
      const buf = new Float32Array(an.fftSize);
      const scan = setInterval(() => {
        if (probe.t.first !== undefined && !probe.late) { clearInterval(scan); return; }
        if (this.state !== "running") return;
        an.getFloatTimeDomainData(buf);
        const i = buf.findIndex((v) => v !== 0);
        if (i < 0) return;
        clearInterval(scan);
        const end = Math.round(this.currentTime * this.sampleRate);
        firstAt(this, end - (buf.length - i), i === 0 && end > buf.length);
      }, 20);
      this.addEventListener("statechange", () => { if (this.state === "running" && probe.t.running === undefined) probe.t.running = now(); });
      this.audioWorklet.addModule(tapURL).then(() => {
        const w = new AudioWorkletNode(this, "firstsound-tap", { numberOfOutputs: 0 });
        w.port.onmessage = (e) => {
          if (e.data.gaps !== undefined) { probe.start = e.data; return; }
          if (e.data.win !== undefined) { probe.rms.push([e.data.win, e.data.rms, e.data.zcr]); if (probe.rms.length > 4000) probe.rms.splice(0, 2000); return; }
          firstAt(this, e.data.frame, e.data.atFirst && this.currentTime > 0.01);
        };
        this.__tapIn.connect(w);
      });
    }
    resume() {
      if (probe.t.resume === undefined && probe.t.click !== undefined) probe.t.resume = now();
      return super.resume();
    }
  };
  const nativeConnect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    const r = nativeConnect.call(this, dest, ...rest);
    if (dest instanceof AudioDestinationNode && this.context.__tapIn) nativeConnect.call(this, this.context.__tapIn);
    return r;
  };
}
