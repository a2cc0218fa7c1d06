// panel.js: what the page says in words. The side panel (position,
// landmarks, audio and loading, errors, the engine's instances and voices)
// and, on the map, the coordinates line, the terrain legend and the start
// overlay. It shows what it is given; it changes nothing.
import { mapText, parseId } from "../geo.js";
import { Rows, el, setText } from "./dom.js";

// Voice direction bands 1..8 (docs/retail.md §R3; 0 = centred), as the list names them.
const DIR_NAME = ["here", "N", "S", "E", "W", "NW", "SW", "NE", "SE"];
const HOT_MS = 1500; // an instance row is marked this long after it played
const ERRORS_SHOWN = 3;
const ERRORS_MS = 15000; // errors clear this long after the last
const VOICES = 16; // retail's voice pool (docs/retail.md §R5.7)

const $ = (id) => document.getElementById(id);
const fmt = (v, d = 2) => Number(v).toFixed(d);
const rgb = (c) => "#" + (c >>> 0).toString(16).padStart(6, "0");

export class Panel {
  #terrainAt;
  #onLandmark;
  #troubleWords;
  #info = { terrains: [], landmarks: [] };
  #flashes = new Map(); // "stb/sound" → time of the last play (ms)
  #errors = [];
  #errorTimer = 0;
  #instances;
  #voices;
  #silence = el("li", { className: "empty" });

  /**
   * @param terrainAt  the terrain of a land cell, once its tile is loaded
   * @param onLandmark a landmark's button was pressed
   * @param onStart    the start overlay was clicked (or Enter / Space on it)
   * @param troubleWords state().loading.trouble in plain words
   */
  constructor({ terrainAt, onLandmark, onStart, troubleWords }) {
    this.#terrainAt = terrainAt;
    this.#troubleWords = troubleWords;
    this.#onLandmark = onLandmark;
    const overlay = $("overlay");
    overlay.addEventListener("click", () => onStart());
    overlay.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") onStart(); });
    this.#instances = new Rows($("instances").tBodies[0], { key: (s) => s.stbIndex + "/" + s.soundIndex, make: instanceRow, fill: fillInstance });
    this.#voices = new Rows($("voices"), { key: (v) => `${v.stbIndex}/${v.soundIndex}/${v.t}/${v.wave}`, make: voiceRow, fill: fillVoice });
  }

  /** What an instance of the page's data names: the terrain legend's entries and the landmarks. */
  setInfo(info) {
    this.#info = info;
    const box = $("landmarks");
    box.replaceChildren(...info.landmarks.map((l) => {
      const b = el("button", { textContent: l.name, title: l.description, dataset: { name: l.name } });
      b.addEventListener("click", () => this.#onLandmark(l));
      return b;
    }));
  }

  /** The landmark the player stands at (its cell, within a metre), or null. */
  landmarkAt(w) {
    return (w && this.#info.landmarks.find((l) => atLandmark(l, w))) || null;
  }

  /** Clears what the last instance showed. */
  reset() {
    for (const id of ["posCell", "posGlobal", "posMap", "posTerrain", "hudCoords"]) $(id).textContent = "—";
    this.#instances.clear();
    this.#voices.clear();
    this.#silence.remove();
    this.#flashes.clear();
    $("instSummary").textContent = $("voiceSummary").textContent = "";
    const ls = $("loadState");
    ls.textContent = "loading…";
    ls.className = "pill";
    $("loadBar").value = 0;
    this.audio("none");
  }

  /** The player's position in every form, its terrain, and which landmark it is at. */
  where(w) {
    if (!w) return;
    setText($("posCell"), `${w.objcellId}  ${fmt(w.x)}, ${fmt(w.y)}, ${fmt(w.z)}`);
    setText($("posGlobal"), `${fmt(w.X, 1)}, ${fmt(w.Y, 1)} m`);
    const map = mapText(w.ns, w.ew, 1, ", ");
    setText($("posMap"), map);
    const t = w.outdoor ? this.#terrainAt(parseId(w.objcellId)) : null;
    setText($("posTerrain"), w.outdoor ? (t ? t.name : "…") : "indoors");
    setText($("hudCoords"), `${w.objcellId} · ${map}`);
    for (const b of $("landmarks").children) {
      const l = this.#info.landmarks.find((x) => x.name === b.dataset.name);
      b.classList.toggle("on", !!l && atLandmark(l, w));
    }
  }

  /** The audio pill: "audio on", "audio off: click the map", or the context's state; running hides the overlay. */
  audio(state) {
    const a = $("audioState");
    setText(a, state === "running" ? "audio on" : state === "none" ? "audio off: click the map" : "audio " + state);
    a.className = "pill " + (state === "running" ? "good" : "warn");
    if (state === "running") this.hideOverlay();
  }

  /** A state() of the engine: the loading line, the instances and the voices (and audio, w, as audio() and where()). */
  render(st, w, audio) {
    this.audio(audio);
    this.where(w);
    const L = st.loading;
    const total = L.records + L.pending;
    $("loadBar").value = total ? L.records / total : 1;
    const ls = $("loadState");
    // A bad network, while it lasts, in plain words; else what is loaded.
    setText(ls, L.trouble ? this.#troubleWords(L.trouble) : L.pending ? `loading ${L.pending}…` :
      `${L.records} records · ${(L.bytes / 1024).toFixed(0)} KB` + (L.failed ? ` · ${L.failed} failed` : ""));
    ls.className = "pill " + (L.trouble || L.failed ? "warn" : L.pending ? "" : "good");

    const from = this.#sources(st);
    const now = performance.now();
    // Sounding instances first, each group in the engine's order.
    const order = st.sounds.map((s, i) => i).sort((a, b) => (st.sounds[b].soundCount > 0) - (st.sounds[a].soundCount > 0) || a - b);
    this.#instances.update(order.map((i) => {
      const s = st.sounds[i];
      return { ...s, next: st.next[i], time: st.time, from: from.get(s.stbIndex), hot: now - (this.#flashes.get(s.stbIndex + "/" + s.soundIndex) ?? -1e9) < HOT_MS };
    }));
    const live = st.sounds.filter((s) => s.soundCount > 0).length;
    setText($("instSummary"), st.outdoorish
      ? `${live} live of ${st.heldInstances} · ${st.contributingCells} cells · total ${fmt(st.totalSoundCount, 3)}`
      : "indoors: this cell sees no outside");

    const vs = st.voices.slice().sort((a, b) => b.gain - a.gain);
    setText($("voiceSummary"), `${vs.length} of ${VOICES}`);
    if (!vs.length) {
      this.#voices.clear();
      setText(this.#silence, st.audio === "running" ? "silence" : "nothing playing");
      $("voices").append(this.#silence);
      return;
    }
    this.#silence.remove();
    this.#voices.update(vs.map((v) => ({
      ...v, time: st.time, from: from.get(v.stbIndex),
      stbId: st.sounds.find((x) => x.stbIndex === v.stbIndex && x.soundIndex === v.soundIndex)?.stbId,
    })));
  }

  /** A play event: its instance's row is marked for a moment. */
  played(ev) {
    this.#flashes.set(ev.stbIndex + "/" + ev.soundIndex, performance.now());
  }

  /** An error in the Sound box: the last three, cleared 15 s after the last. */
  error(msg) {
    this.#errors = [msg, ...this.#errors.filter((m) => m !== msg)].slice(0, ERRORS_SHOWN);
    $("errors").textContent = this.#errors.join("\n");
    clearTimeout(this.#errorTimer);
    this.#errorTimer = setTimeout(() => { this.#errors = []; $("errors").textContent = ""; }, ERRORS_MS);
  }

  /** The map's terrain legend: the terrains of types, in the data's order; hidden when empty. */
  legend(types) {
    const box = $("legend");
    box.replaceChildren(...this.#info.terrains.filter((t) => types.has(t.index))
      .map((t) => el("span", {}, el("i", { style: { background: rgb(t.color) } }), t.name)));
    box.style.display = box.childElementCount ? "" : "none";
  }

  /** Shows the start overlay with its title and message. */
  overlay(title, msg) {
    $("overlay").classList.remove("hidden");
    $("overlayTitle").textContent = title;
    $("overlayMsg").textContent = msg;
  }

  /** The overlay's message line. */
  overlayMessage(msg) { $("overlayMsg").textContent = msg; }

  hideOverlay() { $("overlay").classList.add("hidden"); }

  /** No data source: the loading pill and the overlay say so. */
  noData() {
    const ls = $("loadState");
    ls.textContent = "no data";
    ls.className = "pill warn";
    $("overlayTitle").textContent = "No data";
    $("overlayMsg").textContent = "See Data source in the panel.";
  }

  // #sources: for each STB index, the cells that weighted it in the last
  // rebuild: their count and summed weight, the nearest, and per terrain
  // name its count and colour.
  #sources(st) {
    const by = new Map();
    for (const c of st.cells) {
      let e = by.get(c.stbIndex);
      if (!e) by.set(c.stbIndex, (e = { weight: 0, cells: 0, nearest: Infinity, terrains: new Map() }));
      e.weight += c.weight; e.cells++; e.nearest = Math.min(e.nearest, c.dist);
      const t = this.#terrainAt(c.objcellId);
      const name = t ? t.name : "?";
      const tt = e.terrains.get(name) || { n: 0, color: t ? t.color : 0x808080 };
      tt.n++;
      e.terrains.set(name, tt);
    }
    return by;
  }
}

function atLandmark(l, w) {
  return l.where.objcellId === w.objcellId && Math.abs(l.where.x - w.x) < 1 && Math.abs(l.where.y - w.y) < 1;
}

// An instance row: STB and sound, the terrains that weighted it, its share,
// chance or volume, and when it next fires.
function instanceRow() {
  const r = {
    stb: document.createTextNode(""), sub: el("span", { className: "sub" }), terr: el("td"), terrKey: null,
    share: el("td", { className: "num" }), val: el("td", { className: "num" }), next: el("td", { className: "num" }),
  };
  r.el = el("tr", {}, el("td", {}, r.stb, r.sub), r.terr, r.share, r.val, r.next);
  return r;
}

function fillInstance(r, s) {
  const on = s.soundCount > 0;
  r.el.classList.toggle("silent", !on);
  r.el.classList.toggle("hot", s.hot);
  const title = `STB #${s.stbIndex} sound ${s.soundIndex}, sType ${s.sType}; authored volume ${s.authored.volume}, ` +
    `base chance ${s.authored.baseChance}, rate ${s.authored.minRate}–${s.authored.maxRate} s`;
  if (r.el.title !== title) r.el.title = title;
  setText(r.stb, s.stbId);
  setText(r.sub, ` ${s.soundIndex} ${s.continuous ? "loop" : "rand"}`);
  // The terrains, most cells first: a swatch each, the first one named.
  const ts = s.from ? [...s.from.terrains].sort((a, b) => b[1].n - a[1].n) : [];
  const key = JSON.stringify(ts);
  if (key !== r.terrKey) {
    r.terrKey = key;
    if (!ts.length) r.terr.replaceChildren("—");
    else {
      r.terr.replaceChildren(...ts.flatMap(([n, t], k) => {
        const sw = el("span", { className: "sw", title: `${n}: ${t.n} cells`, style: { background: rgb(t.color) } });
        return k === 0 ? [sw, n] : [sw];
      }));
    }
  }
  setText(r.share, `${fmt(s.share * 100, 1)}%`);
  setText(r.val, s.continuous ? `vol ${fmt(s.currentVolume, 3)}` : `${fmt(s.playChance * 100, 1)}%`);
  setText(r.next, on && s.next >= 0 ? Math.max(0, s.next - s.time).toFixed(1) + " s" : "—");
}

// A voice: its wave, level, pan and placement, a meter, the time left, and
// the instance and cells it comes from.
function voiceRow() {
  const r = {
    wave: el("span", { className: "wave" }), how: el("span"), bar: el("i"), left: el("span", { className: "sub" }),
    from: el("div", { className: "from" }),
  };
  r.meter = el("span", { className: "meter" }, r.bar);
  r.el = el("li", {}, el("div", { className: "top" }, r.wave, r.how, r.meter, r.left), r.from);
  return r;
}

function fillVoice(r, v) {
  const lvl = Math.max(0, Math.min(1, (v.db + 50) / 50));
  const pan = v.pan === 0 ? "C" : v.pan > 0 ? `R${v.pan}` : `L${-v.pan}`;
  const where = v.dir ? `${DIR_NAME[v.dir]} ${fmt(v.dist, 0)} m` : "centred";
  setText(r.wave, v.wave);
  setText(r.how, `${v.db} dB · ${pan} · ${where}`);
  const gain = `gain ${fmt(v.gain, 4)}`;
  if (r.meter.title !== gain) r.meter.title = gain;
  r.bar.style.width = `${(lvl * 100).toFixed(0)}%`;
  setText(r.left, `${Math.max(0, v.end - v.time).toFixed(1)} s`);
  const e = v.from;
  const terr = e ? [...e.terrains].map(([n, t]) => `${n} ×${t.n}`).join(", ") : "";
  setText(r.from, `STB ${v.stbId ?? "?"} (#${v.stbIndex}) · SoundTable entry sType ${v.sType}, variant ${v.variant}` +
    (e ? ` · weighted by ${e.cells} cells (${terr}), nearest ${fmt(e.nearest, 0)} m` : ""));
}
