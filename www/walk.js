// walk.js: walks (docs/interfaces.md §3.2 amb.walk): a route, a list of
// positions, walked at a speed. The listener goes along the straight lines
// between the route's points, moved (setPlayer) every STEP seconds of the
// walk, z from the terrain; the same schedule, as a render's path
// (walkPath), is what the page's Download button renders, so the file is
// the walk.
import { BLOCK, mapCoord, mapText } from "./geo.js";

/** m/s: the page's run (movement.js RUN), a walk's default speed. */
export const RUN = 12;

/** Seconds of the walk between two moves of the listener. */
export const STEP = 0.1;

/**
 * The route's points in global metres {X, Y}, from any position setPlayer
 * takes whose place is plain from its text or keys: {X, Y}, {ns, ew},
 * {objcellId, x, y} (or an ACPosition's frame.origin), "@X,Y,Z",
 * "42.1N,33.6E", "0xXXYYCCCC/x,y,z" and the /loc form. Throws an Error with
 * code "bad-position" naming the point that is none of these.
 */
export function routeXY(route) {
  if (!Array.isArray(route) || route.length === 0) throw badPosition("a walk's route: want a list of positions");
  return route.map((p, i) => {
    const xy = pointXY(p);
    if (!xy) throw badPosition(`a walk's route, point ${i}: ${JSON.stringify(p)} is not a position (want {X, Y}, {ns, ew}, {objcellId, x, y} or a POS)`);
    return xy;
  });
}

/** The walk's length in metres along the route. */
export function routeLength(pts) {
  let d = 0;
  for (let i = 1; i < pts.length; i++) d += Math.hypot(pts[i].X - pts[i - 1].X, pts[i].Y - pts[i - 1].Y);
  return d;
}

/** The point d metres along the route (its ends beyond it). */
export function pointAt(pts, d) {
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1], b = pts[i], len = Math.hypot(b.X - a.X, b.Y - a.Y);
    if (d <= len && len > 0) {
      const f = Math.max(0, d) / len;
      return { X: a.X + f * (b.X - a.X), Y: a.Y + f * (b.Y - a.Y) };
    }
    d -= len;
  }
  const z = pts[pts.length - 1];
  return { X: z.X, Y: z.Y };
}

/**
 * The POS a walk moves the listener to at global metres (X, Y): map
 * coordinates to the micrometre-ish (6 digits: 0.24 mm), whose z the Go
 * side takes from the terrain, as setPlayer's {X, Y} does.
 */
export function walkPOS(X, Y) {
  return mapText(mapCoord(Y), mapCoord(X), 6, ",");
}

/**
 * The walk as a render's path (amb.render's `path`): the listener's
 * position at every STEP seconds from 0 to the route's end, and the end.
 * @returns {{t: number, player: string}[]}
 */
export function walkPath(route, { speed = RUN } = {}) {
  const pts = routeXY(route), v = checkSpeed(speed), L = routeLength(pts), T = L / v;
  const out = [];
  for (let k = 0; k * STEP < T; k++) {
    const p = pointAt(pts, k * STEP * v);
    out.push({ t: round(k * STEP), player: walkPOS(p.X, p.Y) });
  }
  const end = pts[pts.length - 1];
  out.push({ t: round(T), player: walkPOS(end.X, end.Y) });
  return out;
}

/**
 * Walks amb's listener along route at speed m/s: the first point at once,
 * then every STEP seconds of real time (timers may run late, as in a
 * background tab: the walk keeps to the clock, not to the count of steps)
 * the point it has reached, one setPlayer in flight at a time (a later
 * point waits, replacing an earlier one waiting). Resolves `done` at the
 * route's end (or at stop()).
 * @param amb   anything with setPlayer (an AmbientAudio)
 * @param opts  speed (m/s, default 12); move(p): how to move the listener
 *              to {X, Y} (default amb.setPlayer; the demo page moves its
 *              map with it); onError(e) for a move that failed (default:
 *              the walk stops and `done` rejects with it)
 */
export function walkRoute(amb, route, { speed = RUN, move, onError } = {}) {
  const pts = routeXY(route), v = checkSpeed(speed), L = routeLength(pts);
  const go = move ?? ((p) => amb.setPlayer(p));
  let timer = 0, stopped = false, inflight = false, queued = null, finish, fail;
  const done = new Promise((res, rej) => { finish = res; fail = rej; });
  done.catch(() => {}); // a caller that never looks at done is not told twice
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    finish();
  };
  const failed = (e) => {
    if (onError) { onError(e); return; }
    stopped = true;
    clearInterval(timer);
    fail(e);
  };
  const push = (p, last) => {
    queued = { p, last };
    if (!inflight) next();
  };
  const next = () => {
    if (!queued || stopped) { inflight = false; return; }
    const { p, last } = queued;
    queued = null;
    inflight = true;
    Promise.resolve().then(() => go(p)).then(() => { if (last) stop(); }, failed).finally(next);
  };
  const t0 = performance.now();
  const tick = () => {
    const d = ((performance.now() - t0) / 1000) * v;
    if (d >= L) { clearInterval(timer); push(pts[pts.length - 1], true); return; }
    push(pointAt(pts, d), false);
  };
  push(pts[0], L === 0);
  if (L > 0) timer = setInterval(tick, STEP * 1000);
  return { stop, done, length: L, seconds: L / v, speed: v };
}

function checkSpeed(speed) {
  const v = Number(speed);
  if (!(v > 0 && v < Infinity)) throw badPosition(`a walk's speed: ${speed} is not a speed in m/s (want > 0)`);
  return v;
}

// round: a step's time without the float's dust (0.30000000000000004 → 0.3),
// so a path reads as written.
function round(t) { return Math.round(t * 1e6) / 1e6; }

function badPosition(message) {
  const e = new Error("ambient: " + message);
  e.code = "bad-position";
  return e;
}

const NUM = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
const LOCAL = new RegExp(String.raw`^\s*(0x[0-9a-f]{8})\s*(?:/\s*|\[\s*)(${NUM})[\s,]+(${NUM})`, "i");
const GLOBAL = new RegExp(String.raw`^\s*@\s*(${NUM})\s*,\s*(${NUM})`);
const MAP = new RegExp(String.raw`^\s*(${NUM})\s*([NS])\s*,?\s*(${NUM})\s*([EW])`, "i");

// pointXY: the global metres of one route point, or null.
function pointXY(p) {
  if (typeof p === "string") {
    const s = p.replace(/^\s*Your location is:\s*/i, "");
    let m;
    if ((m = LOCAL.exec(s))) {
      const id = parseInt(m[1], 16) >>> 0;
      return { X: BLOCK * (id >>> 24) + Number(m[2]), Y: BLOCK * ((id >>> 16) & 0xff) + Number(m[3]) };
    }
    if ((m = GLOBAL.exec(s))) return { X: Number(m[1]), Y: Number(m[2]) };
    if ((m = MAP.exec(s))) {
      const ns = Number(m[1]) * (m[2].toUpperCase() === "S" ? -1 : 1), ew = Number(m[3]) * (m[4].toUpperCase() === "W" ? -1 : 1);
      return { X: metre(ew), Y: metre(ns) };
    }
    return null;
  }
  if (!p || typeof p !== "object") return null;
  if (Number.isFinite(p.X) && Number.isFinite(p.Y)) return { X: p.X, Y: p.Y };
  if (Number.isFinite(p.ns) && Number.isFinite(p.ew)) return { X: metre(p.ew), Y: metre(p.ns) };
  const cell = p.objcellId ?? p.objCellId ?? p.objcell_id ?? p.cellId ?? p.landcell;
  const o = p.frame?.origin ?? p.origin ?? p;
  if (cell !== undefined && Number.isFinite(o.x) && Number.isFinite(o.y)) {
    const id = (typeof cell === "string" ? parseInt(cell, 16) : Number(cell)) >>> 0;
    return { X: BLOCK * (id >>> 24) + o.x, Y: BLOCK * ((id >>> 16) & 0xff) + o.y };
  }
  return null;
}

// metre: the global metre of a map coordinate (the inverse of mapCoord).
function metre(c) { return (c * 10 + 1019.5) * 24; }
