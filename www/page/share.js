// share.js: a link to where the player stands. The page opens a link's
// hash as a position (movement.js: any POS of docs/interfaces.md §1.1,
// %-encoded or not) and its ?server=&api= as the data source (source.js);
// the Copy link button gives the page's own form of both: the spot to the
// centimetre, and the source unless it is the page's home.
import { posText } from "../geo.js";
import { withSource } from "./source.js";

const $ = (id) => document.getElementById(id);

/**
 * The link that opens spot w (a Where) from source src on the page at href:
 * href's page, ?server=…&api=… naming src unless it is home, #POS.
 */
export function spotLink(href, w, src, home) {
  const u = new URL(withSource(href, src, home));
  u.hash = posText(w);
  return u.href;
}

/**
 * The Copy link button: puts link() on the clipboard, and shows it in a
 * text field beside the button; where the clipboard is refused (no
 * permission, an insecure context) the field is focused with the link
 * selected, for the user's own copy.
 */
export class LinkButton {
  /** @param link the link to give now, or null when there is no spot yet */
  constructor({ link }) {
    $("copyLink").addEventListener("click", () => this.#copy(link()));
  }

  async #copy(href) {
    const field = /** @type {HTMLInputElement} */ ($("linkField")), msg = $("linkMsg");
    if (!href) { msg.textContent = "No spot yet: the data source has not loaded."; return; }
    field.value = href;
    field.hidden = false;
    try {
      if (!navigator.clipboard) throw new Error("no clipboard here");
      await navigator.clipboard.writeText(href);
      msg.textContent = "Link copied.";
    } catch {
      field.focus();
      field.select();
      msg.textContent = "Copy the selected link (Ctrl+C, or ⌘C).";
    }
  }
}
