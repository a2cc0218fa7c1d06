// The demo page: a map of the land around the player, the ambient engine's
// instances and voices, and the controls. Everything it shows comes from
// the AmbientAudio instance (window.ambient); the computing is in Go.
import { AmbientAudio } from "./ambient.js";

const $ = (id) => document.getElementById(id);
const BLOCK = 192, CELL = 24;
const RUN = 12; // m/s: walking keys move at running speed
const DIR_NAME = ["here", "N", "S", "E", "W", "NW", "SW", "NE", "SE"];
const DIR_DEG = [0, 0, 180, 90, 270, 315, 225, 45, 135];
const COMPASS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];

let amb = null;
let info = { terrains: [], landmarks: [] };
let st = null; // the latest state()
let player = null; // Where of the player
let heading = 0;
const view = { cx: 0, cy: 0, scale: 0.5 }; // global metres at the centre; px per metre
const tiles = new Map(); // bx*256+by → {tile, img} | null (no land) | "pending"
let dirty = true;
const flashes = new Map(); // "stb/sound" → time of the last play (ms)
const SOURCE_KEY = "acambient.source"; // localStorage: the chosen data source
const REGION = "0x13000000"; // the region record every client loads first
let generation = 0; // which connect() is current
let audioWanted = false; // the user started the audio once

const hex = (n) => "0x" + (n >>> 0).toString(16).toUpperCase().padStart(8, "0");
const fmt = (v, d = 2) => Number(v).toFixed(d);
const rgb = (c) => "#" + (c >>> 0).toString(16).padStart(6, "0");

main().catch((e) => {
  console.warn(e);
  $("overlayMsg").textContent = "Could not load: " + e.message;
});

async function main() {
  setupCanvas();
  setupControls();
  setupSource();
  window.addEventListener("hashchange", () => {
    const h = decodeURIComponent(location.hash.slice(1));
    if (amb && h && h !== hashOf(player)) go(h, true).catch((e) => showGotoError(e.message));
  });
  requestAnimationFrame(frame);
  await connect(initialSource(), false);
}

// ---- the data source ----
//
// A source is {server, api}: server "" is this page's own origin (`serve`
// answers the built-in demo world or the dats it was started with), api
// "acdatservice" reads acdatservice's /dats/{dat}/files/ routes, "ours" the
// /files/ routes of `serve` and `export` (contracts §3). A base typed
// without a scheme ("dats.treestats.net") is taken as https.
function normSource(s) {
  let server = String((s && s.server) || "").trim().replace(/\/+$/, "");
  if (server && !/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = "https://" + server;
  return { server, api: s && s.api === "acdatservice" ? "acdatservice" : "ours" };
}

// initialSource: the URL's ?server=…&api=… (a shared link), else the
// remembered choice, else this server.
function initialSource() {
  const q = new URLSearchParams(location.search);
  if (q.has("server")) return normSource({ server: q.get("server"), api: q.get("api") });
  try {
    const s = JSON.parse(localStorage.getItem(SOURCE_KEY) || "null");
    if (s) return normSource(s);
  } catch { /* storage off or garbled: this server */ }
  return normSource(null);
}

function kindOf(src) { return !src.server ? "here" : src.api === "acdatservice" ? "acdatservice" : "url"; }
function nameOf(src) {
  try { return src.server ? new URL(src.server).host : "this server"; } catch { return src.server; }
}

function setupSource() {
  const kind = $("srcKind"), url = $("srcURL");
  const sync = () => {
    url.hidden = kind.value === "here";
    url.placeholder = kind.value === "acdatservice" ? "https://dats.treestats.net" : "https://example.org/acdats";
  };
  kind.addEventListener("change", () => { sync(); if (!url.hidden) url.focus(); });
  $("srcForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const k = kind.value;
    if (k !== "here" && !url.value.trim()) { $("srcMsg").textContent = "Type the source's base URL first."; return; }
    const src = normSource({ server: k === "here" ? "" : url.value, api: k === "acdatservice" ? "acdatservice" : "ours" });
    try { if (src.server) new URL(src.server); } catch { $("srcMsg").textContent = `"${url.value}" is not a URL.`; return; }
    connect(src, true);
  });
  setupSource.sync = sync;
}

function showSource(src) {
  $("srcKind").value = kindOf(src);
  $("srcURL").value = src.server;
  setupSource.sync();
}

// connect replaces the instance with one reading src; remember keeps the
// choice (localStorage, and the URL so a link shares it).
async function connect(src, remember) {
  const my = ++generation;
  if (amb) { amb.dispose(); amb = null; window.ambient = null; }
  info = { terrains: [], landmarks: [] };
  st = null; player = null; tiles.clear(); flashes.clear(); go.block = undefined;
  drawLandmarks(); drawLegend(); renderEmpty(); dirty = true;
  showSource(src);
  $("srcMsg").textContent = "";
  $("srcNow").textContent = "Connecting to " + nameOf(src) + "…";
  $("overlay").classList.remove("hidden");
  $("overlayTitle").textContent = "▶ Click to start audio";
  $("overlayMsg").textContent = "Loading from " + nameOf(src) + "…";
  if (remember) {
    try { localStorage.setItem(SOURCE_KEY, JSON.stringify(src)); } catch { /* not remembered */ }
    const u = new URL(location.href);
    u.searchParams.delete("server"); u.searchParams.delete("api");
    if (src.server) { u.searchParams.set("server", src.server); if (src.api !== "ours") u.searchParams.set("api", src.api); }
    history.replaceState(null, "", u);
  }

  let a;
  try {
    a = await AmbientAudio.load({ server: src.server, api: src.api });
  } catch (e) {
    if (my !== generation) return;
    console.warn(e);
    return failSource(src, await explainLoad(e, src));
  }
  if (my !== generation) { a.dispose(); return; }
  amb = a;
  window.ambient = a;
  info = a.info;
  amb.setVolume(Number($("volume").value));
  amb.setEnabled($("enabled").checked);
  amb.on("state", (s) => { st = s; renderPanel(); dirty = true; });
  amb.on("error", (e) => showError(e.message));
  amb.on("play", (ev) => { flashes.set(ev.stbIndex + "/" + ev.soundIndex, performance.now()); });
  drawLandmarks();
  drawLegend();
  $("srcNow").textContent = "Playing " + (info.demo ? "the demo world" : "the dats") + " from " + nameOf(src) + (src.api === "acdatservice" ? " (acdatservice)." : ".");

  const start = location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : defaultSpot();
  try {
    await go(start, true).catch(async (e) => {
      if (my !== generation || e.code === "missing-landblock") throw e;
      showGotoError(e.message);
      await go(defaultSpot(), true);
    });
  } catch (e) {
    if (my !== generation) return;
    return failSource(src, e.code === "missing-landblock" ? noCells(src, e.landblock) : e.message);
  }
  if (my !== generation) return;
  // The region loaded; a source without cell records answers 404 for every
  // landblock, which the engine (as retail) takes as no land: say so.
  const bx = Math.floor(player.X / BLOCK), by = Math.floor(player.Y / BLOCK), B = info.bounds;
  if (!B || (bx >= B.bx0 && bx <= B.bx1 && by >= B.by0 && by <= B.by1)) {
    const t = await amb.tile(bx, by).catch(() => undefined);
    if (my !== generation) return;
    if (t === null) $("srcMsg").textContent = noCells(src, hex(((bx << 24) | (by << 16) | 0xffff) >>> 0));
  }
  await amb.started(); // the click then sounds at once
  if (my !== generation) return;
  const lm = nearestLandmark();
  $("overlayMsg").textContent = (lm ? `You stand at the ${lm.name}: ${lm.description}.` : "You stand at the spot in the link.") +
    " Click to listen; then click the map to move, or walk with WASD.";
  if (audioWanted) startAudio();
}

function failSource(src, msg) {
  $("srcNow").textContent = "Not connected.";
  $("loadState").textContent = "no data";
  $("loadState").className = "pill warn";
  $("srcMsg").textContent = msg;
  $("overlayTitle").textContent = "No data";
  $("overlayMsg").textContent = "See Data source in the panel.";
}

function noCells(src, block) {
  return `${nameOf(src)} has the region but no cell records: landblock ${block} is not there (404), so there is no land to hear. ` +
  "It serves a portal dat without a cell dat (client_cell_1.dat).";
}

// explainLoad turns a load() rejection into plain words, by its code
// (ambient.js tells "cors" from "network" and finds "wrong-api").
async function explainLoad(err, src) {
  const m = String((err && err.message) || err);
  const where = src.server || location.origin;
  const name = nameOf(src);
  if (err.code === "network") {
    if (location.protocol === "https:" && where.startsWith("http:")) {
      return `${name} is unreachable from here: an https page may not read an http source (mixed content). Use its https address.`;
    }
    return `${name} is unreachable: no answer from ${where}. Check the address, and that the server is up.`;
  }
  if (err.code === "cors") {
    return `${name} answers, but without CORS headers (Access-Control-Allow-Origin), so the browser blocks this page from reading its records. ` +
      "The server must allow this page's origin.";
  }
  if (err.code === "wrong-api" || (err.code === "not-found" && err.id === REGION)) {
    const other = src.api === "acdatservice" ? "Dat server or export" : "acdatservice";
    return `${name} answered, but has no region record ${REGION} (404). Is it a dat server? If it is ` +
      (src.api === "acdatservice" ? "ours or an export" : "an acdatservice") + `, choose "${other}".`;
  }
  return `Could not load from ${name}: ${m}`;
}

function defaultSpot() {
  const lm = info.landmarks.find((l) => l.name === "river") || info.landmarks[0];
  if (lm) return posOf(lm.where);
  return "42.1N,33.6E"; // Holtburg, in retail's Dereth
}

const posOf = (w) => `${w.objcellId}/${fmt(w.x)},${fmt(w.y)},${fmt(w.z)}`;
const hashOf = (w) => (w ? posOf(w) : "");

// ---- moving ----

let inflight = false, queued = null;

// go moves the player (any form setPlayer takes); recentre when asked or
// when the player leaves the view.
async function go(pos, recentre = false) {
  if (!amb) throw new Error("no data source loaded");
  const w = await amb.setPlayer(pos);
  player = w;
  await amb.setCamera({ objcellId: w.objcellId, x: w.x, y: w.y, z: w.z }, heading);
  if (recentre || offView(w)) { view.cx = w.X; view.cy = w.Y; }
  history.replaceState(null, "", "#" + hashOf(w));
  $("gotoErr").textContent = "";
  renderWhere();
  const blk = Math.floor(w.X / BLOCK) * 256 + Math.floor(w.Y / BLOCK);
  if (blk !== go.block) { go.block = blk; drawLegend(); }
  dirty = true;
  return w;
}

// moveTo is the throttled move of dragging and walking: one setPlayer in
// flight at a time, the latest position wins.
function moveTo(X, Y) {
  X = Math.min(Math.max(X, 0.01), 255 * BLOCK - 0.01);
  Y = Math.min(Math.max(Y, 0.01), 255 * BLOCK - 0.01);
  if (player) { player = { ...player, X, Y }; dirty = true; }
  queued = { X, Y };
  if (inflight) return;
  const next = () => {
    if (!queued) { inflight = false; return; }
    const q = queued; queued = null; inflight = true;
    go(q).catch((e) => showGotoError(e.message)).finally(next);
  };
  next();
}

function offView(w) {
  const c = $("map");
  const dx = (w.X - view.cx) * view.scale, dy = (w.Y - view.cy) * view.scale;
  return Math.abs(dx) > c.clientWidth / 2 - 20 || Math.abs(dy) > c.clientHeight / 2 - 20;
}

function nearestLandmark() {
  if (!player) return null;
  const lm = info.landmarks.find((l) => l.where.objcellId === player.objcellId && Math.abs(l.where.x - player.x) < 1 && Math.abs(l.where.y - player.y) < 1);
  return lm || null;
}

// ---- controls ----

async function startAudio() {
  if (!amb) return;
  audioWanted = true;
  try {
    const r = await amb.start();
    if (r.running) $("overlay").classList.add("hidden");
    else $("overlayMsg").textContent = "The browser is waiting for a click or key press…";
  } catch (e) { showError(e.message); }
  renderAudio();
  $("map").focus();
}

function setupControls() {
  const overlay = $("overlay");
  overlay.addEventListener("click", startAudio);
  overlay.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") startAudio(); });

  $("gotoForm").addEventListener("submit", (e) => {
    e.preventDefault();
    const v = $("gotoInput").value.trim();
    if (v) go(v, true).catch((err) => showGotoError(err.message));
  });
  const vol = $("volume");
  vol.addEventListener("input", () => {
    if (amb) amb.setVolume(Number(vol.value));
    $("volumeOut").textContent = Math.round(vol.value * 100) + "%";
  });
  $("enabled").addEventListener("change", (e) => { if (amb) amb.setEnabled(e.target.checked); });
  $("heading").addEventListener("input", (e) => setHeading(Number(e.target.value)));
}

function setHeading(h) {
  heading = ((h % 360) + 360) % 360;
  $("heading").value = Math.round(heading);
  $("headingOut").textContent = `${Math.round(heading)}° ${COMPASS[Math.round(heading / 45) % 8]}`;
  if (player && amb) amb.setCamera({ objcellId: player.objcellId, x: player.x, y: player.y, z: player.z }, heading).catch(() => {});
  dirty = true;
}

function drawLandmarks() {
  const box = $("landmarks");
  box.replaceChildren();
  for (const l of info.landmarks) {
    const b = document.createElement("button");
    b.textContent = l.name;
    b.title = l.description;
    b.dataset.name = l.name;
    b.addEventListener("click", () => go(posOf(l.where), true).catch((e) => showGotoError(e.message)));
    box.append(b);
  }
  if (!info.landmarks.length) box.textContent = "";
}

function drawLegend() {
  // The terrain types of the 3×3 ring the engine hears from, as tiles load.
  const used = new Set();
  if (player) {
    const pbx = Math.floor(player.X / BLOCK), pby = Math.floor(player.Y / BLOCK);
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
      const t = tiles.get((pbx + dx) * 256 + pby + dy);
      if (t && t.tile) for (const ty of t.tile.types) used.add(ty);
    }
  }
  const box = $("legend");
  box.replaceChildren();
  for (const t of info.terrains) {
    if (!used.has(t.index)) continue;
    const s = document.createElement("span");
    s.innerHTML = `<i style="background:${rgb(t.color)}"></i>`;
    s.append(t.name);
    box.append(s);
  }
  box.style.display = box.childElementCount ? "" : "none";
}

let errList = [];
function showError(msg) {
  errList = [msg, ...errList.filter((m) => m !== msg)].slice(0, 3);
  $("errors").textContent = errList.join("\n");
  clearTimeout(showError.t);
  showError.t = setTimeout(() => { errList = []; $("errors").textContent = ""; }, 15000);
}
const showGotoError = (m) => { $("gotoErr").textContent = m; };

// ---- the panel ----

function terrainAt(objcell) {
  const bx = objcell >>> 24, by = (objcell >>> 16) & 255, i = (objcell & 0xffff) - 1;
  const t = tiles.get(bx * 256 + by);
  if (!t || !t.tile || i < 0 || i >= 64) return null;
  return info.terrains[t.tile.types[i]] || null;
}

function renderWhere() {
  if (!player) return;
  const w = player;
  $("posCell").textContent = `${w.objcellId}  ${fmt(w.x)}, ${fmt(w.y)}, ${fmt(w.z)}`;
  $("posGlobal").textContent = `${fmt(w.X, 1)}, ${fmt(w.Y, 1)} m`;
  const ns = `${fmt(Math.abs(w.ns), 1)}${w.ns < 0 ? "S" : "N"}`, ew = `${fmt(Math.abs(w.ew), 1)}${w.ew < 0 ? "W" : "E"}`;
  $("posMap").textContent = `${ns}, ${ew}`;
  const id = parseInt(w.objcellId, 16);
  const t = w.outdoor ? terrainAt(id) : null;
  $("posTerrain").textContent = w.outdoor ? (t ? t.name : "…") : "indoors";
  $("hudCoords").textContent = `${w.objcellId} · ${ns}, ${ew}`;
  for (const b of $("landmarks").children) {
    const l = info.landmarks.find((x) => x.name === b.dataset.name);
    b.classList.toggle("on", !!l && l.where.objcellId === w.objcellId && Math.abs(l.where.x - w.x) < 1 && Math.abs(l.where.y - w.y) < 1);
  }
}

// renderEmpty clears what the last instance showed.
function renderEmpty() {
  for (const id of ["posCell", "posGlobal", "posMap", "posTerrain", "hudCoords"]) $(id).textContent = "—";
  $("instances").tBodies[0].replaceChildren();
  $("voices").replaceChildren();
  $("instSummary").textContent = $("voiceSummary").textContent = "";
  $("loadState").textContent = "loading…";
  $("loadState").className = "pill";
  $("loadBar").value = 0;
  renderAudio();
}

function renderAudio() {
  const a = $("audioState");
  const s = amb ? (amb.audioContext ? amb.audioContext.state : "none") : "none";
  a.textContent = s === "running" ? "audio on" : s === "none" ? "audio off: click the map" : "audio " + s;
  a.className = "pill " + (s === "running" ? "good" : "warn");
  if (s === "running") $("overlay").classList.add("hidden");
}

// stbTerrains: for each STB index, the terrain names of the cells that
// weighted it, with their summed weight and count.
function stbSources() {
  const by = new Map();
  for (const c of st.cells) {
    let e = by.get(c.stbIndex);
    if (!e) by.set(c.stbIndex, (e = { weight: 0, cells: 0, nearest: Infinity, terrains: new Map() }));
    e.weight += c.weight; e.cells++; e.nearest = Math.min(e.nearest, c.dist);
    const t = terrainAt(c.objcellId);
    const name = t ? t.name : "?";
    const tt = e.terrains.get(name) || { n: 0, color: t ? t.color : 0x808080 };
    tt.n++;
    e.terrains.set(name, tt);
  }
  return by;
}

function renderPanel() {
  if (!st) return;
  renderAudio();
  renderWhere();
  const L = st.loading;
  const total = L.records + L.pending;
  $("loadBar").value = total ? L.records / total : 1;
  const ls = $("loadState");
  ls.textContent = L.pending ? `loading ${L.pending}…` : `${L.records} records · ${(L.bytes / 1024).toFixed(0)} KB` + (L.failed ? ` · ${L.failed} failed` : "");
  ls.className = "pill " + (L.failed ? "warn" : L.pending ? "" : "good");

  const src = stbSources();
  const tb = $("instances").tBodies[0];
  const rows = [];
  const order = st.sounds.map((s, i) => i).sort((a, b) => (st.sounds[b].soundCount > 0) - (st.sounds[a].soundCount > 0) || a - b);
  let live = 0;
  const now = performance.now();
  for (const i of order) {
    const s = st.sounds[i];
    const on = s.soundCount > 0;
    if (on) live++;
    const e = src.get(s.stbIndex);
    const ts = e ? [...e.terrains].sort((a, b) => b[1].n - a[1].n) : [];
    const terr = ts.length ? ts.map(([n, t], k) => `<span class="sw" style="background:${rgb(t.color)}" title="${n}: ${t.n} cells"></span>` + (k === 0 ? n : "")).join("") : "—";
    const next = st.next[i] >= 0 ? Math.max(0, st.next[i] - st.time).toFixed(1) + " s" : "—";
    const val = s.continuous ? `vol ${fmt(s.currentVolume, 3)}` : `${fmt(s.playChance * 100, 1)}%`;
    const hot = now - (flashes.get(s.stbIndex + "/" + s.soundIndex) || -1e9) < 1500;
    rows.push(`<tr class="${on ? "" : "silent"} ${hot ? "hot" : ""}" title="STB #${s.stbIndex} sound ${s.soundIndex}, sType ${s.sType}; authored volume ${s.authored.volume}, base chance ${s.authored.baseChance}, rate ${s.authored.minRate}–${s.authored.maxRate} s">` +
      `<td>${s.stbId}<span class="sub"> ${s.soundIndex} ${s.continuous ? "loop" : "rand"}</span></td><td>${terr}</td>` +
      `<td class="num">${fmt(s.share * 100, 1)}%</td><td class="num">${val}</td><td class="num">${on ? next : "—"}</td></tr>`);
  }
  tb.innerHTML = rows.join("");
  $("instSummary").textContent = st.outdoorish
    ? `${live} live of ${st.heldInstances} · ${st.contributingCells} cells · total ${fmt(st.totalSoundCount, 3)}`
    : "indoors: this cell sees no outside";

  const ul = $("voices");
  const vs = st.voices.slice().sort((a, b) => b.gain - a.gain);
  $("voiceSummary").textContent = `${vs.length} of 16`;
  if (!vs.length) { ul.innerHTML = `<li class="empty">${st.audio === "running" ? "silence" : "nothing playing"}</li>`; return; }
  ul.innerHTML = vs.map((v) => {
    const s = st.sounds.find((x) => x.stbIndex === v.stbIndex && x.soundIndex === v.soundIndex);
    const e = src.get(v.stbIndex);
    const lvl = Math.max(0, Math.min(1, (v.db + 50) / 50));
    const pan = v.pan === 0 ? "C" : v.pan > 0 ? `R${v.pan}` : `L${-v.pan}`;
    const where = v.dir ? `${DIR_NAME[v.dir]} ${fmt(v.dist, 0)} m` : "centred";
    const terr = e ? [...e.terrains].map(([n, t]) => `${n} ×${t.n}`).join(", ") : "";
    const left = Math.max(0, v.end - st.time);
    return `<li><div class="top"><span class="wave">${v.wave}</span><span>${v.db} dB · ${pan} · ${where}</span>` +
      `<span class="meter" title="gain ${fmt(v.gain, 4)}"><i style="width:${(lvl * 100).toFixed(0)}%"></i></span><span class="sub">${left.toFixed(1)} s</span></div>` +
      `<div class="from">STB ${s ? s.stbId : "?"} (#${v.stbIndex}) · SoundTable entry sType ${v.sType}, variant ${v.variant}` +
      (e ? ` · weighted by ${e.cells} cells (${terr}), nearest ${fmt(e.nearest, 0)} m` : "") + `</div></li>`;
  }).join("");
}

// ---- the map ----

function setupCanvas() {
  const c = $("map");
  const fit = () => {
    const r = devicePixelRatio || 1;
    c.width = Math.max(1, Math.round(c.clientWidth * r));
    c.height = Math.max(1, Math.round(c.clientHeight * r));
    dirty = true;
  };
  new ResizeObserver(fit).observe(c);
  fit();

  let down = null;
  c.addEventListener("pointerdown", (e) => {
    c.setPointerCapture(e.pointerId);
    const onMarker = player && Math.hypot(...sub(toScreen(player.X, player.Y), [e.offsetX, e.offsetY])) < 14;
    down = { x: e.offsetX, y: e.offsetY, cx: view.cx, cy: view.cy, moved: false, marker: onMarker };
  });
  c.addEventListener("pointermove", (e) => {
    if (!down) return;
    if (Math.hypot(e.offsetX - down.x, e.offsetY - down.y) > 4) down.moved = true;
    if (!down.moved) return;
    if (down.marker) {
      const [X, Y] = toWorld(e.offsetX, e.offsetY);
      moveTo(X, Y);
    } else {
      view.cx = down.cx - (e.offsetX - down.x) / view.scale;
      view.cy = down.cy + (e.offsetY - down.y) / view.scale;
      dirty = true;
    }
  });
  c.addEventListener("pointerup", (e) => {
    if (down && !down.moved) {
      const [X, Y] = toWorld(e.offsetX, e.offsetY);
      moveTo(X, Y);
    }
    down = null;
  });
  c.addEventListener("wheel", (e) => {
    e.preventDefault();
    const [X, Y] = toWorld(e.offsetX, e.offsetY);
    view.scale = Math.min(8, Math.max(0.01, view.scale * Math.exp(-e.deltaY * 0.0015)));
    const [X2, Y2] = toWorld(e.offsetX, e.offsetY);
    view.cx += X - X2; view.cy += Y - Y2;
    dirty = true;
  }, { passive: false });

  const keys = new Set();
  const walkKeys = { ArrowUp: 1, KeyW: 1, ArrowDown: 1, KeyS: 1, ArrowLeft: 1, KeyA: 1, ArrowRight: 1, KeyD: 1, KeyQ: 1, KeyE: 1 };
  window.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== "range" && e.target.type !== "checkbox") return;
    if (walkKeys[e.code]) { keys.add(e.code); e.preventDefault(); }
  });
  window.addEventListener("keyup", (e) => keys.delete(e.code));
  window.addEventListener("blur", () => keys.clear());
  setupCanvas.keys = keys;
}

const sub = (a, b) => [a[0] - b[0], a[1] - b[1]];
function toScreen(X, Y) {
  const c = $("map");
  return [c.clientWidth / 2 + (X - view.cx) * view.scale, c.clientHeight / 2 - (Y - view.cy) * view.scale];
}
function toWorld(x, y) {
  const c = $("map");
  return [view.cx + (x - c.clientWidth / 2) / view.scale, view.cy - (y - c.clientHeight / 2) / view.scale];
}

let lastFrame = performance.now();
function frame(now) {
  const dt = Math.min(0.1, (now - lastFrame) / 1000);
  lastFrame = now;
  walk(dt);
  if (dirty || (st && st.voices.length)) { draw(); dirty = false; }
  requestAnimationFrame(frame);
}

// walk moves the player with the held keys: up/down along the heading
// (forward and back), left/right strafe, Q/E turn at 90°/s.
function walk(dt) {
  const k = setupCanvas.keys;
  if (!k || !k.size || !player) return;
  if (k.has("KeyQ")) setHeading(heading - 90 * dt);
  if (k.has("KeyE")) setHeading(heading + 90 * dt);
  let f = 0, s = 0;
  if (k.has("ArrowUp") || k.has("KeyW")) f++;
  if (k.has("ArrowDown") || k.has("KeyS")) f--;
  if (k.has("ArrowRight") || k.has("KeyD")) s++;
  if (k.has("ArrowLeft") || k.has("KeyA")) s--;
  if (!f && !s) return;
  const h = (heading * Math.PI) / 180, n = Math.hypot(f, s);
  const dx = (f * Math.sin(h) + s * Math.cos(h)) / n, dy = (f * Math.cos(h) - s * Math.sin(h)) / n;
  moveTo(player.X + dx * RUN * dt, player.Y + dy * RUN * dt);
  if (offView(player)) { view.cx = player.X; view.cy = player.Y; }
}

function tileImage(t) {
  const c = document.createElement("canvas");
  c.width = c.height = 8;
  const g = c.getContext("2d");
  const img = g.createImageData(8, 8);
  for (let cx = 0; cx < 8; cx++) for (let cy = 0; cy < 8; cy++) {
    const col = t.colors[8 * cx + cy], p = 4 * ((7 - cy) * 8 + cx);
    img.data[p] = col >> 16; img.data[p + 1] = (col >> 8) & 255; img.data[p + 2] = col & 255; img.data[p + 3] = 255;
  }
  g.putImageData(img, 0, 0);
  return c;
}

function wantTile(bx, by) {
  const key = bx * 256 + by;
  if (tiles.has(key)) return tiles.get(key);
  tiles.set(key, "pending");
  const a = amb;
  a.tile(bx, by).then((t) => {
    if (a !== amb) return; // an instance since replaced
    tiles.set(key, t ? { tile: t, img: tileImage(t) } : null);
    dirty = true;
    clearTimeout(wantTile.legend);
    wantTile.legend = setTimeout(() => { drawLegend(); renderWhere(); if (st) renderPanel(); }, 100);
  }, () => { if (a === amb) tiles.delete(key); }); // a failed fetch is asked again when next drawn
  return "pending";
}

function draw() {
  const c = $("map"), g = c.getContext("2d");
  const r = devicePixelRatio || 1, W = c.clientWidth, H = c.clientHeight;
  g.setTransform(r, 0, 0, r, 0, 0);
  g.fillStyle = "#0e1116";
  g.fillRect(0, 0, W, H);
  if (!amb) return;
  const [X0, Y1] = toWorld(0, 0), [X1, Y0] = toWorld(W, H);
  const B = info.bounds || { bx0: 0, by0: 0, bx1: 254, by1: 254 };
  const bx0 = Math.max(B.bx0, Math.floor(X0 / BLOCK)), bx1 = Math.min(B.bx1, Math.floor(X1 / BLOCK));
  const by0 = Math.max(B.by0, Math.floor(Y0 / BLOCK)), by1 = Math.min(B.by1, Math.floor(Y1 / BLOCK));
  const bpx = BLOCK * view.scale;
  g.imageSmoothingEnabled = false;
  const many = (bx1 - bx0 + 1) * (by1 - by0 + 1) > 900;
  for (let bx = bx0; bx <= bx1; bx++) for (let by = by0; by <= by1; by++) {
    const t = many ? tiles.get(bx * 256 + by) : wantTile(bx, by);
    const [sx, sy] = toScreen(bx * BLOCK, (by + 1) * BLOCK);
    if (t && t.img) g.drawImage(t.img, sx, sy, bpx + 0.5, bpx + 0.5);
    else if (t === "pending") { g.fillStyle = "#1a1f27"; g.fillRect(sx, sy, bpx, bpx); }
  }
  // Grid: land cells when zoomed in, landblocks otherwise.
  g.lineWidth = 1;
  if (CELL * view.scale >= 14) {
    g.strokeStyle = "#00000030";
    g.beginPath();
    for (let X = Math.ceil(X0 / CELL) * CELL; X <= X1; X += CELL) { const x = Math.round(toScreen(X, 0)[0]) + 0.5; g.moveTo(x, 0); g.lineTo(x, H); }
    for (let Y = Math.ceil(Y0 / CELL) * CELL; Y <= Y1; Y += CELL) { const y = Math.round(toScreen(0, Y)[1]) + 0.5; g.moveTo(0, y); g.lineTo(W, y); }
    g.stroke();
  }
  if (bpx >= 8) {
    g.strokeStyle = "#00000066";
    g.beginPath();
    for (let bx = bx0; bx <= bx1 + 1; bx++) { const x = Math.round(toScreen(bx * BLOCK, 0)[0]) + 0.5; g.moveTo(x, 0); g.lineTo(x, H); }
    for (let by = by0; by <= by1 + 1; by++) { const y = Math.round(toScreen(0, by * BLOCK)[1]) + 0.5; g.moveTo(0, y); g.lineTo(W, y); }
    g.stroke();
  }
  if (!player) return;
  const pbx = Math.floor(player.X / BLOCK), pby = Math.floor(player.Y / BLOCK);

  // The cells that weighted the last rebuild: the heat map.
  if (st && st.cells.length) {
    for (const cw of st.cells) {
      const bx = cw.objcellId >>> 24, by = (cw.objcellId >>> 16) & 255, i = (cw.objcellId & 0xffff) - 1;
      const X = bx * BLOCK + (i >> 3) * CELL, Y = by * BLOCK + (i & 7) * CELL;
      const [sx, sy] = toScreen(X, Y + CELL);
      g.fillStyle = `rgba(255, 140, 40, ${(0.16 + 0.64 * Math.sqrt(cw.weight)).toFixed(3)})`;
      g.fillRect(sx, sy, CELL * view.scale, CELL * view.scale);
      if (CELL * view.scale >= 34) {
        g.fillStyle = "#fff";
        g.font = "10px system-ui, sans-serif";
        g.fillText(cw.weight.toFixed(cw.weight < 0.1 ? 3 : 2), sx + 3, sy + 12);
      }
    }
  }
  // The 3×3 ring the engine gathers from.
  {
    const [sx, sy] = toScreen((pbx - 1) * BLOCK, (pby + 2) * BLOCK);
    g.strokeStyle = "#f0b44c";
    g.setLineDash([6, 4]);
    g.lineWidth = 1.5;
    g.strokeRect(sx, sy, 3 * bpx, 3 * bpx);
    g.setLineDash([]);
    g.strokeStyle = "#f0b44c88";
    const [ix, iy] = toScreen(pbx * BLOCK, (pby + 1) * BLOCK);
    g.strokeRect(ix, iy, bpx, bpx);
  }
  // The 120 m hearing radius.
  const [px, py] = toScreen(player.X, player.Y);
  g.strokeStyle = "#5cc8ff55";
  g.lineWidth = 1;
  g.beginPath();
  g.arc(px, py, 120 * view.scale, 0, 2 * Math.PI);
  g.stroke();

  // Voices placed where the engine put them (direction band and distance).
  if (st) {
    for (const v of st.voices) {
      const lvl = Math.max(0.15, Math.min(1, (v.db + 50) / 50));
      if (v.dir) {
        const h = (DIR_DEG[v.dir] * Math.PI) / 180;
        const [vx, vy] = toScreen(player.X + Math.sin(h) * v.dist, player.Y + Math.cos(h) * v.dist);
        g.strokeStyle = `rgba(92, 200, 255, ${lvl})`;
        g.beginPath(); g.moveTo(px, py); g.lineTo(vx, vy); g.stroke();
        g.fillStyle = `rgba(92, 200, 255, ${lvl})`;
        g.beginPath(); g.arc(vx, vy, 3 + 4 * lvl, 0, 2 * Math.PI); g.fill();
      } else {
        g.strokeStyle = `rgba(123, 216, 143, ${lvl * 0.8})`;
        g.lineWidth = 2;
        g.beginPath(); g.arc(px, py, 12 + 10 * lvl, 0, 2 * Math.PI); g.stroke();
        g.lineWidth = 1;
      }
    }
  }
  // The player and the camera heading.
  const h = (heading * Math.PI) / 180;
  g.fillStyle = "#f0b44c40";
  g.beginPath();
  g.moveTo(px, py);
  g.arc(px, py, 34, h - Math.PI / 2 - 0.5, h - Math.PI / 2 + 0.5);
  g.closePath();
  g.fill();
  g.fillStyle = "#f0b44c";
  g.strokeStyle = "#1b1f26";
  g.lineWidth = 2;
  g.beginPath(); g.arc(px, py, 7, 0, 2 * Math.PI); g.fill(); g.stroke();
  g.lineWidth = 1;
}
