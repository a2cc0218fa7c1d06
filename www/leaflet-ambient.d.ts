// Types of leaflet-ambient.js (docs/interfaces.md §4). The map and the engine are typed
// by the members the binding uses, so a Leaflet L.Map (from @types/leaflet or
// not) and an AmbientAudio of ambient.js both fit without importing either.

import type { CellAt } from "./geo";
import type { Corner, StartControl } from "./map-controls";

/** A point in Leaflet's CRS.Simple as this convention reads it: lat = global Y, lng = global X (metres). */
export interface LatLngLike {
  lat: number;
  lng: number;
}

import type { PositionInput } from "./ambient";
import type { WalkHandle } from "./walk";

/** The part of a Leaflet 1.x L.Map that bindLeaflet uses. */
export interface LeafletMapLike {
  on(handlers: Record<string, (e: any) => void>): unknown;
  off(handlers: Record<string, (e: any) => void>): unknown;
  getCenter(): LatLngLike;
  /** The map's element: follow "cursor" listens to its pointermove events. */
  getContainer(): HTMLElement;
  /** Leaflet's: the lat/lng under a pointer event (follow "cursor"). */
  mouseEventToLatLng(e: MouseEvent): LatLngLike;
  /** Leaflet's: runs fn once the map has a view (used by follow "center"). */
  whenReady?(fn: () => void): unknown;
  /** Leaflet's: a walk (Unbind.walk) pans the map along when it is there. */
  panTo?(latlng: [number, number], opts?: { animate?: boolean }): unknown;
}

/** The part of an AmbientAudio (ambient.js) that bindLeaflet uses. */
export interface AmbientLike {
  /** May return a promise; a rejection goes to BindOptions.onError. */
  setPlayer(p: { ns: number; ew: number }): unknown;
  state?(): {
    player?: { objcellId?: number | string } | null;
    totalSoundCount?: number;
    cells?: ReadonlyArray<{ objcellId: number | string; weight: number }>;
    /** Set while the listener is off the data: the landblock the source lacks. */
    offData?: { landblock: number | string } | null;
  } | null | undefined;
  /** The start control's: from the user's click. */
  start?(): Promise<unknown>;
  setEnabled?(on: boolean): unknown;
  on?(event: "state" | "caption", fn: (...args: any[]) => void): unknown;
  off?(event: "state" | "caption", fn: (...args: any[]) => void): unknown;
}

/** Where a global point lies, and the world's geometry: from geo.js, re-exported. */
export type { CellAt } from "./geo";
export { BLOCK, CELL, WORLD, cellAt, hexId } from "./geo";
/** The start control on its own (the userscript shows it while the engine loads); pass it as BindOptions.start. */
export { startControl } from "./map-controls";
export type { Corner, StartControl } from "./map-controls";

export interface BindOptions {
  /** What the listener follows: the mouse (a tap on touch screens), a draggable marker set by clicking, or the map's centre. Default "cursor". */
  follow?: "cursor" | "click" | "center";
  /** Least milliseconds between two listener moves; moves within the last sent land cell are not sent on their own. Default 100. */
  throttleMs?: number;
  /** Draw the engine's 3×3 landblock ring, the listener's cell and the contributing cells as Leaflet layers. Default false. */
  overlay?: boolean;
  /**
   * The URL of a zones.json (`serve` and an export answer SOURCE/zones.json): the sound-zone layer
   * drawn as an image overlay in the map's CRS, with a top-right control that toggles it and gives its legend.
   */
  zones?: string | URL;
  /** Show the captions (what plays, in words) in a bottom-left control that is an aria-live region. */
  captions?: boolean;
  /**
   * A button that starts the audio from its click, then turns it off and on, and says when the listener is off
   * the data: true (bottom right) or its corner; or a control made by startControl, which the binding drives and
   * removes. Like every control of the binding it moves to a free corner when a host panel covers its own.
   */
  start?: boolean | Corner | StartControl;
  /** The Leaflet namespace; by default the global L when it made the map (Leaflet 1.x sets it, bundled or not). Used for "click", overlay, zones, captions and start. */
  L?: any;
  /** Called each time the listener is moved. */
  onMove?: (p: CellAt) => void;
  /**
   * Called when the point lies on a landblock the source does not have (setPlayer fails with code
   * "missing-landblock"): the listener is nowhere there and its sound fades out. Not an error: onError does not hear of it.
   */
  onNoData?: (p: CellAt, err: Error & { code: "missing-landblock"; landblock?: string }) => void;
  /** Called when amb.setPlayer throws or its promise rejects otherwise (default: console.warn). */
  onError?: (err: unknown) => void;
}

/** What bindLeaflet returns: unbind(), which removes every handler and layer it added (and stops a walk). */
export interface Unbind {
  (): void;
  /**
   * Walks the listener along route (any positions setPlayer takes) at speed m/s (default 12), the
   * map panning along (when it has panTo); the pointer or the centre moves it no more until the
   * walk ends or stops. As amb.walk (docs/interfaces.md §3.2).
   */
  walk(route: PositionInput[], opts?: { speed?: number; onError?: (e: Error) => void }): WalkHandle;
}

/** Makes the map drive amb; returns unbind(), which removes every handler and layer it added, with unbind.walk. */
export function bindLeaflet(map: LeafletMapLike, amb: AmbientLike, opts?: BindOptions): Unbind;

/** One sound set of the zone layer's legend (docs/interfaces.md §1.4). */
export interface ZoneSet {
  stbIndex: number;
  table: string;
  /** "#rrggbb" */
  color: string;
  /** The plain name, as captions say it ("running water"). */
  name: string;
  /** The name made unique for a legend ("grassland (2)"). */
  label: string;
  /** Land cells it dominates. */
  cells: number;
}

/** A zones.json, with `image` the absolute URL of its zones.png. */
export interface Zones {
  /** [[south, west], [north, east]] in global metres: lat/lng of the map's CRS, for L.imageOverlay. */
  bounds: [[number, number], [number, number]];
  width: number;
  height: number;
  image: string;
  /** Land cells of the landblocks present; the sets' cells and silent add up to it. */
  cells: number;
  silent: number;
  sets: ZoneSet[];
}

/** Loads a zones.json; rejects when it cannot be read or is not one. */
export function loadZones(url: string | URL): Promise<Zones>;
