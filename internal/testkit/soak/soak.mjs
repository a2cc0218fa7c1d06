// soak.mjs: the browser half of the long-session harness (internal/testkit/soak,
// run by bench/soak and the e2e soak tests). A user's hour in the demo page,
// shortened or not by the plan: WASD walks, a landmark jump every
// plan.jumpEvery seconds (the page's instances then checked against
// gather's), a switch of data source every plan.switchEvery seconds between
// the page's own server and the export on another origin (the Data source
// box), volume and enable toggles; a sample of what the page holds every
// plan.sampleEvery seconds. Then, one by one, the bad networks of
// plan.faults, each in a fresh page: offline (Chromium's network emulation),
// a server answering 503 with Retry-After, a server stalling mid-wave, a
// 20 kbit/s trickle.
//
//   node soak.mjs PLAYWRIGHT_DIR CHROMIUM PLAN_JSON
//
// It drives the page only through its controls, element ids and
// window.ambient, and prints one JSON object a line (kind: sample, jump,
// switch, toggle, fault, error, end), as it goes: the Go side reads them as
// they come.
import { readFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [pwDir, chromium, planJSON] = process.argv.slice(2);
const plan = JSON.parse(planJSON);
const { chromium: launcher } = await import(pwDir + "/node_modules/playwright-core/index.mjs");

const emit = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const T0 = Date.now();
const secs = () => (Date.now() - T0) / 1000;

// Seeded choices (mulberry32): the same plan walks the same way.
let seed = plan.seed >>> 0 || 1;
const rnd = () => { seed = (seed + 0x6d2b79f5) >>> 0; let t = seed; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };

const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--enable-precise-memory-info",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"];
const profile = mkdtempSync(join(tmpdir(), "acambient-soak-"));
const ctx = await launcher.launchPersistentContext(profile, { executablePath: chromium, headless: true, args, viewport: { width: 1200, height: 800 } });
const page = ctx.pages()[0] || await ctx.newPage();
const cdp = await ctx.newCDPSession(page);
await cdp.send("Network.enable");
// The browser's HTTP cache would answer every return by itself (records are
// immutable): off, so the servers' logs count what the page's own caches miss.
if (plan.cacheDisabled) await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });

// Console errors, page errors and failed requests, with the time and what
// was going on (a fault window expects failures).
let phase = "soak";
const consoleLog = [];
page.on("console", (m) => {
  if (m.type() !== "error" && m.type() !== "warning") return;
  const text = m.text();
  if (m.type() === "warning" && text.includes("ScriptProcessorNode is deprecated")) return; // oto/v2's node; Chromium's notice
  const e = { kind: "console", t: secs(), phase, type: m.type(), text, url: m.location().url || "" };
  consoleLog.push(e);
  emit(e);
});
page.on("pageerror", (e) => { const o = { kind: "console", t: secs(), phase, type: "pageerror", text: String(e.message) }; consoleLog.push(o); emit(o); });
await page.addInitScript(probeSource);

const ctl = async (what, body) => {
  const r = await fetch(plan.control + "/" + what, body ? { method: "POST", body: JSON.stringify(body) } : {});
  if (!r.ok) throw new Error(`control ${what}: ${r.status} ${await r.text()}`);
  return r.json();
};
const counts = async () => (await ctl("counts")).total;
const waitFor = (fn, arg, timeout = 30000) => page.waitForFunction(fn, arg, { timeout, polling: 100 });

let landmarks = [];
let source = "here"; // "here" or "export"
const visited = new Map(); // epoch/name → secs of the last visit

try {
  await openPage(plan.start || "river");
  if (plan.seconds > 0) await soak();
  for (const f of plan.faults || []) await faultCase(f);
} catch (e) {
  emit({ kind: "error", t: secs(), phase, error: String(e && e.stack || e) });
}
// The disposed instances, once nothing of theirs runs (a timer's last
// tick), are collected: forced collections until then, for up to a minute.
let alive = -1;
try {
  for (let i = 0; i < 30; i++) {
    await cdp.send("HeapProfiler.collectGarbage");
    alive = await page.evaluate(() => window.__soak.alive());
    if (alive <= 1) break;
    await sleep(2000);
  }
} catch { /* the page is gone: reported as -1 */ }
emit({ kind: "end", t: secs(), alive, consoleErrors: consoleLog.filter((c) => c.type !== "warning").length });
await ctx.close().catch(() => {});
rmSync(profile, { recursive: true, force: true });

// ---- the session ----

// openPage loads the page fresh (a new instance, cold caches) at a landmark
// and starts the audio with a click on its overlay.
async function openPage(at) {
  await page.goto("about:blank");
  await page.goto(plan.page + "/");
  await waitFor(() => window.ambient && window.ambient.info.landmarks.length > 0, null, 60000);
  landmarks = await page.evaluate(() => window.ambient.info.landmarks.map((l) => ({ name: l.name, where: l.where })));
  source = "here";
  await page.click(`#landmarks button[data-name="${at}"]`);
  await waitSettled(at, 60000);
  const box = await page.locator("#overlay").boundingBox();
  if (box && box.width > 0) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await waitFor(() => window.ambient.running && window.probe.total().frames > 0, null, 20000);
  await page.focus("#map");
}

async function soak() {
  const seq = landmarkSequence();
  let k = 0;
  const start = secs();
  const at = () => secs() - start;
  let nextSample = 0, nextJump = plan.jumpEvery, nextSwitch = plan.switchEvery || Infinity;
  let nextVolume = plan.volumeEvery || Infinity, nextEnable = plan.enableEvery || Infinity;
  let enableBackAt = Infinity;
  let key = null, keyUntil = 0;
  const release = async () => { if (key) { await page.keyboard.up(key); key = null; } };
  while (at() < plan.seconds) {
    const t = at();
    if (t >= nextSample) { await sample(t); nextSample += plan.sampleEvery; }
    if (t >= enableBackAt) { await toggleEnabled(true); enableBackAt = Infinity; }
    // The instances gather computes are those of ambient sounds enabled:
    // they are on again before a jump or a switch.
    if ((t >= nextSwitch || t >= nextJump) && enableBackAt !== Infinity) { await toggleEnabled(true); enableBackAt = Infinity; }
    if (t >= nextSwitch) {
      await release();
      await switchSource();
      nextSwitch += plan.switchEvery;
      nextJump = at() + plan.jumpEvery;
    } else if (t >= nextJump) {
      await release();
      await jump(seq[k++ % seq.length]);
      nextJump = Math.max(nextJump + plan.jumpEvery, at() + 5);
    }
    if (t >= nextVolume) { await setVolume(0.2 + 0.8 * rnd()); nextVolume += plan.volumeEvery; }
    if (t >= nextEnable && enableBackAt === Infinity && nextJump - t > 5 && nextSwitch - t > 5) { await toggleEnabled(false); enableBackAt = t + 3; nextEnable += plan.enableEvery; }
    // Walking: a key held for 2–6 s, now and then a pause.
    if (Date.now() >= keyUntil) {
      await release();
      if (rnd() < 0.8) {
        key = ["KeyW", "KeyA", "KeyS", "KeyD"][Math.floor(rnd() * 4)];
        await page.focus("#map");
        await page.keyboard.down(key);
      }
      keyUntil = Date.now() + 2000 + 4000 * rnd();
    }
    await sleep(250);
  }
  await release();
  if (enableBackAt !== Infinity) await toggleEnabled(true);
  await sample(at());
}

// landmarkSequence alternates a place and a return to the place visited
// three jumps before (about 1.5 minutes ago), now and then seven before.
function landmarkSequence() {
  const names = (plan.landmarks && plan.landmarks.length ? plan.landmarks : landmarks.map((l) => l.name));
  const seq = [];
  let n = 0;
  for (let k = 0; k < 400; k++) {
    if (k % 2 === 1 && k >= 3) seq.push(seq[k - (k % 8 === 7 && k >= 7 ? 7 : 3)]);
    else seq.push(names[n++ % names.length]);
  }
  return seq;
}

// jump clicks a landmark's button and waits until the page's instances are
// gather's there; it counts the record requests the servers saw meanwhile.
async function jump(name) {
  await waitFor(() => window.ambient.state().loading.pending === 0, null, 20000).catch(() => {});
  const epoch = await page.evaluate(() => window.__soak.epoch);
  const seen = visited.get(epoch + "/" + name);
  const before = await counts();
  const t = secs();
  await page.click(`#landmarks button[data-name="${name}"]`);
  const r = await waitSettled(name, 30000);
  const after = await counts();
  await page.focus("#map");
  visited.set(epoch + "/" + name, secs());
  emit({ kind: "jump", t, name, epoch, source, return: seen !== undefined, since: seen === undefined ? null : t - seen,
    requests: after - before, ...r });
}

// waitSettled waits until the player stands at landmark name, nothing is
// pending and the instances equal gather's there (asked of the Go side).
async function waitSettled(name, timeout) {
  const lm = landmarks.find((l) => l.name === name);
  const t0 = Date.now();
  let check = null, checks = 0;
  while (Date.now() - t0 < timeout) {
    const s = await page.evaluate(() => { const s = window.ambient.state(); return { player: s.player, where: s.where, pending: s.loading.pending, sounds: s.sounds }; });
    if (s.where.objcellId === lm.where.objcellId && Math.abs(s.where.x - lm.where.x) < 0.02 && Math.abs(s.where.y - lm.where.y) < 0.02 && s.pending === 0) {
      check = await gather(s.player, s.sounds);
      checks++;
      if (check.equal) break;
    }
    await sleep(200);
  }
  return { equal: !!(check && check.equal), settleMs: Date.now() - t0, checks, diff: check && !check.equal ? check.diff : undefined, sounds: check ? check.got : -1 };
}

function gather(p, sounds) { return ctl("gather", { pos: `${p.objcellId}/${p.x},${p.y},${p.z}`, sounds }); }

// switchSource uses the Data source box: this server ↔ the export on
// another origin. The page replaces its instance and plays on.
async function switchSource() {
  const to = source === "here" ? "export" : "here";
  const epoch = await page.evaluate(() => window.__soak.epoch);
  const t = secs();
  if (to === "export") {
    await page.selectOption("#srcKind", "url");
    await page.fill("#srcURL", plan.export);
  } else {
    await page.selectOption("#srcKind", "here");
  }
  await page.click("#srcForm button");
  await waitFor((e) => window.__soak.epoch > e && window.ambient && window.ambient.info.landmarks.length > 0 && window.ambient.running,
    epoch, 60000);
  source = to;
  emit({ kind: "switch", t, to, ms: Math.round((secs() - t) * 1000), now: await page.evaluate(() => document.getElementById("srcNow").textContent) });
  await page.focus("#map");
}

async function setVolume(v) {
  await page.evaluate((v) => { const e = document.getElementById("volume"); e.value = String(v); e.dispatchEvent(new Event("input", { bubbles: true })); }, v);
  emit({ kind: "toggle", t: secs(), volume: Math.round(v * 100) / 100 });
  await page.focus("#map");
}

async function toggleEnabled(on) {
  const checked = await page.isChecked("#enabled");
  if (checked !== on) await page.click("#enabled");
  emit({ kind: "toggle", t: secs(), enabled: on });
  await page.focus("#map");
}

// sample: what the page holds (memory, caches, loading), the audio at the
// destination, and the page's own words.
async function sample(t) {
  const p = await page.evaluate(() => {
    const a = window.ambient;
    if (!a) return null;
    const s = a.state();
    return {
      stats: a.stats(), voices: s.voices.length, sounds: s.sounds.length, held: s.heldInstances, where: s.where.objcellId,
      jsHeap: performance.memory ? { used: performance.memory.usedJSHeapSize, total: performance.memory.totalJSHeapSize } : null,
      tap: window.probe.total(), epoch: window.__soak.epoch, instances: window.__soak.instances, alive: window.__soak.alive(),
      load: document.getElementById("loadState").textContent, errors: document.getElementById("errors").textContent,
      gapAt: window.probe.takeGaps(), now: performance.now(),
    };
  });
  // Each gap on this script's clock (that of jumps, switches and toggles).
  if (p) {
    const tn = secs();
    for (const [ms, frames] of p.gapAt) emit({ kind: "gap", phase, t: tn - (p.now - ms) / 1000, frames });
    delete p.gapAt; delete p.now;
  }
  const heap = await cdp.send("Runtime.getHeapUsage").catch(() => null);
  emit({ kind: "sample", t, phase, source, ...p, cdpHeap: heap, renderer: rendererMemory(), requests: await counts(),
    consoleErrors: consoleLog.filter((c) => c.type !== "warning").length });
}

// rendererMemory sums VmRSS and VmHWM over the renderers of this browser
// (its profile folder is on their command line): the tab as the system sees it.
function rendererMemory() {
  let rss = 0, hwm = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmd;
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8"); } catch { continue; }
    if (!cmd.includes("--type=renderer") || !cmd.includes(profile)) continue;
    let st;
    try { st = readFileSync(`/proc/${pid}/status`, "utf8"); } catch { continue; }
    const m1 = /VmRSS:\s+(\d+) kB/.exec(st), m2 = /VmHWM:\s+(\d+) kB/.exec(st);
    if (m1) rss += 1024 * Number(m1[1]);
    if (m2) hwm += 1024 * Number(m2[1]);
  }
  return { rss, hwm };
}

// ---- bad networks ----

// faultCase: a fresh page at holtburg and a walk east; the fault starts 2 s
// into the walk, a second later the player jumps to a far landmark the page
// has not loaded (plan.faultJump, the coast: surf and gulls, waves of its own) and walks on, and the walk
// stops when the fault ends, where the player then stands. Measured: what
// the page says while it lasts (the load pill and the error area), whether
// what was playing goes on (voices and RMS at the destination), and how
// long after the network comes back the page's instances equal gather's
// where the player stands, with nothing pending.
async function faultCase(kind) {
  phase = "fault:" + kind;
  const dur = { offline: 10, 503: 20, stall: 20, trickle: 20 }[kind] ?? 10;
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await openPage(plan.faultStart || "holtburg");
  const c0 = await counts();
  await page.focus("#map");
  await page.keyboard.down("KeyD");
  await sleep(2000);
  const tap0 = await page.evaluate(() => window.probe.total());
  const startAt = secs();
  switch (kind) {
    case "offline": await cdp.send("Network.emulateNetworkConditions", { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }); break;
    case "trickle": await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 40, downloadThroughput: 2500, uploadThroughput: 2500 }); break;
    case "503": await ctl("fault", { server: "a", mode: "503", ms: dur * 1000 }); break;
    case "stall": await ctl("fault", { server: "a", mode: "stall", ms: dur * 1000 }); break;
    default: throw new Error("no fault " + kind);
  }
  // Into land the page has not loaded (its prefetch ring covers a walk of
  // seconds): a jump to a far landmark, and the walk goes on from there.
  await sleep(1000);
  await page.keyboard.up("KeyD");
  await page.click(`#landmarks button[data-name="${plan.faultJump || "coast"}"]`);
  await page.focus("#map");
  await page.keyboard.down("KeyD");
  // While it lasts: what the page says, and what is heard.
  const said = new Map(), errs = new Map();
  let minVoices = Infinity, maxPending = 0;
  while (secs() - startAt < dur) {
    const s = await page.evaluate(() => ({ load: document.getElementById("loadState").textContent, errors: document.getElementById("errors").textContent,
      voices: window.ambient.state().voices.length, pending: window.ambient.state().loading.pending }));
    said.set(s.load, (said.get(s.load) || 0) + 1);
    for (const line of s.errors.split("\n").filter(Boolean)) errs.set(line, (errs.get(line) || 0) + 1);
    minVoices = Math.min(minVoices, s.voices);
    maxPending = Math.max(maxPending, s.pending);
    await sleep(500);
  }
  await page.keyboard.up("KeyD");
  const tap1 = await page.evaluate(() => window.probe.total());
  switch (kind) {
    case "offline": case "trickle":
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }); break;
    default: await ctl("fault", { server: "a", mode: "", ms: 0 });
  }
  const backAt = secs();
  // Heal: the instances where the player stands are gather's, nothing
  // pending, nothing lacking. Timed from the network's return.
  let check = null, healed = null, checks = 0;
  const after = new Map();
  while (secs() - backAt < (plan.healTimeout || 90)) {
    const s = await page.evaluate(() => { const s = window.ambient.state(); return { player: s.player, pending: s.loading.pending, sounds: s.sounds,
      load: document.getElementById("loadState").textContent }; });
    after.set(s.load, (after.get(s.load) || 0) + 1);
    if (s.pending === 0) {
      check = await gather(s.player, s.sounds);
      checks++;
      if (check.equal) { healed = secs() - backAt; break; }
    }
    await sleep(200);
  }
  await sleep(1500);
  const tap2 = await page.evaluate(() => window.probe.total());
  const final = await page.evaluate(() => { const s = window.ambient.state(); return { where: s.where.objcellId, voices: s.voices.length, loading: s.loading,
    load: document.getElementById("loadState").textContent, errors: document.getElementById("errors").textContent, stats: window.ambient.stats() }; });
  const rms = (a, b) => (b.frames - a.frames) > 0 ? Math.sqrt((b.sumsq - a.sumsq) / (b.frames - a.frames)) : 0;
  emit({ kind: "fault", fault: kind, t: startAt, seconds: dur, requests: (await counts()) - c0,
    said: [...said.entries()], errors: [...errs.entries()], after: [...after.entries()],
    during: { minVoices, maxPending, rms: rms(tap0, tap1), secs: (tap1.frames - tap0.frames) / 48000 },
    healed, checks, healDiff: check && !check.equal ? check.diff : undefined, sounds: check ? check.got : -1,
    afterHeal: { rms: rms(tap1, tap2) }, final });
  phase = "soak";
}

// ---- the probe (runs in the page before its scripts) ----

function probeSource() {
  // Taps whatever reaches each AudioContext's destination
  // (docs/browser-testing.md §4) and keeps the totals over every context the
  // page makes (one per instance: a source switch makes a new one).
  // gaps: runs of exact zeros between sound, of 2 to 16383 frames (a
  // dropout is inserted silence); silences: longer runs (nothing plays);
  // quantum: gaps of whole 128-frame render quanta (the ScriptProcessor's
  // own dropouts are one quantum); steps: clicks, sample-to-sample jumps
  // over 0.25 and over eight times the signal's recent mean step (loud
  // noise, water and surf, steps that far by itself).
  const probe = window.probe = { contexts: [], gapAt: [] };
  // takeGaps hands over the gaps seen since it was last called: [page ms, frames].
  probe.takeGaps = () => probe.gapAt.splice(0);
  const tap = `class Tap extends AudioWorkletProcessor {
    constructor() { super(); this.s = { frames: 0, sound: 0, sumsq: 0, gaps: 0, gapFrames: 0, quantum: 0, silences: 0, steps: 0, maxGap: 0 }; this.prev = 0; this.avg = 0; this.run = 0; this.started = false; this.blocks = 0; this.at = []; }
    endRun() { const s = this.s, n = this.run; this.run = 0;
      if (n < 2) return;
      if (n < 16384) { s.gaps++; s.gapFrames += n; s.maxGap = Math.max(s.maxGap, n); if (n % 128 === 0) s.quantum++; this.at.push([currentTime, n]); }
      else s.silences++; }
    process(inputs) {
      const s = this.s; this.blocks++;
      const x = (inputs[0] && inputs[0][0]) || new Float32Array(128);
      for (let i = 0; i < x.length; i++) {
        const v = x[i];
        if (!this.started) { if (v === 0) continue; this.started = true; this.prev = v; }
        s.frames++; s.sumsq += v * v;
        if (v !== 0) { s.sound++; if (this.run) this.endRun(); } else this.run++;
        const d = Math.abs(v - this.prev);
        if (d > 0.25 && d > 8 * this.avg) s.steps++;
        this.avg += (d - this.avg) / 64;
        this.prev = v;
      }
      if ((this.blocks & 15) === 0) { this.port.postMessage({ s, at: this.at }); this.at = []; }
      return true;
    }
  }
  registerProcessor('soak-tap', Tap);`;
  const tapURL = URL.createObjectURL(new Blob([tap], { type: "text/javascript" }));
  const Native = window.AudioContext;
  window.AudioContext = class extends Native {
    constructor(o) {
      super(o);
      const rec = { stats: null };
      probe.contexts.push(rec);
      const tapIn = new GainNode(this);
      this.__tapIn = tapIn;
      this.audioWorklet.addModule(tapURL).then(() => {
        if (this.state === "closed") return;
        const w = this.__tap = new AudioWorkletNode(this, "soak-tap", { numberOfOutputs: 0 });
        // A gap's time on the page's clock, from the context time the
        // worklet saw it at: which event it followed (a jump, a toggle).
        w.port.onmessage = (e) => {
          rec.stats = e.data.s;
          for (const [at, n] of e.data.at) probe.gapAt.push([performance.now() - (this.currentTime - at) * 1000, n]);
        };
        tapIn.connect(w);
      });
    }
    // A worklet node whose port listens is a pending activity that keeps
    // its context, and through the page's nodes on it the whole disposed
    // instance, alive after close (measured: every switched-from instance
    // stayed in memory with the tap, none without): the tap lets go.
    close() {
      const w = this.__tap;
      if (w) { w.port.onmessage = null; w.port.close(); w.disconnect(); this.__tap = null; }
      this.__tapIn.disconnect();
      return super.close();
    }
  };
  const nativeConnect = AudioNode.prototype.connect;
  AudioNode.prototype.connect = function (dest, ...rest) {
    const r = nativeConnect.call(this, dest, ...rest);
    if (dest instanceof AudioDestinationNode && this.context.__tapIn) nativeConnect.call(this, this.context.__tapIn);
    return r;
  };
  probe.total = () => {
    const t = { frames: 0, sound: 0, sumsq: 0, gaps: 0, gapFrames: 0, quantum: 0, silences: 0, steps: 0, maxGap: 0 };
    for (const c of probe.contexts) {
      if (!c.stats) continue;
      for (const k of Object.keys(t)) t[k] = k === "maxGap" ? Math.max(t[k], c.stats[k]) : t[k] + c.stats[k];
    }
    return t;
  };
  // Which instance is window.ambient: a source switch replaces it.
  const soak = window.__soak = { epoch: 0, instances: 0, errors: [], refs: [] };
  // How many of the instances the page made are still in memory: a
  // disposed one must be collectable (its linear memory with it).
  soak.alive = () => soak.refs.filter((r) => r.deref() !== undefined).length;
  let last = null;
  setInterval(() => {
    const a = window.ambient;
    if (a && a !== last) {
      last = a;
      soak.epoch++;
      soak.instances++;
      soak.refs.push(new WeakRef(a));
      a.on("error", (e) => { if (soak.errors.length < 200) soak.errors.push({ at: Date.now(), code: e.code, message: e.message }); });
    }
  }, 20);
}
