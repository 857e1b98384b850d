// The package as a bundler sees it: Vite bundles it with no configuration (the heartbeat worker
// and the WebAssembly core are inside the JavaScript), and the bundled app must elect one tab and
// hand off on close.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import { openTabs, oneActive, assertExclusive } from "../support/tabs.mjs";

const here = dirname(fileURLToPath(import.meta.url));

describe("TabLease bundled by Vite", () => {
  let browser;
  let server;
  let outDir;

  before(async () => {
    outDir = mkdtempSync(join(tmpdir(), "tenure-tabs-vite-"));
    await build({
      root: join(here, "..", "fixtures", "tabs", "vite-app"),
      logLevel: "error",
      build: { outDir, target: "esnext", emptyOutDir: true },
    });
    server = await serveStatic(outDir);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (outDir !== undefined) rmSync(outDir, { recursive: true, force: true });
  });

  it("emits the worker and the core, elects one of four tabs, and hands off on close", async () => {
    // The worker starts from a Blob of its bundled script, with the page's compiled core: Vite
    // emits one script and nothing else.
    const assets = readdirSync(join(outDir, "assets"));
    assert.deepEqual(assets.filter((name) => name.endsWith(".js")).length, 1, `one script: ${assets}`);
    assert.deepEqual(assets.filter((name) => !name.endsWith(".js")), [], `only scripts emitted: ${assets}`);

    const errors = [];
    const tabs = await openTabs(async (url) => {
      const page = await browser.newPage();
      await page.goto(url);
      return page;
    }, `${server.url}/index.html`, 4, errors);
    const { index, states } = await oneActive(tabs);
    assert.equal(states[index].heartbeat, "worker");
    await assertExclusive(tabs, { samples: 5, everyMs: 100 });
    await tabs[index].close();
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 5_000);
    assert.ok(next.states[next.index].epoch > states[index].epoch);
    for (const page of rest) await page.close();
    assert.deepEqual(errors, []);
  });
});
