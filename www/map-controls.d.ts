// Types of map-controls.js (docs/interfaces.md §4): the controls the binding puts on a map.

/** A Leaflet control position. */
export type Corner = "bottomright" | "topright" | "bottomleft" | "topleft";

/** Leaflet's corners, in the order a covered control tries them. */
export const CORNERS: readonly Corner[];

/** A control whose content lives in a shadow root, moved off corners that host panels cover. */
export interface MapControl {
  /** The control's element (class "leaflet-control" and the given class). */
  host: HTMLElement;
  /** Its open shadow root, holding the stylesheet; elements with data-hit are where a user clicks. */
  root: ShadowRoot;
  /** Moves the control to a free corner if something else lies over it (it checks on its own too). */
  check(): void;
  remove(): void;
}

/** Adds a control to map; name is how console lines call it ("start button"). */
export function mapControl(map: any, L: any, opts: { position: Corner; className: string; name: string }): MapControl;

/** The start button (class "ac-ambient-button"): "♪ loading…" until attach. */
export interface StartControl {
  element: HTMLElement;
  button: HTMLButtonElement;
  check(): void;
  /** Hands it the engine: its click starts the audio, later clicks turn it off and on. */
  attach(amb: { start(): Promise<unknown>; setEnabled(on: boolean): unknown; on?(ev: "state", fn: (st: any) => void): unknown; off?(ev: "state", fn: (st: any) => void): unknown; state?(): any }): void;
  /** Shows that loading failed (the message in its title). */
  fail(err: unknown): void;
  remove(): void;
}

/** Adds the start control to map in corner (default "bottomright"). */
export function startControl(map: any, L: any, opts?: { corner?: Corner }): StartControl;
