// tiles.js: the map tiles of one AmbientAudio instance, each landblock asked
// for once: what the canvas draws, and where the panel reads a cell's terrain.
import { cellOf, ring } from "../geo.js";

// A burst of tiles arriving makes one refresh of what depends on them
// (legend, terrain names), this long after the last.
const SETTLE_MS = 100;

export class TileStore {
  #amb = null;
  #terrains = [];
  #tiles = new Map(); // bx*256+by → {tile, img} | null (no land) | "pending"
  #settle = 0;
  #onLoad;
  #onSettled;

  /**
   * @param onLoad    called as each tile arrives (redraw)
   * @param onSettled called once a burst of arrivals is over
   */
  constructor({ onLoad, onSettled }) {
    this.#onLoad = onLoad;
    this.#onSettled = onSettled;
  }

  /** Forgets every tile; later ones come from amb (null: none). */
  attach(amb) {
    this.#amb = amb;
    this.#terrains = amb ? amb.info.terrains : [];
    this.#tiles.clear();
    clearTimeout(this.#settle);
  }

  /** The tile of (bx, by) as far as it is known, without asking for it. */
  get(bx, by) {
    return this.#tiles.get(bx * 256 + by);
  }

  /** The tile of (bx, by), asked for when unknown ("pending" meanwhile). */
  want(bx, by) {
    const key = bx * 256 + by;
    if (this.#tiles.has(key)) return this.#tiles.get(key);
    this.#tiles.set(key, "pending");
    const a = this.#amb;
    a.tile(bx, by).then((t) => {
      if (a !== this.#amb) return; // an instance since replaced
      this.#tiles.set(key, t ? { tile: t, img: tileImage(t) } : null);
      this.#onLoad();
      clearTimeout(this.#settle);
      this.#settle = setTimeout(this.#onSettled, SETTLE_MS);
    }, () => {
      // A failed fetch is asked again when next drawn: draw again (the Go
      // side's source has waited out its retries by then).
      if (a !== this.#amb) return;
      this.#tiles.delete(key);
      this.#onLoad();
    });
    return "pending";
  }

  /** The terrain of a land cell (objcell id), once its tile is here; else null. */
  terrainAt(objcell) {
    const c = cellOf(objcell);
    const t = c && this.get(c.bx, c.by);
    if (!t || t === "pending" || !t.tile) return null;
    return this.#terrains[t.tile.types[c.index]] || null;
  }

  /** The terrain types of the loaded tiles in the 3×3 ring around (bx, by): what the engine hears from. */
  typesAround(bx, by) {
    const used = new Set();
    for (const [x, y] of ring(bx, by)) {
      const t = this.get(x, y);
      if (t && t !== "pending") for (const ty of t.tile.types) used.add(ty);
    }
    return used;
  }
}

// tileImage paints a tile's 64 cell colours as an 8×8 image, north up.
function tileImage(t) {
  const c = document.createElement("canvas");
  c.width = c.height = 8;
  const g = c.getContext("2d");
  const img = g.createImageData(8, 8);
  for (let cx = 0; cx < 8; cx++) for (let cy = 0; cy < 8; cy++) {
    const col = t.colors[8 * cx + cy], p = 4 * ((7 - cy) * 8 + cx);
    img.data[p] = col >> 16; img.data[p + 1] = (col >> 8) & 255; img.data[p + 2] = col & 255; img.data[p + 3] = 255;
  }
  g.putImageData(img, 0, 0);
  return c;
}
