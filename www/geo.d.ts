// Types of www/geo.js: the world's geometry and the text forms of its ids.

/** Metres per land cell side (24). */
export const CELL: 24;
/** Land cells per landblock side (8). */
export const CELLS: 8;
/** Metres per landblock side (192). */
export const BLOCK: 192;
/** Landblocks per world side (255). */
export const BLOCKS: 255;
/** Metres per world side (48960). */
export const WORLD: 48960;

/** Where a global point lies (cellAt). */
export interface CellAt {
  /** Global metres. */
  X: number;
  Y: number;
  /** Landblock (0..254) and land cell (0..7) coordinates. */
  bx: number;
  by: number;
  cx: number;
  cy: number;
  /** bx<<24 | by<<16 | (8·cx + cy + 1), unsigned. */
  objcellId: number;
  /** Map coordinates: NS = (Y/24 − 1019.5)/10, EW = (X/24 − 1019.5)/10; S and W negative. */
  ns: number;
  ew: number;
}

/** A land cell an objcell id names (cellOf). */
export interface LandCell {
  bx: number;
  by: number;
  cx: number;
  cy: number;
  /** 8·cx + cy: the cell's index in a map tile's colors and types. */
  index: number;
  /** The cell's south-west corner, global metres; it spans CELL metres east and north. */
  X: number;
  Y: number;
}

/** "0xA9B4001F": an id as docs/interfaces.md §0 prints it. */
export function hexId(id: number | string): string;
/** An id given as a number or a hex string, as an unsigned number. */
export function parseId(id: number | string): number;
/** The objcell id of land cell (cx, cy) of landblock (bx, by). */
export function objcellId(bx: number, by: number, cx: number, cy: number): number;
/** The LandBlock record id of landblock (bx, by): bx<<24 | by<<16 | 0xFFFF. */
export function landblockId(bx: number, by: number): number;
/** The landblock coordinate of a global metre (floor(m / 192)). */
export function blockOf(m: number): number;
/** A map coordinate (NS from Y, EW from X): (m/24 − 1019.5)/10. */
export function mapCoord(m: number): number;
/** "43.3N, 33.8E" (digits 1, sep ", ") or "43.250000N,33.750000E" (6, ","). */
export function mapText(ns: number, ew: number, digits: number, sep: string): string;
/** "0xA9B5002D/120.00,96.00,22.85": the POS of a landblock-local position, to the centimetre. */
export function posText(w: { objcellId: number | string; x: number; y: number; z: number }): string;
/** The land cell under global point (X, Y); null off the world (0 ≤ X, Y < 48960). */
export function cellAt(X: number, Y: number): CellAt | null;
/** The land cell an objcell id names; null when it is not a land cell. */
export function cellOf(id: number | string): LandCell | null;
/** The landblocks of the 3×3 ring around (bx, by) that lie on the world. */
export function ring(bx: number, by: number): Array<[number, number]>;
