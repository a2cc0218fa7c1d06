// Types of www/ac-ambience.js: the <ac-ambience> element (docs/interfaces.md §6).
// Importing the module defines the element.
import type { AmbientAudio, ErrorCode } from "./ambient";

/** detail of ac-play and ac-stop: the element's pos. */
export interface AcAmbienceDetail {
  pos: string;
}

/** detail of ac-error: the error's code (docs/interfaces.md §3.4) and message. */
export interface AcAmbienceErrorDetail {
  code: ErrorCode;
  message: string;
}

/**
 * <ac-ambience pos="42.1N,33.6E" label="The river below Holtburg">: one button that starts and
 * stops the ambience of pos. Attributes: pos (any POS of docs/interfaces.md §1.1), server (default:
 * where the module was loaded from), api ("acdatservice"), volume (0..1), label, captions (boolean).
 * The elements of a page share one engine per server: starting one stops the one playing.
 */
export declare class AcAmbience extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The shared AmbientAudio, once this element started; null before. */
  readonly ambient: AmbientAudio | null;
  /** Whether this element's ambience plays. */
  readonly playing: boolean;
  /** Starts this place's ambience (from a gesture); resolves when it plays or failed (ac-error). */
  start(): Promise<void>;
  /** Stops it; the engine stays for the next start. */
  stop(): void;
  addEventListener<K extends keyof AcAmbienceEventMap>(type: K, listener: (this: AcAmbience, ev: AcAmbienceEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

export interface AcAmbienceEventMap extends HTMLElementEventMap {
  "ac-play": CustomEvent<AcAmbienceDetail>;
  "ac-stop": CustomEvent<AcAmbienceDetail>;
  "ac-error": CustomEvent<AcAmbienceErrorDetail>;
}

declare global {
  interface HTMLElementTagNameMap {
    "ac-ambience": AcAmbience;
  }
}
