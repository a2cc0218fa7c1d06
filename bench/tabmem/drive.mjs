// bench/tabmem's browser side: for each case, a fresh headless Chromium
// loads the page, which runs the wasm (page/main.go) against the lying
// server, and reports the wasm's linear memory, the JS heap
// (performance.memory, precise) and the renderer's peak RSS before and
// after. Usage: node drive.mjs PWDIR CHROMIUM ORIGIN CASES_JSON
import { readFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [pwDir, chromium, origin, casesJSON] = process.argv.slice(2);
const { chromium: launcher } = await import(pwDir + "/node_modules/playwright-core/index.mjs");
const cases = JSON.parse(casesJSON);

// rendererHWM sums VmHWM (peak RSS, kB) over the renderers of the browser
// whose profile is dir: the tab's memory as the system saw it.
function rendererHWM(dir) {
  let kb = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmd;
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8"); } catch { continue; }
    if (!cmd.includes("--type=renderer") || !cmd.includes(dir)) continue;
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (m) kb += Number(m[1]);
  }
  return kb * 1024;
}

const args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--enable-precise-memory-info",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"];
const results = [];
for (const c of cases) {
  const dir = mkdtempSync(join(tmpdir(), "tabmem-"));
  const ctx = await launcher.launchPersistentContext(dir, { executablePath: chromium, headless: true, args });
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    const consoleErrors = [];
    page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    await page.goto(`${origin}/?mode=${c.mode}&n=${c.n}`);
    await page.waitForFunction(() => window.before !== undefined);
    const before = await page.evaluate(() => window.before);
    before.rendererHWM = rendererHWM(dir);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 300000 });
    const after = await page.evaluate(() => ({ ...window.sample(), result: JSON.parse(window.result) }));
    after.rendererHWM = rendererHWM(dir);
    results.push({ ...c, before, after, consoleErrors });
  } finally {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(JSON.stringify(results));
