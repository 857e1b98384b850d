// Every fault kind of the fault proxy, in a page of Debian's Chromium (through playwright-core):
// the same scenario module as the Node suite, with the package loaded by a module page, the proxy
// run from its command line, and faults switched from the page through the proxy's control API.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startGrantor } from "../support/grantor-process.mjs";
import { startFaultProxyProcess } from "../support/fault-proxy-process.mjs";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import {
  FAULT_CASES,
  LATE_MS,
  RECOVERY_MS,
  checkFaultCase,
  faultFigures,
  figureLog,
  reachingTheFault,
} from "../support/verification.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

describe("fault kinds, in Chromium", () => {
  let grantor;
  let proxy;
  let server;
  let browser;
  let page;
  const pageErrors = [];
  const figures = figureLog("faults-chromium");

  before(async () => {
    grantor = await startGrantor();
    proxy = await startFaultProxyProcess({ target: grantor.url });
    server = await serveStatic(repo);
    browser = await launchChromium();
    page = await browser.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    await page.goto(`${server.url}/tests/js/fixtures/verification-page.html`);
    await page.waitForFunction(() => window.verificationReady === true, null, { timeout: 20_000 });
    const warm = { grantorUrl: grantor.url, proxyUrl: proxy.url, tag: "chromium" };
    await page.evaluate((a) => window.verification.run("warmUp", a), warm);
  });

  after(async () => {
    await browser?.close();
    await proxy?.stop();
    await server?.close();
    await grantor?.stop();
    figures.write();
  });

  for (const expected of FAULT_CASES) {
    it(`${expected.name}: safe throughout, surrenders by the margin, recovers after the heal`, async (t) => {
      const run = (attempt) => {
        const args = {
          grantorUrl: grantor.url,
          proxyUrl: proxy.url,
          controlUrl: proxy.controlUrl,
          fault: expected.fault,
          tag: `chromium/${expected.name}/${attempt}`,
        };
        return page.evaluate((a) => window.verification.run("faultCase", a), args);
      };
      const result = await reachingTheFault(run, { note: (text) => t.diagnostic(text) });
      const entry = { runtime: "chromium", ...faultFigures(result, expected) };
      t.diagnostic(JSON.stringify(entry));
      await figures.record(entry, () => {
        const bounds = { lateMs: LATE_MS, recoveryMs: RECOVERY_MS.chromium };
        checkFaultCase(result, expected, bounds);
        assert.deepEqual(pageErrors, []);
      });
    });
  }
});
