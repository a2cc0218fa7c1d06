// run.mjs: the browser half of bench/firstsound (main.go runs it).
//
//   node run.mjs PLAYWRIGHT_DIR CHROMIUM URL CONFIG_JSON
//
// CONFIG: {runs, mode: "visit"|"click", link, mbit (0: no emulation),
// latencyMs}. Each run launches Chromium on a fresh profile; "visit" opens
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
    const net = new NetLog(cdp);
    await cdp.send("Network.enable");
    const visits = cfg.mode === "click" ? [false] : [false, true];
    for (const warm of visits) {
      if (warm) await page.goto("about:blank");
      if (cfg.mbit > 0) {
        // Applied before each navigation: the emulation is the target's, and
        // covers every request the page makes, the wasm's fetch() included.
        const bps = cfg.mbit * 1e6 / 8;
        await cdp.send("Network.emulateNetworkConditions", {
          offline: false, latency: cfg.latencyMs, downloadThroughput: bps, uploadThroughput: bps,
        });
      }
      net.reset();
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
        if (m.toPage) m.profile = { file, start: m.toPage(profile.startTime / 1e6) };
      }
      delete m.toPage;
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
  const p = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    return { t: window.probe.t, late: window.probe.late, start: window.probe.start || null, long: window.probe.long, requestStart: nav ? nav.requestStart : -1, timeOrigin: performance.timeOrigin };
  });
  const toPage = net.clock(p);
  const first = p.t.first;
  const out = {
    toPage,
    ready: p.t.ready, click: p.t.click, first, firstLate: !!p.late,
    bytesFirst: net.bytesBefore(toPage, first),
    bytesAll: net.bytesBefore(toPage, Infinity),
    loaded: net.lastFinish(toPage),
    requests: net.reqs.size,
    netRecords: 0, netRecords200: 0,
    wasm: { status: 0, fromCache: false, bytes: 0, ms: -1 },
    clicks: {},
    startGaps: p.start ? p.start.gaps : -1, startSteps: p.start ? p.start.steps : -1,
  };
  if (cfg.timeline) {
    out.long = p.long;
    out.timeline = [...net.reqs.values()].map((r) => ({
      url: r.url.replace(/^https?:\/\/[^/]+/, ""), status: r.wire || r.status, cached: !r.overNetwork(),
      start: Math.round(toPage(r.start)), end: r.end >= 0 ? Math.round(toPage(r.end)) : -1, bytes: r.total,
    })).sort((a, b) => a.start - b.start);
  }
  for (const r of net.reqs.values()) {
    if (/\/files\/0x[0-9A-Fa-f]{8}$/.test(r.url) && r.overNetwork()) {
      out.netRecords++;
      if (r.status === 200) out.netRecords200++;
    }
    if (/ambient\.wasm(\?|$)/.test(r.url)) {
      out.wasm = { status: r.wire || r.status, fromCache: !r.overNetwork(), bytes: r.encoded(), ms: r.end >= 0 ? (r.end - r.start) * 1000 : -1, at: toPage(r.start) };
      out.wasmRequests = (out.wasmRequests || 0) + 1;
    }
  }
  for (const k of ["clickEvent", "start", "goStart", "ctx", "sp", "goStarted", "resume", "running", "firstProcess", "first"]) {
    const v = p.t[k === "ctx" ? "ctxCreated" : k === "sp" ? "spCreated" : k];
    out.clicks[k] = v !== undefined && p.t.click !== undefined ? v - p.t.click : -1;
  }
  for (const [k, v] of Object.entries(p.t)) if (k.startsWith("x:") && p.t.click !== undefined) out.clicks[k] = v - p.t.click;
  return out;
}

// loaded waits for the host to have nothing pending and the network to
// have been quiet for a second.
async function loaded(page, net) {
  const t0 = Date.now();
  for (;;) {
    const pending = await page.evaluate(() => window.ambient ? window.ambient.state().loading.pending : -1);
    if (pending === 0 && net.inflight() === 0 && Date.now() - net.lastEvent > 1000) return;
    if (Date.now() - t0 > 180000) throw new Error("the load did not end in 180 s");
    await T(100);
  }
}

// NetLog keeps the CDP Network events of one navigation.
class NetLog {
  constructor(cdp) {
    this.reset();
    const get = (id) => this.reqs.get(id);
    cdp.on("Network.requestWillBeSent", (e) => {
      this.lastEvent = Date.now();
      if (!e.request.url.startsWith("http")) return;
      const r = get(e.requestId);
      if (r) { r.url = e.request.url; return; } // a redirect: the same id
      this.reqs.set(e.requestId, new Req(e));
    });
    cdp.on("Network.requestServedFromCache", (e) => { const r = get(e.requestId); if (r) r.cached = true; });
    // The status as sent (a revalidation's 304, which responseReceived
    // reports as the cached answer's 200).
    cdp.on("Network.responseReceivedExtraInfo", (e) => { const r = get(e.requestId); if (r) r.wire = e.statusCode; });
    cdp.on("Network.responseReceived", (e) => {
      this.lastEvent = Date.now();
      const r = get(e.requestId);
      if (!r) return;
      r.status = e.response.status;
      r.cached = r.cached || e.response.fromDiskCache || e.response.fromPrefetchCache || e.response.fromServiceWorker;
      if (e.type === "Document" && e.response.timing) r.timing = e.response.timing;
    });
    cdp.on("Network.dataReceived", (e) => {
      this.lastEvent = Date.now();
      const r = get(e.requestId);
      if (r) r.chunks.push([e.timestamp, e.encodedDataLength]);
    });
    cdp.on("Network.loadingFinished", (e) => {
      this.lastEvent = Date.now();
      const r = get(e.requestId);
      if (r) { r.end = e.timestamp; r.total = e.encodedDataLength; }
    });
    cdp.on("Network.loadingFailed", (e) => {
      this.lastEvent = Date.now();
      const r = get(e.requestId);
      if (r) { r.end = e.timestamp; r.failed = true; }
    });
  }

  reset() { this.reqs = new Map(); this.lastEvent = Date.now(); }
  inflight() { let n = 0; for (const r of this.reqs.values()) if (r.end < 0) n++; return n; }

  // clock maps a CDP timestamp (monotonic seconds) to the page's clock (ms
  // since its navigation started): the document's request start is known
  // on both (Navigation Timing's requestStart is the load timing's
  // sendStart); without it, through the wall clock.
  clock(p) {
    let doc = null;
    for (const r of this.reqs.values()) if (r.timing && !doc) doc = r;
    if (doc && p.requestStart > 0) {
      const at = doc.timing.requestTime * 1000 + doc.timing.sendStart;
      return (ts) => ts * 1000 - at + p.requestStart;
    }
    const r = this.reqs.values().next().value;
    return (ts) => (ts - r.start + r.wall) * 1000 - p.timeOrigin;
  }

  // bytesBefore sums the encoded bytes received up to page time t.
  bytesBefore(toPage, t) {
    let n = 0;
    for (const r of this.reqs.values()) {
      if (r.end >= 0 && !r.failed && toPage(r.end) <= t) { n += r.total; continue; }
      for (const [ts, b] of r.chunks) if (toPage(ts) <= t) n += b;
    }
    return n;
  }

  lastFinish(toPage) {
    let t = -1;
    for (const r of this.reqs.values()) if (r.end >= 0) t = Math.max(t, toPage(r.end));
    return t;
  }
}

class Req {
  constructor(e) {
    this.url = e.request.url; this.start = e.timestamp; this.wall = e.wallTime;
    this.status = 0; this.wire = 0; this.cached = false; this.end = -1; this.total = 0; this.failed = false; this.chunks = [];
  }
  overNetwork() { return !this.cached && this.status > 0 && this.total > 0; }
  encoded() { return this.total; }
}

await main();

function probeSource() {
  // Runs before any page script (docs/browser-testing.md §4): taps what reaches
  // the destination, and notes, on the page's clock, when the page asks for
  // the click, the click, the audio context's steps and the first non-zero
  // sample.
  const probe = window.probe = { t: {}, late: false, long: [] };
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
  // The page's start() and the Go side's, timed from outside.
  const hook = setInterval(() => {
    const a = window.ambient;
    if (!a || !a._api) return;
    clearInterval(hook);
    const api = a._api, goStart = api.start, start = a.start;
    api.start = function (...x) {
      if (probe.t.goStart === undefined) probe.t.goStart = now();
      try { return goStart.apply(this, x); } finally { if (probe.t.goStarted === undefined) probe.t.goStarted = now(); }
    };
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
          firstAt(this, e.data.frame, e.data.atFirst && this.currentTime > 0.01);
        };
        this.__tapIn.connect(w);
      });
    }
    resume() {
      if (probe.t.resume === undefined && probe.t.click !== undefined) probe.t.resume = now();
      return super.resume();
    }
    createScriptProcessor(...a) {
      const sp = super.createScriptProcessor(...a);
      if (probe.t.spCreated === undefined) probe.t.spCreated = now();
      sp.addEventListener("audioprocess", () => { if (probe.t.firstProcess === undefined) probe.t.firstProcess = now(); });
      return sp;
    }
  };
  const nativeConnect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    const r = nativeConnect.call(this, dest, ...rest);
    if (dest instanceof AudioDestinationNode && this.context.__tapIn) nativeConnect.call(this, this.context.__tapIn);
    return r;
  };
}
