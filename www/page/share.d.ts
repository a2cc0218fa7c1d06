// Types of www/page/share.js: the link to the player's spot.
import type { Where } from "../ambient";
import type { Source } from "./source";

/** href's page with ?server=…&api= naming src (none when src is home) and #POS of w to the centimetre. */
export function spotLink(href: string, w: Where, src: Source, home: Source): string;

export class LinkButton {
  constructor(on: { link: () => string | null });
}
