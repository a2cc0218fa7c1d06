// ==UserScript==
// @name         Asheron's Call ambient sound on Leaflet maps
// @namespace    https://github.com/acambient
// @version      1.1.0
// @description  Hear the retail ambient sound of the place under the cursor on a Leaflet map of Dereth (a CRS Simple in behaviour, lat = global Y, lng = global X metres), e.g. Asheron's Atlas.
// @match        *://*/*
// @run-at       document-start
// @grant        none
// @sandbox      raw
// @inject-into  page
// ==/UserScript==

// How it works: Leaflet's public L.Map.addInitHook runs a function for every
// map a page creates. At document-start Leaflet is not loaded yet, so the
// script waits for the page's Leaflet to assign window.L, adds the hook
// before any page script can create its map, and binds the first map of
// Dereth through leaflet-ambient.js (docs/interfaces.md §4). The sound module
// comes from config.server: `go run .` (default http://127.0.0.1:8080) or a static
// export of it; it must send Access-Control-Allow-Origin (ours sends *).
// It runs in the page's own context (@grant none, @sandbox raw for
// Tampermonkey, @inject-into page for Violentmonkey): the hook must be on the
// page's L. A map the page made before the script ran is not seen.
//
// A map of Dereth is one whose CRS is Simple in behaviour (simpleCRS below),
// not only L.CRS.Simple itself: real maps copy it with their own pixel scale,
// a projection bounded to the world and infinite false (Asheron's Atlas).
// Every map it does not bind gets one console line saying why.

(function () {
  "use strict";
  // Settings: edit here, or set window.acAmbientConfig before this runs.
  const config = Object.assign({
    server: "http://127.0.0.1:8080", // the dat server or export serving ambient.js
    follow: "cursor", // "cursor" | "click" | "center"
    overlay: false, // draw the landblock ring and contributing cells
    // The start button's corner (a Leaflet control position). Bottom-right:
    // Leaflet keeps its attribution there, which hosts leave visible (tile
    // licences ask for it), while their sidebars and headers take the left
    // and the top. If a host panel covers the button anyway it moves to a
    // free corner (leaflet-ambient.js's controls all do).
    corner: "bottomright",
    // Which map to bind, overriding the CRS test: true (the first map made),
    // a CSS selector its container matches, or a function (map, L) → boolean.
    map: undefined,
  }, window.acAmbientConfig);
  const server = String(config.server).replace(/\/$/, "");
  const CORNERS = ["bottomright", "topright", "bottomleft", "topleft"];

  let hooked = false, bound = false;

  // hook adds the init hook once, when L is Leaflet; false when it is not (yet).
  function hook(L) {
    if (hooked) return true;
    if (!L || !L.Map || typeof L.Map.addInitHook !== "function" || !L.CRS) return false;
    hooked = true;
    // A failure here must not break the page's own map: it is only logged.
    L.Map.addInitHook(function () {
      try { onMap(this, L); } catch (e) { console.error("ambient.user.js:", e); }
    });
    return true;
  }

  // Leaflet's UMD build ends with `window.L = exports`: a setter catches it.
  // Once hooked, window.L becomes a plain property again.
  if (!hook(window.L)) {
    let current = window.L;
    try {
      Object.defineProperty(window, "L", {
        configurable: true,
        enumerable: true,
        get() { return current; },
        set(v) {
          current = v;
          if (hook(v)) Object.defineProperty(window, "L", { value: v, writable: true, configurable: true, enumerable: true });
        },
      });
    } catch {
      // window.L is locked: look for it until the page has loaded. A map
      // created before this finds L is missed.
      const t = setInterval(() => { if (hook(window.L) || document.readyState === "complete") clearInterval(t); }, 20);
    }
  }

  function onMap(map, L) {
    const why = bound ? "the script already bound another map" : skipReason(map, L);
    if (why) {
      console.info(`ambient.user.js: not binding the map in ${describe(map.getContainer && map.getContainer())}: ${why}`);
      return;
    }
    bound = true;
    let corner = config.corner;
    if (!CORNERS.includes(corner)) {
      console.warn(`ambient.user.js: acAmbientConfig.corner ${JSON.stringify(corner)} is not one of ${CORNERS.join(", ")}; using bottomright`);
      corner = "bottomright";
    }
    map.whenReady(() => {
      attach(map, L, corner).catch((e) => console.error("ambient.user.js:", e));
    });
  }

  // skipReason is why map is not to be bound, or "" to bind it: config.map
  // when set, else the CRS test.
  function skipReason(map, L) {
    const want = config.map;
    if (want === true) return "";
    if (want === false) return "acAmbientConfig.map is false";
    if (typeof want === "string") {
      const el = map.getContainer && map.getContainer();
      return el && el.matches(want) ? "" : `its container does not match acAmbientConfig.map ${JSON.stringify(want)}`;
    }
    if (typeof want === "function") return want(map, L) ? "" : "acAmbientConfig.map(map, L) returned false";
    const why = simpleCRS(map, L);
    return why && `${why}; set acAmbientConfig.map to bind it anyway`;
  }

  // simpleCRS is "" when map's CRS is Simple in behaviour within the map's
  // bounds, else what is not (docs/interfaces.md §4). Leaflet's latlngs are
  // then global metres whatever the pixel scale: at sample points inside
  // the bounds the CRS maps lng to x and lat to y linearly (the projection
  // is the identity up to the transformation), nothing wraps, and distances
  // are Euclidean in those units. Whether the plane is `infinite`, a bounded
  // copy of the projection (Asheron's Atlas clamps LonLat to the world) and
  // maxBounds do not matter: the listener only goes where the map does.
  function simpleCRS(map, L) {
    const crs = map.options && map.options.crs;
    if (!crs) return "it has no CRS";
    if (crs === L.CRS.Simple) return "";
    if (crs.wrapLng || crs.wrapLat) return "its CRS wraps longitude or latitude, as a projection of the globe does";
    if (typeof crs.latLngToPoint !== "function" || typeof crs.distance !== "function") return "its CRS has no latLngToPoint or distance";
    const ll = (lat, lng) => (typeof L.latLng === "function" ? L.latLng(lat, lng) : { lat, lng });
    const [[s, w], [n, e]] = sampleBounds(map, crs);
    const at = (fy, fx) => ll(s + fy * (n - s), w + fx * (e - w));
    const px = (p) => crs.latLngToPoint(p, 0);
    // Two reference points fix the scale of each axis; the others must lie
    // on the same lines, x from lng alone and y from lat alone.
    const a = at(0.1, 0.1), b = at(0.9, 0.9), pa = px(a), pb = px(b);
    const kx = (pb.x - pa.x) / (b.lng - a.lng), ky = (pb.y - pa.y) / (b.lat - a.lat);
    const tol = 1e-9 * (Math.abs(pa.x) + Math.abs(pb.x) + Math.abs(pa.y) + Math.abs(pb.y) + 1);
    const linear = Number.isFinite(kx) && Number.isFinite(ky) && kx !== 0 && ky !== 0 &&
      [[0.5, 0.5], [0.2, 0.8], [0.8, 0.3], [0.9, 0.1], [0.1, 0.9]].every(([fy, fx]) => {
        const p = at(fy, fx), q = px(p);
        return q && Math.abs(q.x - (pa.x + kx * (p.lng - a.lng))) < tol && Math.abs(q.y - (pa.y + ky * (p.lat - a.lat))) < tol;
      });
    if (!linear) return "its projection is not linear in (lat, lng) → (y, x) within the map's bounds";
    const p = at(0.2, 0.3), q = ll(p.lat + 300, p.lng + 400);
    const d = crs.distance(p, q);
    if (!(Math.abs(d - 500) < 1e-6)) return `its distance is not Euclidean (${d} over a 300 × 400 step, want 500)`;
    return "";
  }

  // sampleBounds is where simpleCRS looks, as [[south, west], [north, east]]:
  // the map's maxBounds, else its projection's bounds, else the world of
  // Dereth (0–48960 metres on both axes).
  function sampleBounds(map, crs) {
    const mb = map.options.maxBounds;
    if (mb) {
      const b = Array.isArray(mb) ? { s: mb[0][0], w: mb[0][1], n: mb[1][0], e: mb[1][1] }
        : { s: mb.getSouth(), w: mb.getWest(), n: mb.getNorth(), e: mb.getEast() };
      if ([b.s, b.w, b.n, b.e].every(Number.isFinite) && b.n > b.s && b.e > b.w) return [[b.s, b.w], [b.n, b.e]];
    }
    const pb = crs.projection && crs.projection.bounds;
    if (pb && pb.min && pb.max && pb.max.x > pb.min.x && pb.max.y > pb.min.y) {
      // A LonLat-like projection's bounds: x is lng, y is lat.
      return [[pb.min.y, pb.min.x], [pb.max.y, pb.max.x]];
    }
    return [[0, 0], [48960, 48960]];
  }

  // attach loads the module and the binding from the server, shows the
  // binding's start control (which moves off a corner a host panel covers)
  // while the engine loads, and binds the map with it.
  async function attach(map, L, corner) {
    const [{ AmbientAudio }, { bindLeaflet, startControl }] = await Promise.all([
      import(`${server}/ambient.js`),
      import(`${server}/leaflet-ambient.js`),
    ]);
    const start = startControl(map, L, { corner });
    let amb;
    try {
      amb = await AmbientAudio.load({ server });
    } catch (e) {
      start.fail(e);
      throw e;
    }
    const unbind = bindLeaflet(map, amb, { follow: config.follow, overlay: config.overlay, L, start });
    window.acAmbient = { amb, map, unbind };
  }

  // describe names an element for a console line: tag#id, else tag.class.
  function describe(el) {
    if (!el || !el.tagName) return "an unknown element";
    const cls = typeof el.className === "string" ? el.className.trim().split(/\s+/)[0] : "";
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : cls ? "." + cls : "");
  }
})();
