// captions.js: the caption strip. What the engine plays, in words
// (ambient.js's "caption" events, docs/interfaces.md §3.3), for a person who
// cannot hear it: an aria-live="polite" region on the map, so a screen
// reader reads each new line when it is idle, and a toggle that is
// remembered. Off, the strip is hidden and takes no lines.
import { el } from "./dom.js";

const CAPTIONS_KEY = "acambient.captions"; // localStorage: "off" when turned off
const SHOWN = 3; // lines kept on screen, the newest last

const $ = (id) => document.getElementById(id);

export class CaptionStrip {
  #strip;
  #toggle;

  /** Reads the strip (#captions) and its toggle (#captionsOn) from the page. */
  constructor() {
    this.#strip = $("captions");
    this.#toggle = /** @type {HTMLInputElement} */ ($("captionsOn"));
    let stored = null;
    try { stored = localStorage.getItem(CAPTIONS_KEY); } catch { /* storage off: on */ }
    this.#toggle.checked = stored !== "off";
    this.#apply();
    this.#toggle.addEventListener("change", () => {
      try { localStorage.setItem(CAPTIONS_KEY, this.#toggle.checked ? "on" : "off"); } catch { /* not remembered */ }
      this.#apply();
    });
  }

  /** Whether captions are shown. */
  get on() { return this.#toggle.checked; }

  /** A caption event: its text becomes the strip's newest line. */
  add(c) {
    if (!this.on) return;
    this.#strip.append(el("p", { textContent: c.text, className: c.kind, title: `${c.db} dB` }));
    while (this.#strip.childElementCount > SHOWN) this.#strip.firstElementChild.remove();
  }

  /** Empties the strip (a new data source). */
  clear() { this.#strip.replaceChildren(); }

  #apply() {
    this.#strip.hidden = !this.on;
    if (!this.on) this.clear();
  }
}
