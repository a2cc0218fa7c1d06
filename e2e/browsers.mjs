// browsers.mjs: one page API over three browser engines, so that the
// scenario (drive.mjs) and the Go tests' command bridge (leaflet_driver.mjs)
// are written once (browser-testing guide §8 has the recipes):
//
//   chromium  Debian's chromium through playwright-core (CDP)
//   firefox   Debian's firefox-esr through puppeteer-core (WebDriver BiDi)
//   webkit    WebKitGTK's MiniBrowser through WebKitWebDriver (W3C
//             WebDriver over plain fetch), on an Xvfb display of its own
//
// The browser is described by the ACAMBIENT_E2E_BROWSER environment variable,
// a JSON object the Go side (engines_test.go) fills:
//   {engine, executable, modules, webdriver}
// where modules is the node_modules folder holding the engine's npm driver.
//
// The page API:
//   initScript(src)    runs src in each new document before its own scripts;
//                      WebKitWebDriver has no such hook, so there it runs
//                      right after the load event (info.earlyInit false)
//   goto(url)          navigates; resolves after the load event
//   eval(fn, arg)      calls fn (a function, serialised) with arg (JSON) in
//                      the page, or evaluates an expression string; awaits a
//                      promise; resolves with the JSON value (undefined: null)
//   waitFor(fn, arg, {timeout})  polls eval until truthy; resolves with it
//   click(x, y), move(x, y, steps), mouseDown(x, y), mouseUp(x, y),
//   keyDown(key), keyUp(key), press(key):
//                      trusted input (a user gesture in the engine's eyes);
//                      mouseDown moves to (x, y) and presses the left
//                      button, mouseUp moves there and releases it
//   clickOn(selector)  scrolls an element into view and clicks its middle
//   logs()             takes the page's log so far: [{type, text, url}] with
//                      type error|warning|pageerror|http|requestfailed
//   route(prefix, dir) answers every URL under prefix from files under dir
//                      (chromium and firefox; WebDriver classic cannot)
//   screenshot(file), close()
//   info               {engine, version, earlyInit, evalIsGesture, route}
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";

const contentTypes = { ".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".map": "application/json" };

export async function open(spec = JSON.parse(process.env.ACAMBIENT_E2E_BROWSER ?? "{}")) {
  const viewport = spec.viewport ?? { width: 1200, height: 800 };
  let page;
  switch (spec.engine) {
    case "chromium": page = await openChromium(spec, viewport); break;
    case "firefox": page = await openFirefox(spec, viewport); break;
    case "webkit": page = await openWebKit(spec, viewport); break;
    default: throw new Error(`browsers.mjs: engine ${JSON.stringify(spec.engine)}: want chromium, firefox or webkit`);
  }
  return withHelpers(page);
}

// LOST stands for an evaluation that did not answer in time (waitFor).
const LOST = Symbol("lost");

// withHelpers adds what is the same over every engine.
function withHelpers(page) {
  // A string is evaluated as a script (its last statement's value), as
  // playwright's evaluate does.
  const expr = (fn, arg) => (typeof fn === "function" ? `(${fn.toString()})(${JSON.stringify(arg ?? null)})`
    : `(0, eval)(${JSON.stringify(fn)})`);
  const evaluate = page.evaluate;
  page.eval = async (fn, arg) => (await evaluate(expr(fn, arg))) ?? null;
  page.waitFor = async (fn, arg, { timeout = 30000, polling = 50 } = {}) => {
    const end = Date.now() + timeout;
    // A string condition is tested for truth in the page: its value may be
    // one JSON cannot carry back (a function, an element).
    const cond = typeof fn === "function" ? fn : `!!((0, eval)(${JSON.stringify(fn)}))`;
    const what = () => (typeof fn === "function" ? fn.toString() : fn).replace(/\s+/g, " ").slice(0, 160);
    let lost = 0;
    for (;;) {
      // An evaluation that does not answer within 5 s counts as "not yet"
      // and is left behind: in one CI run a Firefox page never answered
      // one (why is not known), and the package died at go test's
      // -timeout 14 minutes later. A page whose thread is really held answers none, and the
      // wait fails at its deadline, saying so.
      let timer;
      const late = new Promise((r) => { timer = setTimeout(() => r(LOST), 5000); });
      let v;
      try { v = await Promise.race([evaluate(expr(cond, arg)), late]); } finally { clearTimeout(timer); }
      if (v === LOST) { lost++; v = false; }
      if (v) return v;
      if (Date.now() > end) {
        throw new Error(`waitFor: not true after ${timeout} ms${lost ? ` (${lost} evaluations never answered)` : ""}: ${what()}`);
      }
      await new Promise((r) => setTimeout(r, polling));
    }
  };
  page.clickOn = async (selector) => {
    const r = await page.eval((sel) => {
      const el = document.querySelector(sel);
      if (!el) return null;
      el.scrollIntoView({ block: "center", inline: "center" });
      const b = el.getBoundingClientRect();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    }, selector);
    if (!r) throw new Error(`clickOn: no element ${selector}`);
    await page.click(r.x, r.y);
  };
  return page;
}

// ---- chromium: playwright-core ----

async function openChromium(spec, viewport) {
  const { chromium } = createRequire(path.join(spec.modules, "x.js"))("playwright-core");
  // docs/browser-testing.md §6: no network beyond 127.0.0.1 (the CDN is answered by
  // route). No autoplay flag: the tests start audio with a trusted click.
  const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"];
  const browser = await chromium.launch({ executablePath: spec.executable, headless: true, args });
  const p = await browser.newPage({ viewport });
  return {
    info: { engine: "chromium", version: browser.version(), earlyInit: true, evalIsGesture: false, route: true },
    initScript: (src) => p.addInitScript(src),
    ...sharedPage(p, browser),
    route: (prefix, dir) => p.route((u) => u.href.startsWith(prefix), async (r) => {
      const file = localFile(prefix, r.request().url(), dir);
      try {
        await r.fulfill({ status: 200, body: await readFile(file), headers: fileHeaders(file) });
      } catch {
        await r.fulfill({ status: 404, body: "not found" });
      }
    }),
  };
}

// ---- firefox: puppeteer-core over WebDriver BiDi ----

async function openFirefox(spec, viewport) {
  const puppeteer = createRequire(path.join(spec.modules, "x.js"))("puppeteer-core");
  const prefs = {
    // No sound card: without the mock the context stays "suspended" forever,
    // silently (docs/browser-testing.md §8).
    "media.cubeb.force_mock_context": true,
    // Chromium's host-resolver-rules: nothing leaves 127.0.0.1 (a proxy
    // that is not there; localhost is never proxied).
    "network.proxy.type": 1, "network.proxy.http": "127.0.0.1", "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": 9, "network.proxy.no_proxies_on": "127.0.0.1,localhost",
    "network.dns.disablePrefetch": true, "network.prefetch-next": false,
  };
  const browser = await puppeteer.launch({ browser: "firefox", executablePath: spec.executable, headless: true, extraPrefsFirefox: prefs });
  const p = await browser.newPage();
  await p.setViewport(viewport);
  const routes = [];
  let intercepting = false;
  return {
    // BiDi's script.callFunction passes userActivation: true, so every
    // evaluation is a gesture: "silent until the user acts" is Chromium's
    // check (docs/browser-testing.md §8).
    info: { engine: "firefox", version: await browser.version(), earlyInit: true, evalIsGesture: true, route: true },
    initScript: (src) => p.evaluateOnNewDocument(src),
    ...sharedPage(p, browser),
    route: async (prefix, dir) => {
      routes.push({ prefix, dir });
      if (intercepting) return;
      intercepting = true;
      await p.setRequestInterception(true);
      p.on("request", async (req) => {
        const r = routes.find((x) => req.url().startsWith(x.prefix));
        if (!r) return req.continue();
        const file = localFile(r.prefix, req.url(), r.dir);
        try {
          await req.respond({ status: 200, body: await readFile(file), headers: fileHeaders(file) });
        } catch {
          await req.respond({ status: 404, body: "not found" });
        }
      });
    },
  };
}

// sharedPage is what playwright's and puppeteer's pages do alike: their
// log events, navigation, evaluation and input have the same shape.
function sharedPage(p, browser) {
  const logs = [];
  p.on("console", (m) => {
    const type = m.type() === "warn" ? "warning" : m.type();
    logs.push({ type, text: m.text(), url: m.location()?.url || "" });
  });
  p.on("pageerror", (e) => logs.push({ type: "pageerror", text: String(e.message ?? e), url: "" }));
  p.on("response", (r) => { if (r.status() >= 400) logs.push({ type: "http", text: `${r.status()} ${r.url()}`, url: r.url() }); });
  p.on("requestfailed", (r) => logs.push({ type: "requestfailed", text: `${r.url()} ${r.failure()?.errorText}`, url: r.url() }));
  return {
    goto: async (url) => { await p.goto(url); },
    evaluate: (e) => p.evaluate(e),
    click: (x, y) => p.mouse.click(x, y),
    move: (x, y, steps = 1) => p.mouse.move(x, y, { steps }),
    mouseDown: async (x, y) => { await p.mouse.move(x, y); await p.mouse.down(); },
    mouseUp: async (x, y) => { await p.mouse.move(x, y); await p.mouse.up(); },
    keyDown: (k) => p.keyboard.down(k),
    keyUp: (k) => p.keyboard.up(k),
    press: (k) => p.keyboard.press(k),
    logs: () => logs.splice(0),
    screenshot: (file) => p.screenshot({ path: file }),
    close: () => browser.close(),
  };
}

// ---- webkit: W3C WebDriver over fetch ----

// WebDriver's key values (W3C WebDriver §17.4.2) for the keys the tests press.
const webdriverKeys = {
  Enter: "\uE007", Shift: "\uE008", Escape: "\uE00C", Tab: "\uE004",
  ArrowLeft: "\uE012", ArrowUp: "\uE013", ArrowRight: "\uE014", ArrowDown: "\uE015",
};

// wkLogHook records what the page logs, as the other engines' drivers do
// from outside: console errors and warnings, uncaught errors and rejections,
// elements whose resource failed. It runs after the load event (see
// initScript), so what a page logs while loading is missed; a page that
// failed to load fails the scenario's first wait instead.
const wkLogHook = `(() => {
  if (window.__e2eLog) return;
  const log = window.__e2eLog = [];
  const text = (a) => a.map((v) => (v instanceof Error ? String(v) : typeof v === "object" ? JSON.stringify(v) : String(v))).join(" ");
  for (const [m, type] of [["error", "error"], ["warn", "warning"]]) {
    const f = console[m];
    console[m] = function (...a) { log.push({ type, text: text(a), url: location.href }); return f.apply(this, a); };
  }
  addEventListener("error", (e) => {
    if (e instanceof ErrorEvent) log.push({ type: "pageerror", text: e.message, url: e.filename || "" });
    else if (e.target && e.target !== window) log.push({ type: "requestfailed", text: (e.target.src || e.target.href || "") + " error", url: e.target.src || e.target.href || "" });
  }, true);
  addEventListener("unhandledrejection", (e) => log.push({ type: "pageerror", text: "Unhandled Promise Rejection: " + String(e.reason && e.reason.message || e.reason), url: "" }));
})()`;

async function openWebKit(spec, viewport) {
  const children = [];
  const killAll = () => { for (const c of children.reverse()) { try { c.kill("SIGKILL"); } catch { } } };
  process.on("exit", killAll);
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => { killAll(); process.exit(1); });
  try {
    const display = await startXvfb(children);
    const { base } = await startWebDriver(spec.webdriver ?? "WebKitWebDriver", display, children);
    return await webkitSession(base, spec, viewport, killAll);
  } catch (e) {
    killAll();
    throw e;
  }
}

// startXvfb starts a virtual X display of its own (-displayfd picks a free
// number) and resolves with its name.
function startXvfb(children) {
  const x = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
    { stdio: ["ignore", "ignore", "pipe", "pipe"] });
  children.push(x);
  let err = "";
  x.stderr.on("data", (d) => { err += d; });
  return new Promise((resolve, reject) => {
    let s = "";
    x.stdio[3].on("data", (d) => { s += d; if (s.includes("\n")) resolve(":" + s.trim()); });
    x.on("error", reject);
    x.on("exit", (code) => reject(new Error(`Xvfb exited (${code}): ${err.slice(-500)}`)));
  });
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

// startWebDriver starts WebKitWebDriver on a free port of the display and
// waits until it answers /status.
async function startWebDriver(bin, display, children) {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    // Under Xvfb WebKitGTK's GL compositor crashes now and then in
    // swrast_dri.so (docs/browser-testing.md §8): no compositing mode.
    const env = { ...process.env, DISPLAY: display, WEBKIT_DISABLE_COMPOSITING_MODE: "1" };
    const d = spawn(bin, [`--port=${port}`], { env, stdio: ["ignore", "ignore", "pipe"] });
    children.push(d);
    let exited = null, err = "";
    d.stderr.on("data", (s) => { err = (err + s).slice(-2000); });
    d.on("exit", (code) => { exited = code; });
    d.on("error", (e) => { exited = String(e); });
    const base = `http://127.0.0.1:${port}`;
    for (const end = Date.now() + 20000; exited === null && Date.now() < end;) {
      try {
        const r = await (await fetch(base + "/status")).json();
        if (r.value && r.value.ready !== false) return { base, proc: d };
      } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 50));
    }
    d.kill("SIGKILL");
    if (attempt >= 2) throw new Error(`WebKitWebDriver did not start (${exited}): ${err}`);
  }
}

async function webkitSession(base, spec, viewport, killAll) {
  const call = async (method, url, body) => {
    const r = await fetch(base + url, {
      method, headers: { "Content-Type": "application/json; charset=utf-8" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const j = await r.json().catch(() => ({ value: { error: `HTTP ${r.status}`, message: "no JSON answer" } }));
    if (j.value && j.value.error) throw new Error(`webdriver ${method} ${url}: ${j.value.error}: ${j.value.message}`);
    return j.value;
  };
  const s = await call("POST", "/session", {
    capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: spec.executable, args: ["--automation"] } } },
  });
  const sid = "/session/" + s.sessionId;
  await call("POST", sid + "/timeouts", { script: 600000, pageLoad: 120000 });
  const evaluate = (e) => call("POST", sid + "/execute/sync", { script: `return (${e});`, args: [] });

  // The window's size such that the page's viewport is the one asked for.
  await call("POST", sid + "/window/rect", { width: viewport.width, height: viewport.height });
  const inner = await evaluate("[innerWidth, innerHeight]");
  if (inner[0] !== viewport.width || inner[1] !== viewport.height) {
    await call("POST", sid + "/window/rect", {
      width: 2 * viewport.width - inner[0], height: 2 * viewport.height - inner[1],
    });
  }

  const inits = [wkLogHook];
  const logs = [];
  const takeLogs = async () => {
    try { logs.push(...(await evaluate("(window.__e2eLog || []).splice(0)"))); } catch { /* no document */ }
  };
  let mouse = { x: 0, y: 0 };
  const pointer = (actions) => call("POST", sid + "/actions", {
    actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions }],
  });
  const keys = (actions) => call("POST", sid + "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
  const key = (k) => webdriverKeys[k] ?? k;
  const to = (x, y) => ({ type: "pointerMove", origin: "viewport", x: Math.round(x), y: Math.round(y), duration: 0 });
  return {
    info: { engine: "webkit", version: s.capabilities.browserVersion, earlyInit: false, evalIsGesture: false, route: false },
    // No init-script hook in WebDriver classic: run them after the load
    // event. The demo page makes its AudioContext only in start(), on the
    // user's click, so a probe that patches AudioContext is in time.
    initScript: async (src) => { inits.push(src); },
    goto: async (url) => {
      await takeLogs();
      await call("POST", sid + "/url", { url });
      for (const src of inits) await evaluate(`(() => { ${src}\n })()`);
    },
    evaluate,
    click: async (x, y) => {
      mouse = { x, y };
      await pointer([to(x, y), { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 }]);
    },
    move: async (x, y, steps = 1) => {
      const from = mouse, seq = [];
      for (let i = 1; i <= steps; i++) seq.push(to(from.x + (x - from.x) * i / steps, from.y + (y - from.y) * i / steps));
      mouse = { x, y };
      await pointer(seq);
    },
    mouseDown: async (x, y) => {
      mouse = { x, y };
      await pointer([to(x, y), { type: "pointerDown", button: 0 }]);
    },
    mouseUp: async (x, y) => {
      mouse = { x, y };
      await pointer([to(x, y), { type: "pointerUp", button: 0 }]);
    },
    keyDown: (k) => keys([{ type: "keyDown", value: key(k) }]),
    keyUp: (k) => keys([{ type: "keyUp", value: key(k) }]),
    press: (k) => keys([{ type: "keyDown", value: key(k) }, { type: "keyUp", value: key(k) }]),
    logs: async () => { await takeLogs(); return logs.splice(0); },
    route: async () => { throw new Error("route: WebDriver classic cannot answer requests (webkit)"); },
    screenshot: async (file) => { await writeFile(file, Buffer.from(await call("GET", sid + "/screenshot"), "base64")); },
    close: async () => {
      try { await call("DELETE", sid); } catch { /* the browser is gone already */ }
      killAll();
    },
  };
}

// ---- helpers ----

function localFile(prefix, url, dir) {
  const rel = decodeURIComponent(new URL(url).pathname.slice(new URL(prefix).pathname.length));
  return path.join(dir, path.normalize("/" + rel));
}

function fileHeaders(file) {
  return { "content-type": contentTypes[path.extname(file)] ?? "application/octet-stream", "access-control-allow-origin": "*" };
}
