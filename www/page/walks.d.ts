// Types of www/page/walks.js: the demo page's walks.
import type { AmbientAudio } from "../ambient";
import type { XY } from "../walk";

export class Walks {
  /**
   * @param how.amb      the AmbientAudio in use now, or null
   * @param how.move     moves the listener (and the map) to global metres
   * @param how.onChange the route or the walk changed
   */
  constructor(how: { amb: () => AmbientAudio | null; move: (p: XY) => void; onChange: () => void });
  /** Whether map clicks and landmarks add to the route. */
  readonly planning: boolean;
  readonly walking: boolean;
  /** The page was opened with a route (?walk=…) it has not walked yet. */
  readonly fromLink: boolean;
  /** The route in global metres. */
  readonly points: XY[];
  /** The route's first point (a POS), or null. */
  first(): string | null;
  describe(): string;
  plan(on: boolean): void;
  /** Adds a POS, or global metres (X, Y). */
  add(pos: string | number, Y?: number): void;
  clear(): void;
  start(): void;
  stop(): void;
  /** Renders the route to a WAV (amb.render) and offers the file. */
  download(): Promise<void>;
  /** href with ?walk=…&speed=…(&seed=…) for the route. */
  link(href: string): string;
}
