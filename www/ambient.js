// ambient.js: Asheron's Call's retail ambient sound in any web page
// (docs/interfaces.md §3). An ES module; the engine runs in a worker
// (ambient.worker.js, which runs the Go core, ambient.wasm) and its samples
// play in an AudioWorklet (ambient.worklet.js), so the page's own thread
// never waits on Go (docs/architecture.md, "The page's threads").
//
//   import { AmbientAudio } from "./ambient.js";
//   const amb = await AmbientAudio.load({ server: "" });
//   button.onclick = () => amb.start();
//   amb.setPlayer("0xA9B4001F/72,144,22.2");
//
// A position goes setPlayer → toPOS (a POS string) → a message to the
// worker → the wasm's setPlayer (wasm/main.go) → session.Host → the engine
// at the mixer's next tick. The worker posts the host's snapshots (state(),
// stats(), landblock() answer from the latest), its events ("play", "skip",
// "rebuild", "error") and captions; the promises settle by request id.
// Every error is an Error with a code (AmbientError in ambient.d.ts).

import { hexId as hex, mapCoord, mapText } from "./geo.js";
import { walkRoute } from "./walk.js";

// The region record: what load() asks for first, and what tells a source
// that answers from one that speaks another API.
const REGION = "0x13000000";

// The Go side's output rate (wasm/audio.go sampleRate): the AudioContext
// is made at it.
const RATE = 48000;

// The worklet's queue target (frames): what the audio thread plays while
// the worker is late (docs/browser-testing.md §5). e2e TestMainThreadHeld,
// Chromium alone on a 2-core machine, the river, 30 s: the worklet's
// reports reached the worker up to 260 ms apart with the main thread free
// and 335 ms apart with it held 300 ms every 2 s (the worker's Go busy,
// the threads short of a core); 16384 frames (341 ms) starved 10 quanta
// free and 23–26 held, 32768 (683 ms) none. WebKitGTK passes the port's
// messages through the page's main thread, and needs 32768 as well. The
// cost is latency: a move is heard up to 0.68 s after setPlayer.
const QUEUE = 32768;

export class AmbientAudio {
  /**
   * Starts the engine's worker, loads the wasm and the region; resolves
   * when the instance is usable. Rejects with an AmbientError: "wasm" (the
   * worker or the module did not load or run), "network" or "cors" (the
   * source is unreachable, or answers what the browser may not read),
   * "wrong-api" (the source answers the other API's routes), "not-found"
   * (no region record), "bad-record".
   * @param {import("./ambient").LoadOptions} [opts]
   */
  static async load(opts = {}) {
    // The start's steps are marked in the performance timelines, this
    // thread's and the worker's (ambient.worker.js mark), for devtools and
    // bench/firstsound.
    performance.mark?.("acambient:load");
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
    // The wasm beside this module is named in the literal form bundlers
    // follow (Vite, webpack 5, Rollup), in ambient-wasm.js, imported on
    // demand: they copy the wasm into the build and point its URL at the
    // copy, on any route of the app, and Nuxt does not prefetch the assets
    // of a chunk imported dynamically (so the wasm downloads once).
    const besideWasm = opts.wasm ? null : (await import("./ambient-wasm.js")).wasmURL;
    const wasmURL = opts.wasm ? new URL(opts.wasm, document.baseURI).href
      : mapped(besideWasm) || besideWasm;
    // Go's glue, which the worker imports: named here, where bundlers
    // follow the literal and the page's import map applies (a worker does
    // not see it).
    const wasmExec = opts.wasmExec ? new URL(opts.wasmExec, document.baseURI).href
      : mapped(new URL("./wasm_exec.js", import.meta.url).href) || new URL("./wasm_exec.js", import.meta.url).href;
    // The hints are the dat server's and its export's (docs/interfaces.md
    // §2.1), beside the records it serves by default; acdatservice has none.
    const hints = acdat || opts.portal || opts.cell ? null : base("hints/");
    let at = null;
    if (typeof opts.at === "function") at = "ask";
    else if (opts.at != null) { try { at = toPOS(opts.at); } catch { at = null; } }

    // The worker first: its thread starts (and its early requests go) before
    // the compile below takes the cores.
    const here = compilesHere();
    const starting = Link.start({ t: "init", wasm: wasmURL, wasmExec, portal, cell, listing: !acdat, hints, at, module: here });
    // The wasm compiles from here, while the worker starts and imports the
    // glue (0.2–0.3 s cold, bench/firstsound), on the engine's background
    // threads, not this one; the worker gets the module (a Module is posted
    // as a handle to the same code). Where that fails (a wasm served
    // with the wrong type, a browser that cannot post a Module) the worker
    // compiles it itself, as it would have.
    const compiling = here ? compileHere(wasmURL) : null;
    const ahead = new ContextAhead();
    let link;
    try {
      link = await starting;
    } catch (e) {
      ahead.close();
      throw coded("wasm", e.message);
    }
    compiling?.then((module) => {
      try { link.post({ t: "module", module }); } catch (e) { link.post({ t: "module", error: String(e && e.message || e) }); }
    }, (e) => link.post({ t: "module", error: String(e && e.message || e) }));
    const amb = new AmbientAudio(link, { portal, cell, wasm: wasmURL });
    amb._ahead = ahead;
    link.onWave = () => ahead.waveAsked();
    link.onRegion = (name) => {
      let pos = null;
      try { const w = opts.at(name); pos = w == null ? null : toPOS(w); } catch { pos = null; }
      link.post({ t: "at", pos });
    };
    try {
      // Ours and an export list their landblocks beside the cell records.
      amb.info = await link.opened;
    } catch (e) {
      amb.dispose();
      throw e.code === "wasm" ? e : await explainOpen(e, portal, server, acdat);
    }
    // The context and its worklet, made where they cost the first sound
    // nothing (ContextAhead), go to the instance once made.
    ahead.onMade = (ctx) => amb._adopt(ctx);
    if (ahead._ctx) amb._adopt(ahead._ctx);
    return amb;
  }

  constructor(link, where) {
    this._link = link;
    this._where = where;
    this._ctx = null;
    this._out = null; // {node, ready}: the worklet on _ctx (Output)
    this._ahead = null; // makes the AudioContext ahead of the click
    this._onCtxState = null; // its statechange listener, removed at dispose
    this._handlers = { play: new Set(), skip: new Set(), state: new Set(), error: new Set(), rebuild: new Set(), caption: new Set() };
    this._heard = false; // the audio was running at the last batch of captions
    this._disposed = false;
    this._offData = null; // the landblock the listener is off the data at, as last reported
    this._moves = 0; // setPlayer calls so far
    this._gesture = null; // removes the listeners that resume the context at the next gesture
    /** @type {import("./ambient").Info} */
    this.info = { terrains: [], landmarks: [] };
    link.onSnap = (m) => this._snap(m);
    link.onEvents = (m) => this._events(m);
  }

  /**
   * Starts (or resumes) the audio. Call it from a user gesture (a click, a
   * key): browsers only let audio start from one. Resolves with
   * `{running: true}` when sound flows, or `{running: false,
   * waitingForGesture: true}` when the browser wants a gesture first; the
   * audio then starts on the page's next click or key press, and a "state"
   * event reports it. What the worker has queued plays at once.
   */
  async start() {
    this._live();
    performance.mark?.("acambient:start");
    if (!this._ctx) {
      // The context made ahead (its worklet on it already), or a new one.
      const early = this._ahead ? this._ahead.take() : null;
      if (early && (!this._out || this._out.ctx !== early)) early.close().catch(() => {});
      if (!this._out) {
        const ctx = newContext();
        if (ctx) this._adopt(ctx);
      }
      if (this._out) {
        this._ctx = this._out.ctx;
        this._onCtxState = () => {
          if (this._disposed) return;
          this._emit("state", this.state());
          this._captionsNow();
        };
        this._ctx.addEventListener("statechange", this._onCtxState);
      }
    }
    const ctx = this._ctx;
    if (!ctx) return { running: false, waitingForGesture: false, sampleRate: 0 };
    // The worklet holds the clock's latest mixing already (where it takes
    // messages while the context waits; else the worker sends its pre-roll
    // now); the worker starts its feed on this, or on the worklet's first
    // report, whichever it sees first.
    this._link.post({ t: "audio", running: true });
    // Resumed even where the state reads "running": a stop() just before
    // (an element handing over to another) leaves a suspend() pending that
    // would land after this start; a resume() queued behind it wins, and on
    // a running context it is a no-op. resume() stays pending until the
    // browser allows audio: don't wait.
    await Promise.race([ctx.resume().catch(() => {}), new Promise((r) => setTimeout(r, 200))]);
    const running = ctx.state === "running";
    if (!running) this._resumeOnGesture();
    return { running, waitingForGesture: !running, sampleRate: ctx.sampleRate };
  }

  /** Whether audio is flowing to the speakers. */
  get running() { return !!this._ctx && this._ctx.state === "running"; }

  /** The Web Audio context, once start() made it (or took the one made ahead). */
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
      // Numbered: calls settle out of order, and the latest one wins (core/session Moves).
      if (this._moves === 0) performance.mark?.("acambient:setPlayer");
      return await this._settle(this._link.call("setPlayer", posText(pos), ++this._moves));
    } finally {
      this._offDataNow();
    }
  }

  /** Sets the listener that placement and pan use; heading in compass degrees. */
  async setCamera(pos, heading) {
    this._live();
    const h = heading ?? (pos && typeof pos === "object" ? pos.heading : undefined);
    return this._settle(this._link.call("setCamera", posText(pos), typeof h === "number" ? h : 0));
  }

  /** The ambient slider, 0..1 (retail applies it as the game does). */
  setVolume(v) { this._live(); this._link.tell("setVolume", Number(v)); }

  /** retail's ambient_sounds_enabled. */
  setEnabled(on) { this._live(); this._link.tell("setEnabled", !!on); }

  /**
   * Resolves once a first sound can be heard where the player stands: the
   * ring's landblocks and SoundTables have come, and the first wave the
   * engine wants (the loudest bed's) has come or failed. A click then
   * sounds at once; one before it sounds when the wave arrives.
   * @returns {Promise<void>}
   */
  started() { this._live(); return this._settle(this._link.started); }

  /**
   * The latest snapshot the worker posted (it posts one on every change;
   * at most POLL_MS, 100 ms, old), with the audio's state as it is now.
   * @returns {import("./ambient").State}
   */
  state() {
    this._live();
    const s = structuredClone(this._link.state);
    s.offData = this._link.offData ? { landblock: this._link.offData } : null;
    s.audio = this._ctx ? this._ctx.state : "none";
    s.loading.done = s.loading.records;
    return s;
  }

  /**
   * What the instance holds, for long sessions and their benchmarks
   * (bench/soak): the Go runtime's memory (runtime/metrics), the wasm's
   * linear memory (it never shrinks: its size is what the tab keeps), the
   * bytes each cache counts as holding, and the output's queue. The latest
   * figures the worker posted: at most a second old.
   * @returns {import("./ambient").Stats}
   */
  stats() {
    this._live();
    return structuredClone(this._link.stats);
  }

  /**
   * Whether the source holds landblock (bx, by), as far as this instance
   * knows (a fetch, a not-found, the source's landblock listing): off the
   * data the listener is nowhere. From the latest snapshot (at most 100 ms old).
   * @returns {"present" | "absent" | "unknown"}
   */
  landblock(bx, by) {
    this._live();
    if (!(bx >= 0 && bx < 255 && by >= 0 && by < 255) || bx !== Math.floor(bx) || by !== Math.floor(by)) return "absent";
    const p = this._link.presence;
    return PRESENCE[p ? p[bx * 255 + by] : 0];
  }

  /**
   * The map tile of landblock (bx, by): 64 cell colours and terrain types
   * (x-major, index 8·cx + cy) and 81 vertex heights; null where the data
   * has no land.
   * @returns {Promise<import("./ambient").Tile | null>}
   */
  tile(bx, by) { this._live(); return this._settle(this._link.call("tile", bx, by)); }

  on(kind, fn) { this._set(kind).add(fn); return this; }
  off(kind, fn) { this._set(kind).delete(fn); return this; }

  /** Silences the audio; the engine keeps its clock. start() resumes. */
  stop() {
    if (this._disposed) return;
    this._link.post({ t: "audio", running: false });
    if (this._ctx) this._ctx.suspend().catch(() => {});
  }

  /** Stops everything and lets the instance go: the worker, the worklet and its port, the context. */
  dispose() {
    if (this._disposed) return;
    this._disposed = true;
    this._link.close();
    if (this._out) {
      this._out.close();
      this._out.ctx.close().catch(() => {});
    }
    if (this._ctx) {
      // Nothing of this instance stays on the context: whatever keeps a
      // closed context alive (a page's own worklet on it) must not keep the
      // instance too.
      this._ctx.removeEventListener("statechange", this._onCtxState);
      this._ctx.close().catch(() => {});
    }
    if (this._ahead) this._ahead.close();
    this._stopGesture();
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
    // The worker renders (wasm/render.go) and posts the WAV's bytes a
    // chunk at a time (transferred), each with the frames mixed so far.
    await this._settle(this._link.call("render", (bytes, done, total) => {
      // A Blob a chunk, as it comes: the last Blob is made of Blobs, which
      // copies nothing (one of 58 MB from 58 arrays held Chromium's main
      // thread 515 ms).
      parts.push(new Blob([bytes]));
      if (onProgress) {
        try { onProgress({ done: done / rateHz, total: total / rateHz }); } catch (e) { setTimeout(() => { throw e; }); }
      }
    }, lines, opts));
    return new Blob(parts, { type: "audio/wav" });
  }

  // ---- end of walks and renders ----

  // ---- internals ----

  // _resumeOnGesture resumes the context at the page's next click or key
  // press, which lets it run where start() came without one.
  _resumeOnGesture() {
    if (this._gesture) return;
    const kinds = ["mouseup", "keyup", "touchend"];
    const go = () => {
      if (this._disposed || this._ctx.state === "closed") return;
      this._ctx.resume().then(() => this._stopGesture(), () => {});
    };
    for (const k of kinds) document.addEventListener(k, go, true);
    this._gesture = () => { for (const k of kinds) document.removeEventListener(k, go, true); };
  }

  _stopGesture() {
    if (this._gesture) this._gesture();
    this._gesture = null;
  }

  // _adopt puts the worklet on ctx, its port to the worker: ahead of the
  // click (ContextAhead), or in start(), which makes ctx the instance's.
  _adopt(ctx) {
    if (this._out || this._disposed) return;
    this._out = new Output(ctx, this._link, (e) => this._emit("error", e));
  }

  _set(kind) {
    const s = this._handlers[kind];
    if (!s) throw new Error(`ambient: no event "${kind}" (play, skip, state, error, rebuild, caption)`);
    return s;
  }

  _live() { if (this._disposed) throw coded("disposed", "ambient: disposed"); }

  // _settle: a promise that dispose() cut short rejects with "disposed".
  _settle(p) {
    return p.catch((e) => { throw this._disposed ? coded("disposed", "ambient: disposed") : e; });
  }

  // _offDataNow emits "state" when a setPlayer took the listener off the
  // data or back onto it, so a page says so at once.
  _offDataNow() {
    if (this._disposed) return;
    const off = this._link.offData;
    if (off === this._offData) return;
    this._offData = off;
    if (this._handlers.state.size) this._emit("state", this.state());
  }

  _emit(kind, arg) {
    for (const fn of this._handlers[kind]) {
      try { fn(arg); } catch (e) { setTimeout(() => { throw e; }); }
    }
  }

  // _snap: the worker posted a snapshot; a new state is a "state" event.
  _snap(m) {
    if (this._disposed || !m.state) return;
    this._offData = this._link.offData;
    if (this._handlers.state.size) this._emit("state", this.state());
  }

  _events(m) {
    if (this._disposed) return;
    for (const ev of m.events) {
      if (ev.event === "play" || ev.event === "skip" || ev.event === "rebuild") this._emit(ev.event, ev);
    }
    for (const pr of m.errors) this._emit("error", coded(pr.code, pr.message, pr));
    this._captions(m.captions);
  }

  // _captions emits the Go side's captions while the audio is heard: a
  // caption says what plays, and before start() (or after stop()) nothing
  // reaches the speakers, though the engine's clock runs. A batch is
  // emitted only when the audio ran at this batch and the last: the batch
  // that first finds it running was made (nearly all) in silence. Then the
  // Go side is asked to say the continuous sounds again, so a listener who
  // starts at the river is told of it.
  _captions(cs) {
    const heard = this.running;
    if (heard && !this._heard) this._link.tell("recaption");
    else if (heard) for (const c of cs) this._emit("caption", c);
    this._heard = heard;
  }

  _captionsNow() {
    if (this.running && !this._heard) { this._heard = true; this._link.tell("recaption"); }
    if (!this.running) this._heard = false;
  }
}

const PRESENCE = ["unknown", "present", "absent"];

// Link is the page's end of the worker: requests by id (the worker
// answers each once), fire-and-forget calls, and the latest snapshots the
// worker posted (state, offData, stats, the landblocks' presence).
class Link {
  /**
   * Starts ambient.worker.js: beside this module by the literal bundlers
   * follow; where this module came from another origin (a userscript, a
   * CDN), the browser refuses that, and a worker from a Blob URL imports
   * the script by its address instead (it must be served with CORS, as
   * this module was). Resolves once the worker runs.
   */
  // start makes the worker and posts it init at once (queued until its
  // script has run): the wasm's download starts as soon as the worker
  // runs, not after a round trip through this thread, which a busy page
  // held 190 ms. A worker that reports no "alive" is replaced, and init
  // posted to the new one; the worker's first messages follow its "alive".
  static async start(init) {
    let w = null, why = "";
    const versioned = mapped(new URL("./ambient.worker.js", import.meta.url).href);
    // A worker of another origin is refused (Chromium throws; Firefox
    // reports it as the page's error): go to the Blob URL at once.
    // The worker's own URL decides: a bundler rewrites it to where the app
    // serves the script, while import.meta.url may stay the build's file:.
    const foreign = new URL(versioned || new URL("./ambient.worker.js", import.meta.url).href).origin !== globalThis.location?.origin;
    try {
      if (foreign) why = "the module is of another origin";
      else w = versioned ? new Worker(versioned, { type: "module" })
        : new Worker(new URL("./ambient.worker.js", import.meta.url), { type: "module" });
      w?.postMessage(init);
    } catch (e) {
      why = e && e.message || String(e);
    }
    if (w && !(await Link._alive(w))) { w.terminate(); w = null; why = why || "the worker script did not run"; }
    if (!w) {
      const url = versioned || new URL("./ambient.worker.js", import.meta.url).href;
      const blob = URL.createObjectURL(new Blob([`import ${JSON.stringify(url)};\n`], { type: "text/javascript" }));
      try {
        w = new Worker(blob, { type: "module" });
        w.postMessage(init);
        if (!(await Link._alive(w))) { w.terminate(); w = null; }
      } catch (e) {
        why += "; from a Blob URL: " + (e && e.message || e);
        w = null;
      } finally {
        URL.revokeObjectURL(blob);
      }
    }
    if (!w) {
      throw new Error(`ambient: the engine's worker (${new URL("./ambient.worker.js", import.meta.url).href}) did not start` +
        ` (${why || "refused"}): a Content-Security-Policy must allow it: worker-src (or script-src) naming its origin, or blob:`);
    }
    return new Link(w);
  }

  // _alive resolves true once w posts that it runs, false if it fails first.
  static _alive(w) {
    return new Promise((resolve) => {
      w.onmessage = (e) => { if (e.data && e.data.t === "alive") resolve(true); };
      w.onerror = (e) => { e.preventDefault?.(); resolve(false); };
    });
  }

  constructor(w) {
    this.w = w;
    this.next = 0;
    this.waiting = new Map(); // request id → {resolve, reject}
    this.state = null;
    this.offData = null;
    this.stats = null;
    this.presence = null;
    this.onSnap = this.onEvents = this.onWave = this.onRegion = () => {};
    this.opened = new Promise((resolve, reject) => { this._opened = { resolve, reject }; });
    this.opened.catch(() => {});
    // Settles when the worker says a first sound can be heard (it posts it
    // unasked, after the snapshot of that moment).
    this.started = new Promise((resolve, reject) => { this._started = { resolve, reject }; });
    this.started.catch(() => {});
    w.onmessage = (e) => this._take(e.data);
    w.onerror = (e) => {
      e.preventDefault?.();
      const err = coded("wasm", `ambient: the engine's worker failed: ${e.message || "an error"}`);
      this._opened.reject(err);
      this._started.reject(err);
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
    };
  }

  post(m, transfer) { this.w.postMessage(m, transfer || []); }

  call(name, ...args) {
    const id = ++this.next;
    // A function first among args is the call's chunk listener (render's
    // WAV bytes, posted ahead of its reply), not an argument to post.
    const onChunk = typeof args[0] === "function" ? args.shift() : null;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, onChunk });
      this.post({ t: "call", id, name, args });
    });
  }

  tell(name, ...args) { this.post({ t: "tell", name, args }); }

  close() {
    this.w.terminate();
    const err = coded("disposed", "ambient: disposed");
    this._started.reject(err);
    for (const p of this.waiting.values()) p.reject(err);
    this.waiting.clear();
  }

  _take(m) {
    switch (m.t) {
      case "opened":
        if (m.error) this._opened.reject(coded(m.error.code, m.error.message, m.error));
        else this._opened.resolve(m.info);
        break;
      case "reply": {
        const p = this.waiting.get(m.id);
        if (!p) break;
        this.waiting.delete(m.id);
        if (m.error) p.reject(coded(m.error.code, m.error.message, m.error));
        else p.resolve(m.value);
        break;
      }
      case "started":
        if (m.error) this._started.reject(coded(m.error.code, m.error.message, m.error));
        else this._started.resolve();
        break;
      case "chunk": this.waiting.get(m.id)?.onChunk?.(m.bytes, m.done, m.total); break;
      case "snap":
        if (m.state) { this.state = m.state; this.offData = m.offData || null; }
        if (m.stats) this.stats = m.stats;
        if (m.presence) this.presence = m.presence;
        this.onSnap(m);
        break;
      case "events": this.onEvents(m); break;
      case "wave": this.onWave(); break;
      case "region": this.onRegion(m.name); break;
    }
  }
}

// Output is the instance's AudioWorkletNode on ctx (ambient.worklet.js)
// and the port between it and the worker: once the worklet's module has
// loaded (from this module's origin, or where CORS forbids that, from a
// Blob of its text), the node is connected to the destination and each
// end of a MessageChannel goes to one of them.
class Output {
  constructor(ctx, link, onError) {
    this.ctx = ctx;
    this.node = null;
    this.closed = false;
    this.ready = this._make(ctx, link).catch((e) => {
      if (!this.closed) onError(coded("wasm", `ambient: the audio worklet did not load: ${e && e.message || e}`));
    });
  }

  async _make(ctx, link) {
    const url = mapped(new URL("./ambient.worklet.js", import.meta.url).href) || new URL("./ambient.worklet.js", import.meta.url).href;
    try {
      await ctx.audioWorklet.addModule(url);
    } catch (e) {
      const text = await (await fetch(url)).text();
      const blob = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
      try { await ctx.audioWorklet.addModule(blob); } finally { URL.revokeObjectURL(blob); }
    }
    if (this.closed) return;
    const node = new AudioWorkletNode(ctx, "acambient-output", { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [2] });
    node.connect(ctx.destination);
    const { port1, port2 } = new MessageChannel();
    node.port.postMessage({ port: port2 }, [port2]);
    link.post({ t: "port", port: port1, target: QUEUE }, [port1]);
    performance.mark?.("acambient:worklet");
    this.node = node;
  }

  close() {
    this.closed = true;
    if (this.node) {
      this.node.port.postMessage({ close: true });
      this.node.port.close();
      this.node.disconnect();
      this.node = null;
    }
  }
}

// compilesHere reports whether this page can stream a compile of the wasm.
function compilesHere() {
  const W = globalThis.WebAssembly;
  return !!W && typeof W.compileStreaming === "function" && typeof fetch === "function";
}

// compileHere starts compiling the wasm at url on this page: it settles
// with the Module, or fails, and never rejects unhandled.
function compileHere(url) {
  const p = fetch(url).then((r) => globalThis.WebAssembly.compileStreaming(pieces(r)));
  p.catch(() => {}); // the worker is told, and compiles it itself
  return p;
}

// PIECE is how much of the wasm the page's compile takes in one task.
// The compile decodes what it is handed on this thread (the functions
// compile on the engine's background threads): a wasm already all in (the
// page's preload, the HTTP cache) went in one 98–118 ms task, which a click
// waited behind, and so did the worker's start (Chromium starts a worker
// through its page's thread: 280 ms after load() on localhost, cold).
const PIECE = 256 << 10;

// pieces is r with its body handed on a PIECE at a time, a task each
// (a MessageChannel's turn: a timer's would be clamped to 4 ms).
function pieces(r) {
  if (!r.ok || !r.body || typeof MessageChannel !== "function") return r;
  const reader = r.body.getReader();
  let left = new Uint8Array(0);
  const c = new MessageChannel();
  let wake = () => {};
  c.port1.onmessage = () => wake();
  const turn = () => new Promise((resolve) => { wake = resolve; c.port2.postMessage(null); });
  const body = new ReadableStream({
    async pull(controller) {
      if (!left.length) {
        const { done, value } = await reader.read();
        if (done) { c.port1.close(); controller.close(); return; }
        left = value;
      }
      controller.enqueue(left.subarray(0, PIECE));
      left = left.subarray(PIECE);
      await turn();
    },
    cancel(why) { c.port1.close(); return reader.cancel(why); },
  });
  return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers });
}

// mapped is url as the page's import map names it, where that differs
// (serve's versioned URLs, server/pagever.go), else null.
function mapped(url) {
  try {
    const r = typeof import.meta.resolve === "function" ? import.meta.resolve(url) : url;
    return r !== url ? r : null;
  } catch { return null; }
}

// ContextAhead makes the AudioContext (and so the worklet) ahead of the
// click, where it costs the first sound nothing: once the first wave is on
// the wire, whose wait on the network leaves the main thread nothing else
// to do (the worker says when it asks for one, or the early requests
// did). Chromium's constructor blocks the main thread while the browser
// brings its audio service up: 190–560 ms for a tab's first context here,
// 4–40 ms once the service runs. navigator.mediaDevices.enumerateDevices()
// brings the service up too, asynchronously, for 3–15 ms of the main
// thread; so in Chromium it is asked at once, and the context is made once
// it has answered too. Not elsewhere: Firefox's first enumerateDevices()
// holds the main thread 100–170 ms, longer than its constructor (10–80 ms),
// and WebKit's constructor takes under 2 ms. A click before then makes it
// in start().
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
    if (this._warm && this._wave) setTimeout(() => {
      if (this._over || this._ctx) return;
      this._ctx = newContext();
      performance.mark?.("acambient:context");
      if (this._ctx && this.onMade) this.onMade(this._ctx);
    });
  }
}

// newContext makes an AudioContext at the Go side's rate, suspended (where
// the browser lets audio start without a gesture it would run, silent,
// until start()), or null where there is no Web Audio.
function newContext() {
  const Native = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!Native) return null;
  try {
    const c = new Native({ sampleRate: RATE });
    c.suspend().catch(() => {});
    return c;
  } catch { return null; }
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
