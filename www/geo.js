// geo.js: the world's geometry and the text forms of its ids and
// coordinates, written once for ambient.js, leaflet-ambient.js and the demo
// page. Facts from docs/dat-format.md §8 (retail lcoord_to_gid, get_landcell,
// CellidToCoordinateString); map coordinates as docs/interfaces.md §1.1 gives them.
//
// Global metres: X east, Y north, 0 ≤ X, Y < WORLD. Landblock (bx, by) holds
// [192·bx, 192·bx + 192) × [192·by, 192·by + 192); its land cells are
// numbered 1..64 x-major (cell = 1 + 8·cx + cy), so cells 1–8 are its
// westernmost column, south to north.

/** Metres per land cell side. */
export const CELL = 24;
/** Land cells per landblock side. */
export const CELLS = 8;
/** Metres per landblock side (8 cells of 24 m). */
export const BLOCK = CELL * CELLS;
/** Landblocks per world side (bx, by ∈ 0..254). */
export const BLOCKS = 255;
/** Metres per world side (255 landblocks of 192 m). */
export const WORLD = BLOCK * BLOCKS;

/** "0xA9B4001F": an id as docs/interfaces.md §0 prints it (8 uppercase hex digits). */
export function hexId(id) {
  return "0x" + (Number(id) >>> 0).toString(16).toUpperCase().padStart(8, "0");
}

/** An id given as a number or a hex string ("0xA9B4001F"), as an unsigned number. */
export function parseId(id) {
  return (typeof id === "string" ? parseInt(id, 16) : Number(id)) >>> 0;
}

/** The objcell id of land cell (cx, cy) of landblock (bx, by): bx<<24 | by<<16 | (8·cx + cy + 1). */
export function objcellId(bx, by, cx, cy) {
  return ((bx << 24) | (by << 16) | (CELLS * cx + cy + 1)) >>> 0;
}

/** The LandBlock record id of landblock (bx, by): bx<<24 | by<<16 | 0xFFFF. */
export function landblockId(bx, by) {
  return ((bx << 24) | (by << 16) | 0xffff) >>> 0;
}

/** The landblock coordinate (0..254 on the world) of a global metre, X or Y. */
export function blockOf(m) {
  return Math.floor(m / BLOCK);
}

/** A map coordinate from a global metre: EW from X, NS from Y; (m/24 − 1019.5)/10, S and W negative. */
export function mapCoord(m) {
  return (m / CELL - 1019.5) / 10;
}

/**
 * Map coordinates as text: "43.3N, 33.8E" with digits 1 and sep ", "; the
 * POS form "43.250000N,33.750000E" with 6 and ",".
 */
export function mapText(ns, ew, digits, sep) {
  return `${Math.abs(ns).toFixed(digits)}${ns < 0 ? "S" : "N"}${sep}${Math.abs(ew).toFixed(digits)}${ew < 0 ? "W" : "E"}`;
}

/**
 * The POS of a landblock-local position to the centimetre, docs/interfaces.md §1.1:
 * "0xA9B5002D/120.00,96.00,22.85" (what the page's links carry).
 */
export function posText(w) {
  const m = (v) => Number(v).toFixed(2);
  return `${hexId(parseId(w.objcellId))}/${m(w.x)},${m(w.y)},${m(w.z)}`;
}

/**
 * Where global point (X, Y) lies: its landblock, land cell, objcell id and
 * map coordinates; null off the world.
 */
export function cellAt(X, Y) {
  if (!(X >= 0 && X < WORLD && Y >= 0 && Y < WORLD)) return null;
  const bx = blockOf(X), by = blockOf(Y);
  // min: a point a rounding error short of the block's east or north edge.
  const cx = Math.min(CELLS - 1, Math.floor((X - BLOCK * bx) / CELL));
  const cy = Math.min(CELLS - 1, Math.floor((Y - BLOCK * by) / CELL));
  return { X, Y, bx, by, cx, cy, objcellId: objcellId(bx, by, cx, cy), ns: mapCoord(Y), ew: mapCoord(X) };
}

/**
 * The land cell an objcell id names: its landblock, cell coordinates, its
 * index in a tile (8·cx + cy) and its south-west corner in global metres;
 * null for an id that is not a land cell (an EnvCell, 0xFFFF, 0).
 */
export function cellOf(id) {
  const n = parseId(id), low = n & 0xffff;
  if (low < 1 || low > CELLS * CELLS) return null;
  const bx = n >>> 24, by = (n >>> 16) & 0xff, index = low - 1;
  const cx = index >> 3, cy = index & 7;
  return { bx, by, cx, cy, index, X: bx * BLOCK + cx * CELL, Y: by * BLOCK + cy * CELL };
}

/**
 * The 3×3 ring of landblocks around (bx, by) that retail gathers ambient
 * sound from (LScape::add_ambient_sounds, docs/retail.md §A4.1), those on
 * the world only, as [bx, by] pairs: west to east, and south to north
 * within a column.
 */
export function ring(bx, by) {
  const out = [];
  for (let x = bx - 1; x <= bx + 1; x++) {
    for (let y = by - 1; y <= by + 1; y++) {
      if (x >= 0 && y >= 0 && x < BLOCKS && y < BLOCKS) out.push([x, y]);
    }
  }
  return out;
}
