// ambient.worker.js: the engine's thread (docs/architecture.md, "The page's
// threads"). www/ambient.js starts it as a module worker; it runs Go's glue
// (wasm_exec.js) and ambient.wasm, so the session, the fetches, the engine
// and the mixer never hold the page's main thread. It answers the page's
// messages (ambient.js Link) and posts back replies, events and the latest
// snapshots; the samples go straight to the page's AudioWorklet
// (ambient.worklet.js) over a MessagePort the page hands over.
//
// oto/v2 makes its output here against the stand-in below (StandInContext):
// exactly the Web Audio members its js driver uses. Its ScriptProcessor's
// "audioprocess" events are fired by Output: at the engine's own pace before
// the audio runs, and at the worklet's demand after.

// The worker imports nothing: some bundlers (Rollup's import-meta-assets,
// webpack's asset URL) copy this script as it is, beside no sibling, and a
// worker does not see the page's import map (so a sibling would be fetched
// unversioned). The few facts of geo.js it needs (docs/dat-format.md §8:
// 24 m cells, 8 to a landblock side, 255 landblocks) are restated here;
// keep them equal to geo.js's.
const BLOCK = 24 * 8;
const BLOCKS = 255;
const WORLD = BLOCK * BLOCKS;
const hex = (id) => "0x" + (Number(id) >>> 0).toString(16).toUpperCase().padStart(8, "0");
const landblockId = (bx, by) => ((bx << 24) | (by << 16) | 0xffff) >>> 0;
function ring(bx, by) {
  const out = [];
  for (let x = bx - 1; x <= bx + 1; x++) {
    for (let y = by - 1; y <= by + 1; y++) {
      if (x >= 0 && y >= 0 && x < BLOCKS && y < BLOCKS) out.push([x, y]);
    }
  }
  return out;
}


// The region record: what the Go side asks for first.
const REGION = "0x13000000";

// The landblock listing beside the cell records (datfetch.LandblocksListing).
const LISTING = "landblocks.txt";

// How often the Go side's events and snapshots are read and posted (ms).
// Plays are reported a little after they start; the audio is not affected.
const POLL_MS = 100;

// How often the engine's clock is kept while no worklet asks for samples
// (ms): before the click, after stop(), and while the audio thread is
// silent longer than QUIET_MS.
const CLOCK_MS = 20;
const QUIET_MS = 500;

// How often the stats are posted (ms): stats() is at most this old.
const STATS_MS = 500;

// The pre-roll: the frames of the clock's latest mixing that the worklet
// gets first when the audio starts (two chunks, 43 ms at 48 kHz), where it
// did not take the clock's chunks as they were mixed (PRE_FLIGHT). What
// was mixed before them is the past: a queue's worth of it (683 ms) put the
// first sound, mixed just before a click at started(), 0.4–0.7 s after the
// click (bench/firstsound). The rest of the queue is mixed ahead at once.
const PREROLL = 2048;

// Before the click the clock's chunks go to the worklet as they are mixed
// (ambient.worklet.js HOLD keeps the latest), so the click plays with no
// message through this thread. A worklet that takes no message while its
// context waits (none of the three engines here) gets this many frames
// unacknowledged, then the pre-roll instead, and at the start a flush of
// what it will take late; one that does may be this far behind while this
// thread is busy (a clock tick after a long task mixes up to 250 ms).
const PRE_FLIGHT = 12288;

// How many chunks ahead of real time the clock mixes at started(), for the
// first sound (Output.ahead): a tick's wait (1600 frames at 30 Hz) and
// oto's read-ahead (up to twice wasm/audio.go playerFrames, 4096) are 5.6
// chunks at most; the sound came in the third mostly (bench/firstsound),
// and after the fourth once in three runs.
const AHEAD = 8;

// ---- the stand-in oto/v2's js driver runs on (driver_js.go, v2.4.3)

// StandInBuffer is the "audioprocess" event's outputBuffer: what
// copyToChannel writes (planar) is one chunk of the stream.
class StandInBuffer {
  constructor(frames, channels) {
    this.length = frames;
    this.numberOfChannels = channels;
    this.data = new Float32Array(frames * channels);
  }
  copyToChannel(src, ch, start = 0) { this.data.set(src.subarray(0, this.length - start), ch * this.length + start); }
  getChannelData(ch) { return this.data.subarray(ch * this.length, (ch + 1) * this.length); }
}

// StandInProcessor is oto's ScriptProcessorNode: it keeps oto's listener
// (an EventTarget's), and render fires one event and hands over its chunk.
class StandInProcessor extends EventTarget {
  constructor(frames, channels) {
    super();
    this.bufferSize = frames;
    this.channels = channels;
  }
  connect() {}
  disconnect() {}
  render() {
    const ev = new Event("audioprocess");
    ev.outputBuffer = new StandInBuffer(this.bufferSize, this.channels);
    this.dispatchEvent(ev);
    return ev.outputBuffer.data;
  }
}

// StandInContext is oto's AudioContext: the constructor, destination,
// createScriptProcessor, resume and suspend. The page's real AudioContext
// (ambient.js) is resumed and suspended there; these only note it.
class StandInContext {
  constructor(o = {}) {
    this.sampleRate = o.sampleRate || 48000;
    this.destination = {};
    this.state = "suspended";
    StandInContext.made = this;
  }
  createScriptProcessor(frames, _inputs, channels) { return (this.processor = new StandInProcessor(frames, channels)); }
  resume() { this.state = "running"; return Promise.resolve(); }
  suspend() { this.state = "suspended"; return Promise.resolve(); }
  close() { return Promise.resolve(); }
}

// The worker's own globals (nothing of the page's): oto looks its context
// constructor up there, and adds its gesture listeners to a document, which
// in a worker never gets a gesture.
globalThis.AudioContext = StandInContext;
globalThis.document = new EventTarget();

// Output drives oto's stand-in processor: it keeps the worklet's queue at
// its target (what the worklet last said it held, less what is on its way),
// and while nothing asks keeps the engine's clock, its chunks going to the
// worklet, which holds the latest for the moment the audio starts (or,
// where it does not take them then, kept here: the pre-roll).
class Output {
  constructor() {
    this.sp = null; // oto's processor, once the Go side has opened
    this.port = null; // to the worklet
    this.target = 8192;
    this.running = false; // the page says its context runs
    this.sent = 0; // frames posted to the worklet
    this.mixed = false; // a chunk with sound in it has been mixed
    this.reportAt = 0; // when the worklet last reported
    this.received = 0; // frames the worklet had received, as it last reported
    this.holds = false; // it took a chunk while its context waited (ambient.worklet.js HOLD)
    this.queued = 0; // frames it held then
    this.preroll = []; // chunks mixed on the clock, the latest PREROLL frames
    this.clockAt = 0;
    this.debt = 0; // frames due on the clock, not yet mixed
    this.counts = { underruns: 0, queued: 0, played: 0, skipped: 0 };
    this.renders = 0; // chunks rendered for the worklet
    this.renderMs = 0; // the time they took
    this.stalls = 0; // ticks of the clock late by half the queue or more while feeding
    this.stallMs = 0; // the longest gap between two ticks, ms
    this.timer = setInterval(() => this.clock(), CLOCK_MS);
  }

  attach(sp) { this.sp = sp; this.clockAt = performance.now(); }

  connect(port, target) {
    this.port = port;
    this.target = target;
    port.onmessage = (e) => this.onReport(e.data);
    this.kick();
  }

  setRunning(on) {
    this.running = on;
    if (!on) this.idle();
    this.kick();
  }

  // idle stops feeding the worklet and drops what its queue holds: by the
  // time it plays again, that is stale; the clock takes over.
  idle() {
    if (!this.feeding) return;
    this.feeding = false;
    if (this.port) this.flush();
  }

  // flush empties the worklet's queue: what was sent counts as received.
  flush() {
    this.port.postMessage({ flush: true });
    this.received = this.sent;
    this.queued = 0;
  }

  // kick starts the worklet's feed: what it holds of the clock's mixing
  // (or the pre-roll) first, then the demand.
  kick() {
    if (!this.running || !this.port || !this.sp || this.feeding) return;
    this.feeding = true;
    mark("fed");
    state.tiles.go();
    // Chunks sent to a worklet that takes none while its context waits are
    // taken now, old.
    if (!this.holds && this.sent > this.received) this.flush();
    this.reportAt = performance.now();
    for (const c of this.preroll) this.send(c);
    this.preroll = [];
    this.fill(this.queued, this.received);
  }

  onReport(r) {
    this.reportAt = performance.now();
    this.received = r.received;
    this.queued = r.queued;
    if (r.live === false) this.holds = true;
    this.counts = { underruns: r.underruns, queued: r.queued, played: r.played, skipped: r.skipped };
    if (this.feeding) this.fill(r.queued, r.received);
    else if (r.live) this.kick(); // the audio thread runs (again: a gesture let the context resume)
  }

  // fill tops the worklet's queue up to the target: what it held when it
  // reported, and what was sent since, count.
  fill(queued, received) {
    const chunk = this.sp.bufferSize;
    let need = this.target - queued - (this.sent - received);
    while (need >= chunk) {
      const t0 = performance.now();
      this.send(this.render());
      this.renderMs += performance.now() - t0;
      this.renders++;
      need -= chunk;
    }
  }

  // render mixes the next chunk, noting on it whether it holds sound (the
  // first such: the "sound" step of the start).
  render() {
    const c = this.sp.render();
    c.sound = c.some((x) => x !== 0);
    if (c.sound && !this.mixed) {
      this.mixed = true;
      mark("sound");
    }
    return c;
  }

  // send posts a chunk (render's), saying whether it holds sound: the
  // worklet skips silence queued ahead of a sound (ambient.worklet.js KEEP).
  send(data, pre = false) {
    this.sent += data.length / 2;
    this.port.postMessage({ chunk: data, sound: data.sound, pre }, [data.buffer]);
  }

  // clock mixes what real time made due while no worklet asks: the engine
  // lives (plays, loads) while silent.
  clock() {
    const now = performance.now();
    // A tick late by half the queue or more (ms at 48 kHz) is the worker's
    // own thread held (its Go busy, or no core free), which can starve the
    // worklet whatever the page's main thread does: counted, for stats().
    const gap = now - this.clockAt;
    if (this.feeding && gap >= this.target / 96) this.stalls++;
    this.stallMs = Math.max(this.stallMs, gap);
    const dt = Math.min(gap, 250); // a throttled tab does not race to catch up
    this.clockAt = now;
    if (!this.sp) return;
    if (this.feeding) {
      if (this.running && now - this.reportAt < QUIET_MS) return;
      this.idle(); // the audio thread does not ask (the context waits for a gesture): keep the clock
    }
    this.debt += (dt / 1000) * 48000;
    while (this.debt >= this.sp.bufferSize) this.mix();
  }

  // ahead mixes the clock's next chunks now, before real time makes them
  // due, until one holds sound (AHEAD at most): once the first wave is in,
  // the engine plays it at its next tick, and oto's read-ahead
  // (wasm/audio.go playerFrames) puts it a chunk or two later in the
  // stream; at the clock's pace that was 100–150 ms after started()
  // (bench/firstsound), and a click then played silence meanwhile. The
  // clock then waits for real time to catch up.
  ahead() {
    if (!this.sp || this.feeding) return;
    for (let i = 0; i < AHEAD && !this.mixed; i++) this.mix();
  }

  // mix mixes one chunk on the clock: to the worklet while it takes them,
  // else into the pre-roll.
  mix() {
    const chunk = this.sp.bufferSize;
    this.debt -= chunk;
    this.preroll.push(this.render());
    while (this.preroll.length * chunk > PREROLL) this.preroll.shift();
    if (this.port && this.sent - this.received < PRE_FLIGHT) {
      for (const p of this.preroll) this.send(p, true);
      this.preroll = [];
    }
  }

  close() {
    clearInterval(this.timer);
    if (this.port) this.port.close();
  }
}


// TileGate holds the map's far tiles while the first sound loads and
// starts, then lets them go one a task. Released together when started()
// resolved, a hundred tile calls ran in one task of the worker (each a Go
// call, a fetch, a decode): the click that came with "Click to listen"
// waited behind them, 130 ms from start() to the first chunk fed
// (bench/firstsound). They go once the worklet is fed, or TILES_MS after
// started() when no click comes; one a task, so that a message (the
// click's, a setPlayer) waits behind one tile at most.
class TileGate {
  constructor() {
    this.open = false;
    this.timer = 0;
    this.queued = 0; // tiles waiting for their turn
    this.last = Promise.resolve();
    this.opened = new Promise((resolve) => { this._open = resolve; });
  }

  // started: the first sound can be heard; the tiles go soon, click or not.
  started() { this.timer ||= setTimeout(() => this.go(), TILES_MS); }

  // go lets the tiles through: the audio runs, or the wait is over.
  go() {
    if (this.open) return;
    this.open = true;
    clearTimeout(this.timer);
    this._open();
  }

  // turn resolves when a far tile may load: the gate open, and a task of
  // its own (one after the other).
  turn() {
    if (this.open && this.queued === 0) return Promise.resolve();
    this.queued++;
    const next = this.last.then(() => this.opened).then(() => new Promise((r) => setTimeout(r, 0)));
    this.last = next.then(() => { this.queued--; });
    return next;
  }
}

// How long the far tiles wait after started() for a click (ms).
const TILES_MS = 1000;

// ---- the instance

const state = {
  api: null, // the Go side's API object (wasm/main.go)
  memory: null,
  early: null,
  output: new Output(),
  opened: null, // resolves once open() has
  lastOff: undefined, // the off-data landblock last posted (null: none); undefined before the first
  lastStats: 0,
  presence: null,
  started: null, // settles once a first sound could be heard (the Go side's started())
  tiles: new TileGate(),
  block: null, // the listener's landblock [bx, by]: where the page last asked to go, else the latest state's
  atWait: null, // resolves with the page's answer to the region's name
  firstWave: "", // the first wave record the Go side asked for
  pageModule: null, // takes the page's "module" message: the wasm it compiled, or why not (runWasm)
};

const post = (m, transfer) => self.postMessage(m, transfer || []);

// mark names a step of the start in the worker's performance timeline
// (devtools' Performance panel shows it; bench/firstsound reads them): the
// cold start's time is spent across these, and a regression shows which.
const mark = (name) => { try { performance.mark("acambient:" + name); } catch { /* a timeline is a nicety */ } };
mark("worker");

// aim makes pos (a POS, as the page sends it) the listener's landblock
// from now, ahead of the engine's move there: the map asks for its tiles
// before the engine has moved (TileGate).
function aim(pos) {
  const spot = typeof pos === "string" ? spotOf(pos) : null;
  if (spot) state.block = [spot.bx, spot.by];
}

// errorOf is an error as a message carries it (ambient.js rebuilds the Error).
function errorOf(e) {
  if (!e || typeof e !== "object") return { code: "wasm", message: String(e) };
  const o = { code: e.code || "wasm", message: e.message || String(e) };
  for (const k of ["id", "landblock", "reason", "status"]) if (e[k]) o[k] = e[k];
  return o;
}

// call runs a synchronous Go method: a failure comes back as an Error value.
function call(name, ...args) {
  const v = state.api[name](...args);
  if (v instanceof Error) throw v;
  return v;
}

self.onmessage = (e) => {
  const m = e.data;
  switch (m.t) {
    case "init": init(m); break;
    case "module": state.pageModule?.(m); break;
    case "at": if (!state.block) aim(m.pos); state.atWait?.(m.pos); break;
    case "port": state.output.connect(m.port, m.target); break;
    case "audio": state.output.setRunning(m.running); break;
    case "call": answer(m); break;
    case "tell": tell(m); break;
  }
};

async function init(m) {
  let waved = false;
  const wave = () => { if (!waved) { waved = true; post({ t: "wave" }); } };
  const early = (state.early = new EarlyFetches((url) => {
    if (!WAVE.test(url)) return;
    state.firstWave ||= url;
    wave();
  }));
  const at = m.at === "ask"
    ? (name) => new Promise((resolve) => { state.atWait = resolve; post({ t: "region", name }); })
    : m.at;
  if (m.at !== "ask") aim(m.at);
  // Settles once the wasm is compiled (or failed): its bytes are all in.
  let wasmIn;
  const compiled = new Promise((resolve) => { wasmIn = resolve; });
  prefetch(early, { portal: m.portal, cell: m.cell, listing: m.listing, at, hints: m.hints, onWave: wave, after: compiled }).catch(() => {});
  try {
    state.api = await runWasm(m.wasm, m.wasmExec, m.module, wasmIn);
    mark("go");
  } catch (err) {
    early.drop();
    post({ t: "opened", error: { code: "wasm", message: `ambient: ${m.wasm}: ${err && err.message || err}` } });
    return;
  }
  let info;
  try {
    info = await state.api.open({ portal: m.portal, cell: m.cell, listing: m.listing }, early);
  } catch (err) {
    post({ t: "opened", error: errorOf(err) });
    return;
  }
  state.output.attach(StandInContext.made.processor);
  snapshot(true); // first: the page's state() answers from it once load() resolves
  mark("opened");
  post({ t: "opened", info });
  // Started is posted when it happens, not asked for: a page's started()
  // sent as a call waited behind the map's tile calls (up to 150 ms on a
  // cold visit) for an answer the worker already had.
  state.started = state.api.started().then(() => {
    mark("started");
    state.output.ahead();
    snapshot(true); // the state() and stats() a page reads when started() resolves are these
    post({ t: "started" });
    state.tiles.started();
  }, (err) => post({ t: "started", error: errorOf(err) }));
  state.started.finally(() => early.drop());
  setInterval(poll, POLL_MS);
  // Back online: ask at once for what failed, rather than at the host's
  // next backoff (up to 30 s away).
  self.addEventListener("online", () => state.api.retryNow());
}

// answer settles one of the page's promises (setPlayer, setCamera, tile,
// render), by its request id. A setPlayer's snapshot goes first, so
// the page's state() agrees with the answer when it comes.
async function answer(m) {
  let reply;
  try {
    // render's third argument takes its WAV a chunk at a time, each posted
    // (transferred) to the page's listener of this call ahead of the reply.
    const args = m.name !== "render" ? m.args
      : [...m.args, (bytes, done, total) => post({ t: "chunk", id: m.id, bytes, done, total }, [bytes.buffer])];
    // A map's tiles beyond the listener's ring wait here (TileGate) rather
    // than in Go (wasm/main.go's tile waits too): a hundred Go calls parked
    // on the first sound, each a goroutine, cost the worker ~0.1 s of its
    // load. The ring's own go at once: its records load anyway.
    if (m.name === "tile" && state.block &&
      Math.max(Math.abs(m.args[0] - state.block[0]), Math.abs(m.args[1] - state.block[1])) > 1) await state.tiles.turn();
    if (m.name === "setPlayer") {
      aim(m.args[0]);
      mark("move");
    }
    const v = await state.api[m.name](...args);
    if (m.name === "setPlayer") mark("moved");
    reply = { t: "reply", id: m.id, value: v ?? null };
  } catch (err) {
    reply = { t: "reply", id: m.id, error: errorOf(err) };
  }
  // What the answer changed is in the page's snapshot before the answer.
  if (m.name === "setPlayer") snapshot(false);
  post(reply);
}

// tell runs a method the page does not wait for (setVolume, setEnabled,
// recaption, retryNow, dispose).
function tell(m) {
  try {
    call(m.name, ...m.args);
  } catch (err) {
    post({ t: "events", events: [], errors: [errorOf(err)], captions: [] });
  }
  if (m.name === "setEnabled") snapshot(false);
}

// poll posts the Go side's events and, when it changed, its snapshot.
function poll() {
  let p;
  try {
    p = call("poll");
  } catch (err) {
    post({ t: "events", events: [], errors: [errorOf(err)], captions: [] });
    return;
  }
  if (p.events.length || p.errors.length || (p.captions && p.captions.length)) {
    post({ t: "events", events: p.events, errors: p.errors, captions: p.captions || [] });
  }
  snapshot(false);
}

// snapshot posts the state when it changed (always with force), the stats
// every STATS_MS (and with force), and the landblocks' presence when it
// changed.
function snapshot(force) {
  // Go hands the state over only when it changed since it last did
  // (wasm/main.go's state), or when asked to: forced, or the off-data
  // landblock changed.
  const off = call("offData");
  const s = call("state", force || off !== state.lastOff);
  const now = performance.now();
  const m = { t: "snap" };
  if (s !== null) {
    const id = s.where && parseInt(s.where.objcellId, 16);
    // Before the first move the state stands nowhere (objcellId 0): the
    // landblock is then the one the page asked for, if any (init, answer).
    if (id > 0) state.block = [id >>> 24, (id >>> 16) & 0xff];
    state.lastOff = off;
    m.state = s;
    m.offData = off;
  }
  if (force || now - state.lastStats >= STATS_MS) {
    state.lastStats = now;
    const st = call("stats");
    st.wasmMemory = state.memory ? state.memory.buffer.byteLength : 0;
    st.early = { ...state.early.counts, firstWave: state.firstWave };
    st.output = { ...state.output.counts, renders: state.output.renders, renderMs: state.output.renderMs, sent: state.output.sent, stalls: state.output.stalls, stallMs: state.output.stallMs };
    m.stats = st;
  }
  const pr = call("presence");
  if (pr) m.presence = pr;
  if (m.state || m.stats || m.presence) post(m, m.presence ? [m.presence.buffer] : []);
}

// runWasm instantiates ambient.wasm and resolves with the API object its Go
// main hands over.
async function runWasm(wasmURL, wasmExec, fromPage, wasmIn) {
  // The page compiles the wasm (ambient.js compileHere) and posts the
  // Module; where it cannot, it says why, and the compile is done here from
  // the bytes (below: a streaming compile here would fail as the page's
  // did). Either way it runs beside the glue's import: one after the other
  // they cost the glue's round trip before the largest download of the visit.
  const compiling = !fromPage ? WebAssembly.compileStreaming(fetch(wasmURL))
    : new Promise((resolve) => { state.pageModule = resolve; }).then((m) => {
      if (m.module instanceof WebAssembly.Module) return m.module;
      throw new Error(m.error);
    });
  compiling.catch(() => {}); // awaited below
  if (typeof globalThis.Go !== "function") {
    // A script that sets globalThis.Go, by the URL the page resolved
    // (ambient.js: beside it, bundled, versioned, or the wasmExec option).
    await import(/* @vite-ignore */ /* webpackIgnore: true */ wasmExec);
  }
  const go = new globalThis.Go();
  const gotAPI = new Promise((resolve) => { globalThis.__acambient = resolve; });
  go.argv = ["ambient.wasm", "__acambient"];
  mark("glue");
  let mod;
  try {
    mod = await compiling;
  } catch (e) {
    // A server that sends .wasm with the wrong type (or a page that could
    // not compile or post it): compile from bytes.
    const r = await fetch(wasmURL);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    mod = await WebAssembly.compile(await r.arrayBuffer());
  } finally {
    wasmIn();
  }
  mark("compiled");
  const inst = await WebAssembly.instantiate(mod, go.importObject);
  const exited = go.run(inst);
  try {
    const api = await Promise.race([gotAPI, exited.then(() => { throw new Error("ambient.wasm exited"); })]);
    state.memory = inst.exports.mem;
    return api;
  } finally {
    delete globalThis.__acambient;
  }
}

// ---- the early requests (what the Go side asks first, asked while the wasm loads)

// A Wave record's URL: ids 0x0Axxxxxx (docs/dat-format.md §1.3).
const WAVE = /\/0x0A[0-9A-F]{6}$/;

// EarlyFetches holds the requests made while the wasm loads, for the Go
// side's fetch transport to take (datfetch.FetchEarly): each is a fetch as
// that transport makes it (the same URL, the same options), so that what
// it hands over, failure or answer, is what the transport would have got
// itself, and a request is never made twice. The HTTP cache is not relied
// on: a source may forbid it. What the wasm has not taken when drop() runs
// is aborted.
class EarlyFetches {
  /** @param {(url: string) => void} onTake told of every URL the wasm asks for */
  constructor(onTake) {
    this._table = new Map(); // url → {response, controller}, until taken
    this._asked = new Set(); // the URLs the wasm has asked for
    this._open = true;
    this._onTake = onTake;
    this.counts = { fetched: 0, taken: 0, dropped: 0 };
  }

  /**
   * Asks for url now, unless the wasm has asked for it already (or drop()
   * ran); resolves with the answer (null: not asked here). With peek it
   * resolves with a copy for the page to read: the answer's body is teed,
   * the Go side reading one branch and the copy the other, neither waiting
   * for the other (Response.clone() does not serve: Chromium's copy waits
   * for the original to be read).
   * @returns {Promise<Response> | null}
   */
  fetch(url, peek = false) {
    if (!this._open || this._asked.has(url) || this._table.has(url)) return null;
    const controller = new AbortController();
    let response = fetch(url, { signal: controller.signal, redirect: "follow" });
    let copy = response;
    if (peek) {
      const both = response.then((r) => {
        if (!r.body) return [r, r.clone()];
        const [mine, theirs] = r.body.tee();
        return [answerOf(r, theirs), new Response(mine, { status: r.status, statusText: r.statusText, headers: r.headers })];
      });
      response = both.then((x) => x[0]);
      copy = both.then((x) => x[1]);
    }
    response.catch(() => {}); // the wasm's transport sees the failure when it takes it
    this._table.set(url, { response, controller });
    this.counts.fetched++;
    return copy;
  }

  /** The Go side's transport asks for url: what was asked early, once, or undefined. */
  take(url) {
    this._asked.add(url);
    try { this._onTake(url); } catch { /* a hint only */ }
    const e = this._table.get(url);
    if (!e) return undefined;
    this._table.delete(url);
    this.counts.taken++;
    return e;
  }

  /** Aborts what the wasm did not take, and asks for nothing more. */
  drop() {
    this._open = false;
    for (const e of this._table.values()) {
      e.controller.abort();
      this.counts.dropped++;
    }
    this._table.clear();
  }
}

// prefetch asks for what the Go side asks first, in the order it asks: the
// region and the landblock listing (session.New), then, once the listing
// says which landblocks the source holds, the ring of the opening position
// at (the page's first setPlayer) and its EnvCell when indoors (the first
// rebuild's records: core/session needAt). at may be a function of the
// region's name, for a page whose opening spot depends on the data; it
// waits for the region's first bytes. What the listing does not name is
// not asked for (the Go side would not ask); where the listing fails, no
// landblock is asked for early (the Go side retries it, and asks by what
// it finally says). Outdoors, with a hints folder (hints), the spot's
// landblock's hint is asked for at once too, beside the region, and what
// it names is asked for as soon as it comes (askHinted): the SoundTables
// and the first wave the Go side can only ask for once the wasm runs.
async function prefetch(early, { portal, cell, listing, at, hints, onWave, after }) {
  const region = early.fetch(portal + REGION, typeof at === "function");
  const list = listing ? early.fetch(cell + LISTING, at != null) : null;
  if (at == null || (listing && !list)) return;
  // The page turns its position into a POS (ambient.js toPOS); a function
  // of the region's name is the page's to call.
  const pos = typeof at === "function" ? await at(await regionName(region)) : at;
  const spot = typeof pos === "string" ? spotOf(pos) : null;
  if (!spot) return;
  if (spot.envCell) early.fetch(cell + hex(spot.envCell));
  else if (hints) askHinted(early, hints + hex(landblockId(spot.bx, spot.by)), portal, spot, onWave, after).catch(() => {});
  const held = list ? await listed(list) : null;
  if (held === false) return;
  for (const [bx, by] of ring(spot.bx, spot.by)) {
    const id = landblockId(bx, by);
    if (!held || held.has(id)) early.fetch(cell + hex(id));
  }
}

// askHinted reads the hint at url (docs/interfaces.md §2.1, core/hints:
// what the Go side's progressive session asks for first in that landblock)
// and asks early for its SoundTables, then for the first wave of the
// lattice point nearest the spot (firstWave), telling onWave (ContextAhead:
// the first wave is on the wire). A hint that is not there (a 404: an older
// server, a static host without one) or not one is nothing: the Go side
// asks as it would. A guess the Go side does not take first is taken later
// or dropped with the rest at the first sound (EarlyFetches).
// The wave waits for after (the wasm's bytes all in): beside the wasm it
// took a share of the link the wasm's download waits for, and the Go side
// wants it only once it runs, has opened the region and moved (0.2–0.3 s
// after the compile); after the wasm, it comes while that runs (at 10
// Mbit/s the wasm came 0.3 s sooner, bench/firstsound).
async function askHinted(early, url, portal, spot, onWave, after) {
  const r = await fetch(url);
  if (!r.ok) return;
  const { bytes, whole } = await head(r, 16 << 10);
  if (!whole) return;
  const h = JSON.parse(new TextDecoder().decode(bytes));
  const tables = Array.isArray(h.tables) ? h.tables.filter((t) => TABLE_ID.test(t)) : [];
  for (const t of tables.slice(0, 64)) early.fetch(portal + t);
  const w = spot.x === undefined ? null : firstWave(h, spot.x, spot.y);
  if (!w) return;
  await after;
  if (early.fetch(portal + w)) onWave();
}

// A SoundTable's and a Wave's id as a hint spells them (and a record's URL).
const TABLE_ID = /^0x20[0-9A-F]{6}$/;
const WAVE_ID = /^0x0A[0-9A-F]{6}$/;

// The digits of a hint's lattice strings (core/hints): the index of a wave
// of its palette; any other character (its "-") names none.
const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

// firstWave is the wave hint h names at the lattice point nearest
// landblock-local (x, y) (core/hints Nearest): the centre of the land cell
// holding it, where |u − 12| + |v − 12| ≤ 12 in the cell, else the cell's
// nearest vertex. null: none there, or a hint that is not one.
function firstWave(h, x, y) {
  const CELL = BLOCK / 8, half = CELL / 2;
  if (typeof h.vertices !== "string" || h.vertices.length !== 81 || typeof h.centres !== "string" || h.centres.length !== 64 || !Array.isArray(h.waves)) return null;
  const cx = Math.min(Math.max(Math.floor(x / CELL), 0), 7), cy = Math.min(Math.max(Math.floor(y / CELL), 0), 7);
  const u = x - CELL * cx, v = y - CELL * cy;
  const c = Math.abs(u - half) + Math.abs(v - half) <= half ? h.centres[8 * cx + cy]
    : h.vertices[9 * (cx + (u > half ? 1 : 0)) + cy + (v > half ? 1 : 0)];
  const w = h.waves[DIGITS.indexOf(c)];
  return typeof w === "string" && WAVE_ID.test(w) ? w : null;
}

// answerOf is answer r with its body replaced: what datfetch's transport
// reads of an answer (status, headers, type, body), as r has it.
function answerOf(r, body) {
  return { status: r.status, statusText: r.statusText, ok: r.ok, type: r.type, url: r.url, redirected: r.redirected, headers: r.headers, body };
}

// regionName reads the region's name from its record (docs/dat-format.md
// §3.1: DID, number, version, then the name as a PString: u16 length,
// Windows-1252), or "" where it cannot: the request failed, or the record
// came as a dat stores it, compressed (acdatservice).
async function regionName(p) {
  try {
    const r = await p;
    if (!r.ok) return "";
    const { bytes: b } = await head(r, 14 + 0xfffe);
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    if (b.length < 14 || v.getUint32(0, true) !== Number(REGION)) return "";
    const n = v.getUint16(12, true);
    if (n === 0xffff || 14 + n > b.length) return "";
    return new TextDecoder("windows-1252").decode(b.subarray(14, 14 + n));
  } catch { return ""; }
}

// listed reads the landblock listing the Go side will read (the ids of the
// landblocks the source holds), or null where the source has none (a 404:
// the Go side then asks for each), or false where it failed, or is longer
// than the Go side reads (datfetch maxLandblocksBytes: 1 MiB).
async function listed(p) {
  try {
    const r = await p;
    if (r.status === 404) return null;
    if (!r.ok) return false;
    const { bytes, whole } = await head(r, 1 << 20);
    if (!whole) return false;
    const ids = new Set();
    for (const line of new TextDecoder().decode(bytes).split("\n")) {
      const s = line.trim();
      if (!s) continue;
      if (!/^0x[0-9a-f]{1,8}$/i.test(s)) return false;
      ids.add(parseInt(s, 16) >>> 0);
    }
    return ids;
  } catch { return false; }
}

// head reads the page's copy of an answer up to max bytes, and lets go of
// the rest: whole says whether that was all of it. The Go side's branch of
// the body holds what was read until the Go side reads it, no more.
async function head(r, max) {
  if (!r.body) {
    const b = new Uint8Array(await r.arrayBuffer());
    return { bytes: b.subarray(0, max), whole: b.length <= max };
  }
  const reader = r.body.getReader();
  const parts = [];
  let n = 0, whole = false;
  try {
    while (n <= max) {
      const { done, value } = await reader.read();
      if (done) { whole = true; break; }
      parts.push(value);
      n += value.byteLength;
    }
  } finally {
    if (!whole) reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(n);
  let at = 0;
  for (const part of parts) { bytes.set(part, at); at += part.byteLength; }
  return { bytes: bytes.subarray(0, max), whole: whole && n <= max };
}

// spotOf reads the landblock (bx, by) a POS (docs/interfaces.md §1.1) stands
// in, and the EnvCell it names indoors (0 outdoors); null for a form it does
// not read as surely as core/world ParsePOS does (the Go side then asks).
// Outdoors, x and y are the landblock-local metres where it reads them
// (the hint's first wave depends on them), undefined where it does not.
function spotOf(pos) {
  const n = "([-+]?\\d+(?:\\.\\d*)?(?:[eE][-+]?\\d+)?)";
  let m = /^\s*(?:your location is:\s*)?0x([0-9a-f]{8})(?![0-9a-f])/i.exec(pos);
  if (m) {
    const id = parseInt(m[1], 16) >>> 0, low = id & 0xffff;
    if (low < 1 || low > 0xfffd || (low > 64 && low < 0x100)) return null;
    const spot = { bx: id >>> 24, by: (id >>> 16) & 0xff, envCell: low >= 0x100 ? id : 0 };
    const at = new RegExp("^(?:/\\s*|\\s*\\[\\s*)" + n + "\\s*[,\\s]\\s*" + n).exec(pos.slice(m.index + m[0].length));
    const x = at ? Number(at[1]) : NaN, y = at ? Number(at[2]) : NaN;
    if (x >= 0 && x <= BLOCK && y >= 0 && y <= BLOCK) { spot.x = x; spot.y = y; }
    return spot;
  }
  let X, Y;
  if ((m = new RegExp("^\\s*@" + n + "\\s*,\\s*" + n + "\\s*,").exec(pos))) {
    X = Number(m[1]); Y = Number(m[2]);
  } else if ((m = new RegExp("^\\s*" + n + "([NS])\\s*,\\s*" + n + "([EW])\\s*$", "i").exec(pos))) {
    const ns = Number(m[1]) * (/s/i.test(m[2]) ? -1 : 1), ew = Number(m[3]) * (/w/i.test(m[4]) ? -1 : 1);
    X = (ew * 10 + 1019.5) * 24; Y = (ns * 10 + 1019.5) * 24;
  } else return null;
  if (!(X >= 0 && X < WORLD && Y >= 0 && Y < WORLD)) return null;
  const bx = Math.floor(X / BLOCK), by = Math.floor(Y / BLOCK);
  // A point on a landblock's edge: float32 rounding in Go may put it in the other.
  if (X - bx * BLOCK < 0.01 || (bx + 1) * BLOCK - X < 0.01 || Y - by * BLOCK < 0.01 || (by + 1) * BLOCK - Y < 0.01) return null;
  return { bx, by, envCell: 0, x: X - bx * BLOCK, y: Y - by * BLOCK };
}


post({ t: "alive" });
