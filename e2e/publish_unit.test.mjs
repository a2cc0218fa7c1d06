// Unit tests of what a published page reads and writes, under node (node
// --test): the default source that `export -source` writes into the page's
// <meta name="acambient-source"> (www/page/source.js pageDefault), how a
// world is named, and the links of www/page/share.js (the spot to the
// centimetre, the source unless it is the page's home). Run by
// TestPublishUnit in publish_test.go.
import test from "node:test";
import assert from "node:assert/strict";
import { pageDefault, sameSource, withSource, worldName } from "../www/page/source.js";
import { spotLink } from "../www/page/share.js";

// A document holding one meta with content, or none (content null).
const doc = (content) => ({
  querySelector: (sel) => (content !== null && sel === 'meta[name="acambient-source"]' ? { getAttribute: () => content } : null),
});

test("pageDefault: the meta export fills, as the page's URL query", () => {
  // server/exportpage.go writes url.Values.Encode(): escaped.
  assert.deepEqual(pageDefault(doc("api=acdatservice&server=https%3A%2F%2Fdats.treestats.net")),
    { server: "https://dats.treestats.net", api: "acdatservice" });
  assert.deepEqual(pageDefault(doc("server=https://example.org/acdats/")), { server: "https://example.org/acdats", api: "ours" });
  assert.equal(pageDefault(doc("")), null, "the meta as www/index.html holds it: this origin");
  assert.equal(pageDefault(doc(null)), null, "no meta: this origin");
  assert.equal(pageDefault(doc("api=acdatservice")), null, "no server: this origin");
});

test("sameSource: made whole before comparing", () => {
  assert.ok(sameSource({ server: "https://dats.treestats.net/", api: "acdatservice" }, { server: "dats.treestats.net", api: "acdatservice" }));
  assert.ok(sameSource({ server: "" }, { server: "", api: "ours" }));
  assert.ok(!sameSource({ server: "https://a.example", api: "acdatservice" }, { server: "https://a.example", api: "ours" }));
});

test("worldName: the demo world, real Dereth, another region", () => {
  assert.equal(worldName({ demo: true, region: "Dereth (demo)" }), "the demo world");
  assert.equal(worldName({ demo: false, region: "Dereth" }), "real Dereth");
  assert.equal(worldName({ demo: false, region: "Ispar" }), 'the region "Ispar"');
  assert.equal(worldName({ demo: false }), "the dats");
});

const home = { server: "https://dats.treestats.net", api: "acdatservice" };
const river = { objcellId: "0xA9B5002D", x: 120, y: 96, z: 22.85 };

test("withSource: the query names a source that is not home", () => {
  const page = "https://someone.github.io/acambient/?lang=en#0xA9B5002D/1.00,2.00,3.00";
  assert.equal(withSource(page, home, home), "https://someone.github.io/acambient/?lang=en#0xA9B5002D/1.00,2.00,3.00");
  assert.equal(withSource("https://someone.github.io/acambient/?server=x&api=ours", home, home), "https://someone.github.io/acambient/");
  assert.equal(withSource("https://h.example/?server=old&api=acdatservice", { server: "https://mine.example", api: "ours" }, home),
    "https://h.example/?server=https%3A%2F%2Fmine.example");
  assert.equal(withSource("https://h.example/", { server: "https://other.example", api: "acdatservice" }, home),
    "https://h.example/?server=https%3A%2F%2Fother.example&api=acdatservice");
  // On a page without a default, home is this origin.
  assert.equal(withSource("http://127.0.0.1:8080/?server=https%3A%2F%2Fx.example", { server: "", api: "ours" }, { server: "", api: "ours" }),
    "http://127.0.0.1:8080/");
});

test("spotLink: the spot to the centimetre, the source unless home", () => {
  assert.equal(spotLink("https://someone.github.io/acambient/#43.3N,33.8E", river, home, home),
    "https://someone.github.io/acambient/#0xA9B5002D/120.00,96.00,22.85");
  assert.equal(spotLink("https://someone.github.io/acambient/", { objcellId: 0xa9b40100, x: 96.004, y: 48, z: 22.216 }, home, home),
    "https://someone.github.io/acambient/#0xA9B40100/96.00,48.00,22.22");
  assert.equal(spotLink("https://someone.github.io/acambient/index.html?server=x", river, { server: "http://127.0.0.1:8080", api: "ours" }, home),
    "https://someone.github.io/acambient/index.html?server=http%3A%2F%2F127.0.0.1%3A8080#0xA9B5002D/120.00,96.00,22.85");
});
