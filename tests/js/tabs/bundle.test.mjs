// The package as a bundler sees it: Vite bundles it with no configuration (the heartbeat worker
// and the WebAssembly core are inside the JavaScript), and the bundled app must elect one tab and
// hand off on close: from the main entry, and from "tenure/tabs", whose smaller module must carry
// no holder, grantor or claim code.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import { openTabs, oneActive, assertExclusive } from "../support/tabs.mjs";

const here = dirname(fileURLToPath(import.meta.url));

for (const entry of ["tenure", "tenure/tabs"]) {
  describe(`TabLease from "${entry}" bundled by Vite`, () => {
    let browser;
    let server;
    let outDir;

    before(async () => {
      outDir = mkdtempSync(join(tmpdir(), "tenure-tabs-vite-"));
      await build({
        root: join(here, "..", "fixtures", "tabs", "vite-app"),
        logLevel: "error",
        // The app imports "tenure"; the second build points that at the tabs entry.
        resolve: entry === "tenure" ? {} : { alias: [{ find: /^tenure$/, replacement: entry }] },
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
      // The bundle carries its entry's module inline: the tabs entry's, which has no holder,
      // grantor or claim code, and not the main one.
      const script = readFileSync(join(outDir, "assets", assets[0]), "utf8");
      const inline = script.match(/["'`]([A-Za-z0-9+/]{1000,}={0,2})["'`]/)?.[1];
      const glue = entry === "tenure" ? "glue" : "glue-tabs";
      const module = readFileSync(join(here, "..", "..", "..", "pkg", glue, "tenure_bg.wasm"));
      assert.ok(inline !== undefined && Buffer.from(inline, "base64").equals(module), `the ${glue} module inline`);
      const exports = WebAssembly.Module.exports(new WebAssembly.Module(module)).map((e) => e.name);
      for (const name of ["holdercore_new", "claimercore_new", "httpgrantorcore_new", "etcdgrantorcore_new"]) {
        assert.equal(exports.includes(name), entry === "tenure", `${name} exported by the ${glue} module`);
      }

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
}
