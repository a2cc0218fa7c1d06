// Types of www/page/mapcanvas.js: the map canvas.
import type { Info, State, Where } from "../ambient";
import type { TileStore } from "./tiles";
import type { ZoneImage } from "./zones";

/** What the map draws, asked for at each frame. */
export interface Scene {
  /** Whether a source is loaded (else the map is blank). */
  live: boolean;
  /** The landblocks that can hold land; default the whole world. */
  bounds?: Info["bounds"];
  player: Where | null;
  /** The camera's compass heading, degrees. */
  heading: number;
  /** The engine's latest state, or null before the first. */
  state: State | null;
  /** The sound-zone layer while it is shown. */
  zones?: ZoneImage | null;
  /** A walk's route in global metres (page/walks.js), drawn with its points numbered. */
  route?: { X: number; Y: number }[];
}

export class MapCanvas {
  constructor(canvas: HTMLCanvasElement, how: {
    tiles: TileStore;
    scene: () => Scene;
    onPick: (X: number, Y: number) => void;
    onFrame: (dt: number) => void;
  });
  centre(X: number, Y: number): void;
  offView(X: number, Y: number): boolean;
  /** The canvas point (CSS pixels from its top left) of global metres (X, Y). */
  screenOf(X: number, Y: number): [number, number];
  invalidate(): void;
  /** Whether the map is drawn as it stands: nothing to redraw, no tile on its way (the tests wait for it). */
  readonly drawn: boolean;
  focus(): void;
}
