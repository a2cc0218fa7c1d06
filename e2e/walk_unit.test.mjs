// Unit tests of www/walk.js and bindLeaflet's walk under node (node --test):
// route forms, the render path, and walks driven against a stand-in engine
// on the real clock (waits are on what the walk reports, with wide margins).
import test from "node:test";
import assert from "node:assert/strict";
import { pointAt, routeLength, routeXY, walkPath, walkRoute, walkPOS } from "../www/walk.js";
import { bindLeaflet } from "../www/leaflet-ambient.js";

// The river landmark (core/demo spots): 0xA9B5002D at (120, 96): bx 169, by 181.
const RIVER = { X: 169 * 192 + 120, Y: 181 * 192 + 96 };

test("routeXY reads every position form whose place is plain", () => {
  const got = routeXY([
    "0xA9B5002D/120,96,22.8522",
    "Your location is: 0xA9B5002D [120.0 96.0 22.8] 1 0 0 0",
    "@32568,34848,30",
    "43.25N, 33.75E",
    "1.5S,2W",
    { X: 32568, Y: 34848 },
    { ns: 43.25, ew: 33.75 },
    { objcellId: 0xA9B5002D, x: 120, y: 96, z: 1 },
    { objCellId: "0xA9B5002D", frame: { origin: { x: 120, y: 96, z: 1 } } },
  ]);
  for (const [i, p] of got.entries()) {
    if (i === 4) { assert.deepEqual(p, { X: (-20 + 1019.5) * 24, Y: (-15 + 1019.5) * 24 }); continue; }
    assert.ok(Math.abs(p.X - RIVER.X) < 1e-6 && Math.abs(p.Y - RIVER.Y) < 1e-6, `point ${i}: ${JSON.stringify(p)}`);
  }
  for (const bad of [[], ["nowhere"], [{ x: 1 }], [null], "0xA9B5002D/1,2,3"]) {
    assert.throws(() => routeXY(bad), (e) => e.code === "bad-position", JSON.stringify(bad));
  }
});

test("walkPath steps every 0.1 s along the route, then its end", () => {
  const a = { X: 1000, Y: 1000 }, b = { X: 1000, Y: 1030 }, c = { X: 1040, Y: 1030 };
  const path = walkPath([a, b, c], { speed: 10 }); // 70 m at 10 m/s: 7 s
  assert.equal(path.length, 71);
  assert.deepEqual(path[0], { t: 0, player: walkPOS(1000, 1000) });
  assert.deepEqual(path[30], { t: 3, player: walkPOS(1000, 1030) });
  assert.deepEqual(path[3], { t: 0.3, player: walkPOS(1000, 1003) }); // no float dust in t
  assert.deepEqual(path[70], { t: 7, player: walkPOS(1040, 1030) });
  assert.equal(routeLength(routeXY([a, b, c])), 70);
  assert.deepEqual(pointAt([a, b, c], 45), { X: 1015, Y: 1030 });
  assert.throws(() => walkPath([a, b], { speed: 0 }), (e) => e.code === "bad-position");
});

function fakeAmb() {
  return { calls: [], async setPlayer(p) { this.calls.push(p); await new Promise((r) => setTimeout(r, 5)); return p; } };
}

test("walkRoute walks to the end on the clock, in order, along the route", async () => {
  const amb = fakeAmb();
  const w = walkRoute(amb, [{ X: 1000, Y: 1000 }, { X: 1000, Y: 1012 }], { speed: 24 }); // 0.5 s
  assert.equal(w.seconds, 0.5);
  await w.done;
  const ys = amb.calls.map((p) => p.Y);
  assert.deepEqual(amb.calls[0], { X: 1000, Y: 1000 });
  assert.deepEqual(amb.calls.at(-1), { X: 1000, Y: 1012 });
  assert.ok(ys.length >= 3, `moves ${ys}`);
  for (let i = 1; i < ys.length; i++) assert.ok(ys[i] >= ys[i - 1], `went back: ${ys}`);
  assert.ok(amb.calls.every((p) => p.X === 1000));
});

test("walkRoute: stop() ends it where it is; a failed move rejects done", async () => {
  const amb = fakeAmb();
  const w = walkRoute(amb, [{ X: 0, Y: 0 }, { X: 0, Y: 1000 }], { speed: 10 });
  await new Promise((r) => setTimeout(r, 250));
  w.stop();
  await w.done;
  const n = amb.calls.length;
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(amb.calls.length, n, "moves after stop()");
  assert.ok(amb.calls.at(-1).Y < 100);

  const failing = { setPlayer: async () => { const e = new Error("off"); e.code = "missing-landblock"; throw e; } };
  await assert.rejects(walkRoute(failing, [{ X: 0, Y: 0 }, { X: 0, Y: 10 }]).done, (e) => e.code === "missing-landblock");
});

test("bindLeaflet's walk pans the map, moves by map coordinates, and holds the pointer off meanwhile", async () => {
  const handlers = new Map(), pans = [];
  // The binding follows the DOM's pointermove on the map's container.
  const container = new EventTarget();
  const map = {
    on(o) { for (const [k, f] of Object.entries(o)) handlers.set(k, f); },
    off(o) { for (const k of Object.keys(o)) handlers.delete(k); },
    getCenter: () => ({ lat: 0, lng: 0 }),
    getContainer: () => container,
    mouseEventToLatLng: (e) => e.latlng,
    panTo: (ll) => pans.push(ll),
  };
  const point = (latlng) => {
    const ev = new Event("pointermove");
    Object.assign(ev, { latlng, pointerType: "mouse" });
    container.dispatchEvent(ev);
  };
  const amb = fakeAmb();
  const unbind = bindLeaflet(map, amb, { follow: "cursor", throttleMs: 0 });
  const w = unbind.walk([RIVER, { X: RIVER.X + 12, Y: RIVER.Y }], { speed: 24 });
  point({ lat: 100, lng: 100 }); // ignored while walking
  await w.done;
  assert.ok(amb.calls.every((p) => p.ns !== undefined && Math.abs(p.ns - (RIVER.Y / 24 - 1019.5) / 10) < 1e-9), JSON.stringify(amb.calls));
  assert.deepEqual(pans.at(-1), [RIVER.Y, RIVER.X + 12]);
  point({ lat: 100, lng: 100 }); // the pointer moves it again
  assert.ok(Math.abs(amb.calls.at(-1).ns - (100 / 24 - 1019.5) / 10) < 1e-9);
  unbind();
});
