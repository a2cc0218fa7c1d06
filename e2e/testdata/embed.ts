// A map viewer's code in TypeScript: typechecked by TestLeafletTypes
// (tsc --noEmit, strict) against www/*.d.ts and @types/leaflet.
import * as L from "leaflet";
import { bindLeaflet, cellAt, hexId, type BindOptions, type CellAt } from "../../www/leaflet-ambient";

export function embed(amb: Parameters<typeof bindLeaflet>[1], el: HTMLElement): () => void {
  const map: L.Map = L.map(el, { crs: L.CRS.Simple, minZoom: -7 }).setView([34656, 32544], -1);
  const opts: BindOptions = {
    follow: "cursor",
    throttleMs: 150,
    overlay: true,
    L,
    onMove: (p: CellAt) => console.log(hexId(p.objcellId), p.ns.toFixed(1), p.ew.toFixed(1)),
  };
  const unbind: () => void = bindLeaflet(map, amb, opts);
  const here: CellAt | null = cellAt(32520, 34704);
  if (here) console.log(here.bx, here.cy);
  return unbind;
}
