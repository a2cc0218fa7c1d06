// ==UserScript==
// @name         Asheron's Call ambient sound on Leaflet maps
// @namespace    https://github.com/acambient
// @version      1.0.0
// @description  Hear the retail ambient sound of the place under the cursor on a Leaflet map of Dereth (L.CRS.Simple, lat = global Y, lng = global X metres), e.g. Asheron's Atlas.
// @match        *://*/*
// @run-at       document-start
// @grant        none
// @sandbox      raw
// @inject-into  page
// ==/UserScript==

// How it works: Leaflet's public L.Map.addInitHook runs a function for every
// map a page creates. At document-start Leaflet is not loaded yet, so the
// script waits for the page's Leaflet to assign window.L, adds the hook
// before any page script can create its map, and binds the first map in
// L.CRS.Simple through leaflet-ambient.js (contracts §4). The sound module
// comes from config.server: `go run .` (default http://127.0.0.1:8080) or a static
// export of it; it must send Access-Control-Allow-Origin (ours sends *).
// It runs in the page's own context (@grant none, @sandbox raw for
// Tampermonkey, @inject-into page for Violentmonkey): the hook must be on the
// page's L. A map the page made before the script ran is not seen.

(function () {
  "use strict";
  // Settings: edit here, or set window.acAmbientConfig before this runs.
  const config = Object.assign({
    server: "http://127.0.0.1:8080", // the dat server or export serving ambient.js
    follow: "cursor", // "cursor" | "click" | "center"
    overlay: false, // draw the landblock ring and contributing cells
  }, window.acAmbientConfig);
  const server = String(config.server).replace(/\/$/, "");

  let hooked = false, bound = false;

  // hook adds the init hook once, when L is Leaflet; false when it is not (yet).
  function hook(L) {
    if (hooked) return true;
    if (!L || !L.Map || typeof L.Map.addInitHook !== "function" || !L.CRS) return false;
    hooked = true;
    L.Map.addInitHook(function () { onMap(this, L); });
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
    if (bound || map.options.crs !== L.CRS.Simple) return; // not a map of Dereth
    bound = true;
    const button = startControl(map, L);
    map.whenReady(() => attach(map, L, button).catch((e) => {
      button.textContent = "⚠ ambient";
      button.title = String(e && e.message || e);
      console.error("ambient.user.js:", e);
    }));
  }

  async function attach(map, L, button) {
    const [{ AmbientAudio }, { bindLeaflet }] = await Promise.all([
      import(`${server}/ambient.js`),
      import(`${server}/leaflet-ambient.js`),
    ]);
    const amb = await AmbientAudio.load({ server });
    const unbind = bindLeaflet(map, amb, { follow: config.follow, overlay: config.overlay, L });
    window.acAmbient = { amb, map, unbind };
    let on = false;
    button.disabled = false;
    button.textContent = "▶ ambient sound";
    button.onclick = async (e) => {
      L.DomEvent.stop(e);
      if (!on && !button.dataset.started) {
        await amb.start(); // from this click: browsers start audio only on a gesture
        button.dataset.started = "1";
      } else {
        amb.setEnabled(!on);
      }
      on = !on;
      button.textContent = on ? "♪ ambient on" : "▶ ambient sound";
    };
  }

  // startControl puts a small button in the map's corner (a Leaflet control).
  function startControl(map, L) {
    const button = L.DomUtil.create("button", "ac-ambient-button");
    button.type = "button";
    button.textContent = "♪ loading…";
    button.disabled = true;
    button.style.cssText = "font:13px system-ui,sans-serif;padding:4px 8px;cursor:pointer";
    L.DomEvent.disableClickPropagation(button);
    const Control = L.Control.extend({ onAdd: () => button });
    new Control({ position: "bottomleft" }).addTo(map);
    return button;
  }
})();
