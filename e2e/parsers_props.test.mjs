// Property tests of the page's parsers of outside input, under node --test
// with generated inputs (a seeded generator: a failure names its seed and
// case, and reruns the same): ambient.js's toPOS (the positions a host page
// passes), the URL hash the page reads a position from (movement.js), the
// ?server=…&api=… query and <meta> default (source.js), and the zones.json
// loader (leaflet-ambient.js). Run by TestParserProperties (parsers_test.go).
import test from "node:test";
import assert from "node:assert/strict";
import { toPOS } from "../www/ambient.js";
import { mapCoord } from "../www/geo.js";
import { loadZones } from "../www/leaflet-ambient.js";
import { Movement } from "../www/page/movement.js";
import { normSource, pageDefault, sameSource, withSource } from "../www/page/source.js";

const SEED = 0x5eed30;
const CASES = 2000;

// rng is mulberry32: a small seeded generator, the same cases every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// gen is the generators over one rng.
function gen(seed) {
  const r = rng(seed);
  const g = {
    int: (n) => Math.floor(r() * n),
    pick: (xs) => xs[g.int(xs.length)],
    // A number as positions carry them: in the world, far off it, tiny,
    // negative zero, integral, or with many digits.
    num: () => g.pick([() => r() * 48960, () => (r() - 0.5) * 1e7, () => r() * 1e-6, () => -0, () => g.int(200), () => Number((r() * 192).toFixed(g.int(9)))])(),
    bad: () => g.pick([NaN, Infinity, -Infinity, "x", "1e999", {}, "--1"]),
    // A string of printable ASCII, blanks, "%", "#", "/" and some non-ASCII.
    str: (max = 24) => {
      const alphabet = "abcXYZ019 ./:%#?&=+-_[],\t@é→😀";
      let s = "";
      for (let n = g.int(max); n > 0; n--) s += [...alphabet][g.int([...alphabet].length)];
      return s;
    },
  };
  return g;
}

test("toPOS: an objcell position is its id and numbers, read back the same", () => {
  const g = gen(SEED);
  for (let i = 0; i < CASES; i++) {
    const id = g.int(2 ** 32), x = g.num(), y = g.num(), z = g.num();
    const form = g.pick([{ objcellId: id, x, y, z }, { objCellId: id, x, y, z }, { objcell_id: id, frame: { origin: { x, y, z } } },
      { cellId: id, origin: { x, y, z } }, { landcell: id, x, y, z }]);
    const pos = toPOS(form);
    const m = /^0x([0-9A-F]{8})\/([^,]+),([^,]+),([^,]+)$/.exec(pos);
    assert.ok(m, `case ${i}: ${JSON.stringify(form)} → ${pos}`);
    assert.equal(parseInt(m[1], 16), id, `case ${i}: id`);
    assert.deepEqual([Number(m[2]), Number(m[3]), Number(m[4])], [x, y, z].map((v) => v + 0), `case ${i}: ${pos}`);
  }
});

test("toPOS: {X,Y,Z} is global metres, {X,Y} and {ns,ew} map coordinates to 6 places", () => {
  const g = gen(SEED + 1);
  for (let i = 0; i < CASES; i++) {
    const X = g.num(), Y = g.num(), Z = g.num();
    const global = toPOS({ X, Y, Z });
    assert.equal(global, `@${X + 0},${Y + 0},${Z + 0}`, `case ${i}`);
    const map = toPOS({ X, Y });
    const m = /^(\d+\.\d{6})([NS]),(\d+\.\d{6})([EW])$/.exec(map);
    assert.ok(m, `case ${i}: {X: ${X}, Y: ${Y}} → ${map}`);
    const ns = (m[2] === "S" ? -1 : 1) * Number(m[1]), ew = (m[4] === "W" ? -1 : 1) * Number(m[3]);
    assert.ok(Math.abs(ns - mapCoord(Y)) <= 5e-7 * (1 + Math.abs(ns)) && Math.abs(ew - mapCoord(X)) <= 5e-7 * (1 + Math.abs(ew)), `case ${i}: ${map}`);
    assert.equal(toPOS({ ns: mapCoord(Y), ew: mapCoord(X) }), map, `case ${i}: {ns, ew}`);
  }
});

test("toPOS: a string passes as given; anything else that is no position is a clear error", () => {
  const g = gen(SEED + 2);
  for (let i = 0; i < CASES; i++) {
    const s = g.str();
    assert.equal(toPOS(s), s);
    const bad = g.pick([
      { objcellId: 1, x: g.bad(), y: 1, z: 1 }, { X: g.bad(), Y: 1, Z: 1 }, { X: 1, Y: g.bad() }, { ns: g.bad(), ew: 1 },
      { [g.str(6) + "q"]: 1 }, null, undefined, g.int(100), true,
    ]);
    assert.throws(() => toPOS(bad), /^Error: ambient: (position|map coordinates)/, `case ${i}: ${String(bad && JSON.stringify(bad))}`);
  }
});

test("hash: a position %-encoded into the hash reads back as written; a bad %-encoding as it stands; none is null", () => {
  const g = gen(SEED + 3);
  const hashPos = (hash) => {
    globalThis.location = { hash };
    try { return Movement.prototype.hashPos.call({}); } finally { delete globalThis.location; }
  };
  assert.equal(hashPos(""), null);
  assert.equal(hashPos("#"), null);
  for (let i = 0; i < CASES; i++) {
    const s = g.str() || "x";
    assert.equal(hashPos("#" + encodeURIComponent(s)), s, `case ${i}: ${JSON.stringify(s)}`);
    let raw = "#" + s.replace(/[\t\n\r ]/g, "%20"), want;
    try { want = decodeURIComponent(raw.slice(1)); } catch { want = raw.slice(1); }
    assert.equal(hashPos(raw), want, `case ${i}: ${JSON.stringify(raw)}`);
  }
});

test("?server: a source is made whole once; written into a URL and read back, it is the same source", () => {
  const g = gen(SEED + 4);
  const home = normSource({ server: "" });
  for (let i = 0; i < CASES; i++) {
    const server = g.pick(["", "dats.example", "https://dats.treestats.net/", "http://127.0.0.1:8080//", " x.example/a/ ", g.str(), "ftp://" + g.str(8)]);
    const api = g.pick(["ours", "acdatservice", "", undefined, g.str(6)]);
    const src = normSource({ server, api });
    assert.ok(["ours", "acdatservice"].includes(src.api) && !src.server.endsWith("/"), `case ${i}: ${JSON.stringify(src)}`);
    assert.ok(src.server === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(src.server), `case ${i}: ${src.server} has a scheme`);
    const href = withSource("https://page.example/acambient/?zoom=3#0xA9B4001F/1,2,3", src, home);
    const u = new URL(href);
    assert.equal(u.hash, "#0xA9B4001F/1,2,3");
    assert.equal(u.searchParams.get("zoom"), "3");
    if (sameSource(src, home)) {
      assert.ok(!u.searchParams.has("server") && !u.searchParams.has("api"), `case ${i}: home is named by no query`);
      continue;
    }
    const back = normSource({ server: u.searchParams.get("server"), api: u.searchParams.get("api") });
    assert.deepEqual(back, src, `case ${i}: ${href}`);
    // The same query in <meta name="acambient-source">: export -source's default.
    const doc = { querySelector: (sel) => (sel === 'meta[name="acambient-source"]' ? { getAttribute: () => u.search.slice(1) } : null) };
    assert.deepEqual(pageDefault(doc), back.server ? back : null, `case ${i}: meta ${u.search}`);
  }
  assert.equal(pageDefault({ querySelector: () => null }), null);
});

// Slashes and blanks end a typed source in any order: a trim before the
// slashes went left " x.example \t/" as "https://x.example \t", which a
// second pass trimmed (issue 30).
test("?server: normSource makes a source whole in one pass", () => {
  assert.deepEqual(normSource({ server: " x.example \t/" }), { server: "https://x.example", api: "ours" });
  assert.deepEqual(normSource({ server: "/ \t//\n" }), { server: "", api: "ours" });
  const g = gen(SEED + 6);
  for (let i = 0; i < CASES; i++) {
    const tail = () => g.pick(["", "/", " ", "\t", "//", "\u00a0", "\n"]);
    const src = normSource({ server: tail() + g.str() + tail() + tail() + tail(), api: g.pick(["ours", "acdatservice", g.str(4)]) });
    assert.ok(!/[\s/]$/.test(src.server) && !/^\s/.test(src.server), `case ${i}: ${JSON.stringify(src.server)}`);
    assert.deepEqual(normSource(src), src, `case ${i}: ${JSON.stringify(src.server)}`);
  }
});

test("zones loader: an index is taken with its image made absolute; anything else is refused, naming the URL", async (t) => {
  const g = gen(SEED + 5);
  let answer;
  t.mock.method(globalThis, "fetch", async (u) => {
    assert.ok(u instanceof URL);
    return answer;
  });
  const json = () => g.pick([null, 1, "s", [], {}, { bounds: [[0, 0], [1, 1]] }, { sets: [] }, { bounds: [[0, 0]], sets: [] },
    { bounds: "x", sets: [] }, { bounds: [[0, 0], [48960, 48960]], sets: [], image: g.pick([undefined, "", "z.png", "../up/z.png", "https://cdn.example/z.png", g.str(8)]) },
    { bounds: [1, 2], sets: [{ color: "#fff" }], cells: 5 }]);
  for (let i = 0; i < CASES / 4; i++) {
    const url = g.pick(["https://dats.example/zones.json", "http://127.0.0.1:8080/sub/zones.json", "https://x.example/a/b/zones.json?v=1"]);
    const status = g.pick([200, 200, 200, 404, 500]);
    const idx = json();
    answer = { ok: status === 200, status, json: async () => idx };
    const valid = idx && Array.isArray(idx.bounds) && idx.bounds.length === 2 && Array.isArray(idx.sets);
    if (status !== 200) {
      await assert.rejects(loadZones(url), { message: `zones: ${url}: HTTP ${status}` }, `case ${i}`);
    } else if (!valid) {
      await assert.rejects(loadZones(url), { message: `zones: ${url}: not a sound-zone index` }, `case ${i}: ${JSON.stringify(idx)}`);
    } else {
      const got = await loadZones(url);
      assert.equal(got.image, new URL(idx.image || "zones.png", url).href, `case ${i}`);
      assert.deepEqual({ ...got, image: undefined }, { ...idx, image: undefined }, `case ${i}: the index as it came`);
    }
  }
});
