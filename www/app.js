// The demo page: a map of the land around the player, the ambient engine's
// instances and voices, and the controls. Everything it shows comes from
// the AmbientAudio instance (window.ambient); the computing is in Go. This
// file wires the page's parts (page/*.js) around that instance: it makes a
// new one when the data source changes, and starts the audio on a click.
import { AmbientAudio } from "./ambient.js";
import { blockOf, hexId, landblockId, posText } from "./geo.js";
import { CaptionStrip } from "./page/captions.js";
import { MapCanvas } from "./page/mapcanvas.js";
import { Movement } from "./page/movement.js";
import { Panel } from "./page/panel.js";
import { LinkButton, spotLink } from "./page/share.js";
import { SourcePicker, missingLandblock, moveFailure, networkWords, noCells, sourceName, troubleWords } from "./page/source.js";
import { TileStore } from "./page/tiles.js";
import { Walks } from "./page/walks.js";
import { ZoneLayer } from "./page/zones.js";

const NO_INFO = Object.freeze({ terrains: [], landmarks: [] });
const HOLTBURG = "42.1N,33.6E"; // where to start on data without landmarks: Holtburg, in retail's Dereth
// The demo world's region name and its river landmark (core/demo/spots):
// where defaultSpot opens on the demo world, known here before the wasm
// runs, so that load asks for that spot's records while the wasm loads.
const DEMO_REGION = "Dereth (demo)";
const DEMO_RIVER = "0xA9B5002D/120,96,22.8522";

const $ = (/** @type {string} */ id) => document.getElementById(id);
const input = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ ($(id));

startPage().catch((e) => {
  console.warn(e);
  $("overlayMsg").textContent = "Could not load: " + e.message;
});

async function startPage() {
  let amb = null; // the instance playing, once loaded
  let current = null; // the source of the latest connect()
  let st = null; // its latest state()
  let generation = 0; // which connect() is current
  let audioWanted = false; // the user started the audio once
  let block; // the landblock the legend was drawn for
  let playing = null; // the source amb reads

  const audioState = () => (amb && amb.audioContext ? amb.audioContext.state : "none");
  const info = () => (amb ? amb.info : NO_INFO);

  const tiles = new TileStore({
    onLoad: () => canvas.invalidate(),
    onSettled: () => { legend(); panel.where(movement.player); if (st) panel.render(st, movement.player, audioState()); },
  });
  const panel = new Panel({
    terrainAt: (id) => tiles.terrainAt(id),
    onLandmark: (l) => (walks.planning ? walks.add(posText(l.where)) : movement.jump(posText(l.where))),
    onStart: () => startAudio(),
    troubleWords: (t) => troubleWords(t, playing),
  });
  const movement = new Movement({
    onMoved: (w, { recentre, settled }) => {
      if (recentre || canvas.offView(w.X, w.Y)) canvas.centre(w.X, w.Y);
      if (settled) {
        panel.where(w);
        const b = blockOf(w.X) * 256 + blockOf(w.Y);
        if (b !== block) { block = b; legend(); }
      }
      canvas.invalidate();
    },
    onTurn: () => canvas.invalidate(),
  });
  const zones = new ZoneLayer({ onChange: () => canvas.invalidate() });
  const captions = new CaptionStrip();
  const canvas = new MapCanvas(/** @type {HTMLCanvasElement} */ ($("map")), {
    tiles,
    scene: () => ({ live: !!amb, bounds: info().bounds, player: movement.player, heading: movement.heading, state: st, zones: zones.shown,
      route: walks.points }),
    onPick: (X, Y) => (walks.planning ? walks.add(X, Y) : movement.moveTo(X, Y)),
    onFrame: (dt) => movement.walk(dt),
  });
  window.mapCanvas = canvas; // for the console and the tests
  // Walks: the map follows the listener along the route.
  const walks = new Walks({
    amb: () => amb,
    move: (p) => { movement.moveTo(p.X, p.Y); canvas.centre(p.X, p.Y); },
    onChange: () => canvas.invalidate(),
  });
  const source = new SourcePicker({ onChoose: (src) => connect(src, true) });
  new LinkButton({ link: () => (amb && movement.player ? spotLink(location.href, movement.player, current, source.home) : null) });

  const vol = input("volume"), enabled = input("enabled");
  vol.addEventListener("input", () => {
    if (amb) amb.setVolume(Number(vol.value));
    $("volumeOut").textContent = Math.round(Number(vol.value) * 100) + "%";
  });
  enabled.addEventListener("change", () => { if (amb) amb.setEnabled(enabled.checked); });

  await connect(source.initial(), false);

  // legend: the terrains of the 3×3 ring the engine hears from, as tiles load.
  function legend() {
    const p = movement.player;
    panel.legend(p ? tiles.typesAround(blockOf(p.X), blockOf(p.Y)) : new Set());
  }

  // defaultSpot: the river landmark (the demo world), else the first, else Holtburg.
  function defaultSpot() {
    const lms = info().landmarks;
    const lm = lms.find((l) => l.name === "river") || lms[0];
    return lm ? posText(lm.where) : HOLTBURG;
  }

  async function startAudio() {
    if (!amb) return;
    audioWanted = true;
    if (walks.fromLink) walks.start(); // a walk's link walks from the first click to listen
    try {
      const r = await amb.start();
      if (r.running) panel.hideOverlay();
      else panel.overlayMessage("The browser is waiting for a click or key press…");
    } catch (e) { panel.error(e.message); }
    panel.audio(audioState());
    canvas.focus();
  }

  function fail(msg, src) {
    source.failed(msg, src);
    panel.noData();
  }

  // connect replaces the instance with one reading src and goes to the
  // hash's spot (else the default); remember keeps the choice (localStorage,
  // and the URL so a link shares it).
  async function connect(src, remember) {
    const my = ++generation;
    current = src;
    if (amb) { amb.dispose(); amb = null; window.ambient = null; }
    st = null; block = undefined;
    tiles.attach(null); movement.attach(null); zones.attach(null); captions.clear();
    panel.setInfo(NO_INFO); legend(); panel.reset(); canvas.invalidate();
    source.connecting(src);
    panel.overlay("▶ Click to start audio", "Loading from " + sourceName(src) + "…");
    if (remember) source.remember(src);

    let a;
    try {
      // at: where the page goes first (below), as far as it is known
      // before the region is decoded: the link's spot, else the default
      // spot of the region named.
      a = await AmbientAudio.load({ server: src.server, api: src.api,
        at: walks.first() ?? movement.hashPos() ?? ((region) => (region === DEMO_REGION ? DEMO_RIVER : HOLTBURG)) });
    } catch (e) {
      if (my !== generation) return;
      console.warn(e);
      return fail(source.explain(e, src), src);
    }
    if (my !== generation) { a.dispose(); return; }
    amb = a;
    playing = src;
    window.ambient = a;
    tiles.attach(a); movement.attach(a); zones.attach(src);
    panel.setInfo(a.info); legend();
    a.setVolume(Number(vol.value));
    a.setEnabled(enabled.checked);
    a.on("state", (s) => { st = s; panel.render(s, movement.player, audioState()); canvas.invalidate(); });
    a.on("error", (e) => panel.error(networkWords(e, src)));
    a.on("play", (ev) => panel.played(ev));
    a.on("caption", (c) => captions.add(c));
    source.connected(src, a.info);

    let first; // where the first move landed (the player, unless a later move superseded it)
    try {
      first = await movement.go(walks.first() ?? movement.hashPos() ?? defaultSpot(), true).catch(async (e) => {
        // A spot the data lacks: say so and go to the default, unless the
        // data lacks landblocks altogether.
        if (my !== generation || missingLandblock(e)) throw e;
        movement.say(e.message);
        return movement.go(defaultSpot(), true);
      });
    } catch (e) {
      if (my !== generation) return;
      return fail(moveFailure(e, src), src);
    }
    if (my !== generation) return;
    // The region loaded; a source without cell records answers 404 for every
    // landblock, which the engine (as retail) takes as no land: say so.
    // A move made meanwhile (a click, the Go box) supersedes the first one's
    // answer, and the player is then still on its way: test the first spot.
    const p = movement.player ?? first, bx = blockOf(p.X), by = blockOf(p.Y), B = a.info.bounds;
    // Asked beside the wait for started(), not before it: the tile's answer
    // comes in turn with the map's own tiles, and the click need not wait.
    if (!B || (bx >= B.bx0 && bx <= B.bx1 && by >= B.by0 && by <= B.by1)) {
      a.tile(bx, by).then((t) => {
        if (my === generation && t === null) source.say(noCells(src, hexId(landblockId(bx, by))));
      }, () => {});
    }
    // The click then sounds at once. A newer connect() disposes this
    // instance, which rejects the wait: not a failure of this one.
    try { await a.started(); } catch (e) { if (my !== generation) return; throw e; }
    if (my !== generation) return;
    const lm = panel.landmarkAt(movement.player);
    panel.overlayMessage(walks.fromLink ? `This link holds ${walks.describe()}. Click to listen as you walk it.`
      : (lm ? `You stand at the ${lm.name}: ${lm.description}.` : "You stand at the spot in the link.") +
      " Click to listen; then click the map to move, or walk with WASD.");
    if (audioWanted) startAudio();
  }
}
