// Unit tests of www/leaflet-ambient.js under node (node --test), with a
// stand-in map that records handlers and an engine that records setPlayer.
// Run by TestLeafletUnit in leaflet_test.go. The throttle runs on a fake
// clock (fakeClock), so no test depends on how busy the machine is.
import test from "node:test";
import assert from "node:assert/strict";
import { bindLeaflet, cellAt, hexId } from "../www/leaflet-ambient.js";

// Hand-computed from docs/interfaces.md §4: objcell = bx<<24 | by<<16 | (8·cx + cy + 1),
// map coordinates from §1.1: NS = (Y/24 − 1019.5)/10.
test("cellAt", () => {
  const cases = [
    // demo landmark "holtburg": 0xA9B4001F at local (72, 144): bx 169, by 180, cx 3, cy 6.
    { X: 169 * 192 + 72, Y: 180 * 192 + 144, id: "0xA9B4001F", ns: 42.65, ew: 33.55 },
    // one metre into the cell: same cell
    { X: 169 * 192 + 73, Y: 180 * 192 + 145, id: "0xA9B4001F" },
    // just below the boundary: the cell to the south-west, 0xA9B40016 (cx 2, cy 5)
    { X: 169 * 192 + 71.999, Y: 180 * 192 + 143.999, id: "0xA9B40016" },
    { X: 0, Y: 0, id: "0x00000001", ns: -101.95, ew: -101.95 },
    { X: 48959.5, Y: 48959.5, id: "0xFEFE0040" },
    // x-major: cx 7, cy 0 is cell 57 = 0x39
    { X: 7 * 24 + 1, Y: 1, id: "0x00000039" },
  ];
  for (const c of cases) {
    const p = cellAt(c.X, c.Y);
    assert.equal(hexId(p.objcellId), c.id, `(${c.X}, ${c.Y})`);
    if (c.ns !== undefined) {
      assert.ok(Math.abs(p.ns - c.ns) < 1e-9, `ns ${p.ns} want ${c.ns}`);
      assert.ok(Math.abs(p.ew - c.ew) < 1e-9, `ew ${p.ew} want ${c.ew}`);
    }
  }
  for (const [X, Y] of [[-0.01, 5], [5, -0.01], [48960, 5], [5, 48960], [NaN, 5]]) {
    assert.equal(cellAt(X, Y), null, `(${X}, ${Y}) is off the world`);
  }
});

// fakeMap is the part of L.Map the binding uses: its events, and a
// container whose pointermove events carry the latlng the map would read
// from them (mouseEventToLatLng).
function fakeMap(center = { lat: 0, lng: 0 }) {
  const handlers = new Map();
  const container = new EventTarget();
  let listening = 0;
  const add = container.addEventListener.bind(container), remove = container.removeEventListener.bind(container);
  container.addEventListener = (...a) => { listening++; add(...a); };
  container.removeEventListener = (...a) => { listening--; remove(...a); };
  return {
    center,
    on(obj) { for (const [k, f] of Object.entries(obj)) handlers.set(k, [...(handlers.get(k) ?? []), f]); return this; },
    off(obj) { for (const [k, f] of Object.entries(obj)) handlers.set(k, (handlers.get(k) ?? []).filter((g) => g !== f)); return this; },
    getCenter() { return this.center; },
    getContainer() { return container; },
    mouseEventToLatLng(e) { return e.latlng; },
    fire(type, e = {}) { for (const f of handlers.get(type) ?? []) f(e); },
    // move is a pointer move over the container to e.latlng, on e.target
    // (default: the container itself), by e.pointerType (default "mouse").
    move(e) {
      const ev = new Event("pointermove");
      Object.assign(ev, { latlng: e.latlng, pointerType: e.pointerType ?? "mouse" });
      if (e.target) Object.defineProperty(ev, "target", { value: e.target });
      container.dispatchEvent(ev);
    },
    count() { let n = listening; for (const v of handlers.values()) n += v.length; return n; },
  };
}

function fakeAmb() {
  return { calls: [], setPlayer(p) { this.calls.push(p); } };
}

const at = (X, Y) => ({ latlng: { lat: Y, lng: X } });
// settled resolves once the promise jobs queued so far (setPlayer's
// rejections and their handlers) have run.
const settled = () => new Promise((r) => setImmediate(r));
const B = (bx, by, x, y) => at(bx * 192 + x, by * 192 + y);

// fakeClock puts the binding's two clocks, setTimeout and performance.now,
// on node:test's mock timers for the test t: tick(ms) moves both and runs
// the timers that fall due.
function fakeClock(t) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let now = 1000;
  t.mock.method(performance, "now", () => now);
  return { tick(ms) { now += ms; t.mock.timers.tick(ms); } };
}

test("cursor: one send per cell change, throttled, last position wins", (t) => {
  const clock = fakeClock(t);
  const map = fakeMap(), amb = fakeAmb();
  const unbind = bindLeaflet(map, amb, { follow: "cursor", throttleMs: 300 });
  map.move(B(169, 180, 72, 144)); // sent at once
  map.move(B(169, 180, 80, 150)); // same cell: not sent
  assert.equal(amb.calls.length, 1);
  assert.deepEqual(amb.calls[0], { ns: 42.65, ew: 33.55 });
  // A fast sweep east across 20 cells within the throttle window.
  for (let i = 1; i <= 20; i++) map.move(B(169, 180, 72 + 24 * i, 144));
  assert.equal(amb.calls.length, 1, "a sweep inside the window sends nothing yet");
  clock.tick(299);
  assert.equal(amb.calls.length, 1, "nor 1 ms before the window ends");
  clock.tick(1);
  assert.equal(amb.calls.length, 2, "then only its end");
  const end = cellAt(169 * 192 + 72 + 480, 180 * 192 + 144);
  assert.deepEqual(amb.calls[1], { ns: end.ns, ew: end.ew });
  // unbind: no handlers left, nothing more is sent
  unbind();
  assert.equal(map.count(), 0);
  map.move(B(100, 100, 5, 5));
  clock.tick(10000);
  assert.equal(amb.calls.length, 2);
});

test("cursor: a pending send is cancelled by unbind", (t) => {
  const clock = fakeClock(t);
  const map = fakeMap(), amb = fakeAmb();
  const unbind = bindLeaflet(map, amb, { throttleMs: 200 });
  map.move(B(10, 10, 1, 1));
  map.move(B(10, 10, 30, 1)); // pending
  unbind();
  clock.tick(10000);
  assert.equal(amb.calls.length, 1);
});

test("cursor: a click sends at once, off-world moves are ignored", () => {
  const map = fakeMap(), amb = fakeAmb();
  bindLeaflet(map, amb, { throttleMs: 10000 });
  map.move(at(-5, 100));
  assert.equal(amb.calls.length, 0);
  map.move(at(100, 100));
  map.fire("click", at(130, 100));
  assert.equal(amb.calls.length, 2);
});

test("cursor: a touch drag is no hover (a tap is a click); the last of a quick path is sent", (t) => {
  const clock = fakeClock(t);
  const map = fakeMap(), amb = fakeAmb();
  bindLeaflet(map, amb, { throttleMs: 150 });
  map.move({ ...B(10, 10, 1, 1), pointerType: "touch" });
  assert.equal(amb.calls.length, 0);
  // Eight quick steps over four cells, ending back in the first one's
  // neighbour: the end is sent once the window closes.
  for (let i = 0; i < 8; i++) map.move(B(10, 10, 1 + 13 * i, 1));
  assert.equal(amb.calls.length, 1);
  clock.tick(149);
  assert.equal(amb.calls.length, 1, "the end waits for the window");
  clock.tick(1);
  assert.equal(amb.calls.length, 2, "then it is sent");
  const end = cellAt(10 * 192 + 1 + 13 * 7, 10 * 192 + 1);
  assert.deepEqual(amb.calls.at(-1), { ns: end.ns, ew: end.ew });
});

test("L is the Leaflet that made the map, unless passed", () => {
  const saved = globalThis.L;
  try {
    class FakeLeafletMap {}
    globalThis.L = { Map: FakeLeafletMap, marker() {}, rectangle() {}, Control: {} };
    const theirs = Object.assign(new FakeLeafletMap(), fakeMap());
    // A bad start corner is checked once Leaflet is found: the global's.
    assert.throws(() => bindLeaflet(theirs, fakeAmb(), { start: "middle" }), /start "middle"/);
    // A map another Leaflet made: not found without the option.
    assert.throws(() => bindLeaflet(fakeMap(), fakeAmb(), { start: true }), /Leaflet not found/);
  } finally {
    globalThis.L = saved;
  }
});

test("center: sent at bind and on moveend", () => {
  const map = fakeMap({ lat: 180 * 192 + 144, lng: 169 * 192 + 72 }), amb = fakeAmb();
  const moves = [];
  bindLeaflet(map, amb, { follow: "center", onMove: (p) => moves.push(hexId(p.objcellId)) });
  assert.deepEqual(amb.calls, [{ ns: 42.65, ew: 33.55 }]);
  map.center = { lat: 180 * 192 + 10, lng: 169 * 192 + 10 };
  map.fire("moveend");
  assert.deepEqual(moves, ["0xA9B4001F", "0xA9B40001"]);
});

test("map.remove() unbinds", () => {
  const map = fakeMap(), amb = fakeAmb();
  bindLeaflet(map, amb, {});
  map.fire("unload");
  assert.equal(map.count(), 0);
});

test("bad options are clear errors", () => {
  assert.throws(() => bindLeaflet(fakeMap(), fakeAmb(), { follow: "hover" }), /follow "hover"/);
  assert.throws(() => bindLeaflet(fakeMap(), fakeAmb(), { throttleMs: -1 }), /throttleMs -1/);
  assert.throws(() => bindLeaflet(fakeMap(), fakeAmb(), { follow: "click" }), /Leaflet not found/);
});

test("a failing setPlayer goes to onError; the binding goes on", async () => {
  const map = fakeMap(), errors = [];
  let n = 0;
  const amb = { setPlayer() { n++; if (n === 1) return Promise.reject(new Error("offline")); if (n === 2) throw new Error("sync"); return Promise.resolve({}); } };
  bindLeaflet(map, amb, { throttleMs: 0, onError: (e) => errors.push(e.message) });
  map.move(B(10, 10, 1, 1));
  map.move(B(10, 10, 30, 1));
  map.move(B(10, 10, 60, 1));
  await settled();
  assert.equal(n, 3);
  assert.deepEqual(errors.sort(), ["offline", "sync"]);
});

// The userscript's hook, in a bare context standing in for a page at
// document-start: it must catch the page's Leaflet as it is assigned to
// window.L (and only Leaflet), add one init hook, and leave window.L a plain
// property; a Leaflet already there is hooked at once.
import { readFileSync } from "node:fs";
import vm from "node:vm";

const userscript = readFileSync(new URL("../www/ambient.user.js", import.meta.url), "utf8");

function page() {
  const ctx = vm.createContext({ console, setInterval, clearInterval, document: { readyState: "loading" } });
  vm.runInContext("var window = globalThis;", ctx);
  return ctx;
}

function fakeLeaflet() {
  const hooks = [];
  return { hooks, CRS: { Simple: {} }, Map: { addInitHook(fn) { hooks.push(fn); } } };
}

test("userscript: hooks Leaflet when the page assigns window.L", () => {
  const ctx = page();
  vm.runInContext(userscript, ctx);
  const L = fakeLeaflet();
  ctx.other = { notLeaflet: true };
  vm.runInContext("window.L = other;", ctx); // some other global named L first
  assert.equal(L.hooks.length, 0);
  ctx.leaflet = L;
  vm.runInContext("window.L = leaflet;", ctx); // Leaflet's `window.L = exports`
  assert.equal(L.hooks.length, 1);
  assert.equal(vm.runInContext("L", ctx), L);
  const d = vm.runInContext("Object.getOwnPropertyDescriptor(window, 'L')", ctx);
  assert.equal(d.writable, true, "window.L is a plain property again");
  vm.runInContext("window.L = leaflet;", ctx); // noConflict and back: no second hook
  assert.equal(L.hooks.length, 1);
});

test("userscript: hooks a Leaflet that is already there; ignores maps in other CRSs", () => {
  const ctx = page();
  const L = fakeLeaflet();
  ctx.L = L;
  vm.runInContext(userscript, ctx);
  assert.equal(L.hooks.length, 1);
  // A map in another CRS: the hook returns without touching it.
  const map = { options: { crs: { notSimple: true } }, whenReady() { throw new Error("bound a map in another CRS"); } };
  L.hooks[0].call(map);
});

test("center: waits for the map's view (whenReady)", () => {
  const map = fakeMap(), amb = fakeAmb();
  let ready = null, view = false;
  map.whenReady = (fn) => { ready = fn; };
  map.getCenter = () => { if (!view) throw new Error("Set map center and zoom first."); return { lat: 100, lng: 100 }; };
  bindLeaflet(map, amb, { follow: "center" }); // before setView: must not throw
  assert.equal(amb.calls.length, 0);
  view = true;
  ready();
  assert.equal(amb.calls.length, 1);
});

test("cursor: moves over a map control leave the listener where it was", () => {
  const map = fakeMap(), amb = fakeAmb();
  bindLeaflet(map, amb, { throttleMs: 0 });
  // An element inside a .leaflet-control (a corner's button) and one that is not.
  const control = { closest: (sel) => (sel === ".leaflet-control" ? {} : null) };
  const pane = { closest: () => null };
  map.move({ ...B(169, 180, 72, 144), target: pane });
  assert.equal(amb.calls.length, 1);
  for (let i = 1; i <= 5; i++) {
    map.move({ ...B(169, 180, 72 + 30 * i, 144), target: control });
  }
  assert.equal(amb.calls.length, 1, "the cells under the control are not sent");
  map.move({ ...B(169, 180, 72 + 30, 144), target: pane });
  assert.equal(amb.calls.length, 2, "back on the map, the listener follows again");
});

// fullLeaflet is fakeLeaflet with the CRSs and projection the userscript
// tests, as Leaflet 1.9 defines them (latLngToPoint: the projection, then
// the transformation, then the zoom's scale).
function fullLeaflet() {
  const L = fakeLeaflet();
  const LonLat = { project: (ll) => ({ x: ll.lng, y: ll.lat }) };
  const euclid = (a, b) => Math.hypot(b.lng - a.lng, b.lat - a.lat);
  L.Projection = { LonLat };
  L.extend = (dst, ...src) => Object.assign(dst, ...src);
  L.latLng = (lat, lng) => ({ lat, lng });
  L.bounds = (a, b) => ({ min: { x: Math.min(a[0], b[0]), y: Math.min(a[1], b[1]) }, max: { x: Math.max(a[0], b[0]), y: Math.max(a[1], b[1]) } });
  function latLngToPoint(ll, zoom) {
    const p = this.projection.project(ll), [a, b, c, d] = this.transformation, k = this.scale(zoom);
    return { x: k * (a * p.x + b), y: k * (c * p.y + d) };
  }
  L.CRS = {
    Simple: { projection: LonLat, transformation: [1, 0, -1, 0], scale: (z) => 2 ** z, latLngToPoint, distance: euclid, infinite: true },
    EPSG3857: { projection: { project: (ll) => ({ x: ll.lng * 111319.49, y: Math.log(Math.tan(Math.PI / 4 + ll.lat * Math.PI / 360)) * 6378137 }) },
      transformation: [1, 0, -1, 0], scale: (z) => 2 ** z, latLngToPoint, wrapLng: [-180, 180], infinite: false, distance: () => 1 },
  };
  return L;
}

// leafletMap is a map as the hook sees it: whenReady counts the maps bound.
function leafletMap(crs, id = "map", options = {}) {
  return {
    options: { crs, ...options }, ready: 0,
    getContainer: () => ({ tagName: "DIV", id, className: "leaflet-container", matches: (sel) => sel === "#" + id }),
    whenReady() { this.ready++; },
    on() {},
  };
}

// withScript runs the userscript in a fresh page holding L and the config,
// and returns the page's L and the console lines it wrote.
function withScript(config) {
  const ctx = page();
  const lines = [];
  const log = (kind) => (...a) => lines.push(kind + ": " + a.join(" "));
  ctx.console = { info: log("info"), warn: log("warn"), error: log("error"), log: log("log") };
  ctx.L = fullLeaflet();
  if (config) ctx.acAmbientConfig = config;
  vm.runInContext(userscript, ctx);
  return { L: ctx.L, lines };
}

test("userscript: binds a CRS that is Simple in behaviour within the map's bounds; one line for each map it skips", () => {
  const { L, lines } = withScript();
  const S = L.CRS.Simple;
  const skipped = [
    [L.CRS.EPSG3857, /wraps/],
    [L.extend({}, S, { projection: { project: (ll) => ({ x: ll.lng ** 1.5, y: ll.lat }) } }), /not linear/],
    [L.extend({}, S, { projection: { project: (ll) => ({ x: ll.lat, y: ll.lng }) } }), /not linear/], // lat as x
    [L.extend({}, S, { wrapLng: [0, 48960] }), /wraps/],
    [L.extend({}, S, { distance: (a, b) => Math.abs(b.lng - a.lng) + Math.abs(b.lat - a.lat) }), /distance is not Euclidean/],
  ];
  for (const [crs] of skipped) L.hooks[0].call(leafletMap(crs, "other"));
  assert.equal(lines.length, skipped.length, lines.join("\n"));
  skipped.forEach(([, why], i) => {
    assert.match(lines[i], /^info: ambient\.user\.js: not binding the map in div#other: /);
    assert.match(lines[i], why);
    assert.match(lines[i], /set acAmbientConfig\.map to bind it anyway/);
  });
  // Asheron's Atlas: a copy of Simple with a copy of LonLat bounded to the
  // world, its own pixel scale, infinite false, and maxBounds past the
  // world's edge: bound, with no setting.
  const atlas = L.extend({}, S, {
    projection: L.extend({}, LonLatOf(L), { bounds: L.bounds([0, 0], [48960, 48960]) }),
    transformation: [256 / 48960, 0, -256 / 48960, 0], infinite: false,
  });
  const m = leafletMap(atlas, "map", { maxBounds: [[-4000, -4000], [52960, 52960]], maxBoundsViscosity: 1 });
  L.hooks[0].call(m);
  assert.equal(m.ready, 1, "Atlas's map is bound");
  // A copy whose projection is linear but not LonLat itself, with its own
  // transformation and scale: bound too (a fresh script, one map each).
  const other = withScript();
  const copy = L.extend({}, S, { transformation: [1 / 16, 0, -1 / 16, 3060], scale: (z) => 3 * 2 ** z,
    projection: { project: (ll) => ({ x: 2 * ll.lng + 7, y: ll.lat / 3 }) } });
  const m2 = leafletMap(copy);
  other.L.hooks[0].call(m2);
  assert.equal(m2.ready, 1, "the linear copy's map is bound");
  // Only the first map of Dereth.
  L.hooks[0].call(leafletMap(S, "second"));
  assert.match(lines.at(-1), /div#second.* already bound another map/);
  assert.equal(lines.length, skipped.length + 1);
});

// LonLatOf is L's LonLat projection.
function LonLatOf(L) { return L.Projection.LonLat; }

test("userscript: acAmbientConfig.map forces a map (true, a selector, a predicate); a bad corner is warned about", () => {
  for (const [config, bindsId] of [
    [{ map: true }, "first"],
    [{ map: "#atlas" }, "atlas"],
    [{ map: (m) => m.getContainer().id === "atlas" }, "atlas"],
  ]) {
    const { L, lines } = withScript(config);
    const maps = ["first", "atlas"].map((id) => leafletMap(L.CRS.EPSG3857, id));
    for (const m of maps) L.hooks[0].call(m);
    assert.deepEqual(maps.map((m) => m.ready), maps.map((m) => (m.getContainer().id === bindsId ? 1 : 0)), String(config.map));
    assert.equal(lines.length, 1, lines.join("\n"));
  }
  {
    const { L, lines } = withScript({ corner: "middle" });
    L.hooks[0].call(leafletMap(L.CRS.Simple));
    assert.match(lines[0], /^warn: .*corner "middle" is not one of/);
  }
});

test("userscript: a config that throws does not break the page's map", () => {
  const { L, lines } = withScript({ map: () => { throw new Error("boom"); } });
  assert.doesNotThrow(() => L.hooks[0].call(leafletMap(L.CRS.Simple)));
  assert.match(lines[0], /^error: ambient\.user\.js: .*boom/);
});

test("off the data: a missing-landblock setPlayer goes to onNoData, never to onError", async () => {
  const map = fakeMap(), errors = [], nodata = [];
  const amb = { setPlayer(p) {
    if (p.ew < -80) return Promise.reject(Object.assign(new Error("landblock 0x1010FFFF is missing"), { code: "missing-landblock", landblock: "0x1010FFFF" }));
    if (p.ew < -50) return Promise.reject(Object.assign(new Error("offline"), { code: "network" }));
    return Promise.resolve({});
  } };
  bindLeaflet(map, amb, { throttleMs: 0, onError: (e) => errors.push(e.code), onNoData: (p, e) => nodata.push([hexId(p.objcellId), e.landblock]) });
  map.move(B(16, 16, 1, 1)); // ew ≈ −89: off the data
  map.move(B(16, 16, 30, 1));
  map.move(B(50, 50, 1, 1)); // ew ≈ −62: a network failure
  map.move(B(169, 180, 72, 144)); // on the data
  await settled();
  assert.deepEqual(nodata, [["0x10100001", "0x1010FFFF"], ["0x10100009", "0x1010FFFF"]]);
  assert.deepEqual(errors, ["network"]);
});
