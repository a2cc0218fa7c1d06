// Types of www/app.js, the demo page's main: it exports nothing, and puts
// its AmbientAudio instance on window (docs/interfaces.md §3), null while it has none.
import type { AmbientAudio } from "./ambient";

declare global {
  interface Window {
    ambient: AmbientAudio | null;
  }
}

export {};
