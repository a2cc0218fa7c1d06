// A map viewer's code in TypeScript: typechecked by TestLeafletTypes
// (tsc --noEmit, strict) against www/*.d.ts and @types/leaflet.
import * as L from "leaflet";
import { AmbientAudio, bindLeaflet, cellAt, hexId, type AmbientError, type BindOptions, type CellAt } from "../../www/ambient";

export async function embed(el: HTMLElement, server: string): Promise<() => void> {
  // The map's own CRS: a copy of Simple with another pixel scale, as real maps build theirs.
  const crs: L.CRS = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(1 / 16, 0, -1 / 16, 3060) });
  const map: L.Map = L.map(el, { crs, minZoom: -7 }).setView([34656, 32544], -1);
  const amb: AmbientAudio = await AmbientAudio.load({ server });
  const opts: BindOptions = {
    follow: "cursor",
    throttleMs: 150,
    overlay: true,
    start: "bottomleft",
    L,
    onMove: (p: CellAt) => console.log(hexId(p.objcellId), p.ns.toFixed(1), p.ew.toFixed(1)),
    onNoData: (p: CellAt, e) => console.log(hexId(p.objcellId), "no ambient data in", e.landblock),
    onError: (e) => console.warn(e),
  };
  const unbind: () => void = bindLeaflet(map, amb, opts);
  el.addEventListener("click", () => void amb.start(), { once: true });
  const here: CellAt | null = cellAt(32520, 34704);
  if (here) console.log(here.bx, here.cy, amb.landblock(here.bx, here.by));
  amb.on("error", (e: AmbientError) => console.warn(explain(e)));
  amb.on("state", (s) => { if (s.offData) console.log("nowhere: no landblock", s.offData.landblock); });
  return unbind;
}

// A page tells problems apart by code, never by message.
export function explain(e: AmbientError): string {
  switch (e.code) {
    case "missing-landblock":
      return `no land at ${e.landblock ?? "?"}`;
    case "not-found":
    case "bad-record":
      return `record ${e.id ?? "?"}: ${e.message}`;
    case "network":
    case "cors":
    case "wrong-api":
      return "the source: " + e.code;
    default:
      return e.message;
  }
}
