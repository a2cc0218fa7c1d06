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
// not only L.CRS.Simple itself: real maps copy it with their own pixel scale.
// Every map it does not bind gets one console line saying why.

(function () {
  "use strict";
  // Settings: edit here, or set window.acAmbientConfig before this runs.
  const config = Object.assign({
    server: "http://127.0.0.1:8080", // the dat server or export serving ambient.js
    follow: "cursor", // "cursor" | "click" | "center"
    overlay: false, // draw the landblock ring and contributing cells
    // The button's corner (a Leaflet control position). Bottom-right: Leaflet
    // keeps its attribution there, which hosts leave visible (tile licences
    // ask for it), while their sidebars and headers take the left and the
    // top. If a host panel covers the button anyway it moves to a free corner.
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
    const { button, check } = startControl(map, L);
    map.whenReady(() => {
      requestAnimationFrame(check); // once the page has laid the map out
      attach(map, L, button).catch((e) => {
        button.textContent = "⚠ ambient";
        button.title = String(e && e.message || e);
        console.error("ambient.user.js:", e);
      }).finally(check); // the host's panels have had the load's time to appear
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
    const why = simpleCRS(map.options && map.options.crs, L);
    return why && `${why}; set acAmbientConfig.map to bind it anyway`;
  }

  // simpleCRS is "" for a CRS that is Simple in behaviour, else what is not.
  // Leaflet's latlngs are then global metres whatever the pixel scale: the
  // projection is the identity (lat → y, lng → x, as L.Projection.LonLat),
  // the plane is infinite and does not wrap, and distances are Euclidean in
  // those units. The transformation and the scale, the pixels per metre, are
  // the map's own.
  function simpleCRS(crs, L) {
    if (!crs) return "it has no CRS";
    if (crs === L.CRS.Simple) return "";
    if (crs.infinite !== true) return "its CRS is bounded (infinite is not true), as a projection of the globe is";
    if (crs.wrapLng || crs.wrapLat) return "its CRS wraps longitude or latitude";
    const ll = (lat, lng) => (typeof L.latLng === "function" ? L.latLng(lat, lng) : { lat, lng });
    const p = crs.projection;
    if (!p || (p !== (L.Projection && L.Projection.LonLat) && ![[0, 0], [34656.5, 32544.25], [48960, -1000.5]].every(([lat, lng]) => {
      const pt = p.project(ll(lat, lng));
      return pt && Math.abs(pt.x - lng) < 1e-6 && Math.abs(pt.y - lat) < 1e-6;
    }))) {
      return "its projection is not the identity (lat, lng) → (y, x)";
    }
    const d = typeof crs.distance === "function" ? crs.distance(ll(100, 200), ll(400, 600)) : NaN;
    if (!(Math.abs(d - 500) < 1e-6)) return `its distance is not Euclidean (${d} from (100, 200) to (400, 600), want 500)`;
    return "";
  }

  async function attach(map, L, button) {
    const [{ AmbientAudio }, { bindLeaflet }] = await Promise.all([
      import(`${server}/ambient.js`),
      import(`${server}/leaflet-ambient.js`),
    ]);
    const amb = await AmbientAudio.load({ server });
    const unbind = bindLeaflet(map, amb, { follow: config.follow, overlay: config.overlay, L });
    window.acAmbient = { amb, map, unbind };
    let on = false, off = null;
    // The button says what is heard: off the data (a landblock the server
    // lacks) the listener is nowhere and its sound has faded out.
    const render = () => {
      button.textContent = off ? `${on ? "♪" : "▶"} no data here` : on ? "♪ ambient on" : "▶ ambient sound";
      button.title = off ? `no ambient data here: the server has no landblock ${off.landblock}` : "";
    };
    amb.on("state", (st) => {
      if ((st.offData && st.offData.landblock) !== (off && off.landblock)) {
        off = st.offData || null;
        render();
      }
    });
    button.disabled = false;
    render();
    button.onclick = async (e) => {
      L.DomEvent.stop(e);
      if (!on && !button.dataset.started) {
        await amb.start(); // from this click: browsers start audio only on a gesture
        button.dataset.started = "1";
      } else {
        amb.setEnabled(!on);
      }
      on = !on;
      render();
    };
  }

  // startControl puts a small button in config.corner (a Leaflet control)
  // and returns it with check, which moves it to another corner when a host
  // panel lies over it.
  function startControl(map, L) {
    const button = L.DomUtil.create("button", "ac-ambient-button");
    button.type = "button";
    button.textContent = "♪ loading…";
    button.disabled = true;
    button.style.cssText = "font:13px system-ui,sans-serif;padding:4px 8px;cursor:pointer";
    L.DomEvent.disableClickPropagation(button);
    let corner = config.corner;
    if (!CORNERS.includes(corner)) {
      console.warn(`ambient.user.js: acAmbientConfig.corner ${JSON.stringify(corner)} is not one of ${CORNERS.join(", ")}; using bottomright`);
      corner = "bottomright";
    }
    const Control = L.Control.extend({ onAdd: () => button });
    const control = new Control({ position: corner }).addTo(map);
    const check = () => uncover(control, button);
    map.on("resize", check);
    return { button, check };
  }

  // uncover keeps the button where a click at its centre reaches it: if the
  // element there is something else (a host's panel laid over the map's
  // edge), it tries the other corners in turn, and says where it went.
  function uncover(control, button) {
    const from = control.getPosition(), over = coverOf(button);
    if (!over) return;
    for (const pos of [from, ...CORNERS.filter((c) => c !== from)].slice(1)) {
      control.setPosition(pos);
      if (!coverOf(button)) {
        console.info(`ambient.user.js: the button in the ${from} corner is under ${describe(over)}; moved it to ${pos}`);
        return;
      }
    }
    control.setPosition(from);
    console.warn(`ambient.user.js: the button is covered in every corner (in ${from}, by ${describe(over)}); set acAmbientConfig.corner, or press Enter on it`);
  }

  // coverOf is the element a click at the button's centre would reach
  // instead of it; null when it reaches the button, or when the centre is
  // off screen (nothing to judge).
  function coverOf(button) {
    const r = button.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (!(r.width > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight)) return null;
    const el = document.elementFromPoint(x, y);
    return el && !button.contains(el) ? el : null;
  }

  // describe names an element for a console line: tag#id, else tag.class.
  function describe(el) {
    if (!el || !el.tagName) return "an unknown element";
    const cls = typeof el.className === "string" ? el.className.trim().split(/\s+/)[0] : "";
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : cls ? "." + cls : "");
  }
})();
