// movement.js: where the player is and which way the camera looks. Moves
// come from the Go box, the URL's hash, landmarks, the map (throttled: one
// setPlayer in flight, the latest wins) and the walking keys; each settled
// move is written to the hash, so a link carries the spot.
import { WORLD, posText } from "../geo.js";
import { routeXY } from "../walk.js";

const RUN = 12; // m/s: the walking keys move at running speed
const TURN = 90; // °/s: Q and E
const EDGE = 0.01; // m: moves stay this far inside the world
const COMPASS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
const WALK_KEYS = new Set(["ArrowUp", "KeyW", "ArrowDown", "KeyS", "ArrowLeft", "KeyA", "ArrowRight", "KeyD", "KeyQ", "KeyE"]);

const $ = (id) => document.getElementById(id);
const hashOf = (w) => (w ? posText(w) : "");

/**
 * walkStep: one frame of walking with the held keys (KeyboardEvent.code
 * values) from compass heading (°) over dt seconds. Up/down (W/S) go along
 * the heading, left/right (A/D) strafe, Q/E turn at 90°/s; diagonals are as
 * fast as straight lines. Returns the new heading (unwrapped), the move in
 * global metres (dx east, dy north) and whether a move key is held.
 */
export function walkStep(keys, heading, dt) {
  let h = heading;
  if (keys.has("KeyQ")) h -= TURN * dt;
  if (keys.has("KeyE")) h += TURN * dt;
  let f = 0, s = 0;
  if (keys.has("ArrowUp") || keys.has("KeyW")) f++;
  if (keys.has("ArrowDown") || keys.has("KeyS")) f--;
  if (keys.has("ArrowRight") || keys.has("KeyD")) s++;
  if (keys.has("ArrowLeft") || keys.has("KeyA")) s--;
  if (!f && !s) return { heading: h, dx: 0, dy: 0, moving: false };
  const r = (h * Math.PI) / 180, n = Math.hypot(f, s);
  return {
    heading: h,
    dx: ((f * Math.sin(r) + s * Math.cos(r)) / n) * RUN * dt,
    dy: ((f * Math.cos(r) - s * Math.sin(r)) / n) * RUN * dt,
    moving: true,
  };
}

/**
 * latestWins returns push(v): run(v) one call at a time. A value pushed
 * while a run is in flight waits, replacing any value waiting before it, so
 * a burst of moves costs the first and the last. A failed run goes to
 * onError; the next one runs all the same.
 */
export function latestWins(run, onError) {
  let inflight = false, waiting = false, queued;
  const next = () => {
    if (!waiting) { inflight = false; return; }
    const v = queued;
    waiting = false; queued = undefined; inflight = true;
    let p;
    try { p = Promise.resolve(run(v)); } catch (e) { p = Promise.reject(e); }
    p.catch(onError).finally(next);
  };
  return (v) => {
    queued = v; waiting = true;
    if (!inflight) next();
  };
}

export class Movement {
  #amb = null;
  #player = null; // the Where of the player (during a drag, ahead of the engine's)
  #heading = 0;
  #keys = new Set();
  #pushed = 0; // moveTo calls so far: a go answered after one keeps the player ahead
  #moves = 0; // moves made so far: one that settles after a later one began is superseded
  #jumps = 0; // go() calls (jumps, not the throttled moves of moveTo) so far
  #push;
  #onMoved;
  #onTurn;

  /**
   * @param onMoved the player moved: settled (the engine's answer) or a
   *                throttled move not yet answered; recentre asks the map
   *                to centre on it
   * @param onTurn  the heading changed
   */
  constructor({ onMoved, onTurn }) {
    this.#onMoved = onMoved;
    this.#onTurn = onTurn;
    // A move still waiting when a jump was made is dropped: it would run
    // after the jump, from the old place, and win (the latest setPlayer
    // does), putting the player back where it was walking.
    this.#push = latestWins((q) => (q.jumps === this.#jumps ? this.#go({ X: q.X, Y: q.Y }) : undefined), (e) => this.say(e.message));

    $("gotoForm").addEventListener("submit", (e) => {
      e.preventDefault();
      const v = $("gotoInput").value.trim();
      if (v) this.jump(v);
    });
    $("heading").addEventListener("input", (e) => this.setHeading(Number(e.target.value)));
    window.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== "range" && e.target.type !== "checkbox") return; // typing
      if (WALK_KEYS.has(e.code)) { this.#keys.add(e.code); e.preventDefault(); }
    });
    window.addEventListener("keyup", (e) => this.#keys.delete(e.code));
    window.addEventListener("blur", () => this.#keys.clear());
    window.addEventListener("hashchange", () => {
      const h = this.hashPos();
      if (this.#amb && h && h !== hashOf(this.#player)) this.jump(h);
    });
  }

  /** Moves go to amb from now on (null: nowhere); the player is forgotten. */
  attach(amb) {
    this.#amb = amb;
    this.#player = null;
  }

  get player() { return this.#player; }
  get heading() { return this.#heading; }

  /**
   * The position in the URL's hash, or null: %-decoded (a pasted /loc line
   * arrives as %20 and %5B), or as it stands when it is no valid
   * %-encoding ("#50%"), for setPlayer to judge.
   */
  hashPos() {
    if (location.hash.length <= 1) return null;
    const raw = location.hash.slice(1);
    try { return decodeURIComponent(raw); } catch { return raw; }
  }

  /**
   * go moves the player to pos (any form setPlayer takes) and the camera
   * with it; resolves with the engine's Where. recentre: centre the map on
   * it (the map also centres when the player leaves its view). A go that
   * settles after a later one began (a walk's step waiting on its
   * landblock through a bad network, then a landmark's jump) is superseded,
   * as setPlayer's latest call wins in the engine: it answers its own
   * position but moves neither the player, the camera nor the hash.
   */
  go(pos, recentre = false) {
    this.#jumps++;
    return this.#go(pos, recentre);
  }

  async #go(pos, recentre = false) {
    const amb = this.#amb;
    if (!amb) throw new Error("no data source loaded");
    const n = ++this.#moves, before = this.#player;
    // The player goes at once where pos plainly is (a landmark, a link):
    // walking keys held while its records load walk on from there. From
    // the old place, their moves superseded the jump, and the player
    // stayed where it was (soak's fault case: a jump while walking).
    const to = before && xyOf(pos);
    if (to) this.#player = { ...before, X: to.X, Y: to.Y };
    const pushed = this.#pushed;
    let w;
    try {
      w = await amb.setPlayer(pos);
    } catch (e) {
      if (amb === this.#amb && n === this.#moves && pushed === this.#pushed) this.#player = before; // it went nowhere
      throw e;
    }
    if (amb !== this.#amb || n !== this.#moves) return w; // the source changed, or a later move was made, meanwhile
    // A walk's frames moved the player on while this one was answered: the
    // player is ahead of w, and taking w would pull it back (a walk lost a
    // third of its distance when setPlayer's answer took a few frames).
    // The panel, the camera and the hash still follow the engine's w.
    if (pushed === this.#pushed || !this.#player) this.#player = w;
    await amb.setCamera({ objcellId: w.objcellId, x: w.x, y: w.y, z: w.z }, this.#heading);
    if (amb !== this.#amb || n !== this.#moves) return w;
    history.replaceState(null, "", "#" + hashOf(w));
    this.say("");
    this.#onMoved(w, { recentre, settled: true });
    return w;
  }

  /** go, recentred, its failure shown under the Go box. */
  jump(pos) {
    this.go(pos, true).catch((e) => this.say(e.message));
  }

  /** moveTo: the throttled move of clicking, dragging and walking, to global metres (X, Y). */
  moveTo(X, Y) {
    X = Math.min(Math.max(X, EDGE), WORLD - EDGE);
    Y = Math.min(Math.max(Y, EDGE), WORLD - EDGE);
    this.#pushed++;
    if (this.#player) {
      this.#player = { ...this.#player, X, Y };
      this.#onMoved(this.#player, { recentre: false, settled: false });
    }
    this.#push({ X, Y, jumps: this.#jumps });
  }

  /** Turns the camera to compass heading h (°). */
  setHeading(h) {
    const heading = (this.#heading = ((h % 360) + 360) % 360);
    $("heading").value = Math.round(heading);
    $("headingOut").textContent = `${Math.round(heading)}° ${COMPASS[Math.round(heading / 45) % 8]}`;
    const p = this.#player, amb = this.#amb;
    if (p && amb) amb.setCamera({ objcellId: p.objcellId, x: p.x, y: p.y, z: p.z }, heading).catch(() => {});
    this.#onTurn();
  }

  /** One frame of walking with the held keys, dt seconds long. */
  walk(dt) {
    const k = this.#keys;
    if (!k.size || !this.#player) return;
    const s = walkStep(k, this.#heading, dt);
    if (k.has("KeyQ") || k.has("KeyE")) this.setHeading(s.heading);
    if (s.moving) this.moveTo(this.#player.X + s.dx, this.#player.Y + s.dy);
  }

  /** The line under the Go box: a move's failure ("" clears it). */
  say(msg) {
    $("gotoErr").textContent = msg;
  }
}

// xyOf: the global metres {X, Y} of a position whose place is plain from
// its text or keys (walk.js routeXY), else null.
function xyOf(pos) {
  try { return routeXY([pos])[0]; } catch { return null; }
}
