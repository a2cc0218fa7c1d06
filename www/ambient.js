// ambient.js: Asheron's Call's retail ambient sound in any web page
// (contracts §3). An ES module with no dependencies: it runs the Go core
// (ambient.wasm, next to this file by default) and talks to it.
//
//   import { AmbientAudio } from "./ambient.js";
//   const amb = await AmbientAudio.load({ server: "" });
//   button.onclick = () => amb.start();
//   amb.setPlayer("0xA9B4001F/72,144,22.2");

const here = new URL(".", import.meta.url);

// How often the page asks the Go side for its events (ms). Plays are
// reported a little after they start; the audio itself is not affected.
const POLL_MS = 100;

// The Go side's output rate (wasm/audio.go sampleRate): the AudioContext
// made ahead of the click is made at it, as oto would make it.
const RATE = 48000;

let loads = 0;

export class AmbientAudio {
  /**
   * Loads the wasm and the region; resolves when the instance is usable.
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
    const wasmURL = new URL(opts.wasm ?? "ambient.wasm", opts.wasm ? document.baseURI : here).href;

    if (typeof globalThis.Go !== "function") {
      await import(new URL(opts.wasmExec ?? "wasm_exec.js", here).href);
    }
    const go = new globalThis.Go();
    const cbName = `__acambient${++loads}_${Math.random().toString(36).slice(2)}`;
    const gotAPI = new Promise((resolve) => { globalThis[cbName] = resolve; });
    go.argv = ["ambient.wasm", cbName];

    let inst;
    const resp = fetch(wasmURL);
    const compiled = WebAssembly.instantiateStreaming(resp, go.importObject);
    compiled.catch(() => {}); // handled below
    // The AudioContext is made now, while the wasm downloads: its
    // constructor blocks for tens of milliseconds (hundreds on a busy
    // machine), which the click would otherwise wait for. Made without a
    // gesture it stays suspended, and silent, until start().
    const early = newContext();
    let amb;
    try {
      try {
        inst = (await compiled).instance;
      } catch (e) {
        // A server that sends .wasm with the wrong type: instantiate from bytes.
        const r = await (await fetch(wasmURL)).arrayBuffer();
        inst = (await WebAssembly.instantiate(r, go.importObject)).instance;
      }
      const exited = go.run(inst);
      const api = await Promise.race([gotAPI, exited.then(() => { throw new Error("ambient.wasm exited"); })]);
      delete globalThis[cbName];
      amb = new AmbientAudio(api, { portal, cell, wasm: wasmURL });
      amb._early = early;
      amb.info = JSON.parse(await api.open(portal, cell));
    } catch (e) {
      if (amb) amb.dispose();
      else if (early) early.close().catch(() => {});
      throw e;
    }
    amb._timer = setInterval(() => amb._poll(), POLL_MS);
    return amb;
  }

  constructor(api, where) {
    this._api = api;
    this._where = where;
    this._ctx = null;
    this._early = null; // the AudioContext made at load, until start() hands it to the Go side
    this._handlers = { play: new Set(), skip: new Set(), state: new Set(), error: new Set(), rebuild: new Set() };
    this._lastState = null;
    this._loadingKey = "";
    this._disposed = false;
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
    let made = null, early = null;
    if (!this._ctx && Native) {
      // The Go side's oto creates its AudioContext inside this call: give it
      // the one made at load while it is suspended (a constructor returning
      // an object hands that object to `new`), or else a new one; note
      // which, to report its state. Into a suspended one the Go side plays
      // its lead-in (wasm/audio.go).
      early = this._early;
      this._early = null;
      if (early && early.state !== "suspended") { early.close().catch(() => {}); early = null; }
      globalThis.AudioContext = function AudioContext(o) {
        made = early || new Native(o);
        return made;
      };
    }
    let err;
    try { err = this._api.start(early); } finally { if (Native) globalThis.AudioContext = Native; }
    if (err instanceof Error) throw err;
    if (made) {
      this._ctx = made;
      // dispose() closes the context, which fires one more statechange.
      made.addEventListener("statechange", () => { if (!this._disposed) this._emit("state", this.state()); });
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
   * Resolves with the position in every form.
   */
  async setPlayer(pos) {
    this._live();
    return JSON.parse(await this._api.setPlayer(toPOS(pos)));
  }

  /** Sets the listener that placement and pan use; heading in compass degrees. */
  async setCamera(pos, heading) {
    this._live();
    const h = heading ?? (pos && typeof pos === "object" ? pos.heading : undefined);
    return JSON.parse(await this._api.setCamera(toPOS(pos), typeof h === "number" ? h : 0));
  }

  /** The ambient slider, 0..1 (retail applies it as the game does). */
  setVolume(v) { this._live(); check(this._api.setVolume(Number(v))); }

  /** retail's ambient_sounds_enabled. */
  setEnabled(on) { this._live(); check(this._api.setEnabled(!!on)); }

  /** @returns {import("./ambient").State} */
  state() {
    this._live();
    const s = JSON.parse(check(this._api.state()));
    s.audio = this._ctx ? this._ctx.state : "none";
    s.loading.done = s.loading.records;
    return s;
  }

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
    for (const c of [this._ctx, this._early]) if (c) c.close().catch(() => {});
    this._early = null;
    this._disposed = true;
    for (const s of Object.values(this._handlers)) s.clear();
  }

  // ---- internals ----

  _set(kind) {
    const s = this._handlers[kind];
    if (!s) throw new Error(`ambient: no event "${kind}" (play, skip, state, error, rebuild)`);
    return s;
  }

  _live() { if (this._disposed) throw new Error("ambient: disposed"); }

  _emit(kind, arg) {
    for (const fn of this._handlers[kind]) {
      try { fn(arg); } catch (e) { setTimeout(() => { throw e; }); }
    }
  }

  _poll() {
    if (this._disposed) return;
    const raw = this._api.poll();
    if (raw instanceof Error) return;
    const p = JSON.parse(raw);
    let changed = false;
    for (const ev of p.events) {
      if (ev.event === "play" || ev.event === "skip") this._emit(ev.event, ev);
      else if (ev.event === "rebuild") { changed = true; this._emit("rebuild", ev); }
    }
    for (const msg of p.errors) { changed = true; this._emit("error", new Error(msg)); }
    if (this._handlers.state.size === 0) return;
    const st = this.state();
    const key = JSON.stringify(st.loading) + st.voices.length + st.audio;
    if (changed || key !== this._loadingKey || p.events.length) {
      this._loadingKey = key;
      this._emit("state", st);
    }
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

function check(v) {
  if (v instanceof Error) throw v;
  return v;
}

const hex = (id) => "0x" + (Number(id) >>> 0).toString(16).toUpperCase().padStart(8, "0");
const num = (v) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`ambient: position: ${v} is not a number`);
  return String(n);
};

// toPOS turns the position forms of contracts §3 into a POS string (§1.1).
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
    return mapPOS((p.Y / 24 - 1019.5) / 10, (p.X / 24 - 1019.5) / 10);
  }
  if (p.ns !== undefined && p.ew !== undefined) return mapPOS(Number(p.ns), Number(p.ew));
  if (typeof p.toString === "function" && p.toString !== Object.prototype.toString) return p.toString();
  throw new Error("ambient: position: want {objcellId,x,y,z}, {X,Y,Z}, {ns,ew} or a /loc string");
}

function mapPOS(ns, ew) {
  if (!Number.isFinite(ns) || !Number.isFinite(ew)) throw new Error("ambient: map coordinates must be numbers");
  return `${Math.abs(ns).toFixed(6)}${ns < 0 ? "S" : "N"},${Math.abs(ew).toFixed(6)}${ew < 0 ? "W" : "E"}`;
}

export { toPOS };
