// The playground in headless Chromium (Debian's `chromium`, or CHROMIUM): the demo verifies, the
// demo with `barrier(local)` shows its `barrier.functional` diagnostic on the text, and a
// screenshot of that is saved (SCREENSHOT, by default ../target/playground.png); and every example
// of the menu gets the verdict and failures it states. Run after build.sh: `node test.mjs`.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { readFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
const screenshot = process.env.SCREENSHOT || join(here, "..", "target", "playground.png");
// A guard against a hung page, not a measure of speed.
const PATIENCE = 600_000;

const server = spawn("python3", [join(here, "serve.py"), "0"], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((resolve, reject) => {
  server.stdout.on("data", (chunk) => {
    const found = /localhost:(\d+)/.exec(String(chunk));
    if (found) resolve(Number(found[1]));
  });
  server.on("exit", (code) => reject(new Error(`the server stopped (${code})`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  page.on("pageerror", (error) => console.log(`page error: ${error}`));
  page.on("console", (message) => {
    if (message.type() === "error") console.log(`page console: ${message.text()}`);
  });
  await page.goto(`http://127.0.0.1:${port}/`);
  const verdict = async () => {
    await page.waitForFunction(() => ["verified", "failed"].includes(document.getElementById("status").className), null, { timeout: PATIENCE });
    return page.textContent("#status");
  };
  // The page verifies the first example, the seed's demo, as it opens.
  const opened = await verdict();
  assert.equal(await page.inputValue("#examples"), "seed/demo.pvl");
  assert.match(opened, /kernel demo: verified/);
  assert.equal(await page.locator("#findings li").count(), 0);
  assert.match(await page.textContent("#explain"), /barrier\.functional .*\[verified\]/);

  const demo = readFileSync(join(here, "..", "examples", "seed", "demo.pvl"), "utf8");
  await page.fill("#text", demo.replace("barrier(global)", "barrier(local)"));
  await page.click("#verify");
  const broken = await verdict();
  assert.match(broken, /kernel demo: failed/);
  const functional = page.locator('#findings li[data-code="barrier.functional"]');
  assert.equal(await functional.count(), 1);
  assert.match(await functional.textContent(), /line 18:15: .*counterexample: tid = /s);
  // Drawn on the text, where the ensures stands.
  const marked = await page.$$eval("#marks mark.error", (marks) => marks.map((mark) => mark.textContent));
  assert.ok(marked.includes("a[(tid+1) mod gsize]=(tid+1) mod gsize"), JSON.stringify(marked));
  mkdirSync(dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot });

  // Every example of the menu gets, from the page's z3, the verdict and the failures its `//::`
  // comments state, as the command line's tests hold it to with Debian's z3.
  const names = await page.$$eval("#examples option", (options) => options.map((option) => option.value));
  for (const name of names) {
    await page.selectOption("#examples", name);
    const source = await page.inputValue("#text");
    await page.click("#verify");
    const status = await verdict();
    const expected = /\/\/:: verdict (\w+)/.exec(source)[1];
    assert.match(status, new RegExp(`: ${expected} `), `${name}: ${status}`);
    const marked = new Set();
    source.split("\n").forEach((line, index) => {
      const fails = /\/\/:: fails (.*)$/.exec(line);
      if (fails) for (const id of fails[1].split(",")) marked.add(`${id.trim()}@${index + 1}`);
    });
    const found = await page.$$eval("#findings li.error", (items) =>
      items.map((item) => `${item.dataset.code}@${/ line (\d+):/.exec(item.textContent)[1]}`),
    );
    assert.deepEqual(new Set(found), marked, name);
  }
  console.log(`playground: the demo verifies (${opened.trim()}); broken, ${broken.trim()}, barrier.functional shown; screenshot ${screenshot}; the ${names.length} examples as stated`);
} finally {
  await browser.close();
  server.kill();
}
