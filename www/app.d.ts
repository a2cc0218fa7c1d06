// Types of www/app.js, the demo page's main: it exports nothing, and puts
// its AmbientAudio instance on window (docs/interfaces.md §3), null while it has none.
import type { AmbientAudio } from "./ambient";
import type { MapCanvas } from "./page/mapcanvas";

declare global {
  interface Window {
    ambient: AmbientAudio | null;
    /** The page's map, for the console and the tests. */
    mapCanvas: MapCanvas;
  }
}

export {};
