// HttpGrantor with an AbortSignal made in another realm (an iframe's), in Chromium: `instanceof`
// knows only its own realm's signals, so the binding checks the signal the way AbortSignal.any
// does. A live foreign signal is taken, with batching or without; an aborted one stops the call.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "./support/static-server.mjs";
import { launchChromium } from "./support/browser.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("HttpGrantor with a signal from another realm, in Chromium", () => {
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

  it("takes a live one and stops at an aborted one, batched or not", async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${server.url}/tests/js/fixtures/realm/index.html`);
      const result = await (await tab.waitForFunction(() => window.realmResult, null, { timeout: 30_000 })).jsonValue();
      assert.equal(result.failed, undefined, result.failed);
      assert.equal(result.foreign, true, "the iframe's signal fails instanceof here");
      for (const mode of ["alone", "batched"]) {
        const { grant, renew, renewAborted } = result[mode];
        assert.deepEqual(grant, { reply: { granted: true, token: 1, durationMs: 900 } }, mode);
        assert.deepEqual(renew, { reply: { renewed: true, token: 1, durationMs: 900 } }, mode);
        assert.ok(renewAborted.error !== undefined, `${mode}: an aborted signal stops the renewal`);
        assert.doesNotMatch(renewAborted.error.message, /not an AbortSignal/, mode);
      }
      assert.deepEqual(result.sent, ["/v1/grant", "/v1/renew", "/v1/grant", "/v1/renew/batch"]);
    } finally {
      await tab.close();
    }
  });
});
