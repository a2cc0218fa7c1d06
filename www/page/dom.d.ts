// Types of www/page/dom.js: building elements, keeping lists of rows.

/** An element of tag with props assigned (style and dataset merged) and children appended. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Partial<Omit<HTMLElementTagNameMap[K], "style" | "dataset">> & { style?: Partial<CSSStyleDeclaration>; dataset?: Record<string, string> },
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K];

/** Sets e's text (an element's or a text node's) when it differs. */
export function setText(e: Node, text: string): void;

/** A row of a Rows list: its element, and whatever the row keeps to update it. */
export interface Row {
  el: Element;
}

/** Keeps a parent's children the rows of a list, reusing the rows whose keys stay. */
export class Rows<T, R extends Row = Row> {
  constructor(parent: Element, how: { key: (item: T) => string; make: (item: T) => R; fill: (row: R, item: T) => void });
  update(items: Iterable<T>): void;
  clear(): void;
}
