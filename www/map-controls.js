// map-controls.js: the controls the project puts on a host's Leaflet map (the
// start button, the sound-zone toggle and legend, the captions), made so that
// the host can neither restyle nor bury them (docs/interfaces.md §4).
//
// Each control is a Leaflet control whose element (the light-DOM "host",
// classed for Leaflet's corners and for the page) holds a shadow root with the
// content and its own stylesheet. A host's CSS reset (Tailwind's preflight
// strips buttons of their background and border, and lists of their bullets)
// does not reach inside a shadow root, and the content sets every inherited
// property itself, so the text stays dark on white whatever the page's colours:
// WCAG contrast well above 4.5:1 on any map.
//
// Hosts also lay their own panels over a map's edges (a search box top left,
// a control bar top right). Each control checks that a click on it reaches it
// (document.elementFromPoint at its centre and at each of its interactive
// parts) and, when something else lies there, moves to the first corner where
// nothing does, saying so in one console line. It checks once laid out, on
// every map resize, and whenever the pointer enters the map (by then the
// host's panels are there).

/** Leaflet's corners, in the order a covered control tries them. */
export const CORNERS = ["bottomright", "topright", "bottomleft", "topleft"];

// The content's stylesheet. `all: initial` cuts what the host's element would
// pass down (colour, font, line height); everything is then set here. Colours:
// #1a1a1a on #fff is 17:1, #404040 (disabled) on #fff 10:1.
const STYLE = `
.box { all: initial; display: block; box-sizing: border-box; max-width: 260px; padding: 4px 8px;
  font: 12px/1.4 system-ui, sans-serif; color: #1a1a1a; background: #fff; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.4); }
.box[hidden] { display: none; }
button { all: initial; display: block; box-sizing: border-box; cursor: pointer; padding: 4px 10px;
  font: 13px/1.4 system-ui, sans-serif; color: #1a1a1a; background: #fff; border: 1px solid #6b6b6b;
  border-radius: 4px; box-shadow: 0 1px 4px rgba(0, 0, 0, 0.4); white-space: nowrap; }
button:disabled { cursor: default; color: #404040; }
button:focus-visible, input:focus-visible { outline: 2px solid #1d4ed8; outline-offset: 1px; }
label { cursor: pointer; display: inline-flex; align-items: center; gap: 4px; color: inherit; font: inherit; }
input[type="checkbox"] { all: revert; margin: 0; }
ul { list-style: none; margin: 4px 0 0; padding: 0; }
li { margin: 0; padding: 0; color: inherit; font: inherit; }
p { margin: 0; color: inherit; font: inherit; }
i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; border: 1px solid #6b6b6b; }
`;

/**
 * Adds a control to map in position and returns {host, root, check, remove}:
 * host is the control's element (class "leaflet-control " + className), root
 * its shadow root holding the stylesheet, where the caller builds the
 * content. Elements in root with a data-hit attribute are where a user
 * clicks; check() moves the control off a covered corner (see the file's
 * head); name is how console lines call it ("the start button").
 */
export function mapControl(map, Lf, { position, className, name }) {
  const host = document.createElement("div");
  host.className = "leaflet-control " + className;
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = STYLE;
  root.append(style);
  Lf.DomEvent.disableClickPropagation(host);
  Lf.DomEvent.disableScrollPropagation(host);
  const Control = Lf.Control.extend({ onAdd: () => host });
  const control = new Control({ position }).addTo(map);

  const check = () => uncover(control, host, root, name);
  const frame = requestAnimationFrame(check); // once the page has laid it out
  const container = map.getContainer();
  map.on("resize", check);
  container.addEventListener("pointerenter", check);
  return {
    host,
    root,
    check,
    remove() {
      cancelAnimationFrame(frame);
      map.off("resize", check);
      container.removeEventListener("pointerenter", check);
      control.remove();
    },
  };
}

/**
 * The start control: a button in corner that starts the audio from its click
 * (browsers start audio only on a gesture), then turns the sound off and on,
 * and says when the listener is off the data. It reads "♪ loading…" until
 * attach(amb) hands it the engine; fail(err) shows that loading failed.
 */
export function startControl(map, Lf, { corner = "bottomright" } = {}) {
  if (!CORNERS.includes(corner)) throw new Error(`startControl: corner ${JSON.stringify(corner)}: want one of ${CORNERS.join(", ")}`);
  const c = mapControl(map, Lf, { position: corner, className: "ac-ambient-button", name: "start button" });
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.hit = "";
  button.textContent = "♪ loading…";
  button.disabled = true;
  c.root.append(button);
  let amb = null, on = false, started = false, off = null;
  // The button says what is heard: off the data (a landblock the source
  // lacks) the listener is nowhere and its sound has faded out.
  const render = () => {
    button.textContent = off ? `${on ? "♪" : "▶"} no data here` : on ? "♪ ambient on" : "▶ ambient sound";
    button.title = off ? `no ambient data here: the source has no landblock ${off.landblock}` : "";
    button.setAttribute("aria-pressed", String(on));
  };
  const onState = (st) => {
    const now = (st && st.offData) || null;
    if ((now && now.landblock) !== (off && off.landblock)) {
      off = now;
      render();
    }
  };
  button.addEventListener("click", async () => {
    if (!amb) return;
    if (!started) {
      await amb.start(); // from this click
      started = true;
    } else {
      amb.setEnabled(!on);
    }
    on = !on;
    render();
  });
  return {
    element: c.host,
    button,
    check: c.check,
    attach(engine) {
      amb = engine;
      amb.on?.("state", onState);
      onState(amb.state?.());
      button.disabled = false;
      render();
      c.check(); // the host's panels have had the load's time to appear
    },
    fail(err) {
      button.textContent = "⚠ ambient";
      button.title = String((err && err.message) || err);
    },
    remove() {
      amb?.off?.("state", onState);
      c.remove();
    },
  };
}

// uncover keeps a control where a click reaches it: if the element at one of
// its points is something else (a host's panel laid over the map's edge), it
// tries the other corners in turn, and says where it went.
function uncover(control, host, root, name) {
  const from = control.getPosition(), over = coverOf(host, root);
  if (!over) return;
  for (const pos of CORNERS.filter((c) => c !== from)) {
    control.setPosition(pos);
    if (!coverOf(host, root)) {
      console.info(`leaflet-ambient.js: the ${name} in the ${from} corner is under ${describe(over)}; moved it to ${pos}`);
      return;
    }
  }
  control.setPosition(from);
  console.warn(`leaflet-ambient.js: the ${name} is covered in every corner (in ${from}, by ${describe(over)}); keyboard focus still reaches it`);
}

// coverOf is the element a click would reach instead of the control, at its
// centre or at the centre of one of its data-hit parts; null when every such
// point reaches it, or lies off screen (nothing to judge). Inside a shadow
// root, elementFromPoint answers the host.
function coverOf(host, root) {
  const rects = [host.getBoundingClientRect(), ...[...root.querySelectorAll("[data-hit]")].map((e) => e.getBoundingClientRect())];
  for (const r of rects) {
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (!(r.width > 0 && r.height > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight)) continue;
    const el = document.elementFromPoint(x, y);
    if (el && el !== host && !host.contains(el)) return el;
  }
  return null;
}

// describe names an element for a console line: tag#id, else tag.class.
function describe(el) {
  if (!el || !el.tagName) return "an unknown element";
  const cls = typeof el.className === "string" ? el.className.trim().split(/\s+/)[0] : "";
  return el.tagName.toLowerCase() + (el.id ? "#" + el.id : cls ? "." + cls : "");
}
