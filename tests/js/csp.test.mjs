// What the README says a Content-Security-Policy needs, checked in Chromium: without
// 'wasm-unsafe-eval' the first Lease throws ERR_CORE_UNAVAILABLE; without `blob:` in worker-src a
// TabLease rejects with ERR_TAB_WORKER; with both, a TabLease acquires with its worker heartbeat.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "./support/static-server.mjs";
import { launchChromium } from "./support/browser.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("the package under a Content-Security-Policy", () => {
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

  async function probe(page) {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${server.url}/tests/js/fixtures/csp/${page}.html`);
      const handle = await tab.waitForFunction(() => window.cspResult, null, { timeout: 30_000 });
      return await handle.jsonValue();
    } finally {
      await tab.close();
    }
  }

  it("without 'wasm-unsafe-eval', the first Lease throws ERR_CORE_UNAVAILABLE", async () => {
    assert.deepEqual(await probe("strict"), { lease: "ERR_CORE_UNAVAILABLE" });
  });

  it("without blob: in worker-src, TabLease rejects with ERR_TAB_WORKER", async () => {
    assert.deepEqual(await probe("no-blob"), { lease: "ok", heartbeat: "worker", tab: "ERR_TAB_WORKER" });
  });

  it("with both, TabLease acquires with its heartbeat in the Blob worker", async () => {
    assert.deepEqual(await probe("allowed"), { lease: "ok", heartbeat: "worker", tab: "acquired" });
  });
});
