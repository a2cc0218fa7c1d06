// ac-ambience.js: <ac-ambience>, a place's ambience in any page
// (docs/interfaces.md §6). Importing the module defines the element:
//
//   <script type="module" src="https://example.org/ac/ac-ambience.js"></script>
//   <ac-ambience pos="42.1N,33.6E" label="The river below Holtburg"></ac-ambience>
//
// One button in a shadow root starts and stops the ambience of `pos`. The
// elements of a page share one engine (one AmbientAudio) per data source:
// starting one stops the one playing and moves the listener to its pos.
// The engine is loaded when a pointer comes over an element or it takes
// the focus, so that a click usually finds it ready; the audio starts in
// the click (browsers let audio start only from a gesture).
import { AmbientAudio } from "./ambient.js";

const TAG = "ac-ambience";

// Where the module was loaded from: the default data source, as the
// userscript's `server` (docs/interfaces.md §4.1): the dat server or export
// that serves this file serves the records beside it.
const HERE = new URL(".", import.meta.url).href.replace(/\/+$/, "");

// The element's look, inside its shadow root: the host page's CSS does not
// reach in (the button resets every property it inherits), and none of
// this leaks out. --ac-ambience-accent and --ac-ambience-bg theme it.
const CSS = `
:host { display: inline-block; vertical-align: middle; }
:host([hidden]) { display: none; }
button {
  all: initial; box-sizing: border-box; display: inline-flex; align-items: center; gap: 0.5em;
  font: 500 15px/1.3 system-ui, -apple-system, "Segoe UI", sans-serif; color: #14261a;
  background: var(--ac-ambience-bg, #eef4ec); border: 1px solid var(--ac-ambience-accent, #3c7a4a);
  border-radius: 999px; padding: 0.4em 0.95em 0.4em 0.7em; cursor: pointer; max-width: 100%;
}
button:hover { background: #e2eddf; }
button:focus-visible { outline: 2px solid var(--ac-ambience-accent, #3c7a4a); outline-offset: 2px; }
button[aria-pressed="true"] { background: var(--ac-ambience-accent, #3c7a4a); color: #fff; }
button[aria-busy="true"] { cursor: progress; }
button.nodata, button.failed { border-style: dashed; color: #5b5b5b; }
.icon { font-size: 0.8em; width: 1em; text-align: center; }
.text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.captions { all: initial; display: block; font: 13px/1.35 system-ui, sans-serif; color: #3d4a3f; margin: 0.3em 0.2em 0; min-height: 1.35em; }
.captions[hidden] { display: none; }
`;

/**
 * The shared engines, one per data source (server and api), and the one
 * element playing on the page: the class's own, not the module's.
 */
class Engines {
  #byKey = new Map(); // key → {load: Promise<AmbientAudio>, amb: AmbientAudio | null}
  /** @type {AcAmbience | null} */
  playing = null;

  /** The engine of server and api, loading it on first ask; pos is where it will go first. */
  get(server, api, pos) {
    const key = server + "\n" + (api || "");
    let e = this.#byKey.get(key);
    if (!e) {
      e = { load: AmbientAudio.load({ server, api: api || undefined, at: pos || undefined }), amb: null };
      const entry = e;
      // A failed load is asked again at the next start, not kept.
      e.load.then((amb) => { entry.amb = amb; }, () => { if (this.#byKey.get(key) === entry) this.#byKey.delete(key); });
      this.#byKey.set(key, e);
    }
    return e;
  }
}

export class AcAmbience extends HTMLElement {
  static observedAttributes = ["pos", "label", "volume", "captions", "server", "api"];
  static #engines = new Engines();

  #button;
  #icon;
  #text;
  #captions;
  #amb = null; // the shared AmbientAudio, once this element started it
  #state = "off"; // "off" | "loading" | "on" | "nodata" | "failed"
  #bed = ""; // the place's bed caption, once heard
  #starts = 0; // start() calls: a later click supersedes an earlier one still loading
  #onCaption = (c) => this.#caption(c);

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = CSS;
    this.#icon = el("span", "icon");
    this.#icon.setAttribute("aria-hidden", "true");
    this.#text = el("span", "text");
    this.#button = el("button", "");
    this.#button.type = "button";
    this.#button.setAttribute("part", "button");
    this.#button.append(this.#icon, this.#text);
    this.#captions = el("div", "captions");
    this.#captions.setAttribute("part", "captions");
    this.#captions.setAttribute("aria-live", "polite");
    root.append(style, this.#button, this.#captions);
    // A click, or Enter or Space on the focused button (a <button>'s own
    // keys), toggles; hover and focus warm the engine up.
    this.#button.addEventListener("click", () => (this.#state === "on" ? this.stop() : this.start()));
    const warm = () => this.#engine().load.catch(() => {});
    this.#button.addEventListener("pointerenter", warm);
    this.#button.addEventListener("focus", warm);
    this.#render();
  }

  /** The shared AmbientAudio (docs/interfaces.md §3), once this element started. */
  get ambient() { return this.#amb; }

  /** Whether this element's ambience is playing. */
  get playing() { return this.#state === "on"; }

  connectedCallback() { this.#render(); }

  disconnectedCallback() { if (this.#state === "on" || this.#state === "loading") this.stop(); }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === "pos" && this.#state === "on") this.#move();
    if (name === "pos") this.#bed = "";
    if (name === "volume" && this.#state === "on" && this.#amb) this.#amb.setVolume(this.#volume());
    if (name === "captions" && this.#state === "on" && this.#amb) this.#captionsShown();
    this.#render();
  }

  /**
   * Starts this place's ambience: loads the shared engine, stops the element
   * playing, moves the listener here, starts the audio (call it from a
   * gesture). Resolves when it plays, or when it failed (an ac-error said
   * why).
   */
  async start() {
    const my = ++this.#starts;
    const engines = AcAmbience.#engines;
    const other = engines.playing;
    if (other && other !== this) other.stop();
    engines.playing = this;
    this.#state = "loading";
    this.#render();
    let amb = null;
    try {
      const engine = this.#engine();
      // A loaded engine starts inside the gesture itself (WebKit allows
      // audio only there); one still loading starts in the gesture's wake,
      // which Chromium and Firefox allow for a while (and ambient.js
      // starts it at the page's next click otherwise).
      let started = engine.amb ? engine.amb.start() : null;
      amb = engine.amb ?? await engine.load;
      if (my !== this.#starts) return;
      started ??= amb.start();
      amb.setVolume(this.#volume());
      await amb.setPlayer(this.#pos());
      await started;
    } catch (e) {
      if (my !== this.#starts) return;
      if (engines.playing === this) engines.playing = null;
      if (amb) amb.stop();
      this.#state = e && e.code === "missing-landblock" ? "nodata" : "failed";
      this.#render(e);
      this.#fire("ac-error", { code: (e && e.code) || "wasm", message: String((e && e.message) || e) });
      return;
    }
    if (my !== this.#starts) return;
    this.#amb = amb;
    amb.off("caption", this.#onCaption).on("caption", this.#onCaption);
    this.#state = "on";
    this.#captionsShown();
    this.#render();
    this.#fire("ac-play", { pos: this.#pos() });
  }

  /** Stops this element's ambience (the engine stays, for the next start). */
  stop() {
    const was = this.#state;
    this.#starts++;
    const engines = AcAmbience.#engines;
    if (engines.playing === this) {
      engines.playing = null;
      if (this.#amb) this.#amb.stop();
    }
    if (this.#amb) this.#amb.off("caption", this.#onCaption);
    if (was === "on" || was === "loading") {
      this.#state = "off";
      this.#captions.textContent = "";
      this.#captionsShown();
      this.#render();
      if (was === "on") this.#fire("ac-stop", { pos: this.#pos() });
    }
  }

  // ---- internals ----

  // #engine: the shared engine of this element's source ({load, amb}).
  #engine() {
    const server = this.getAttribute("server") ?? HERE;
    return AcAmbience.#engines.get(server.replace(/\/+$/, ""), this.getAttribute("api"), this.#pos());
  }

  #pos() { return (this.getAttribute("pos") || "").trim(); }

  #volume() {
    const v = Number(this.getAttribute("volume") ?? 1);
    return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 1;
  }

  async #move() {
    const my = this.#starts;
    try {
      await this.#amb.setPlayer(this.#pos());
    } catch (e) {
      if (my !== this.#starts) return;
      this.stop();
      this.#state = e && e.code === "missing-landblock" ? "nodata" : "failed";
      this.#render(e);
      this.#fire("ac-error", { code: (e && e.code) || "wasm", message: String((e && e.message) || e) });
    }
  }

  #caption(c) {
    if (this.#state !== "on") return;
    if (c.kind === "bed") {
      this.#bed = c.text;
      this.#render();
    }
    this.#captions.textContent = c.text;
  }

  #captionsShown() {
    this.#captions.hidden = !(this.hasAttribute("captions") && this.#state === "on");
  }

  #render(err) {
    const label = this.getAttribute("label");
    const place = label || this.#bed || `Ambience at ${this.#pos() || "?"}`;
    const b = this.#button;
    const s = this.#state;
    b.setAttribute("aria-pressed", s === "on" ? "true" : "false");
    b.setAttribute("aria-busy", s === "loading" ? "true" : "false");
    b.className = s === "nodata" || s === "failed" ? s : "";
    this.#icon.textContent = s === "on" ? "■" : s === "loading" ? "…" : "▶";
    const text = s === "nodata" ? "no ambient data here" : s === "failed" ? `${place}: unavailable` : place;
    if (this.#text.textContent !== text) this.#text.textContent = text;
    // The name a screen reader says: what the button plays, and where.
    b.setAttribute("aria-label", s === "nodata" ? `${place}: no ambient data here` : `${place} (Asheron's Call ambience)`);
    b.title = err ? String(err.message || err) : s === "on" ? "Stop the ambience" : "Play the ambience of this place";
  }

  #fire(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

function el(tag, className) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  return e;
}

// Another copy of the module (another URL) may have defined it first.
if (!customElements.get(TAG)) customElements.define(TAG, AcAmbience);
