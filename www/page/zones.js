// zones.js: the sound-zone layer on the page's map. Where each sound set
// dominates (docs/interfaces.md §1.4: `serve` and an export answer
// SOURCE/zones.json and its zones.png), drawn over the tiles while its
// toggle is on, with a legend of the sets' colours and names. The toggle is
// remembered; the layer is fetched only once it is on (a server computes it
// on the first ask), and an acdatservice source, which has none, hides the
// toggle.
import { loadZones } from "../leaflet-ambient.js";
import { el } from "./dom.js";

const ZONES_KEY = "acambient.zones"; // localStorage: "on" when shown

const $ = (id) => document.getElementById(id);

export class ZoneLayer {
  #toggle;
  #box; // the toggle's label
  #legend;
  #onChange;
  #url = null; // zones.json of the source, null when it has none
  #layer = null; // {image, bounds} once loaded
  #loading = null; // the URL being loaded
  #gen = 0;

  /**
   * Reads the toggle (#zonesOn, inside #zonesBox) and the legend
   * (#zoneLegend) from the page.
   * @param onChange the layer appeared, went or was toggled (redraw)
   */
  constructor({ onChange }) {
    this.#toggle = /** @type {HTMLInputElement} */ ($("zonesOn"));
    this.#box = $("zonesBox");
    this.#legend = $("zoneLegend");
    this.#onChange = onChange;
    try { this.#toggle.checked = localStorage.getItem(ZONES_KEY) === "on"; } catch { /* storage off: off */ }
    this.#toggle.addEventListener("change", () => {
      try { localStorage.setItem(ZONES_KEY, this.#toggle.checked ? "on" : "off"); } catch { /* not remembered */ }
      this.#sync();
    });
    this.#box.hidden = true;
  }

  /** The layer of src ({server, api}; null: none) from now on. */
  attach(src) {
    this.#gen++;
    this.#layer = null;
    this.#loading = null;
    this.#url = src && src.api !== "acdatservice" ? (src.server ? src.server + "/" : "") + "zones.json" : null;
    this.#box.hidden = !this.#url;
    this.#sync();
  }

  /** What the map draws: the image and its bounds ([[south, west], [north, east]], metres) while shown, else null. */
  get shown() {
    return this.#toggle.checked ? this.#layer : null;
  }

  #sync() {
    const on = this.#toggle.checked && !!this.#url;
    this.#legend.hidden = !(on && this.#layer);
    if (on && !this.#layer && this.#loading !== this.#url) this.#load(this.#url);
    this.#onChange();
  }

  async #load(url) {
    const my = this.#gen;
    this.#loading = url;
    try {
      const idx = await loadZones(url);
      const image = new Image();
      image.crossOrigin = "anonymous"; // a source on another origin sends CORS headers, as for its records
      image.src = idx.image;
      await image.decode();
      if (my !== this.#gen) return;
      this.#layer = { image, bounds: idx.bounds };
      this.#legend.replaceChildren(...idx.sets.map((z) =>
        el("span", { title: `${z.cells} land cells`, dataset: { cells: String(z.cells) } }, el("i", { style: { background: z.color } }), z.label)));
      this.#legend.dataset.cells = String(idx.cells);
      this.#legend.dataset.silent = String(idx.silent);
    } catch (e) {
      if (my !== this.#gen) return;
      console.info("sound zones:", e.message);
      this.#box.hidden = true; // this source has none
    }
    this.#sync();
  }
}
