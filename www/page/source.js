// source.js: the data source the page reads, and the Data source box. A
// source is {server, api}: server "" is this page's own origin (`serve`
// answers the built-in demo world or the dats it was started with), api
// "acdatservice" reads acdatservice's /dats/{dat}/files/ routes, "ours" the
// /files/ routes of `serve` and `export` (docs/interfaces.md §3). The page's
// home source is this origin, or the default that `export -source` wrote into
// its <meta name="acambient-source">. The choice comes from the URL
// (?server=…&api=…, a shared link), else the one remembered, else home.
// Failures are put in plain words, by their codes, with the other sources
// offered: the page never switches to another source by itself.
import { hexId, landblockId, parseId } from "../geo.js";
import { el } from "./dom.js";

const SOURCE_KEY = "acambient.source"; // localStorage: the chosen data source
const REGION = 0x13000000; // the region record every client loads first

const $ = (id) => document.getElementById(id);

/**
 * A source as typed or stored, made whole: no blanks around it, no trailing
 * slash, https when no scheme, api "ours" unless "acdatservice". Whole in one
 * pass: the slashes and blanks at its end go together, in any order (" x \t/"
 * is "x", where a trim before the slashes left "x \t" for a second pass),
 * scanned once from the end rather than by a regex, which backtracks over a
 * run of them not at the end (/\/+$/ took 7 s in node on 80 000 slashes and
 * a letter; a shared link's ?server= is anyone's).
 */
export function normSource(s) {
  let server = String((s && s.server) || "").trimStart();
  let end = server.length;
  while (end > 0 && (server[end - 1] === "/" || /\s/.test(server[end - 1]))) end--;
  server = server.slice(0, end);
  if (server && !/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = "https://" + server;
  return { server, api: s && s.api === "acdatservice" ? "acdatservice" : "ours" };
}

/**
 * The page's default source as `export -source` wrote it (the content of
 * <meta name="acambient-source">, a query string "server=…&api=…"), or null
 * when the page reads its own origin.
 */
export function pageDefault(doc = document) {
  const m = doc.querySelector('meta[name="acambient-source"]');
  const q = new URLSearchParams((m && m.getAttribute("content")) || "");
  return q.get("server") ? normSource({ server: q.get("server"), api: q.get("api") }) : null;
}

/** Whether two sources are the same (both made whole). */
export function sameSource(a, b) {
  const x = normSource(a), y = normSource(b);
  return x.server === y.server && x.api === y.api;
}

/**
 * How the page names the world a source holds, from its info: "the demo
 * world", "real Dereth" (retail's region is named Dereth, docs/dat-format.md
 * §3.1), another region by its name.
 */
export function worldName(info) {
  if (!info) return "the dats";
  if (info.demo) return "the demo world";
  if (info.region === "Dereth") return "real Dereth";
  return info.region ? `the region "${info.region}"` : "the dats";
}

/** How the page names a source: its host, or "this server". */
export function sourceName(src) {
  try { return src.server ? new URL(src.server).host : "this server"; } catch { return src.server; }
}

/** The option of the kind control that picks src ("here" is home). */
function kindOf(src, home) {
  return sameSource(src, home) ? "here" : src.api === "acdatservice" ? "acdatservice" : "url";
}

/** The words for a source that has the region but not landblock (a LandBlock id). */
export function noCells(src, landblock) {
  return `${sourceName(src)} has the region but no cell records: landblock ${landblock} is not there (404), so there is no land to hear. ` +
    "It serves a portal dat without a cell dat (client_cell_1.dat).";
}

/**
 * The LandBlock id ("0xA9B5FFFF") a failed move lacked, or null when the
 * failure is another: a "missing-landblock" error, or "not-found" for a
 * LandBlock record.
 */
export function missingLandblock(err) {
  const code = err && err.code;
  if (code === "missing-landblock" || (code === "not-found" && (parseId(err.id) & 0xffff) === 0xffff)) {
    const n = parseId(code === "not-found" ? err.id : err.landblock);
    return hexId(landblockId(n >>> 24, (n >>> 16) & 0xff));
  }
  return null;
}

/** The words for a move that failed while connecting: a missing landblock is a source without cell records. */
export function moveFailure(err, src) {
  const block = missingLandblock(err);
  return block ? noCells(src, block) : String((err && err.message) || err);
}

/**
 * loadFailure puts a rejection of AmbientAudio.load in plain words. page is
 * where the page runs: the {origin, protocol} of its location.
 */
export function loadFailure(err, src, page) {
  const name = sourceName(src);
  const where = src.server || page.origin;
  switch (err && err.code) {
    case "network":
      return mixedContent(src, page) ? mixedWords(name) : unreachableWords(name, where);
    case "cors":
      return corsWords(name);
    case "wrong-api":
      return wrongAPIWords(src);
    case "not-found":
      if (parseId(err.id) === REGION) return wrongAPIWords(src);
      break;
    case "missing-landblock":
      return moveFailure(err, src);
  }
  return `Could not load from ${name}: ${(err && err.message) || err}`;
}

/**
 * troubleWords puts state().loading.trouble in plain words: what is wrong
 * with the way to the records, that what plays goes on, and when the page
 * asks again. src names the source.
 */
export function troubleWords(t, src) {
  const what = networkWhat(t, src);
  if (t.reason === "slow") return `${what}; what plays goes on.`;
  return `${what}. What plays goes on; ` + (t.retryIn >= 0.5 ? `asking again in ${Math.ceil(t.retryIn)} s.` : "asking again now.");
}

/** A "network" error in plain words (by its reason and status), else its message. */
export function networkWords(err, src) {
  if (!err || err.code !== "network" || !err.reason) return String((err && err.message) || err);
  return `${networkWhat(err, src)} (a record did not arrive; the page asks again).`;
}

// networkWhat: what is wrong, for a reason ("no-answer", "status",
// "stalled", "slow", else damaged) with its status, Retry-After and rate.
function networkWhat(t, src) {
  const name = sourceName(src), Name = capital(name);
  switch (t.reason) {
    case "no-answer": return `No answer from ${name}: the network is down or the server is off`;
    case "status": {
      const what = t.status === 503 ? `${Name} is unavailable for now (503)` :
        t.status === 429 ? `${Name} asks to slow down (429)` : `${Name} fails (status ${t.status})`;
      return t.retryAfter ? `${what} and asks to wait ${Math.ceil(t.retryAfter)} s` : what;
    }
    case "stalled": return `${Name} stopped sending in the middle of a record`;
    case "slow": return `The network is slow: records arrive at ${rate(t.rate)}`;
  }
  return `Records from ${name} arrive damaged`;
}

// capital starts a sentence with "This server"; a host name stays as it is.
const capital = (s) => (s === "this server" ? "This server" : s);
const rate = (bps) => bps >= 1024 ? `${(bps / 1024).toFixed(1)} KB/s` : `${Math.round(bps)} B/s`;

function mixedContent(src, page) {
  return page.protocol === "https:" && (src.server || page.origin).startsWith("http:");
}

const mixedWords = (name) =>
  `${name} is unreachable from here: an https page may not read an http source (mixed content). Use its https address.`;
const unreachableWords = (name, where) =>
  `${name} is unreachable: no answer from ${where}. Check the address, and that the server is up.`;
const corsWords = (name) =>
  `${name} answers, but without CORS headers (Access-Control-Allow-Origin), so the browser blocks this page from reading its records. ` +
  "The server must allow this page's origin.";

function wrongAPIWords(src) {
  const acdat = src.api === "acdatservice";
  return `${sourceName(src)} answered, but has no region record ${hexId(REGION)} (404). Is it a dat server? If it is ` +
    (acdat ? "ours or an export" : "an acdatservice") + `, choose "${acdat ? "Dat server or export" : "acdatservice"}".`;
}

/** The Data source box: the kind, the URL, what is playing and what went wrong. */
export class SourcePicker {
  #home; // this origin, or the page's default (pageDefault)
  #hasDefault;
  #lastGood = null; // the last source that loaded (at first, the one remembered)
  #onChoose;

  /** @param onChoose the user chose a source (Use, or an offer after a failure) */
  constructor({ onChoose }) {
    this.#onChoose = onChoose;
    const def = pageDefault();
    this.#hasDefault = !!def;
    this.#home = def || normSource(null);
    this.#lastGood = this.#remembered();
    const kind = $("srcKind"), url = $("srcURL");
    // The first kind is the page's home: this server, or the default a
    // page exported without records reads (that host has no records).
    if (def) kind.options[0].textContent = "This page's default: " + sourceName(def);
    kind.addEventListener("change", () => { this.#sync(); if (!url.hidden) url.focus(); });
    $("srcForm").addEventListener("submit", (e) => {
      e.preventDefault();
      const k = kind.value;
      if (k !== "here" && !url.value.trim()) { this.say("Type the source's base URL first."); return; }
      const src = k === "here" ? this.#home : normSource({ server: url.value, api: k === "acdatservice" ? "acdatservice" : "ours" });
      try { if (src.server) new URL(src.server); } catch { this.say(`"${url.value}" is not a URL.`); return; }
      onChoose(src);
    });
  }

  /** The page's home source: this origin, or the default `export -source` gave it. */
  get home() { return this.#home; }

  /**
   * The source to start with: the URL's ?server=…&api=…, else the
   * remembered one, else home. A server "" (this origin) is home.
   */
  initial() {
    const q = new URLSearchParams(location.search);
    if (q.has("server")) return this.#homeIfHere(normSource({ server: q.get("server"), api: q.get("api") }));
    return this.#remembered() || this.#home;
  }

  /** Keeps src: in localStorage, and in the URL (unless it is home) so that a link shares it. */
  remember(src) {
    try { localStorage.setItem(SOURCE_KEY, JSON.stringify(src)); } catch { /* not remembered */ }
    history.replaceState(null, "", withSource(location.href, src, this.#home));
  }

  /** The control shows src, connecting. */
  connecting(src) {
    $("srcKind").value = kindOf(src, this.#home);
    $("srcURL").value = src.server;
    this.#sync();
    this.say("");
    $("srcOffers").replaceChildren();
    $("srcNow").textContent = "Connecting to " + sourceName(src) + "…";
  }

  /** src loaded; info names its world ("Playing real Dereth, from dats.treestats.net (acdatservice)."). */
  connected(src, info) {
    this.#lastGood = src;
    $("srcNow").textContent = "Playing " + worldName(info) + ", from " + sourceName(src) +
      (src.api === "acdatservice" ? " (acdatservice)." : ".");
  }

  /**
   * Not connected, and why: msg, and the sources the user may take instead
   * (src again, home, the last that loaded) as buttons, with the box focused
   * on src's address to type another. Nothing is switched to until the user
   * picks.
   */
  failed(msg, src) {
    $("srcNow").textContent = "Not connected.";
    this.say(msg);
    if (!src) return;
    const offers = [{ src, label: `Try ${sourceName(src)} again` }];
    if (!sameSource(this.#home, src)) {
      offers.push({ src: this.#home, label: this.#hasDefault ? `Use this page's default, ${sourceName(this.#home)}` : "Use this server" });
    }
    const last = this.#lastGood;
    if (last && !sameSource(last, src) && !sameSource(last, this.#home)) {
      offers.push({ src: last, label: `Use ${sourceName(last)}, the last source that worked` });
    }
    $("srcOffers").replaceChildren(...offers.map((o) => {
      const b = el("button", { type: "button", textContent: o.label, dataset: { server: o.src.server, api: o.src.api } });
      b.addEventListener("click", () => this.#onChoose(o.src));
      return b;
    }), el("span", { className: "sub", textContent: "or type another source's address above." }));
    // The box, showing src's address (home too: it is a URL like any
    // other), focused and selected for typing another.
    const kind = $("srcKind"), url = $("srcURL");
    if (src.server) {
      kind.value = src.api === "acdatservice" ? "acdatservice" : "url";
      url.value = src.server;
      this.#sync();
      url.focus();
      url.select();
    } else {
      kind.focus();
    }
  }

  /** The box's message line ("" clears it). */
  say(msg) { $("srcMsg").textContent = msg; }

  /** loadFailure for this page. */
  explain(err, src) {
    return loadFailure(err, src, { origin: location.origin, protocol: location.protocol });
  }

  #sync() {
    const kind = $("srcKind").value, url = $("srcURL");
    url.hidden = kind === "here";
    url.placeholder = kind === "acdatservice" ? "https://dats.treestats.net" : "https://example.org/acdats";
  }

  // #remembered: the source kept in localStorage, or null.
  #remembered() {
    try {
      const s = JSON.parse(localStorage.getItem(SOURCE_KEY) || "null");
      if (s) return this.#homeIfHere(normSource(s));
    } catch { /* storage off or garbled */ }
    return null;
  }

  // #homeIfHere: this origin is home (on a page with a default, that host
  // has no records).
  #homeIfHere(src) { return src.server ? src : this.#home; }
}

/**
 * The page's URL href naming src in its query (?server=…&api=…), or naming
 * none when src is home: the form a link that opens src takes. Other query
 * keys and the hash stay.
 */
export function withSource(href, src, home) {
  const u = new URL(href);
  u.searchParams.delete("server");
  u.searchParams.delete("api");
  if (!sameSource(src, home)) {
    u.searchParams.set("server", src.server);
    if (src.api !== "ours") u.searchParams.set("api", src.api);
  }
  return u.href;
}
