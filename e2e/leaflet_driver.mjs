// A line-oriented bridge from a Go test to a browser page (browsers.mjs):
// one JSON command a line on stdin, one JSON answer a line on stdout
// ({ok, value} or {ok: false, error}). Started by leaflet_harness_test.go
// with ACAMBIENT_E2E_BROWSER describing the engine (engines_test.go).
//
//   node leaflet_driver.mjs
import readline from "node:readline";
import { open } from "./browsers.mjs";

const page = await open();

// The log as lines: "TYPE: text" for the console and page errors,
// "http STATUS URL" for answers of 400 and up, "requestfailed: URL why".
const line = (m) => (m.type === "http" ? `http ${m.text}` : `${m.type}: ${m.text}`);

const ops = {
  info: () => page.info,
  // Answer every URL under prefix from files under dir (the CDN from npm's copy).
  route: ({ prefix, dir }) => page.route(prefix, dir),
  initScript: ({ source }) => page.initScript(source),
  goto: ({ url }) => page.goto(url),
  eval: ({ expr }) => page.eval(expr),
  waitFor: ({ expr, timeoutMs }) => page.waitFor(expr, undefined, { timeout: timeoutMs ?? 30000 }).then(() => null),
  move: ({ x, y, steps }) => page.move(x, y, steps ?? 1),
  click: ({ x, y }) => page.click(x, y),
  key: ({ key }) => page.press(key),
  // Held keys and buttons (the page tests: walking, turning, dragging).
  keyDown: ({ key }) => page.keyDown(key),
  keyUp: ({ key }) => page.keyUp(key),
  mouseDown: ({ x, y }) => page.mouseDown(x, y),
  mouseUp: ({ x, y }) => page.mouseUp(x, y),
  logs: async () => (await page.logs()).map(line),
  screenshot: ({ path }) => page.screenshot(path),
};

const rl = readline.createInterface({ input: process.stdin });
for await (const l of rl) {
  let out;
  try {
    const cmd = JSON.parse(l);
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
await page.close();
