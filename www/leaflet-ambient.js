// leaflet-ambient.js: a Leaflet map of Dereth drives AmbientAudio (docs/interfaces.md §4).
//
//   import { bindLeaflet } from "./leaflet-ambient.js";
//   const unbind = bindLeaflet(map, amb, { follow: "cursor" }); // or "click", "center"
//
// The map is any Leaflet 1.x map in the convention of Asheron's Atlas:
// L.CRS.Simple or a copy of it, latitude = global Y and longitude = global X,
// in metres over 0–48960 (255 landblocks of 192 m). Only Leaflet's public API
// and the map container's DOM events are used, so the host page needs no
// changes.
//
// The listener gets map coordinates {ns, ew}: the module takes z from the
// landblock's terrain, which the map does not know. Retail rebuilds the
// ambient set when the listener's cell changes, not on every step, so a
// fast cursor is reduced to cell changes at most one per throttleMs.

// World geometry (docs/dat-format.md §8): 24 m land cells, 8 to a landblock
// side, 255 landblocks to the world's side. Re-exported: embedders use them.
import { BLOCK, CELL, cellAt, cellOf, mapCoord, parseId, ring } from "./geo.js";
import { CORNERS, mapControl, startControl } from "./map-controls.js";
import { walkRoute } from "./walk.js";
export { BLOCK, CELL, WORLD, cellAt, hexId } from "./geo.js";
export { startControl } from "./map-controls.js";

/**
 * Binds map to amb and returns unbind(). Options:
 *   follow     "cursor" (default): the listener is under the pointer (a
 *              tap on a touch screen), but stays put while the pointer is
 *              over one of the map's controls; "click": a draggable marker
 *              set by clicking; "center": the map's centre.
 *   throttleMs the least time between two listener moves (default 100).
 *   overlay    draw the 3×3 landblock ring and the contributing cells of
 *              the engine's last rebuild as Leaflet layers (default false).
 *   start      true, or a corner ("bottomright", the default, "topright",
 *              "bottomleft", "topleft"): a button that starts the audio
 *              from its click and then turns it off and on (the
 *              userscript's); or a control made by startControl, which the
 *              binding then drives and removes.
 *   L          the Leaflet namespace; by default the one that made the map
 *              (its Leaflet's global L), needed for "click", overlay,
 *              zones, captions and start.
 *   zones      the URL of a zones.json (the sound-zone layer: `serve` and
 *              an export answer SOURCE/zones.json): drawn as an image
 *              overlay in the map's CRS, with a control that toggles it and
 *              gives its legend.
 *   captions   true: a control that shows the captions (what plays, in
 *              words, as an aria-live region).
 *   onMove     called with cellAt()'s object each time the listener moves.
 *   onNoData   called with cellAt()'s object and the error when the point
 *              lies on a landblock the source does not have: the listener
 *              is nowhere there and its sound fades out (the module does
 *              that); not an error, so onError does not hear of it.
 *   onError    called when setPlayer fails otherwise (default: console.warn).
 */
export function bindLeaflet(map, amb, opts = {}) {
  const follow = opts.follow ?? "cursor";
  if (!["cursor", "click", "center"].includes(follow)) {
    throw new Error(`bindLeaflet: follow ${JSON.stringify(follow)}: want "cursor", "click" or "center"`);
  }
  const throttleMs = opts.throttleMs ?? 100;
  if (!(throttleMs >= 0)) throw new Error(`bindLeaflet: throttleMs ${throttleMs}: want a number ≥ 0`);
  const onError = opts.onError ?? ((e) => console.warn("bindLeaflet: setPlayer:", e));
  const needL = follow === "click" || opts.overlay || opts.zones || opts.captions || opts.start;
  const Lf = opts.L ?? leafletOf(map);
  if (needL && !(Lf && Lf.marker && Lf.rectangle && Lf.Control)) {
    throw new Error("bindLeaflet: Leaflet not found: pass it as the L option (needed for follow \"click\", overlay, zones, captions and start)");
  }
  const startAt = opts.start === true ? "bottomright" : opts.start;
  if (typeof startAt === "string" && !CORNERS.includes(startAt)) {
    throw new Error(`bindLeaflet: start ${JSON.stringify(startAt)}: want true or one of ${CORNERS.join(", ")}`);
  }

  // The throttle: a move to a new cell is sent at once when the last send
  // is throttleMs old, else when it is; moves within the last sent cell
  // only refresh what a pending send will carry.
  let sent = null, pending = null, lastSend = -Infinity, timer = 0, bound = true;
  let walking = null; // the walk under way (unbind.walk), which moves the listener meanwhile
  const send = () => {
    timer = 0;
    if (!pending || !bound) return;
    const p = pending;
    pending = null;
    sent = p;
    lastSend = performance.now();
    // setPlayer may answer with a promise (ambient.js does): a failure is
    // reported, not left unhandled, and does not stop the binding. Off the
    // data is no failure: the map just reaches past the records.
    const failed = (e) => (e && e.code === "missing-landblock" ? opts.onNoData?.(p, e) : onError(e));
    try {
      Promise.resolve(amb.setPlayer({ ns: p.ns, ew: p.ew })).catch(failed);
    } catch (e) {
      failed(e);
    }
    opts.onMove?.(p);
  };
  const moveTo = (latlng, force) => {
    if (walking) return; // a walk moves the listener (unbind.walk)
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
  let marker = null, unpoint = null;
  if (follow === "cursor") {
    // The DOM's pointermove on the container, not the map's mousemove: a
    // canvas renderer (a grid of polylines) takes the mousemoves over its
    // canvas and passes the map one per 32 ms, so quick moves were lost.
    // Every pointer position is seen here; the throttle sends the last.
    const container = map.getContainer();
    const onPointer = (e) => {
      if (e.pointerType === "touch" || overControl(e.target)) return; // a tap is a click
      moveTo(map.mouseEventToLatLng(e), false);
    };
    container.addEventListener("pointermove", onPointer);
    unpoint = () => container.removeEventListener("pointermove", onPointer);
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
  const zones = opts.zones ? zonesControl(map, Lf, String(opts.zones), onError) : null;
  const captions = opts.captions ? captionsControl(map, amb, Lf) : null;
  const start = !opts.start ? null : typeof opts.start === "object" ? opts.start : startControl(map, Lf, { corner: startAt });
  start?.attach(amb);

  // unbind.walk(route, {speed}): walks the listener along route (walk.js)
  // with the map panning along; the pointer or centre does not move it
  // meanwhile. Returns the walk's handle ({stop(), done, …}).
  unbind.walk = (route, wo = {}) => {
    walking?.stop();
    const w = walkRoute(amb, route, {
      speed: wo.speed,
      onError: wo.onError,
      move: (q) => {
        map.panTo?.([q.Y, q.X], { animate: false });
        return amb.setPlayer({ ns: mapCoord(q.Y), ew: mapCoord(q.X) });
      },
    });
    walking = w;
    w.done.finally(() => { if (walking === w) walking = null; }).catch(() => {});
    return w;
  };

  function unbind() {
    if (!bound) return;
    bound = false;
    walking?.stop();
    clearTimeout(timer);
    map.off(handlers);
    unpoint?.();
    marker?.remove();
    overlay?.remove();
    zones?.remove();
    captions?.remove();
    start?.remove();
  }
  return unbind;
}

// leafletOf is the Leaflet that made map: Leaflet 1.x's build sets the
// global L as it loads (bundled or not), and a map is an instance of its
// L.Map. Null when the global is another Leaflet or none.
function leafletOf(map) {
  const L = globalThis.L;
  return L && typeof L.Map === "function" && map instanceof L.Map ? L : null;
}

// overControl tells a pointer move over a control in the map's corners (the
// zoom buttons, a start button, a host's own) from one over the map: both
// reach the container with the point under the pointer, but the user is
// aiming at the control, so the listener stays where it was. (A move inside
// one of this project's controls is retargeted to its host element, a
// .leaflet-control.)
function overControl(t) {
  return !!(t && typeof t.closest === "function" && t.closest(".leaflet-control"));
}

// drawOverlay keeps a layer group showing the engine's last rebuild: the
// 3×3 ring of landblocks it read (LScape::add_ambient_sounds), the
// listener's cell, and each contributing cell shaded by its weight (the
// state's `cells`, when the module lists them); off the data, the landblock
// the source lacks, labelled so. It follows the engine's "state" events,
// not the cursor, so it shows what is heard.
function drawOverlay(map, amb, Lf) {
  const group = Lf.layerGroup().addTo(map);
  let lastKey = "";
  const redraw = () => {
    const st = amb.state?.();
    const id = st?.player?.objcellId;
    const cells = st?.cells ?? [];
    const off = st?.offData?.landblock;
    const key = id + ":" + cells.length + ":" + (st?.totalSoundCount ?? 0) + ":" + off;
    if (key === lastKey) return;
    lastKey = key;
    group.clearLayers();
    if (off) {
      // The listener is nowhere: show the landblock the source lacks instead.
      const n = parseId(off);
      Lf.rectangle(blockRect(n >>> 24, (n >>> 16) & 0xff),
        { color: "#9ca3af", weight: 1, dashArray: "4 4", fillColor: "#6b7280", fillOpacity: 0.25, interactive: false, className: "ac-nodata" })
        .bindTooltip("no ambient data here", { permanent: true, direction: "center", className: "ac-nodata-label" })
        .addTo(group);
      return;
    }
    if (id === undefined || id === null) return;
    const n = parseId(id);
    for (const [x, y] of ring(n >>> 24, (n >>> 16) & 0xff)) {
      Lf.rectangle(blockRect(x, y), { color: "#3b82f6", weight: 1, fill: false, interactive: false, className: "ac-ring" }).addTo(group);
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

// blockRect is landblock (bx, by)'s bounds as Leaflet [[south, west], [north, east]].
function blockRect(bx, by) {
  return [[by * BLOCK, bx * BLOCK], [(by + 1) * BLOCK, (bx + 1) * BLOCK]];
}

// cellRect is a land cell's bounds as Leaflet [[south, west], [north, east]];
// null for an id that is not a land cell.
function cellRect(id) {
  const c = cellOf(id);
  return c && [[c.Y, c.X], [c.Y + CELL, c.X + CELL]];
}

/**
 * Loads a zones.json (docs/interfaces.md §1.4): its bounds ([[south, west],
 * [north, east]] in global metres, the CRS's lat/lng), size, cell counts and
 * sets ({stbIndex, table, color, name, label, cells}), with `image` made
 * the absolute URL of its zones.png. Rejects when it cannot be read or is
 * not one.
 */
export async function loadZones(url) {
  const at = new URL(url, globalThis.document?.baseURI);
  const r = await fetch(at);
  if (!r.ok) throw new Error(`zones: ${at.href}: HTTP ${r.status}`);
  const idx = await r.json();
  if (!idx || !Array.isArray(idx.bounds) || idx.bounds.length !== 2 || !Array.isArray(idx.sets)) {
    throw new Error(`zones: ${at.href}: not a sound-zone index`);
  }
  return { ...idx, image: new URL(idx.image || "zones.png", at).href };
}

// zonesControl adds the sound-zone layer of url as an image overlay — one
// pixel per land cell, placed by its bounds in lat/lng metres, so in any
// copy of L.CRS.Simple whatever its pixel scale, drawn unsmoothed — and a
// control (top right, or the first free corner: map-controls.js) with a
// checkbox that shows or hides it and the legend: each set's colour and
// name, its land cells in the title.
function zonesControl(map, Lf, url, onError) {
  let overlay = null, gone = false;
  const c = mapControl(map, Lf, { position: "topright", className: "ac-zones", name: "sound-zone control" });
  const box = document.createElement("div");
  box.className = "box";
  const label = document.createElement("label");
  label.dataset.hit = "";
  const check = document.createElement("input");
  check.type = "checkbox";
  check.checked = true;
  label.append(check, "Sound zones");
  const legend = document.createElement("ul");
  legend.className = "ac-zones-legend";
  box.append(label, legend);
  c.root.append(box);

  const show = () => {
    legend.hidden = !check.checked;
    if (!overlay) return;
    if (check.checked) {
      overlay.addTo(map);
      overlay.getElement()?.style.setProperty("image-rendering", "pixelated");
    } else {
      overlay.remove();
    }
  };
  check.addEventListener("change", show);
  loadZones(url).then((idx) => {
    if (gone) return;
    overlay = Lf.imageOverlay(idx.image, idx.bounds, { opacity: 0.6, interactive: false, className: "ac-zones-image" });
    c.host.dataset.cells = String(idx.cells);
    c.host.dataset.silent = String(idx.silent);
    legend.replaceChildren(...idx.sets.map((z) => {
      const li = document.createElement("li");
      li.dataset.cells = String(z.cells);
      li.title = `${z.cells} land cells`;
      const sw = document.createElement("i");
      sw.style.background = z.color;
      li.append(sw, z.label);
      return li;
    }));
    show();
    c.check(); // the legend made it taller: it may reach under a panel now
  }, (e) => {
    if (gone) return;
    label.textContent = "no sound zones here";
    onError(e);
  });
  return {
    remove() {
      gone = true;
      overlay?.remove();
      c.remove();
    },
  };
}

// captionsControl shows the captions (ambient.js's "caption" events) in a
// control (bottom left, or the first free corner) holding an aria-live
// region: the last two, the newest below; hidden until the first.
function captionsControl(map, amb, Lf) {
  const c = mapControl(map, Lf, { position: "bottomleft", className: "ac-captions", name: "captions" });
  const box = document.createElement("div");
  box.className = "box";
  box.setAttribute("aria-live", "polite");
  box.setAttribute("aria-label", "captions: what plays, in words");
  box.hidden = true;
  c.root.append(box);
  const said = (cap) => {
    const p = document.createElement("p");
    p.textContent = cap.text;
    box.append(p);
    while (box.childElementCount > 2) box.firstElementChild.remove();
    if (box.hidden) {
      box.hidden = false;
      c.check(); // laid out only now
    }
  };
  amb.on?.("caption", said);
  return {
    remove() {
      amb.off?.("caption", said);
      c.remove();
    },
  };
}
