// Types of www/page/zones.js: the sound-zone layer on the page's map.

/** The layer as the map draws it. */
export interface ZoneImage {
  image: HTMLImageElement;
  /** [[south, west], [north, east]], global metres. */
  bounds: [[number, number], [number, number]];
}

export class ZoneLayer {
  constructor(how: { onChange: () => void });
  attach(src: { server: string; api: string } | null): void;
  readonly shown: ZoneImage | null;
}
