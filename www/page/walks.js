// walks.js: the demo page's walks (docs/interfaces.md §3.2 amb.walk,
// amb.render). "Walk" plans one: a click on the map or a landmark's button
// adds a point to the route; "Go" walks it at the speed given (the map
// follows the listener); "Download" renders it to a WAV, byte for byte
// what `go run . render -path walk.jsonl -seconds N -seed S` writes. The
// route, the speed and the seed ride in the URL (?walk=POS&walk=POS&speed=12),
// so a link replays the same walk for anyone who opens it.
import { mapCoord, mapText } from "../geo.js";
import { RUN, routeLength, routeXY, walkPath } from "../walk.js";
import { el } from "./dom.js";

const $ = (id) => document.getElementById(id);

// Seconds of sound a download adds after the walk's end: the last
// place's sounds, heard standing there.
const TAIL_S = 3;

export class Walks {
  #amb;
  #move;
  #onChange;
  #route = []; // POS strings (a link's, a landmark's, a map click's map coordinates)
  #speed = RUN;
  #seed = 0;
  #planning = false;
  #walk = null; // the walk under way (amb.walk's handle)
  #fromLink = false; // the route came with the page's URL, not yet walked
  #rendering = false;
  #fileURL = ""; // the last download's object URL, let go at the next

  /**
   * @param amb      the AmbientAudio in use now, or null
   * @param move     moves the listener (and the map) to global metres {X, Y}
   * @param onChange the route or the walk changed: the map redraws
   */
  constructor({ amb, move, onChange }) {
    this.#amb = amb;
    this.#move = move;
    this.#onChange = onChange;
    $("walkPlan").addEventListener("click", () => this.plan(!this.#planning));
    $("walkGo").addEventListener("click", () => (this.#walk ? this.stop() : this.start()));
    $("walkClear").addEventListener("click", () => this.clear());
    $("walkDownload").addEventListener("click", () => this.download());
    $("walkSpeed").addEventListener("change", (e) => {
      const v = Number(e.target.value);
      if (v > 0 && v <= 1000) this.#speed = v;
      e.target.value = String(this.#speed);
      this.#changed();
    });
    this.#read(location.href);
    this.#show();
  }

  /** Whether map clicks and landmarks add to the route. */
  get planning() { return this.#planning; }

  /** Whether a walk is under way. */
  get walking() { return !!this.#walk; }

  /** Whether the page was opened with a route it has not walked yet. */
  get fromLink() { return this.#fromLink; }

  /** The route in global metres, for the map (an unreadable point left out). */
  get points() {
    const out = [];
    for (const p of this.#route) { try { out.push(...routeXY([p])); } catch { /* said when walked */ } }
    return out;
  }

  /** The route's first point, where a page opened by a walk's link stands first; null without one. */
  first() { return this.#route.length ? this.#route[0] : null; }

  /** A sentence on the route: its points, length and time at its speed. */
  describe() {
    const pts = this.points, L = routeLength(pts);
    return `a walk of ${pts.length} points, ${Math.round(L)} m, ${fmtTime(L / this.#speed)} at ${this.#speed} m/s`;
  }

  /** Planning on or off. */
  plan(on) {
    this.#planning = !!on;
    this.#show();
  }

  /** Adds a point: a POS string, or global metres X, Y (a map click). */
  add(pos, Y) {
    if (typeof pos === "number") pos = mapText(mapCoord(Y), mapCoord(pos), 4, ",");
    this.#route.push(pos);
    this.#fromLink = false;
    this.#changed();
  }

  clear() {
    this.stop();
    this.#route = [];
    this.#fromLink = false;
    this.#changed();
  }

  /** Walks the route from its first point. */
  start() {
    const amb = this.#amb();
    if (!amb || this.#route.length < 2) return;
    this.stop();
    this.#fromLink = false;
    this.#planning = false;
    let w;
    try {
      w = amb.walk(this.#route, { speed: this.#speed, move: (p) => this.#move(p) });
    } catch (e) {
      this.#say(e.message);
      return;
    }
    this.#walk = w;
    this.#say(`Walking ${this.describe()}…`);
    w.done.then(() => {
      if (this.#walk !== w) return;
      this.#walk = null;
      this.#say("The walk is over.");
      this.#show();
    }, (e) => {
      if (this.#walk !== w) return;
      this.#walk = null;
      this.#say(e.message);
      this.#show();
    });
    this.#show();
  }

  stop() {
    const w = this.#walk;
    this.#walk = null;
    if (w) { w.stop(); this.#say("Stopped."); }
    this.#show();
  }

  /**
   * Renders the route to a WAV and offers it as a file, with the path it
   * rendered (walk.jsonl) for `go run . render -path`.
   */
  async download() {
    const amb = this.#amb();
    if (!amb || this.#route.length < 2 || this.#rendering) return;
    let path;
    try {
      path = walkPath(this.#route, { speed: this.#speed });
    } catch (e) {
      this.#say(e.message);
      return;
    }
    const seconds = Math.ceil(path[path.length - 1].t) + TAIL_S;
    this.#rendering = true;
    this.#show();
    const t0 = performance.now();
    try {
      const blob = await amb.render({ path, seconds, seed: this.#seed,
        onProgress: (p) => this.#say(`Rendering ${Math.floor((100 * p.done) / p.total)}%…`) });
      const secs = (performance.now() - t0) / 1000;
      if (this.#fileURL) URL.revokeObjectURL(this.#fileURL);
      this.#fileURL = URL.createObjectURL(blob);
      const name = `walk-${Math.round(routeLength(this.points))}m-${this.#speed}ms-seed${this.#seed}`;
      const wav = el("a", { href: this.#fileURL, download: name + ".wav" }, `${name}.wav`);
      const lines = path.map((s) => JSON.stringify(s)).join("\n") + "\n";
      const jsonl = el("a", { href: "data:application/jsonl;charset=utf-8," + encodeURIComponent(lines), download: name + ".jsonl" }, "its path");
      $("walkMsg").replaceChildren(`Rendered ${seconds} s in ${secs.toFixed(1)} s (${(seconds / secs).toFixed(1)}× real time): `, wav,
        ` (${(blob.size / 1048576).toFixed(1)} MB; `, jsonl, ` for go run . render -path … -seconds ${seconds} -seed ${this.#seed})`);
      wav.click();
    } catch (e) {
      this.#say("Could not render the walk: " + e.message);
    } finally {
      this.#rendering = false;
      this.#show();
    }
  }

  /** The page's URL with the route, speed and seed in its query (none without a route). */
  link(href) {
    const u = new URL(href);
    u.searchParams.delete("walk");
    u.searchParams.delete("speed");
    u.searchParams.delete("seed");
    if (this.#route.length) {
      for (const p of this.#route) u.searchParams.append("walk", p);
      u.searchParams.set("speed", String(this.#speed));
      if (this.#seed) u.searchParams.set("seed", String(this.#seed));
    }
    return u.href;
  }

  // #read takes a walk from a link: ?walk=POS (repeated), speed, seed.
  #read(href) {
    const q = new URL(href).searchParams;
    this.#route = q.getAll("walk").filter((p) => p.trim() !== "");
    const v = Number(q.get("speed"));
    if (q.has("speed") && v > 0 && v <= 1000) this.#speed = v;
    const s = Number(q.get("seed"));
    if (Number.isInteger(s) && s >= 0 && s <= 0xffffffff) this.#seed = s;
    this.#fromLink = this.#route.length >= 2;
    $("walkSpeed").value = String(this.#speed);
  }

  #changed() {
    history.replaceState(null, "", this.link(location.href));
    this.#show();
    this.#onChange();
  }

  #say(msg) { $("walkMsg").textContent = msg; }

  #show() {
    const n = this.#route.length, plan = $("walkPlan");
    plan.setAttribute("aria-pressed", String(this.#planning));
    plan.textContent = this.#planning ? "Done planning" : "Walk";
    $("walkGo").textContent = this.#walk ? "Stop" : "Go";
    $("walkGo").disabled = !this.#walk && n < 2;
    $("walkClear").disabled = n === 0;
    $("walkDownload").disabled = n < 2 || this.#rendering;
    $("walkRoute").replaceChildren(...this.#route.map((p) => el("li", {}, p)));
    if (this.#planning && !this.#walk && !this.#rendering) {
      this.#say(n ? `${this.describe()}. Click the map or a landmark to add a point.` : "Click the map or a landmark to add the walk's points.");
    }
    this.#onChange();
  }
}

function fmtTime(s) {
  const m = Math.floor(s / 60), r = Math.round(s - 60 * m);
  return m ? `${m} min ${r} s` : `${r} s`;
}
