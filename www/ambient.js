// ambient.js: Asheron's Call's retail ambient sound in any web page
// (docs/interfaces.md §3). An ES module needing only geo.js beside it: it runs the
// Go core (ambient.wasm, next to this file by default) and talks to it.
//
//   import { AmbientAudio } from "./ambient.js";
//   const amb = await AmbientAudio.load({ server: "" });
//   button.onclick = () => amb.start();
//   amb.setPlayer("0xA9B4001F/72,144,22.2");
//
// A position goes setPlayer → toPOS (a POS string) → the wasm's setPlayer
// (wasm/main.go) → session.Host.SetPlayerPOS → the engine at the mixer's
// next tick. state() is one snapshot of the host (session.Snapshot); a
// timer drains its events and problems into "play", "skip", "rebuild",
// "error" and "state" events, and the Go side's captions (core/caption)
// into "caption" events while the audio is heard. Every error is an Error with a code
// (AmbientError in ambient.d.ts).

import { hexId as hex, mapCoord, mapText } from "./geo.js";

// How often the page asks the Go side for its events (ms). Plays are
// reported a little after they start; the audio itself is not affected.
const POLL_MS = 100;

// The region record: what load() asks for first, and what tells a source
// that answers from one that speaks another API.
const REGION = "0x13000000";

// The Go side's output rate (wasm/audio.go sampleRate): the AudioContext
// made ahead of the click is made at it, as oto would make it.
const RATE = 48000;

let loads = 0;

export class AmbientAudio {
  /**
   * Loads the wasm and the region; resolves when the instance is usable.
   * Rejects with an AmbientError: "wasm" (the module did not load or run),
   * "network" or "cors" (the source is unreachable, or answers what the
   * browser may not read), "wrong-api" (the source answers the other API's
   * routes), "not-found" (no region record), "bad-record".
   * @param {import("./ambient").LoadOptions} [opts]
   */
  static async load(opts = {}) {
    const server = String(opts.server ?? "").replace(/\/+$/, "");
    const acdat = opts.api === "acdatservice";
    const base = (p) => new URL(server ? server + "/" + p : p, document.baseURI).href;
    const portal = opts.portal ? new URL(opts.portal, document.baseURI).href
      : base(acdat ? "dats/portal/files/" : "files/");
    const cell = opts.cell ? new URL(opts.cell, document.baseURI).href
      : base(acdat ? "dats/cell/files/" : "cell/files/");
    // The wasm and Go's glue beside this module are named in the literal
    // forms bundlers follow (Vite, webpack 5, Rollup): they copy both files
    // into the build and point these at the copies, on any route of the app.
    const wasmURL = opts.wasm ? new URL(opts.wasm, document.baseURI).href
      : new URL("./ambient.wasm", import.meta.url).href;

    let api, early = null;
    try {
      // The AudioContext is made while the wasm downloads: its constructor
      // blocks for tens of milliseconds (hundreds on a busy machine), which
      // the click would otherwise wait for. Made without a gesture it stays
      // suspended, and silent, until start().
      api = await runWasm(wasmURL, opts.wasmExec, () => { early = newContext(); });
    } catch (e) {
      if (early) early.close().catch(() => {});
      throw coded("wasm", `ambient: ${wasmURL}: ${e && e.message || e}`);
    }
    const amb = new AmbientAudio(api, { portal, cell, wasm: wasmURL });
    amb._early = early;
    try {
      // Ours and an export list their landblocks beside the cell records.
      amb.info = JSON.parse(await api.open(portal, cell, !acdat));
    } catch (e) {
      amb.dispose();
      throw await explainOpen(e, portal, server, acdat);
    }
    amb._timer = setInterval(() => amb._poll(), POLL_MS);
    // Back online: ask at once for what failed, rather than at the host's
    // next backoff (up to 30 s away).
    amb._online = () => { if (!amb._disposed) amb._api.retryNow(); };
    globalThis.addEventListener?.("online", amb._online);
    return amb;
  }

  constructor(api, where) {
    this._api = api;
    this._where = where;
    this._ctx = null;
    this._early = null; // the AudioContext made at load, until start() hands it to the Go side
    this._onCtxState = null; // its statechange listener, removed at dispose
    this._handlers = { play: new Set(), skip: new Set(), state: new Set(), error: new Set(), rebuild: new Set(), caption: new Set() };
    this._heard = false; // the audio was running at the last poll
    this._lastState = null;
    this._loadingKey = "";
    this._disposed = false;
    this._offData = null; // the landblock the listener is off the data at, as last reported
    this._moves = 0; // setPlayer calls so far
    /** @type {import("./ambient").Info} */
    this.info = { terrains: [], landmarks: [] };
  }

  /**
   * Starts (or resumes) the audio. Call it from a user gesture (a click, a
   * key): browsers only let audio start from one. Resolves with
   * `{running: true}` when sound flows, or `{running: false,
   * waitingForGesture: true}` when the browser wants a gesture first; the
   * audio then starts on the page's next click or key press, and a "state"
   * event reports it.
   */
  async start() {
    this._live();
    const Native = globalThis.AudioContext || globalThis.webkitAudioContext;
    const box = { made: null };
    let early = null;
    if (!this._ctx && Native) {
      // The Go side's oto creates its AudioContext inside this call: give it
      // the one made at load while it is suspended, or else a new one; note
      // which, to report its state. Into a suspended one the Go side plays
      // its lead-in (wasm/audio.go).
      early = this._early;
      this._early = null;
      if (early && early.state !== "suspended") { early.close().catch(() => {}); early = null; }
      globalThis.AudioContext = contextSpy(Native, early, box);
    }
    try { this._call("start", early); } finally { if (Native) globalThis.AudioContext = Native; }
    if (box.made) {
      this._ctx = box.made;
      // dispose() closes the context, which fires one more statechange.
      this._onCtxState = () => { if (!this._disposed) this._emit("state", this.state()); };
      this._ctx.addEventListener("statechange", this._onCtxState);
    }
    const ctx = this._ctx;
    if (ctx && ctx.state !== "running") {
      // resume() stays pending until the browser allows audio: don't wait.
      await Promise.race([ctx.resume().catch(() => {}), new Promise((r) => setTimeout(r, 200))]);
    }
    const running = !!ctx && ctx.state === "running";
    return { running, waitingForGesture: !running, sampleRate: ctx ? ctx.sampleRate : 0 };
  }

  /** Whether audio is flowing to the speakers. */
  get running() { return !!this._ctx && this._ctx.state === "running"; }

  /** The Web Audio context, once start() made it. */
  get audioContext() { return this._ctx; }

  /**
   * Moves the player. Accepts {objcellId, x, y, z} (landblock-local metres),
   * {X, Y, Z} (global metres; Z omitted = terrain height), {ns, ew} (map
   * coordinates), a POS or /loc string, or an ACPosition-like object.
   * Resolves with the position in every form; rejects with "bad-position",
   * "missing-landblock" (map coordinates over a landblock the source
   * lacks: the listener is then nowhere, its sound fades out, and
   * state().offData names the landblock until a position on the data
   * comes), "not-found" (an EnvCell that does not exist), "network".
   * Calls may settle out of order; the latest call wins.
   */
  async setPlayer(pos) {
    this._live();
    try {
      // Numbered: calls settle out of order, and the latest one wins (wasm/offdata.go).
      return JSON.parse(await this._api.setPlayer(posText(pos), ++this._moves));
    } finally {
      this._offDataNow();
    }
  }

  /** Sets the listener that placement and pan use; heading in compass degrees. */
  async setCamera(pos, heading) {
    this._live();
    const h = heading ?? (pos && typeof pos === "object" ? pos.heading : undefined);
    return JSON.parse(await this._api.setCamera(posText(pos), typeof h === "number" ? h : 0));
  }

  /** The ambient slider, 0..1 (retail applies it as the game does). */
  setVolume(v) { this._live(); this._call("setVolume", Number(v)); }

  /** retail's ambient_sounds_enabled. */
  setEnabled(on) { this._live(); this._call("setEnabled", !!on); }

  /**
   * Resolves once a first sound can be heard where the player stands: the
   * ring's landblocks and SoundTables have come, and the first wave the
   * engine wants (the loudest bed's) has come or failed. A click then
   * sounds at once; one before it sounds when the wave arrives.
   * @returns {Promise<void>}
   */
  started() { this._live(); return this._api.started(); }

  /** @returns {import("./ambient").State} */
  state() {
    this._live();
    const s = JSON.parse(this._call("state"));
    const off = this._call("offData");
    s.offData = off ? { landblock: off } : null;
    s.audio = this._ctx ? this._ctx.state : "none";
    s.loading.done = s.loading.records;
    return s;
  }

  /**
   * What the instance holds, for long sessions and their benchmarks
   * (bench/soak): the Go runtime's memory (runtime/metrics), the wasm's
   * linear memory (it never shrinks: its size is what the tab keeps), and
   * the bytes each cache counts as holding. Cheap: a few figures, no state.
   * @returns {import("./ambient").Stats}
   */
  stats() {
    this._live();
    const s = JSON.parse(this._call("stats"));
    s.wasmMemory = this._api.memory ? this._api.memory.buffer.byteLength : 0;
    return s;
  }

  /**
   * Whether the source holds landblock (bx, by), as far as this instance
   * knows (a fetch, a not-found, the source's landblock listing): off the
   * data the listener is nowhere.
   * @returns {"present" | "absent" | "unknown"}
   */
  landblock(bx, by) { this._live(); return this._call("landblock", bx, by); }

  /**
   * The map tile of landblock (bx, by): 64 cell colours and terrain types
   * (x-major, index 8·cx + cy) and 81 vertex heights; null where the data
   * has no land.
   * @returns {Promise<import("./ambient").Tile | null>}
   */
  tile(bx, by) { this._live(); return this._api.tile(bx, by); }

  on(kind, fn) { this._set(kind).add(fn); return this; }
  off(kind, fn) { this._set(kind).delete(fn); return this; }

  /** Silences the audio; the engine keeps its clock. start() resumes. */
  stop() { if (!this._disposed) this._api.stop(); }

  /** Stops everything and lets the instance go. */
  dispose() {
    if (this._disposed) return;
    this._api.dispose();
    clearInterval(this._timer);
    if (this._online) globalThis.removeEventListener?.("online", this._online);
    if (this._ctx) {
      // Nothing of this instance stays on the context: whatever keeps a
      // closed context alive (a page's own worklet on it) must not keep the
      // instance and its wasm memory too.
      this._ctx.removeEventListener("statechange", this._onCtxState);
      this._ctx.close().catch(() => {});
    }
    if (this._early) this._early.close().catch(() => {});
    this._early = null;
    this._disposed = true;
    for (const s of Object.values(this._handlers)) s.clear();
  }

  // ---- internals ----

  _set(kind) {
    const s = this._handlers[kind];
    if (!s) throw new Error(`ambient: no event "${kind}" (play, skip, state, error, rebuild, caption)`);
    return s;
  }

  _live() { if (this._disposed) throw coded("disposed", "ambient: disposed"); }

  // _offDataNow emits "state" when a setPlayer took the listener off the
  // data or back onto it, so a page says so at once, not at the next poll.
  _offDataNow() {
    if (this._disposed) return;
    const off = this._call("offData");
    if (off === this._offData) return;
    this._offData = off;
    if (this._handlers.state.size) this._emit("state", this.state());
  }

  // _call runs a synchronous Go method: a failure comes back as an Error
  // value (a Go function cannot throw into JavaScript), thrown here.
  _call(name, ...args) {
    const v = this._api[name](...args);
    if (v instanceof Error) throw v;
    return v;
  }

  _emit(kind, arg) {
    for (const fn of this._handlers[kind]) {
      try { fn(arg); } catch (e) { setTimeout(() => { throw e; }); }
    }
  }

  _poll() {
    if (this._disposed) return;
    let p, st;
    try {
      p = JSON.parse(this._call("poll"));
      st = this._handlers.state.size ? this.state() : null;
    } catch (e) {
      // A timer has no caller to throw to: report it once, and stop.
      clearInterval(this._timer);
      this._emit("error", e);
      return;
    }
    let changed = false;
    for (const ev of p.events) {
      if (ev.event === "play" || ev.event === "skip") this._emit(ev.event, ev);
      else if (ev.event === "rebuild") { changed = true; this._emit("rebuild", ev); }
    }
    for (const pr of p.errors) { changed = true; this._emit("error", coded(pr.code, pr.message, pr)); }
    this._captions(p.captions || []);
    if (!st) return;
    const key = JSON.stringify(st.loading) + st.voices.length + st.audio;
    if (changed || key !== this._loadingKey || p.events.length) {
      this._loadingKey = key;
      this._emit("state", st);
    }
  }

  // _captions emits the Go side's captions while the audio is heard: a
  // caption says what plays, and before start() (or after stop()) nothing
  // reaches the speakers, though the engine's clock runs. So a batch is
  // emitted only when the audio ran at this poll and the last: the batch
  // of the poll that first finds it running was made (nearly all) in
  // silence. At that poll the Go side is asked to say the continuous
  // sounds again, so a listener who starts at the river is told of it.
  _captions(cs) {
    const heard = this.running;
    if (heard && !this._heard) this._call("recaption");
    else if (heard) for (const c of cs) this._emit("caption", c);
    this._heard = heard;
  }
}

// newContext makes the AudioContext start() will use, suspended (where the
// browser lets audio start without a gesture it would run, silent, until
// then), or null where there is no Web Audio (start() then reports it).
function newContext() {
  const Native = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!Native) return null;
  try {
    const c = new Native({ sampleRate: RATE });
    c.suspend().catch(() => {});
    return c;
  } catch { return null; }
}

// contextSpy stands in for the AudioContext constructor Native while the Go
// side makes its context: it hands over early when there is one (a
// constructor returning an object hands that object to `new`), else a new
// Native, and notes which in box.made. The context made is Native's own,
// its prototype chain Native's: nothing of the instance that called it
// stays on it. It lives out here, not in a method, so that its closure
// holds only what it is given.
function contextSpy(Native, early, box) {
  return function AudioContext(o) {
    box.made = early || new Native(o);
    return box.made;
  };
}

// coded makes an AmbientError: an Error with a code (and, from extra, the
// record it is about: id, landblock; a network failure's reason and status).
function coded(code, message, extra = {}) {
  const e = new Error(message);
  e.code = code;
  if (extra.id) e.id = extra.id;
  if (extra.landblock) e.landblock = extra.landblock;
  if (extra.reason) e.reason = extra.reason;
  if (extra.status) e.status = extra.status;
  return e;
}

// posText is toPOS with its complaints coded.
function posText(pos) {
  try { return toPOS(pos); } catch (e) { throw coded("bad-position", e.message); }
}

// runWasm instantiates ambient.wasm and resolves with the API object its Go
// main hands over; whileLoading runs once the wasm is on its way.
async function runWasm(wasmURL, wasmExec, whileLoading) {
  if (typeof globalThis.Go !== "function") {
    if (wasmExec) await import(/* @vite-ignore */ /* webpackIgnore: true */ new URL(wasmExec, import.meta.url).href);
    else await import("./wasm_exec.js"); // a script that sets globalThis.Go; as a module it runs once
  }
  const go = new globalThis.Go();
  const cbName = `__acambient${++loads}_${Math.random().toString(36).slice(2)}`;
  const gotAPI = new Promise((resolve) => { globalThis[cbName] = resolve; });
  go.argv = ["ambient.wasm", cbName];
  let inst;
  const compiling = WebAssembly.instantiateStreaming(fetch(wasmURL), go.importObject);
  compiling.catch(() => {}); // awaited below
  whileLoading();
  try {
    inst = (await compiling).instance;
  } catch (e) {
    // A server that sends .wasm with the wrong type: instantiate from bytes.
    const r = await fetch(wasmURL);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    inst = (await WebAssembly.instantiate(await r.arrayBuffer(), go.importObject)).instance;
  }
  const exited = go.run(inst);
  try {
    const api = await Promise.race([gotAPI, exited.then(() => { throw new Error("ambient.wasm exited"); })]);
    api.memory = inst.exports.mem; // stats(): the linear memory's size
    return api;
  } finally {
    delete globalThis[cbName];
  }
}

// explainOpen refines the error of a failed open (the region's fetch). A
// fetch that gets no answer is a TypeError whatever the cause, which Go
// reports as "network"; for another origin a no-cors request tells an
// unreachable source (it fails too) from one whose answers the browser
// withholds for want of CORS headers (an opaque answer comes back). A
// region that is not found while the other API's region route answers is
// "wrong-api".
async function explainOpen(e, portal, server, acdat) {
  if (!(e instanceof Error) || !e.code) return coded("wasm", String(e && e.message || e));
  const region = portal + REGION;
  if (e.code === "network" && new URL(region).origin !== location.origin) {
    const opaque = await fetch(region, { mode: "no-cors", cache: "no-store" }).then(() => true, () => false);
    if (opaque) return coded("cors", e.message + " (the source answers, but without CORS headers: the browser may not read it)");
  }
  if (e.code === "not-found" && e.id === REGION) {
    const base = (p) => new URL(server ? server + "/" + p : p, document.baseURI).href;
    const other = base((acdat ? "files/" : "dats/portal/files/") + REGION);
    const answers = await fetch(other, { cache: "no-store" }).then((r) => r.ok, () => false);
    if (answers) return coded("wrong-api", e.message + ` (but ${other} answers: the source speaks the ${acdat ? "dat server's" : "acdatservice"} API)`, e);
  }
  return e;
}

const num = (v) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`ambient: position: ${v} is not a number`);
  return String(n);
};

// toPOS turns the position forms of docs/interfaces.md §3 into a POS string (§1.1).
function toPOS(p) {
  if (typeof p === "string") return p;
  if (!p || typeof p !== "object") throw new Error("ambient: position: want an object or a string");
  const cell = p.objcellId ?? p.objCellId ?? p.objcell_id ?? p.cellId ?? p.landcell;
  const o = p.frame?.origin ?? p.origin ?? p;
  if (cell !== undefined && o.x !== undefined) {
    const id = typeof cell === "string" ? cell : hex(cell);
    return `${id}/${num(o.x)},${num(o.y)},${num(o.z ?? 0)}`;
  }
  if (p.X !== undefined && p.Y !== undefined) {
    if (p.Z !== undefined) return `@${num(p.X)},${num(p.Y)},${num(p.Z)}`;
    // No height: map coordinates, whose z comes from the terrain.
    return mapPOS(mapCoord(p.Y), mapCoord(p.X));
  }
  if (p.ns !== undefined && p.ew !== undefined) return mapPOS(Number(p.ns), Number(p.ew));
  if (typeof p.toString === "function" && p.toString !== Object.prototype.toString) return p.toString();
  throw new Error("ambient: position: want {objcellId,x,y,z}, {X,Y,Z}, {ns,ew} or a /loc string");
}

function mapPOS(ns, ew) {
  if (!Number.isFinite(ns) || !Number.isFinite(ew)) throw new Error("ambient: map coordinates must be numbers");
  return mapText(ns, ew, 6, ",");
}

export { toPOS };
