// `import { Lease, LeaseHolder } from "tenure"` works unchanged in Node, a plain module page, a
// dedicated worker and a Vite bundle: each runs the same scenario in a real runtime.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import * as tenure from "tenure";
import { runScenario } from "./fixtures/scenario.js";
import { serveStatic } from "./support/static-server.mjs";
import { launchChromium } from "./support/browser.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");

const EXPECTED = {
  leaseSafelyHeld: true,
  leaseToken: 7,
  acquired: true,
  heldAfterRenewals: true,
  releasedSignalAborted: true,
  configError: "durationMs",
};

function assertScenario(result) {
  assert.equal(result.error, undefined, result.error);
  const { renewals, ...rest } = result;
  assert.deepEqual(rest, EXPECTED);
  assert.ok(renewals >= 2, `renewed ${renewals} times in 350 ms at a 100 ms interval`);
}

describe("the package loads and works", () => {
  let browser;
  let server;

  before(async () => {
    browser = await launchChromium();
    server = await serveStatic(repo);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function scenarioAt(url) {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(url);
    const handle = await page.waitForFunction(() => window.scenarioResult, null, {
      timeout: 20_000,
    });
    const result = await handle.jsonValue();
    await page.close();
    assert.deepEqual(errors, []);
    return result;
  }

  it("in Node, imported by package name", async () => {
    assertScenario(await runScenario(tenure));
  });

  it("in a plain <script type=module> page", async () => {
    assertScenario(await scenarioAt(`${server.url}/tests/js/fixtures/module-page.html`));
  });

  it("in a dedicated worker", async () => {
    assertScenario(await scenarioAt(`${server.url}/tests/js/fixtures/worker-page.html`));
  });

  it("bundled by Vite", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "tenure-vite-"));
    await build({
      root: join(here, "fixtures", "vite-app"),
      logLevel: "error",
      build: { outDir, target: "esnext", emptyOutDir: true },
    });
    // The core and the tab worker travel inside the JavaScript: nothing for the bundler to copy.
    const assets = readdirSync(join(outDir, "assets"));
    assert.deepEqual(assets.filter((name) => !name.endsWith(".js")), [], `only scripts emitted: ${assets}`);
    const bundle = await serveStatic(outDir);
    try {
      assertScenario(await scenarioAt(`${bundle.url}/index.html`));
    } finally {
      await bundle.close();
    }
  });
});
