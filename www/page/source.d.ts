// Types of www/page/source.js: the data source and the Data source box.
import type { Info, Trouble } from "../ambient";

export interface Source {
  /** Base URL, no trailing slash; "" = this page's own origin. */
  server: string;
  api: "ours" | "acdatservice";
}

/** Where the page runs, for loadFailure. */
export interface PageSite {
  origin: string;
  protocol: string;
}

export function normSource(s: { server?: string | null; api?: string | null } | null): Source;
/** The default source `export -source` wrote into the page's <meta name="acambient-source">, or null. */
export function pageDefault(doc?: Document): Source | null;
export function sameSource(a: Source, b: Source): boolean;
/** "the demo world", "real Dereth", or the region by its name. */
export function worldName(info: Info | null | undefined): string;
/** href with ?server=…&api= naming src, or naming none when src is home. */
export function withSource(href: string, src: Source, home: Source): string;
export function sourceName(src: Source): string;
export function noCells(src: Source, landblock: string): string;
/** The LandBlock id ("0xA9B5FFFF") a failed move lacked, or null. */
export function missingLandblock(err: unknown): string | null;
export function moveFailure(err: unknown, src: Source): string;
export function loadFailure(err: unknown, src: Source, page: PageSite): string;
/** state().loading.trouble in plain words, naming src. */
export function troubleWords(t: Trouble, src: Source): string;
/** A "network" error in plain words (by its reason and status), else its message. */
export function networkWords(err: unknown, src: Source): string;

export class SourcePicker {
  constructor(on: { onChoose: (src: Source) => void });
  /** This origin, or the page's default source. */
  readonly home: Source;
  initial(): Source;
  remember(src: Source): void;
  connecting(src: Source): void;
  connected(src: Source, info: Info): void;
  /** Not connected: msg, and (with src, the source that failed) the others offered as buttons, the box focused. */
  failed(msg: string, src?: Source): void;
  say(msg: string): void;
  explain(err: unknown, src: Source): string;
}
