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

import { BLOCK, WORLD, hexId as hex, landblockId, mapCoord, mapText, ring } from "./geo.js";
import { walkRoute } from "./walk.js";

// How often the page asks the Go side for its events (ms). Plays are
// reported a little after they start; the audio itself is not affected.
const POLL_MS = 100;

// The region record: what load() asks for first, and what tells a source
// that answers from one that speaks another API.
const REGION = "0x13000000";

// The landblock listing beside the cell records (datfetch.LandblocksListing).
const LISTING = "landblocks.txt";

// The Go side's output rate (wasm/audio.go sampleRate): the AudioContext
// made ahead of the click is made at it, as oto would make it.
const RATE = 48000;

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
    // Ending in a slash, as the Go side's sources make them (datfetch.NewHTTP):
    // the early requests' URLs are its own.
    const slash = (u) => (u.endsWith("/") ? u : u + "/");
    const portal = slash(opts.portal ? new URL(opts.portal, document.baseURI).href
      : base(acdat ? "dats/portal/files/" : "files/"));
    const cell = slash(opts.cell ? new URL(opts.cell, document.baseURI).href
      : base(acdat ? "dats/cell/files/" : "cell/files/"));
    // The wasm and Go's glue beside this module are named in the literal
    // forms bundlers follow (Vite, webpack 5, Rollup): they copy both files
    // into the build and point these at the copies, on any route of the app.
    const wasmURL = opts.wasm ? new URL(opts.wasm, document.baseURI).href
      : new URL("./ambient.wasm", import.meta.url).href;

    // What the Go side will ask for first is asked for now, while the wasm
    // downloads; and the AudioContext is made where it costs the first
    // sound nothing (ContextAhead).
    const ahead = new ContextAhead();
    const early = new EarlyFetches((url) => { if (WAVE.test(url)) ahead.waveAsked(); });
    // The hints are the dat server's and its export's (docs/interfaces.md
    // §2.1), beside the records it serves by default; acdatservice has none.
    const hints = acdat || opts.portal || opts.cell ? null : base("hints/");
    prefetch(early, { portal, cell, listing: !acdat, at: opts.at, hints, onWave: () => ahead.waveAsked() }).catch(() => {});
    let api;
    try {
      api = await runWasm(wasmURL, opts.wasmExec);
    } catch (e) {
      ahead.close();
      early.drop();
      throw coded("wasm", `ambient: ${wasmURL}: ${e && e.message || e}`);
    }
    const amb = new AmbientAudio(api, { portal, cell, wasm: wasmURL });
    amb._ahead = ahead;
    amb._fetches = early;
    try {
      // Ours and an export list their landblocks beside the cell records.
      amb.info = JSON.parse(await api.open(portal, cell, !acdat, early));
    } catch (e) {
      amb.dispose();
      throw await explainOpen(e, portal, server, acdat);
    }
    // Once the first sound can be heard, what the Go side has not asked
    // for is not what it asks first: let it go.
    api.started().then(() => early.drop(), () => early.drop());
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
    this._ahead = null; // the AudioContext made ahead of the click, until start() hands it to the Go side
    this._fetches = null; // the requests made while the wasm loaded (EarlyFetches)
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
      // the one made ahead while it is suspended, or else a new one; note
      // which, to report its state. Into a suspended one the Go side plays
      // its lead-in (wasm/audio.go).
      early = this._ahead ? this._ahead.take() : null;
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
      return JSON.parse(await this._settle(this._api.setPlayer(posText(pos), ++this._moves)));
    } finally {
      this._offDataNow();
    }
  }

  /** Sets the listener that placement and pan use; heading in compass degrees. */
  async setCamera(pos, heading) {
    this._live();
    const h = heading ?? (pos && typeof pos === "object" ? pos.heading : undefined);
    return JSON.parse(await this._settle(this._api.setCamera(posText(pos), typeof h === "number" ? h : 0)));
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
  started() { this._live(); return this._settle(this._api.started()); }

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
    s.early = { ...this._fetches.counts };
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
  tile(bx, by) { this._live(); return this._settle(this._api.tile(bx, by)); }

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
    if (this._ahead) this._ahead.close();
    if (this._fetches) this._fetches.drop();
    this._disposed = true;
    for (const s of Object.values(this._handlers)) s.clear();
  }

  // ---- walks and renders (issue 31; docs/interfaces.md §3.2): amb.walk
  // delegates to walk.js, amb.render to the Go side (wasm/render.go). ----

  /**
   * Walks the listener along route (any positions setPlayer takes) at
   * speed m/s (default 12, the page's run). Returns {stop(), done, length,
   * seconds, speed}.
   * @returns {import("./walk").WalkHandle}
   */
  walk(route, opts = {}) {
    this._live();
    return walkRoute(this, route, opts);
  }

  /**
   * Renders a walk into a WAV Blob, byte for byte what `go run . render
   * -path FILE -seconds N -seed S -rate R -volume A -tick DT -o -` writes
   * over the same source: path is [{t, player, camera?}] (positions as
   * setPlayer and setCamera take them; a camera's heading, if any, rides
   * along as /H); the other keys default as the command's flags do (60 s,
   * seed 0, 48000 Hz, volume 1, tick 1/30 s). It runs in retail's
   * complete-table mode on an engine of its own, faster than real time,
   * and leaves what plays alone. onProgress({done, total}) (seconds
   * rendered, of seconds) as it goes.
   * @returns {Promise<Blob>}
   */
  async render({ path, seconds, seed, rate, volume, tick, onProgress } = {}) {
    this._live();
    const lines = renderPath(path);
    const opts = {};
    // The command's flag checks (render.go, runflags.go), said before Go is asked.
    const want = {
      seconds: [(v) => v >= 0, "seconds ≥ 0"], tick: [(v) => v > 0, "seconds > 0"],
      rate: [(v) => Number.isInteger(v) && v >= 8000 && v <= 384000, "8000..384000 Hz"],
      volume: [(v) => v >= 0 && v <= 1, "0..1"], seed: [(v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff, "a whole number 0..2^32−1"],
    };
    for (const [k, v] of Object.entries({ seconds, seed, rate, volume, tick })) {
      if (v === undefined) continue;
      if (typeof v !== "number" || !Number.isFinite(v) || !want[k][0](v)) throw coded("bad-option", `ambient: render: ${k} ${v}: want ${want[k][1]}`);
      opts[k] = v;
    }
    const parts = [];
    const rateHz = opts.rate ?? RATE;
    await this._settle(this._api.render(lines, JSON.stringify(opts), (bytes, done, total) => {
      // A Blob a chunk, as it comes: the last Blob is made of Blobs, which
      // copies nothing (one of 58 MB from 58 arrays held Chromium's main
      // thread 515 ms).
      parts.push(new Blob([bytes]));
      if (onProgress) {
        try { onProgress({ done: done / rateHz, total: total / rateHz }); } catch (e) { setTimeout(() => { throw e; }); }
      }
    }));
    return new Blob(parts, { type: "audio/wav" });
  }

  // ---- end of walks and renders ----

  // ---- internals ----

  _set(kind) {
    const s = this._handlers[kind];
    if (!s) throw new Error(`ambient: no event "${kind}" (play, skip, state, error, rebuild, caption)`);
    return s;
  }

  _live() { if (this._disposed) throw coded("disposed", "ambient: disposed"); }

  // _settle: a Go promise that dispose() cut short (its context canceled)
  // rejects with "disposed", the code a caller already handles, rather
  // than with the Go side's "context canceled".
  _settle(p) {
    return p.catch((e) => { throw this._disposed ? coded("disposed", "ambient: disposed") : e; });
  }

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

// ContextAhead makes the AudioContext start() will use ahead of the click
// (wasm/audio.go: the click then plays at once), where it costs the first
// sound nothing: once the first wave is on the wire, whose wait on the
// network leaves the main thread nothing else to do — asked for by the
// wasm, or earlier by the page from a hint (askHinted), while the wasm
// still downloads (its compile runs off the main thread). Chromium's
// constructor blocks that thread while the browser brings its audio service
// up: 190–560 ms for a tab's first context here, 4–40 ms once the service
// runs. navigator.mediaDevices.enumerateDevices() brings the service up
// too, asynchronously, for 3–15 ms of the main thread; so in Chromium it is
// asked at once, and the context is made once it has answered too. Not
// elsewhere: Firefox's first enumerateDevices() holds the main thread
// 100–170 ms, longer than its constructor (10–80 ms), and WebKit's
// constructor takes under 2 ms. Where there is no mediaDevices (an insecure
// origin) the context is made when the wave is asked for. A click before
// then makes it in start().
class ContextAhead {
  constructor() {
    this._ctx = null;
    this._over = false; // taken or closed: make nothing more
    this._warm = false; // the audio service has been brought up (or need not be)
    this._wave = false; // the wasm has asked for its first wave
    const nav = globalThis.navigator, md = nav && nav.mediaDevices;
    let warming = null;
    // userAgentData: Chromium's alone (its engines: Chrome, Edge, Opera…).
    try { warming = md && md.enumerateDevices && nav.userAgentData ? md.enumerateDevices() : null; } catch { warming = null; }
    if (!warming) this._warm = true;
    else Promise.resolve(warming).then(() => this._ready("_warm"), () => this._ready("_warm"));
  }

  /** A wave is asked for (by the wasm, or from a hint): the first one's wait on the network is idle time. */
  waveAsked() { if (!this._wave) this._ready("_wave"); }

  /** Hands over the context made (null: none yet); nothing is made after. */
  take() {
    this._over = true;
    const c = this._ctx;
    this._ctx = null;
    return c;
  }

  close() {
    const c = this.take();
    if (c) c.close().catch(() => {});
  }

  _ready(what) {
    this[what] = true;
    // Out of the caller's stack: the wasm's fetch goes out first.
    if (this._warm && this._wave) setTimeout(() => { if (!this._over && !this._ctx) this._ctx = newContext(); });
  }
}

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
async function prefetch(early, { portal, cell, listing, at, hints, onWave }) {
  const region = early.fetch(portal + REGION, typeof at === "function");
  const list = listing ? early.fetch(cell + LISTING, at != null) : null;
  if (at == null || (listing && !list)) return;
  const where = typeof at === "function" ? at(await regionName(region)) : at;
  let pos = null;
  try { pos = where == null ? null : toPOS(where); } catch { pos = null; }
  const spot = pos === null ? null : spotOf(pos);
  if (!spot) return;
  if (spot.envCell) early.fetch(cell + hex(spot.envCell));
  else if (hints) askHinted(early, hints + hex(landblockId(spot.bx, spot.by)), portal, spot, onWave).catch(() => {});
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
async function askHinted(early, url, portal, spot, onWave) {
  const r = await fetch(url);
  if (!r.ok) return;
  const { bytes, whole } = await head(r, 16 << 10);
  if (!whole) return;
  const h = JSON.parse(new TextDecoder().decode(bytes));
  const tables = Array.isArray(h.tables) ? h.tables.filter((t) => TABLE_ID.test(t)) : [];
  for (const t of tables.slice(0, 64)) early.fetch(portal + t);
  const w = spot.x === undefined ? null : firstWave(h, spot.x, spot.y);
  if (w && early.fetch(portal + w)) onWave();
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

// renderPath: a render's path as the -path file's JSON lines (docs/interfaces.md
// §1.1): each step's player and camera as POS text (a camera's heading,
// given as its key, as /H). Issue 31's block, with AmbientAudio.render.
function renderPath(path) {
  if (!Array.isArray(path) || path.length === 0) throw coded("bad-position", "ambient: render: want a path [{t, player, camera?}, …]");
  return path.map((st, i) => {
    if (!st || typeof st !== "object" || typeof st.t !== "number" || !(st.t >= 0)) {
      throw coded("bad-position", `ambient: render: path step ${i}: want {t: seconds ≥ 0, player, camera?}`);
    }
    const line = { t: st.t };
    if (st.player !== undefined) line.player = posText(st.player);
    if (st.camera !== undefined) {
      line.camera = posText(st.camera);
      const h = st.camera && typeof st.camera === "object" ? st.camera.heading : undefined;
      if (typeof h === "number") line.camera += "/" + h;
    }
    return JSON.stringify(line);
  }).join("\n") + "\n";
}

// posText is toPOS with its complaints coded.
function posText(pos) {
  try { return toPOS(pos); } catch (e) { throw coded("bad-position", e.message); }
}

// runWasm instantiates ambient.wasm and resolves with the API object its Go
// main hands over.
async function runWasm(wasmURL, wasmExec) {
  if (typeof globalThis.Go !== "function") {
    if (wasmExec) await import(/* @vite-ignore */ /* webpackIgnore: true */ new URL(wasmExec, import.meta.url).href);
    else await import("./wasm_exec.js"); // a script that sets globalThis.Go; as a module it runs once
  }
  const go = new globalThis.Go();
  // A global name no other instance holds (the wasm calls it once with its
  // API), drawn until free rather than counted in module state.
  let cbName;
  do cbName = `__acambient_${Math.random().toString(36).slice(2)}`; while (cbName in globalThis);
  const gotAPI = new Promise((resolve) => { globalThis[cbName] = resolve; });
  go.argv = ["ambient.wasm", cbName];
  let inst;
  const compiling = WebAssembly.instantiateStreaming(fetch(wasmURL), go.importObject);
  compiling.catch(() => {}); // awaited below
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
