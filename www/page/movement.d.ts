// Types of www/page/movement.js: the player's moves and the camera's heading.
import type { AmbientAudio, PositionInput, Where } from "../ambient";

export interface WalkStep {
  /** The heading after Q/E, compass degrees, not wrapped to 0..360. */
  heading: number;
  /** The move, global metres east and north. */
  dx: number;
  dy: number;
  /** Whether a move key (not only Q/E) is held. */
  moving: boolean;
}

/** One frame of walking: held keys (KeyboardEvent.code), heading (°), dt (s). */
export function walkStep(keys: ReadonlySet<string>, heading: number, dt: number): WalkStep;

/** push(v) runs run(v) one at a time; values pushed meanwhile replace each other, the latest runs next. */
export function latestWins<T>(run: (v: T) => unknown, onError: (e: any) => void): (v: T) => void;

export interface Moved {
  /** Centre the map on it. */
  recentre: boolean;
  /** The engine's answer (false: a throttled move not yet answered, X and Y ahead of the rest). */
  settled: boolean;
}

export class Movement {
  constructor(on: { onMoved: (w: Where, how: Moved) => void; onTurn: () => void });
  attach(amb: AmbientAudio | null): void;
  readonly player: Where | null;
  readonly heading: number;
  hashPos(): string | null;
  go(pos: PositionInput, recentre?: boolean): Promise<Where>;
  jump(pos: PositionInput): void;
  moveTo(X: number, Y: number): void;
  setHeading(h: number): void;
  walk(dt: number): void;
  say(msg: string): void;
}
