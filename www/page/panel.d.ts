// Types of www/page/panel.js: what the page says in words.
import type { Info, Landmark, PlayEvent, State, Terrain, Trouble, Where } from "../ambient";

/** The AudioContext's state as the audio pill shows it; "none" before start(). */
export type AudioState = "none" | AudioContextState;

export class Panel {
  constructor(how: {
    terrainAt: (objcell: number | string) => Terrain | null;
    onLandmark: (l: Landmark) => void;
    onStart: () => void;
    /** state().loading.trouble in plain words. */
    troubleWords: (t: Trouble) => string;
  });
  setInfo(info: Pick<Info, "terrains" | "landmarks">): void;
  landmarkAt(w: Where | null): Landmark | null;
  reset(): void;
  where(w: Where | null): void;
  audio(state: AudioState): void;
  render(st: State, w: Where | null, audio: AudioState): void;
  played(ev: PlayEvent): void;
  error(msg: string): void;
  legend(types: Set<number>): void;
  overlay(title: string, msg: string): void;
  overlayMessage(msg: string): void;
  hideOverlay(): void;
  noData(): void;
}
