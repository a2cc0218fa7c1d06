// source.js: the data source the page reads, and the Data source box. A
// source is {server, api}: server "" is this page's own origin (`serve`
// answers the built-in demo world or the dats it was started with), api
// "acdatservice" reads acdatservice's /dats/{dat}/files/ routes, "ours" the
// /files/ routes of `serve` and `export` (docs/interfaces.md §3). The choice comes
// from the URL (?server=…&api=…, a shared link), else the one remembered,
// else this server. Failures are put in plain words, by their codes.
import { hexId, landblockId, parseId } from "../geo.js";

const SOURCE_KEY = "acambient.source"; // localStorage: the chosen data source
const REGION = 0x13000000; // the region record every client loads first

const $ = (id) => document.getElementById(id);

/** A source as typed or stored, made whole: no trailing slash, https when no scheme, api "ours" unless "acdatservice". */
export function normSource(s) {
  let server = String((s && s.server) || "").trim().replace(/\/+$/, "");
  if (server && !/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) server = "https://" + server;
  return { server, api: s && s.api === "acdatservice" ? "acdatservice" : "ours" };
}

/** How the page names a source: its host, or "this server". */
export function sourceName(src) {
  try { return src.server ? new URL(src.server).host : "this server"; } catch { return src.server; }
}

/** The option of the kind control that picks src. */
function kindOf(src) {
  return !src.server ? "here" : src.api === "acdatservice" ? "acdatservice" : "url";
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
  /** @param onChoose the user chose a source (Use) */
  constructor({ onChoose }) {
    const kind = $("srcKind"), url = $("srcURL");
    kind.addEventListener("change", () => { this.#sync(); if (!url.hidden) url.focus(); });
    $("srcForm").addEventListener("submit", (e) => {
      e.preventDefault();
      const k = kind.value;
      if (k !== "here" && !url.value.trim()) { this.say("Type the source's base URL first."); return; }
      const src = normSource({ server: k === "here" ? "" : url.value, api: k === "acdatservice" ? "acdatservice" : "ours" });
      try { if (src.server) new URL(src.server); } catch { this.say(`"${url.value}" is not a URL.`); return; }
      onChoose(src);
    });
  }

  /** The source to start with: the URL's ?server=…&api=…, else the remembered one, else this server. */
  initial() {
    const q = new URLSearchParams(location.search);
    if (q.has("server")) return normSource({ server: q.get("server"), api: q.get("api") });
    try {
      const s = JSON.parse(localStorage.getItem(SOURCE_KEY) || "null");
      if (s) return normSource(s);
    } catch { /* storage off or garbled: this server */ }
    return normSource(null);
  }

  /** Keeps src: in localStorage, and in the URL so that a link shares it. */
  remember(src) {
    try { localStorage.setItem(SOURCE_KEY, JSON.stringify(src)); } catch { /* not remembered */ }
    const u = new URL(location.href);
    u.searchParams.delete("server");
    u.searchParams.delete("api");
    if (src.server) {
      u.searchParams.set("server", src.server);
      if (src.api !== "ours") u.searchParams.set("api", src.api);
    }
    history.replaceState(null, "", u);
  }

  /** The control shows src, connecting. */
  connecting(src) {
    $("srcKind").value = kindOf(src);
    $("srcURL").value = src.server;
    this.#sync();
    this.say("");
    $("srcNow").textContent = "Connecting to " + sourceName(src) + "…";
  }

  /** src loaded; info says whether it is the demo world. */
  connected(src, info) {
    $("srcNow").textContent = "Playing " + (info.demo ? "the demo world" : "the dats") + " from " + sourceName(src) +
      (src.api === "acdatservice" ? " (acdatservice)." : ".");
  }

  /** Not connected, and why. */
  failed(msg) {
    $("srcNow").textContent = "Not connected.";
    this.say(msg);
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
}
