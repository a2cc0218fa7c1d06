// A line-oriented bridge from a Go test to headless Chromium through
// playwright-core: one JSON command a line on stdin, one JSON answer a line
// on stdout ({ok, value} or {ok: false, error}). Started by leaflet_harness_test.go
// with PLAYWRIGHT_MODULES naming the node_modules that hold playwright-core
// (need, in e2e_test.go, installs it).
//
//   node leaflet_driver.mjs CHROMIUM_PATH
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import path from "node:path";
import readline from "node:readline";

const require = createRequire(path.join(process.env.PLAYWRIGHT_MODULES ?? ".", "x.js"));
const { chromium } = require("playwright-core");

// The browser-testing guide's flags: no network beyond 127.0.0.1 (the CDN is
// answered by `route`), autoplay so tests need no gesture unless they ask.
const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"];
if (process.env.AUTOPLAY !== "0") args.push("--autoplay-policy=no-user-gesture-required");
const browser = await chromium.launch({ executablePath: process.argv[2], headless: true, args });
const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
const logs = [];
page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
page.on("response", (r) => { if (r.status() >= 400) logs.push(`http ${r.status()} ${r.url()}`); });
page.on("requestfailed", (r) => logs.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));

const types = { ".js": "text/javascript", ".css": "text/css", ".png": "image/png", ".map": "application/json" };

const ops = {
  // Answer every URL under prefix from files under dir (the CDN from npm's copy).
  async route({ prefix, dir }) {
    await page.route((u) => u.href.startsWith(prefix), async (r) => {
      const rel = decodeURIComponent(new URL(r.request().url()).pathname.slice(new URL(prefix).pathname.length));
      const file = path.join(dir, path.normalize("/" + rel));
      try {
        await r.fulfill({ status: 200, body: await readFile(file),
          headers: { "content-type": types[path.extname(file)] ?? "application/octet-stream", "access-control-allow-origin": "*" } });
      } catch {
        await r.fulfill({ status: 404, body: "not found" });
      }
    });
  },
  initScript: ({ source }) => page.addInitScript(source),
  goto: async ({ url }) => { await page.goto(url); },
  eval: ({ expr }) => page.evaluate(expr),
  waitFor: async ({ expr, timeoutMs }) => { await page.waitForFunction(expr, null, { timeout: timeoutMs ?? 30000, polling: 50 }); },
  move: ({ x, y, steps }) => page.mouse.move(x, y, { steps: steps ?? 1 }),
  click: ({ x, y }) => page.mouse.click(x, y),
  key: ({ key }) => page.keyboard.press(key),
  // Held keys and buttons (the page tests: walking, turning, dragging).
  keyDown: ({ key }) => page.keyboard.down(key),
  keyUp: ({ key }) => page.keyboard.up(key),
  mouseDown: async ({ x, y }) => { await page.mouse.move(x, y); await page.mouse.down(); },
  mouseUp: ({ x, y }) => page.mouse.move(x, y).then(() => page.mouse.up()),
  logs: () => logs.splice(0),
  screenshot: async ({ path: file }) => { await page.screenshot({ path: file }); },
};

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  let out;
  try {
    const cmd = JSON.parse(line);
    out = { ok: true, value: (await ops[cmd.op](cmd)) ?? null };
  } catch (e) {
    out = { ok: false, error: String(e?.message ?? e) };
  }
  let text;
  try {
    text = JSON.stringify(out);
  } catch (e) { // a value JSON cannot hold (a circular object): report none
    text = JSON.stringify({ ok: out.ok, value: null });
  }
  process.stdout.write(text + "\n");
}
await browser.close();
