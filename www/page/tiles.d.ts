// Types of www/page/tiles.js: the map tiles of one AmbientAudio instance.
import type { AmbientAudio, Terrain, Tile } from "../ambient";

/** A tile the store holds: drawn as img; null where the data has no land. */
export type TileEntry = { tile: Tile; img: HTMLCanvasElement } | null | "pending";

export class TileStore {
  constructor(on: { onLoad: () => void; onSettled: () => void });
  attach(amb: AmbientAudio | null): void;
  get(bx: number, by: number): TileEntry | undefined;
  want(bx: number, by: number): TileEntry;
  terrainAt(objcell: number | string): Terrain | null;
  typesAround(bx: number, by: number): Set<number>;
}
