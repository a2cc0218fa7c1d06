// dom.js: building the page's elements (never from HTML strings) and
// keeping lists of them in step with data, reusing the rows that stay.

/**
 * el("td", {className: "num", title: "…"}, "text", child…) makes an element:
 * props are assigned as properties (style and dataset are merged into the
 * element's own), children appended as nodes or text.
 */
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "style" || k === "dataset") Object.assign(e[k], v);
    else e[k] = v;
  }
  e.append(...children);
  return e;
}

/** setText sets a node's text when it differs: an unchanged row costs no layout. */
export function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

/**
 * Rows keeps a parent's children the rows of a list: update(items) makes a
 * row for an item whose key is new, refreshes the rows whose keys stay (in
 * place), puts them in the items' order and drops the rest.
 */
export class Rows {
  #parent;
  #make;
  #fill;
  #key;
  #rows = new Map();

  /**
   * @param parent the element holding the rows and nothing else
   * @param key    an item's identity
   * @param make   a new row for an item: an object whose `el` is its element
   * @param fill   brings a row up to date with its item
   */
  constructor(parent, { key, make, fill }) {
    this.#parent = parent;
    this.#key = key;
    this.#make = make;
    this.#fill = fill;
  }

  update(items) {
    const next = new Map();
    let i = 0;
    for (const item of items) {
      let k = this.#key(item);
      if (next.has(k)) k += "#" + i; // two alike: rows of their own
      const row = this.#rows.get(k) ?? this.#make(item);
      next.set(k, row);
      this.#fill(row, item);
      const at = this.#parent.children[i];
      if (at !== row.el) this.#parent.insertBefore(row.el, at ?? null);
      i++;
    }
    for (const [k, row] of this.#rows) if (!next.has(k)) row.el.remove();
    this.#rows = next;
  }

  /** Removes every row. */
  clear() { this.update([]); }
}
