// Types of www/page/captions.js: the caption strip.
import type { Caption } from "../ambient";

/** The aria-live strip of captions on the map (#captions) and its remembered toggle (#captionsOn). */
export class CaptionStrip {
  constructor();
  readonly on: boolean;
  add(c: Caption): void;
  clear(): void;
}
