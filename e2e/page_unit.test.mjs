// Unit tests of the page's pure modules under node (node --test): the world
// geometry of www/geo.js against hand-computed vectors (docs/dat-format.md §8,
// docs/interfaces.md §1.1), the walking and throttle logic of www/page/movement.js,
// and the plain words of www/page/source.js for each error code. Run by
// TestPageUnit in page_test.go.
import test from "node:test";
import assert from "node:assert/strict";
import * as geo from "../www/geo.js";
import * as leaflet from "../www/leaflet-ambient.js";
import { Movement, latestWins, walkStep } from "../www/page/movement.js";
import { loadFailure, missingLandblock, moveFailure, networkWords, normSource, sourceName, troubleWords } from "../www/page/source.js";

const { BLOCK, BLOCKS, CELL, CELLS, WORLD, blockOf, cellAt, cellOf, hexId, landblockId, mapCoord, mapText, objcellId, parseId, posText, ring } = geo;
const near = (got, want, what) => assert.ok(Math.abs(got - want) < 1e-9, `${what}: ${got}, want ${want}`);

test("geo: the constants of docs/dat-format.md §8", () => {
  assert.deepEqual([CELL, CELLS, BLOCK, BLOCKS, WORLD], [24, 8, 192, 255, 48960]);
});

test("geo: leaflet-ambient.js re-exports the same geometry", () => {
  assert.equal(leaflet.CELL, 24);
  assert.equal(leaflet.BLOCK, 192);
  assert.equal(leaflet.WORLD, 48960);
  assert.equal(leaflet.cellAt, cellAt);
  assert.equal(leaflet.hexId, hexId);
});

test("geo: hexId and parseId", () => {
  for (const [id, want] of [[0xA9B4001F, "0xA9B4001F"], [1, "0x00000001"], [0, "0x00000000"], [-1, "0xFFFFFFFF"],
    [2 ** 32 + 5, "0x00000005"], ["0xa9b4001f", "0xA9B4001F"]]) {
    assert.equal(hexId(id), want, `hexId(${id})`);
  }
  assert.equal(parseId("0xA9B4001F"), 0xA9B4001F);
  assert.equal(parseId("A9B4001F"), 0xA9B4001F);
  assert.equal(parseId(0xA9B4001F), 0xA9B4001F);
  assert.equal(parseId(-1), 0xFFFFFFFF);
});

test("geo: Holtburg's landblock 0xA9B4 (bx 169, by 180)", () => {
  // Cells are x-major: 1 + 8·cx + cy. 0x1F = 31 = 1 + 8·3 + 6.
  assert.equal(objcellId(169, 180, 3, 6), 0xA9B4001F);
  assert.equal(objcellId(169, 180, 0, 0), 0xA9B40001); // the south-west cell
  assert.equal(objcellId(169, 180, 0, 7), 0xA9B40008); // the westernmost column's north end
  assert.equal(objcellId(169, 180, 7, 0), 0xA9B40039); // the south-east cell, 57
  assert.equal(objcellId(169, 180, 7, 7), 0xA9B40040); // the north-east cell, 64
  assert.equal(landblockId(169, 180), 0xA9B4FFFF);
  // 0xA9B4001F's south-west corner: 192·169 + 24·3 = 32520, 192·180 + 24·6 = 34704.
  assert.deepEqual(cellOf("0xA9B4001F"), { bx: 169, by: 180, cx: 3, cy: 6, index: 30, X: 32520, Y: 34704 });
  assert.deepEqual(cellOf(0xA9B40040), { bx: 169, by: 180, cx: 7, cy: 7, index: 63, X: 32616, Y: 34728 });
  for (const id of [0xA9B4FFFF, 0xA9B40100, 0xA9B40041, 0xA9B40000, 0]) assert.equal(cellOf(id), null, hexId(id));
  // A point 1 m inside the corner lies in the cell; one short of it, in the cell to the south-west (cx 2, cy 5).
  assert.equal(hexId(cellAt(32521, 34705).objcellId), "0xA9B4001F");
  assert.equal(hexId(cellAt(32519.999, 34703.999).objcellId), "0xA9B40016");
  const c = cellAt(32520, 34704);
  assert.deepEqual([c.bx, c.by, c.cx, c.cy], [169, 180, 3, 6]);
});

test("geo: map coordinates, EW = (X/24 − 1019.5)/10", () => {
  // The corner of 0xA9B4001F: X/24 = 1355, Y/24 = 1446.
  near(mapCoord(32520), 33.55, "EW at X 32520");
  near(mapCoord(34704), 42.65, "NS at Y 34704");
  // The centre of land cell column 1019 is the meridian: (1019.5 − 1019.5)/10.
  near(mapCoord(24 * 1019 + 12), 0, "the centre of column 1019");
  // The world's edges.
  near(mapCoord(0), -101.95, "west edge");
  near(mapCoord(WORLD), 102.05, "east edge");
  const p = cellAt(32520, 34704);
  near(p.ew, 33.55, "cellAt ew");
  near(p.ns, 42.65, "cellAt ns");
  assert.equal(mapText(43.25, 33.75, 1, ", "), "43.3N, 33.8E"); // the river landmark, as the panel shows it
  assert.equal(mapText(-1.5, -2, 6, ","), "1.500000S,2.000000W"); // as a POS
  assert.equal(mapText(-0.04, 0, 1, ", "), "0.0S, 0.0E");
});

test("geo: the world's edges", () => {
  assert.equal(hexId(cellAt(0, 0).objcellId), "0x00000001");
  assert.equal(hexId(cellAt(WORLD - 0.001, WORLD - 0.001).objcellId), "0xFEFE0040");
  assert.equal(hexId(cellAt(7 * 24 + 1, 1).objcellId), "0x00000039");
  for (const [X, Y] of [[-0.001, 5], [5, -0.001], [WORLD, 5], [5, WORLD], [NaN, 5], [5, undefined]]) {
    assert.equal(cellAt(X, Y), null, `(${X}, ${Y})`);
  }
  assert.deepEqual([blockOf(0), blockOf(191.99), blockOf(192), blockOf(WORLD - 0.01), blockOf(-0.01)], [0, 0, 1, 254, -1]);
  assert.deepEqual(ring(0, 0), [[0, 0], [0, 1], [1, 0], [1, 1]]);
  assert.deepEqual(ring(254, 254), [[253, 253], [253, 254], [254, 253], [254, 254]]);
  assert.deepEqual(ring(169, 180), [[168, 179], [168, 180], [168, 181], [169, 179], [169, 180], [169, 181], [170, 179], [170, 180], [170, 181]]);
});

test("geo: posText, the page's links", () => {
  assert.equal(posText({ objcellId: "0xA9B5002D", x: 120, y: 96, z: 22.85 }), "0xA9B5002D/120.00,96.00,22.85");
  assert.equal(posText({ objcellId: 0xA9B4001F, x: 72.004, y: 143.996, z: -1 }), "0xA9B4001F/72.00,144.00,-1.00");
});

test("walkStep: the keys, the heading, 12 m/s and 90°/s", () => {
  const step = (keys, heading, dt = 1) => walkStep(new Set(keys), heading, dt);
  const move = (s, dx, dy, what) => { near(s.dx, dx, what + " dx"); near(s.dy, dy, what + " dy"); assert.ok(s.moving, what); };
  move(step(["ArrowRight"], 0), 12, 0, "right, facing north: east");
  move(step(["KeyW"], 90), 12, 0, "forward, facing east");
  move(step(["KeyD"], 90), 0, -12, "right, facing east: south");
  move(step(["KeyS"], 0, 0.5), 0, -6, "back for half a second");
  move(step(["KeyW", "KeyD"], 0), 12 / Math.SQRT2, 12 / Math.SQRT2, "diagonal: as fast as straight");
  move(step(["ArrowUp", "KeyW"], 0), 0, 12, "two keys for one direction: once");
  // Turning first, then moving along the new heading.
  const t = step(["KeyE", "KeyW"], 0);
  assert.equal(t.heading, 90);
  move(t, 12, 0, "E and W");
  const q = step(["KeyQ"], 10, 0.1);
  assert.deepEqual(q, { heading: 1, dx: 0, dy: 0, moving: false });
  assert.equal(step(["KeyW", "KeyS"], 0).moving, false);
  assert.equal(step([], 0).moving, false);
});

test("latestWins: one run in flight, the latest waiting value next", async () => {
  const ran = [], pending = [], errors = [];
  const push = latestWins((v) => {
    ran.push(v);
    if (v === "throws") throw new Error("sync");
    return new Promise((resolve, reject) => pending.push({ resolve, reject }));
  }, (e) => errors.push(e.message));
  const settle = async (how = "resolve") => { pending.shift()[how](new Error("async")); await new Promise((r) => setTimeout(r)); };
  push(1);
  assert.deepEqual(ran, [1], "the first runs at once");
  push(2); push(3);
  assert.deepEqual(ran, [1], "the rest wait");
  await settle();
  assert.deepEqual(ran, [1, 3], "the latest runs next; 2 never");
  await settle("reject");
  assert.deepEqual(errors, ["async"]);
  push(4);
  assert.deepEqual(ran, [1, 3, 4], "idle again: at once");
  push("throws");
  await settle();
  assert.deepEqual(ran, [1, 3, 4, "throws"]);
  assert.deepEqual(errors, ["async", "sync"]);
  push(5);
  assert.deepEqual(ran, [1, 3, 4, "throws", 5], "a run that threw does not stop the next");
});

// withPage runs f with the page's elements and globals, as much as Movement
// touches, and an engine whose setPlayer settles when the test says, with
// the position it was given (a superseded call answers its own position).
async function withPage(f) {
  const el = () => ({ addEventListener() {}, value: "", textContent: "" });
  const els = {};
  const saved = ["document", "window", "history", "location"].map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]);
  const hashes = [];
  Object.assign(globalThis, {
    document: { getElementById: (id) => (els[id] ??= el()) },
    window: { addEventListener() {} },
    history: { replaceState: (_s, _t, h) => hashes.push(h) },
  });
  Object.defineProperty(globalThis, "location", { value: { hash: "" }, configurable: true, writable: true });
  try {
    const cameras = [], answers = new Map(), asked = [];
    const amb = {
      setPlayer: (pos) => { asked.push(pos); return new Promise((resolve) => answers.set(pos.name ?? `${pos.X},${pos.Y}`, () => resolve(pos.where ?? { objcellId: "0xA9B40001", x: 1, y: 2, z: 3, X: pos.X, Y: pos.Y }))); },
      setCamera: async (p) => { cameras.push(p.objcellId); },
    };
    await f({ amb, answers, asked, cameras, hashes });
  } finally {
    for (const [k, d] of saved) {
      if (d) Object.defineProperty(globalThis, k, d);
      else delete globalThis[k];
    }
  }
}

test("Movement: a go that settles after a later one began moves nothing", () => withPage(async ({ amb, answers, cameras, hashes }) => {
  const moved = [];
  const m = new Movement({ onMoved: (w) => moved.push(w.objcellId), onTurn() {} });
  m.attach(amb);
  const at = (name, objcellId) => ({ name, where: { objcellId, x: 1, y: 2, z: 3, X: 0, Y: 0 } });
  const step = m.go(at("step", "0xA9B40001")); // a walk's step, waiting on its landblock
  const jump = m.go(at("jump", "0xADB00011")); // then a landmark's jump, answered at once
  answers.get("jump")();
  await jump;
  assert.equal(m.player.objcellId, "0xADB00011");
  answers.get("step")(); // the network is back: the step settles last
  assert.equal((await step).objcellId, "0xA9B40001", "a superseded go still answers its own position");
  assert.equal(m.player.objcellId, "0xADB00011", "the player stays where the jump put it");
  assert.deepEqual(cameras, ["0xADB00011"], "the camera only went where the jump put it");
  assert.deepEqual(moved, ["0xADB00011"]);
  assert.equal(hashes.length, 1);
}));

test("Movement: a walk's answer that comes frames late does not pull the player back", () => withPage(async ({ amb, answers, asked }) => {
  const moved = [];
  const m = new Movement({ onMoved: (w, { settled }) => settled && moved.push(w.X), onTurn() {} });
  m.attach(amb);
  const start = m.go({ X: 1000, Y: 2000 });
  answers.get("1000,2000")();
  await start;
  // Three frames of walking north while the first step's answer is on its way.
  m.moveTo(1000, 2001);
  m.moveTo(1000, 2002);
  m.moveTo(1000, 2003);
  assert.deepEqual(asked.map((p) => p.Y), [2000, 2001], "one step in flight, the latest waiting");
  answers.get("1000,2001")();
  await new Promise((r) => setImmediate(r));
  assert.equal(m.player.Y, 2003, "the player stays ahead of the late answer");
  m.moveTo(m.player.X, m.player.Y + 1); // the next frame walks on from there
  assert.equal(m.player.Y, 2004);
  answers.get("1000,2003")();
  await new Promise((r) => setImmediate(r));
  answers.get("1000,2004")();
  await new Promise((r) => setImmediate(r));
  assert.equal(m.player.Y, 2004, "the last answer, with nothing walked since, is the player");
  assert.equal(moved.length, 4, "the panel followed every answer");
}));

test("Movement: a jump while walking walks on from where it lands", () => withPage(async ({ amb, answers, asked }) => {
  const m = new Movement({ onMoved() {}, onTurn() {} });
  m.attach(amb);
  const start = m.go({ X: 1000, Y: 2000 });
  answers.get("1000,2000")();
  await start;
  // A landmark 5 km away whose records take a while; the walking key is held.
  const jump = m.go({ X: 6000, Y: 2000 });
  assert.equal(m.player.X, 6000, "the player is at the landmark at once");
  m.moveTo(m.player.X + 1, m.player.Y); // the next frame of walking
  assert.deepEqual(asked.map((p) => p.X), [1000, 6000, 6001], "the walk goes on from the landmark");
  answers.get("6000,2000")();
  await jump;
  answers.get("6001,2000")();
  await new Promise((r) => setImmediate(r));
  assert.equal(m.player.X, 6001);
  // A jump the engine refuses leaves the player where it was.
  amb.setPlayer = () => Promise.reject(new Error("no such place"));
  await assert.rejects(m.go({ X: 9000, Y: 2000 }));
  assert.equal(m.player.X, 6001);
}));

test("Movement: a walk's move still waiting when a jump is made is dropped", () => withPage(async ({ amb, answers, asked }) => {
  const m = new Movement({ onMoved() {}, onTurn() {} });
  m.attach(amb);
  const start = m.go({ X: 1000, Y: 2000 });
  answers.get("1000,2000")();
  await start;
  m.moveTo(1001, 2000); // in flight
  m.moveTo(1002, 2000); // waiting; then the key is let go
  const jump = m.go({ X: 6000, Y: 2000 }); // a landmark's button
  answers.get("1001,2000")();
  await new Promise((r) => setImmediate(r));
  answers.get("6000,2000")();
  await jump;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(asked.map((p) => p.X), [1000, 1001, 6000], "the waiting move from the old place never went");
  assert.equal(m.player.X, 6000);
}));

test("source: normSource and sourceName", () => {
  assert.deepEqual(normSource(null), { server: "", api: "ours" });
  assert.deepEqual(normSource({ server: " dats.treestats.net/ ", api: "acdatservice" }), { server: "https://dats.treestats.net", api: "acdatservice" });
  assert.deepEqual(normSource({ server: "http://127.0.0.1:8080//", api: "other" }), { server: "http://127.0.0.1:8080", api: "ours" });
  assert.equal(sourceName({ server: "", api: "ours" }), "this server");
  assert.equal(sourceName({ server: "https://dats.treestats.net", api: "acdatservice" }), "dats.treestats.net");
});

const coded = (code, more = {}) => Object.assign(new Error(`some ${code} text`), { code }, more);
const acdat = { server: "https://dats.example", api: "acdatservice" };
const ours = { server: "http://127.0.0.1:9999", api: "ours" };
const page = (protocol = "http:") => ({ origin: protocol + "//page.example", protocol });

test("source: load failures by code", () => {
  const cases = [
    [coded("network"), ours, page(), "127.0.0.1:9999 is unreachable: no answer from http://127.0.0.1:9999. Check the address, and that the server is up."],
    [coded("network"), ours, page("https:"), "127.0.0.1:9999 is unreachable from here: an https page may not read an http source (mixed content). Use its https address."],
    [coded("cors"), acdat, page(), "dats.example answers, but without CORS headers (Access-Control-Allow-Origin), so the browser blocks this page from reading its records. The server must allow this page's origin."],
    [coded("wrong-api"), ours, page(), `127.0.0.1:9999 answered, but has no region record 0x13000000 (404). Is it a dat server? If it is an acdatservice, choose "acdatservice".`],
    [coded("wrong-api"), acdat, page(), `dats.example answered, but has no region record 0x13000000 (404). Is it a dat server? If it is ours or an export, choose "Dat server or export".`],
    [coded("not-found", { id: "0x13000000" }), acdat, page(), `dats.example answered, but has no region record 0x13000000 (404). Is it a dat server? If it is ours or an export, choose "Dat server or export".`],
    [coded("not-found", { id: 0x0A000121 }), acdat, page(), "Could not load from dats.example: some not-found text"],
    [coded("wasm"), { server: "", api: "ours" }, page(), "Could not load from this server: some wasm text"],
  ];
  for (const [err, src, where, want] of cases) assert.equal(loadFailure(err, src, where), want, err.code);
});

test("source: a move without its landblock is a source without cell records", () => {
  for (const [err, want] of [
    [coded("missing-landblock", { landblock: 0xA9B5FFFF }), "0xA9B5FFFF"],
    [coded("missing-landblock", { landblock: "0xA9B50000" }), "0xA9B5FFFF"],
    [coded("not-found", { id: "0xA9B4FFFF" }), "0xA9B4FFFF"],
    [coded("not-found", { id: 0x0A000121 }), null],
    [coded("bad-position"), null],
    [coded("network", { message: "landblock 0xA9B5FFFF is missing" }), null], // a code is never second-guessed from the text
    [new Error("session: landblock 0xA9B5FFFF is missing"), null], // no code: not read from the text
  ]) assert.equal(missingLandblock(err), want, err.code + " " + err.message);
  assert.equal(moveFailure(coded("missing-landblock", { landblock: 0xA9B4FFFF }), acdat),
    "dats.example has the region but no cell records: landblock 0xA9B4FFFF is not there (404), so there is no land to hear. " +
    "It serves a portal dat without a cell dat (client_cell_1.dat).");
  assert.equal(moveFailure(coded("bad-position", { message: "off the map" }), acdat), "off the map");
});

test("source: a bad network in plain words (state().loading.trouble)", () => {
  const here = { server: "", api: "ours" };
  for (const [t, src, want] of [
    [{ reason: "no-answer", retryIn: 3.2, for: 4 }, here, "No answer from this server: the network is down or the server is off. What plays goes on; asking again in 4 s."],
    [{ reason: "status", status: 503, retryAfter: 17.5, retryIn: 17, for: 2 }, here, "This server is unavailable for now (503) and asks to wait 18 s. What plays goes on; asking again in 17 s."],
    [{ reason: "status", status: 429, retryIn: 0.2, for: 1 }, ours, "127.0.0.1:9999 asks to slow down (429). What plays goes on; asking again now."],
    [{ reason: "status", status: 502, retryIn: 2, for: 1 }, acdat, "dats.example fails (status 502). What plays goes on; asking again in 2 s."],
    [{ reason: "stalled", retryIn: 0, for: 6 }, here, "This server stopped sending in the middle of a record. What plays goes on; asking again now."],
    [{ reason: "damaged", retryIn: 1, for: 1 }, acdat, "Records from dats.example arrive damaged. What plays goes on; asking again in 1 s."],
    [{ reason: "slow", rate: 2500, retryIn: 0, for: 6 }, here, "The network is slow: records arrive at 2.4 KB/s; what plays goes on."],
    [{ reason: "slow", rate: 700, retryIn: 0, for: 6 }, here, "The network is slow: records arrive at 700 B/s; what plays goes on."],
  ]) assert.equal(troubleWords(t, src), want, t.reason);
  assert.equal(networkWords(coded("network", { reason: "no-answer", message: "http://x: TypeError: Failed to fetch" }), here),
    "No answer from this server: the network is down or the server is off (a record did not arrive; the page asks again).");
  assert.equal(networkWords(coded("network", { message: "http://x: giving up" }), here), "http://x: giving up", "no reason: the message");
  assert.equal(networkWords(coded("bad-record", { message: "wave 0x0A000001: bad" }), here), "wave 0x0A000001: bad");
});
