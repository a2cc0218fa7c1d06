// Types of www/walk.js: walks along a route (docs/interfaces.md §3.2 amb.walk).
import type { PositionInput, Where } from "./ambient";

/** Global metres. */
export interface XY {
  X: number;
  Y: number;
}

/** 12 m/s: the page's run, a walk's default speed. */
export const RUN: 12;
/** 0.1 s: the walk's time between two moves of the listener. */
export const STEP: 0.1;

/** A walk under way. */
export interface WalkHandle {
  /** Stops the walk where it is (the listener stays there). */
  stop(): void;
  /** Resolves at the route's end or at stop(); rejects with a move's failure when no onError was given. */
  done: Promise<void>;
  /** Metres along the route. */
  length: number;
  /** How long the walk lasts at its speed. */
  seconds: number;
  /** m/s. */
  speed: number;
}

export interface WalkOptions {
  /** m/s; default 12. */
  speed?: number;
  /** Moves the listener to a point of the walk (default: amb.setPlayer). */
  move?: (p: XY) => unknown;
  /** A move that failed; without it the walk stops and `done` rejects. */
  onError?: (e: Error) => void;
}

/** The route's points in global metres; throws a "bad-position" Error for a point that is no position. */
export function routeXY(route: PositionInput[]): XY[];
export function routeLength(pts: XY[]): number;
export function pointAt(pts: XY[], d: number): XY;
/** The POS (map coordinates, 6 digits) a walk moves the listener to at (X, Y). */
export function walkPOS(X: number, Y: number): string;
/** The walk as amb.render's path: a step every 0.1 s of the walk, and its end. */
export function walkPath(route: PositionInput[], opts?: { speed?: number }): { t: number; player: string }[];
/** Walks amb's listener along route. */
export function walkRoute(amb: { setPlayer(p: PositionInput): Promise<Where> }, route: PositionInput[], opts?: WalkOptions): WalkHandle;
