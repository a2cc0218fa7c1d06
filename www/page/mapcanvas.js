// mapcanvas.js: the map. A view (centre and scale) over the world in global
// metres, north up; the landblock tiles, the sound-zone layer when shown,
// the grid, the heat map of the cells
// that weighted the engine's last rebuild, its 3×3 ring, the hearing radius,
// the voices where the engine placed them, and the player with the camera's
// heading. The pointer pans (drag), zooms (wheel) and picks where to move
// (click, or dragging the player's marker).
import { BLOCK, BLOCKS, CELL, blockOf, cellOf } from "../geo.js";

// Compass degrees of the direction bands 1..8 (docs/retail.md §R3; panel.js names them).
const DIR_DEG = [0, 0, 180, 90, 270, 315, 225, 45, 135];
const HEARING_M = 120; // the hearing radius drawn around the player
const MARKER_PX = 14; // a press this close to the player drags the marker
const DRAG_PX = 4; // a press that moves less is a click
const MAX_TILES = 900; // zoomed out past this many blocks, draw only the tiles already here
const MARGIN_PX = 20; // the player is off the view this close to its edge
const ZONES_ALPHA = 0.6; // the sound-zone layer over the tiles

export class MapCanvas {
  #c;
  #view = { cx: 0, cy: 0, scale: 0.5 }; // global metres at the centre; px per metre
  #dirty = true;
  #pending = 0; // tiles the last drawing showed as on their way
  #down = null; // the press being dragged
  #last;
  #tiles;
  #scene;
  #onPick;
  #onFrame;

  /**
   * @param canvas  the canvas element
   * @param tiles   the TileStore to draw from
   * @param scene   what to draw: whether a source is loaded, its bounds, the player, heading and the engine's state
   * @param onPick  the user picked global metres (X, Y) to move to
   * @param onFrame called each animation frame with its length (s), before drawing
   */
  constructor(canvas, { tiles, scene, onPick, onFrame }) {
    this.#c = canvas;
    this.#tiles = tiles;
    this.#scene = scene;
    this.#onPick = onPick;
    this.#onFrame = onFrame;
    const fit = () => {
      const r = devicePixelRatio || 1;
      canvas.width = Math.max(1, Math.round(canvas.clientWidth * r));
      canvas.height = Math.max(1, Math.round(canvas.clientHeight * r));
      this.#dirty = true;
    };
    new ResizeObserver(fit).observe(canvas);
    fit();
    this.#pointer();
    this.#last = performance.now();
    const frame = (now) => {
      const dt = Math.min(0.1, (now - this.#last) / 1000);
      this.#last = now;
      this.#onFrame(dt);
      // Only what changed is drawn again: a state event, a move, a turn,
      // a tile, the view. Redrawing the same state every frame while voices
      // sounded took the main thread ~60 times a second, 10–40 ms a time
      // in a software-rendered tab, from the audio callbacks (issue 23).
      if (this.#dirty) { this.#draw(); this.#dirty = false; }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  /** Centres the view on global metres (X, Y). */
  centre(X, Y) {
    this.#view.cx = X;
    this.#view.cy = Y;
    this.#dirty = true;
  }

  /** Whether (X, Y) lies outside the view (or within 20 px of its edge). */
  offView(X, Y) {
    const c = this.#c, v = this.#view;
    const dx = (X - v.cx) * v.scale, dy = (Y - v.cy) * v.scale;
    return Math.abs(dx) > c.clientWidth / 2 - MARGIN_PX || Math.abs(dy) > c.clientHeight / 2 - MARGIN_PX;
  }

  /** The canvas point (CSS pixels from its top left) of global metres (X, Y). */
  screenOf(X, Y) { return this.#toScreen(X, Y); }

  /** Redraw at the next frame. */
  invalidate() { this.#dirty = true; }

  /** Whether the map is drawn as it stands: nothing to redraw, no tile on its way. */
  get drawn() { return !this.#dirty && this.#pending === 0; }

  /** Gives the map the keyboard (the walking keys). */
  focus() { this.#c.focus(); }

  #toScreen(X, Y) {
    const c = this.#c, v = this.#view;
    return [c.clientWidth / 2 + (X - v.cx) * v.scale, c.clientHeight / 2 - (Y - v.cy) * v.scale];
  }

  #toWorld(x, y) {
    const c = this.#c, v = this.#view;
    return [v.cx + (x - c.clientWidth / 2) / v.scale, v.cy - (y - c.clientHeight / 2) / v.scale];
  }

  #pointer() {
    const c = this.#c, v = this.#view;
    c.addEventListener("pointerdown", (e) => {
      c.setPointerCapture(e.pointerId);
      const p = this.#scene().player;
      const [px, py] = p ? this.#toScreen(p.X, p.Y) : [0, 0];
      const onMarker = !!p && Math.hypot(px - e.offsetX, py - e.offsetY) < MARKER_PX;
      this.#down = { x: e.offsetX, y: e.offsetY, cx: v.cx, cy: v.cy, moved: false, marker: onMarker };
    });
    c.addEventListener("pointermove", (e) => {
      const d = this.#down;
      if (!d) return;
      if (Math.hypot(e.offsetX - d.x, e.offsetY - d.y) > DRAG_PX) d.moved = true;
      if (!d.moved) return;
      if (d.marker) {
        this.#onPick(...this.#toWorld(e.offsetX, e.offsetY));
      } else {
        v.cx = d.cx - (e.offsetX - d.x) / v.scale;
        v.cy = d.cy + (e.offsetY - d.y) / v.scale;
        this.#dirty = true;
      }
    });
    c.addEventListener("pointerup", (e) => {
      if (this.#down && !this.#down.moved) this.#onPick(...this.#toWorld(e.offsetX, e.offsetY));
      this.#down = null;
    });
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      // Zoom about the point under the pointer.
      const [X, Y] = this.#toWorld(e.offsetX, e.offsetY);
      v.scale = Math.min(8, Math.max(0.01, v.scale * Math.exp(-e.deltaY * 0.0015)));
      const [X2, Y2] = this.#toWorld(e.offsetX, e.offsetY);
      v.cx += X - X2; v.cy += Y - Y2;
      this.#dirty = true;
    }, { passive: false });
  }

  #draw() {
    const c = this.#c, g = c.getContext("2d"), scale = this.#view.scale;
    const r = devicePixelRatio || 1, W = c.clientWidth, H = c.clientHeight;
    g.setTransform(r, 0, 0, r, 0, 0);
    g.fillStyle = "#0e1116";
    g.fillRect(0, 0, W, H);
    const { live, bounds, player, heading, state: st, zones, route } = this.#scene();
    if (!live) return;
    const [X0, Y1] = this.#toWorld(0, 0), [X1, Y0] = this.#toWorld(W, H);
    const B = bounds || { bx0: 0, by0: 0, bx1: BLOCKS - 1, by1: BLOCKS - 1 };
    const bx0 = Math.max(B.bx0, blockOf(X0)), bx1 = Math.min(B.bx1, blockOf(X1));
    const by0 = Math.max(B.by0, blockOf(Y0)), by1 = Math.min(B.by1, blockOf(Y1));
    const bpx = BLOCK * scale;
    g.imageSmoothingEnabled = false;
    const many = (bx1 - bx0 + 1) * (by1 - by0 + 1) > MAX_TILES;
    this.#pending = 0;
    for (let bx = bx0; bx <= bx1; bx++) for (let by = by0; by <= by1; by++) {
      const t = many ? this.#tiles.get(bx, by) : this.#tiles.want(bx, by);
      const [sx, sy] = this.#toScreen(bx * BLOCK, (by + 1) * BLOCK);
      if (t && t !== "pending") g.drawImage(t.img, sx, sy, bpx + 0.5, bpx + 0.5);
      else if (t === "pending") { g.fillStyle = "#1a1f27"; g.fillRect(sx, sy, bpx, bpx); this.#pending++; }
    }
    if (zones) {
      // One pixel per land cell, placed by its bounds, unsmoothed.
      const [[south, west], [north, east]] = zones.bounds;
      const [sx, sy] = this.#toScreen(west, north);
      g.globalAlpha = ZONES_ALPHA;
      g.drawImage(zones.image, sx, sy, (east - west) * scale, (north - south) * scale);
      g.globalAlpha = 1;
    }
    // Grid: land cells when zoomed in, landblocks otherwise.
    g.lineWidth = 1;
    if (CELL * scale >= 14) {
      g.strokeStyle = "#00000030";
      g.beginPath();
      for (let X = Math.ceil(X0 / CELL) * CELL; X <= X1; X += CELL) { const x = Math.round(this.#toScreen(X, 0)[0]) + 0.5; g.moveTo(x, 0); g.lineTo(x, H); }
      for (let Y = Math.ceil(Y0 / CELL) * CELL; Y <= Y1; Y += CELL) { const y = Math.round(this.#toScreen(0, Y)[1]) + 0.5; g.moveTo(0, y); g.lineTo(W, y); }
      g.stroke();
    }
    if (bpx >= 8) {
      g.strokeStyle = "#00000066";
      g.beginPath();
      for (let bx = bx0; bx <= bx1 + 1; bx++) { const x = Math.round(this.#toScreen(bx * BLOCK, 0)[0]) + 0.5; g.moveTo(x, 0); g.lineTo(x, H); }
      for (let by = by0; by <= by1 + 1; by++) { const y = Math.round(this.#toScreen(0, by * BLOCK)[1]) + 0.5; g.moveTo(0, y); g.lineTo(W, y); }
      g.stroke();
    }
    if (route && route.length) this.#drawRoute(g, route);
    if (!player) return;
    this.#drawHeard(g, player, st, bpx);
    this.#drawPlayer(g, player, heading);
  }

  // #drawHeard: the heat map of the cells that weighted the last rebuild,
  // the 3×3 ring the engine gathers from, the hearing radius, and the voices
  // where the engine put them (direction band and distance).
  #drawHeard(g, player, st, bpx) {
    const scale = this.#view.scale;
    const pbx = blockOf(player.X), pby = blockOf(player.Y);
    if (st && st.cells.length) {
      for (const cw of st.cells) {
        const cell = cellOf(cw.objcellId);
        if (!cell) continue;
        const [sx, sy] = this.#toScreen(cell.X, cell.Y + CELL);
        g.fillStyle = `rgba(255, 140, 40, ${(0.16 + 0.64 * Math.sqrt(cw.weight)).toFixed(3)})`;
        g.fillRect(sx, sy, CELL * scale, CELL * scale);
        if (CELL * scale >= 34) {
          g.fillStyle = "#fff";
          g.font = "10px system-ui, sans-serif";
          g.fillText(cw.weight.toFixed(cw.weight < 0.1 ? 3 : 2), sx + 3, sy + 12);
        }
      }
    }
    {
      const [sx, sy] = this.#toScreen((pbx - 1) * BLOCK, (pby + 2) * BLOCK);
      g.strokeStyle = "#f0b44c";
      g.setLineDash([6, 4]);
      g.lineWidth = 1.5;
      g.strokeRect(sx, sy, 3 * bpx, 3 * bpx);
      g.setLineDash([]);
      g.strokeStyle = "#f0b44c88";
      const [ix, iy] = this.#toScreen(pbx * BLOCK, (pby + 1) * BLOCK);
      g.strokeRect(ix, iy, bpx, bpx);
    }
    const [px, py] = this.#toScreen(player.X, player.Y);
    g.strokeStyle = "#5cc8ff55";
    g.lineWidth = 1;
    g.beginPath();
    g.arc(px, py, HEARING_M * scale, 0, 2 * Math.PI);
    g.stroke();
    if (!st) return;
    for (const v of st.voices) {
      const lvl = Math.max(0.15, Math.min(1, (v.db + 50) / 50));
      if (v.dir) {
        const h = (DIR_DEG[v.dir] * Math.PI) / 180;
        const [vx, vy] = this.#toScreen(player.X + Math.sin(h) * v.dist, player.Y + Math.cos(h) * v.dist);
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

  // #drawRoute: a walk's route (page/walks.js), its points numbered.
  #drawRoute(g, route) {
    g.strokeStyle = "#e8e2ff";
    g.lineWidth = 2;
    g.setLineDash([8, 5]);
    g.beginPath();
    route.forEach((p, i) => { const [x, y] = this.#toScreen(p.X, p.Y); if (i) g.lineTo(x, y); else g.moveTo(x, y); });
    g.stroke();
    g.setLineDash([]);
    g.font = "bold 11px system-ui, sans-serif";
    route.forEach((p, i) => {
      const [x, y] = this.#toScreen(p.X, p.Y);
      g.fillStyle = "#6d55d9";
      g.beginPath(); g.arc(x, y, 8, 0, 2 * Math.PI); g.fill();
      g.fillStyle = "#fff";
      g.fillText(String(i + 1), x - (i + 1 >= 10 ? 6 : 3), y + 4);
    });
    g.lineWidth = 1;
  }

  // #drawPlayer: the player's marker and the camera's heading as a wedge.
  #drawPlayer(g, player, heading) {
    const [px, py] = this.#toScreen(player.X, player.Y);
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
}
