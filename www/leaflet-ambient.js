// leaflet-ambient.js: a Leaflet map of Dereth drives AmbientAudio (contracts §4).
//
//   import { bindLeaflet } from "./leaflet-ambient.js";
//   const unbind = bindLeaflet(map, amb, { follow: "cursor" }); // or "click", "center"
//
// The map is any Leaflet 1.x map in the convention of Asheron's Atlas:
// L.CRS.Simple, latitude = global Y and longitude = global X, in metres over
// 0–48960 (255 landblocks of 192 m). Only Leaflet's public API is used
// (events, getCenter, layers), so the host page needs no changes.
//
// The listener gets map coordinates {ns, ew}: the module takes z from the
// landblock's terrain, which the map does not know. Retail rebuilds the
// ambient set when the listener's cell changes, not on every step, so a
// fast cursor is reduced to cell changes at most one per throttleMs.

// World geometry (docs/dat-format.md §8): 24 m land cells, 8 to a landblock
// side, 255 landblocks to the world's side. Re-exported: embedders use them.
import { BLOCK, CELL, cellAt, cellOf, parseId, ring } from "./geo.js";
export { BLOCK, CELL, WORLD, cellAt, hexId } from "./geo.js";

/**
 * Binds map to amb and returns unbind(). Options:
 *   follow     "cursor" (default): the listener is under the mouse (a tap
 *              on a touch screen); "click": a draggable marker set by
 *              clicking; "center": the map's centre.
 *   throttleMs the least time between two listener moves (default 100).
 *   overlay    draw the 3×3 landblock ring and the contributing cells of
 *              the engine's last rebuild as Leaflet layers (default false).
 *   L          the Leaflet namespace, when it is not the global `L`
 *              (needed for "click" and overlay only).
 *   onMove     called with cellAt()'s object each time the listener moves.
 *   onError    called when setPlayer fails (default: console.warn).
 */
export function bindLeaflet(map, amb, opts = {}) {
  const follow = opts.follow ?? "cursor";
  if (!["cursor", "click", "center"].includes(follow)) {
    throw new Error(`bindLeaflet: follow ${JSON.stringify(follow)}: want "cursor", "click" or "center"`);
  }
  const throttleMs = opts.throttleMs ?? 100;
  if (!(throttleMs >= 0)) throw new Error(`bindLeaflet: throttleMs ${throttleMs}: want a number ≥ 0`);
  const onError = opts.onError ?? ((e) => console.warn("bindLeaflet: setPlayer:", e));
  const needL = follow === "click" || opts.overlay;
  const Lf = opts.L ?? globalThis.L;
  if (needL && !(Lf && Lf.marker && Lf.rectangle)) {
    throw new Error("bindLeaflet: Leaflet not found: pass it as the L option (needed for follow \"click\" and overlay)");
  }

  // The throttle: a move to a new cell is sent at once when the last send
  // is throttleMs old, else when it is; moves within the last sent cell
  // only refresh what a pending send will carry.
  let sent = null, pending = null, lastSend = -Infinity, timer = 0, bound = true;
  const send = () => {
    timer = 0;
    if (!pending || !bound) return;
    const p = pending;
    pending = null;
    sent = p;
    lastSend = performance.now();
    // setPlayer may answer with a promise (ambient.js does): a failure is
    // reported, not left unhandled, and does not stop the binding.
    try {
      Promise.resolve(amb.setPlayer({ ns: p.ns, ew: p.ew })).catch(onError);
    } catch (e) {
      onError(e);
    }
    opts.onMove?.(p);
  };
  const moveTo = (latlng, force) => {
    const p = latlng && cellAt(latlng.lng, latlng.lat);
    if (!p) return;
    pending = p;
    if (!force && sent && sent.objcellId === p.objcellId) return; // same cell: ride along
    const wait = lastSend + throttleMs - performance.now();
    if (force || wait <= 0) {
      clearTimeout(timer);
      send();
    } else if (!timer) {
      timer = setTimeout(send, wait);
    }
  };

  const handlers = {};
  let marker = null;
  if (follow === "cursor") {
    handlers.mousemove = (e) => moveTo(e.latlng, false);
    handlers.click = (e) => moveTo(e.latlng, true); // touch screens have no hover
  } else if (follow === "click") {
    handlers.click = (e) => {
      if (!marker) {
        marker = Lf.marker(e.latlng, { draggable: true, title: "listener", keyboard: false }).addTo(map);
        marker.on("drag", () => moveTo(marker.getLatLng(), false));
        marker.on("dragend", () => moveTo(marker.getLatLng(), true));
      } else {
        marker.setLatLng(e.latlng);
      }
      moveTo(e.latlng, true);
    };
  } else {
    handlers.move = () => moveTo(map.getCenter(), false);
    handlers.moveend = () => moveTo(map.getCenter(), true);
  }
  handlers.unload = () => unbind(); // map.remove()
  map.on(handlers);
  if (follow === "center") {
    // getCenter throws until the map has a view: wait for it.
    const now = () => moveTo(map.getCenter(), true);
    if (map.whenReady) map.whenReady(now);
    else now();
  }

  const overlay = opts.overlay ? drawOverlay(map, amb, Lf) : null;

  function unbind() {
    if (!bound) return;
    bound = false;
    clearTimeout(timer);
    map.off(handlers);
    marker?.remove();
    overlay?.remove();
  }
  return unbind;
}

// drawOverlay keeps a layer group showing the engine's last rebuild: the
// 3×3 ring of landblocks it read (LScape::add_ambient_sounds), the
// listener's cell, and each contributing cell shaded by its weight (the
// state's `cells`, when the module lists them). It follows the engine's
// "state" events, not the cursor, so it shows what is heard.
function drawOverlay(map, amb, Lf) {
  const group = Lf.layerGroup().addTo(map);
  let lastKey = "";
  const redraw = () => {
    const st = amb.state?.();
    const id = st?.player?.objcellId;
    const cells = st?.cells ?? [];
    const key = id + ":" + cells.length + ":" + (st?.totalSoundCount ?? 0);
    if (key === lastKey) return;
    lastKey = key;
    group.clearLayers();
    if (id === undefined || id === null) return;
    const n = parseId(id);
    for (const [x, y] of ring(n >>> 24, (n >>> 16) & 0xff)) {
      Lf.rectangle([[y * BLOCK, x * BLOCK], [(y + 1) * BLOCK, (x + 1) * BLOCK]],
        { color: "#3b82f6", weight: 1, fill: false, interactive: false, className: "ac-ring" }).addTo(group);
    }
    let max = 0;
    for (const c of cells) max = Math.max(max, c.weight);
    for (const c of cells) {
      const r = cellRect(c.objcellId);
      if (r) {
        Lf.rectangle(r, { stroke: false, fillColor: "#f59e0b", fillOpacity: 0.15 + 0.5 * (c.weight / (max || 1)),
          interactive: false, className: "ac-cell" }).addTo(group);
      }
    }
    const own = cellRect(n);
    if (own) Lf.rectangle(own, { color: "#ef4444", weight: 2, fill: false, interactive: false, className: "ac-player" }).addTo(group);
  };
  amb.on?.("state", redraw);
  redraw();
  return {
    remove() {
      amb.off?.("state", redraw);
      group.remove();
    },
  };
}

// cellRect is a land cell's bounds as Leaflet [[south, west], [north, east]];
// null for an id that is not a land cell.
function cellRect(id) {
  const c = cellOf(id);
  return c && [[c.Y, c.X], [c.Y + CELL, c.X + CELL]];
}
