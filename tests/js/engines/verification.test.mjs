// The design's three verification tests, and LeaseHolder's acquire, renew and release, in a page
// of Firefox ESR and of WebKitGTK: the package as a page loads it, against a real grantor process
// and the fault proxy (as a separate process), on the fixture page and with the checks the
// Chromium run uses (`tests/js/verification/design.test.mjs`). The pause is a real one: the
// browser's web content processes stopped with SIGSTOP and continued with SIGCONT, as the Node
// holder is. (Neither engine has a WebDriver command that freezes a page, so the page sees no
// `freeze`/`resume` events; its heartbeat gap shows the pause.)

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as tenure from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { startFaultProxyProcess } from "../support/fault-proxy-process.mjs";
import { serveStatic } from "../support/static-server.mjs";
import { sleep } from "../support/tabs.mjs";
import { ENGINES, USER_AGENTS, startBrowser } from "../support/webdriver.mjs";
import {
  LATE_MS,
  LEASE_MS,
  MARGIN_MS,
  assertPausable,
  checkSurrender,
  checkNoDoubleGrant,
  checkPausedHolder,
  reachingTheFault,
} from "../support/verification.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const leaseMs = LEASE_MS;
const marginMs = MARGIN_MS;
// Paused for two lease periods: well past the grantor's expiry of the paused holder's grant.
const pauseMs = 2 * leaseMs;

/** The other node of the pause test: takes the lease once the paused holder's grant lapses. */
async function replace(grantorUrl, resource) {
  const grantor = new tenure.HttpGrantor({ baseUrl: grantorUrl });
  const other = new tenure.LeaseHolder(grantor, { resource, holderId: "other-node", leaseMs, marginMs });
  const outcome = await other.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
  const write = await grantor.fencedWrite(resource, { by: "other-node" }, outcome.token);
  assert.equal(write.accepted, true, "the replacement's write was accepted");
  return { ...outcome, release: () => other.release(), grantor };
}

for (const engine of ENGINES) {
  describe(`lease safety (the design's verification) and LeaseHolder, in ${engine}`, () => {
    let grantor;
    let proxy;
    let server;
    let browser;

    before(async () => {
      grantor = await startGrantor();
      proxy = await startFaultProxyProcess({ target: grantor.url });
      server = await serveStatic(repo);
      browser = await startBrowser(engine);
    });

    after(async () => {
      await browser?.close();
      await proxy?.stop();
      await server?.close();
      await grantor?.stop();
    });

    /** A fresh verification page in this engine, warmed up against the grantor and the proxy. */
    async function verificationPage(tag, warm = { proxyUrl: proxy.url }) {
      const page = await browser.newPage(`${server.url}/tests/js/fixtures/verification-page.html`);
      await page.waitForFunction(() => window.verificationReady === true);
      assert.match(await page.evaluate(() => navigator.userAgent), USER_AGENTS[engine]);
      await page.evaluate((a) => window.verification.run("warmUp", a), { grantorUrl: grantor.url, tag, ...warm });
      return page;
    }

    it("LeaseHolder acquires, renews, writes fenced, and releases to the next holder", async () => {
      const page = await verificationPage(`${engine}/basic`);
      const result = await page.evaluate(
        async ({ grantorUrl, resource, leaseMs: ms, marginMs: margin }) => {
          const { HttpGrantor, LeaseHolder } = await import("/pkg/index.js");
          const grantor = new HttpGrantor({ baseUrl: grantorUrl });
          const holder = new LeaseHolder(grantor, { resource, holderId: "page", leaseMs: ms, marginMs: margin });
          const lost = [];
          holder.onLeaseLost = (reason) => lost.push(reason);
          const first = await holder.acquire();
          const starts = [holder.lease.acquiredAt];
          // Two lease periods: only renewals keep it safely held that long.
          const until = performance.now() + 2 * ms;
          while (performance.now() < until) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            if (holder.lease.acquiredAt !== starts.at(-1)) starts.push(holder.lease.acquiredAt);
          }
          const safeAfterTwoPeriods = holder.lease.isSafelyHeld();
          const write = await grantor.fencedWrite(resource, { by: "page" }, first.token);
          const signalBefore = holder.signal.aborted;
          await holder.release();
          const next = await new LeaseHolder(grantor, { resource, holderId: "next", leaseMs: ms, marginMs: margin }).acquire();
          // The resource fences by the newest token it has seen written.
          const nextWrite = await grantor.fencedWrite(resource, { by: "next" }, next.token);
          const stale = await grantor.fencedWrite(resource, { by: "page", late: true }, first.token);
          return {
            first,
            renewals: starts.length - 1,
            safeAfterTwoPeriods,
            write,
            signalBefore,
            signalAfter: holder.signal.aborted,
            next,
            nextWrite,
            stale,
            lost,
            stats: holder.stats(),
          };
        },
        { grantorUrl: grantor.url, resource: `${engine}/basic/resource`, leaseMs, marginMs },
      );
      assert.equal(result.first.acquired, true, JSON.stringify(result.first));
      assert.ok(result.renewals >= 3, `renewed ${result.renewals} times in two lease periods`);
      assert.equal(result.safeAfterTwoPeriods, true);
      assert.deepEqual(result.write, { accepted: true, lastToken: result.first.token });
      assert.equal(result.signalBefore, false);
      assert.equal(result.signalAfter, true, "the signal aborts on release");
      assert.equal(result.next.acquired, true, "the next holder is granted at once");
      assert.ok(result.next.token > result.first.token);
      assert.deepEqual(result.nextWrite, { accepted: true, lastToken: result.next.token });
      assert.deepEqual(result.stale, { accepted: false, lastToken: result.next.token });
      assert.deepEqual(result.lost, []);
      await page.close();
    });

    it("surrenders when renewal cannot reach the grantor", async (t) => {
      const page = await verificationPage(`${engine}/surrender`);
      const run = (attempt) =>
        page.evaluate((args) => window.verification.run("surrendersWhenBlocked", args), {
          grantorUrl: grantor.url,
          proxyUrl: proxy.url,
          controlUrl: proxy.controlUrl,
          tag: `${engine}/surrender/${attempt}`,
          leaseMs,
          marginMs,
        });
      const result = await reachingTheFault(run, { note: (text) => t.diagnostic(text) });
      t.diagnostic(`loss ${result.lossLatencyMs?.toFixed(1)} ms after the margin deadline`);
      checkSurrender(result, { lateMs: LATE_MS });
      await page.close();
    });

    it("does not grant twice within one lease period", async () => {
      const page = await verificationPage(`${engine}/twice`);
      const result = await page.evaluate((args) => window.verification.run("noDoubleGrant", args), {
        grantorUrl: grantor.url,
        tag: `${engine}/twice`,
        leaseMs,
        marginMs,
      });
      checkNoDoubleGrant(result);
      await page.close();
    });

    it("rejects work from a holder that paused past expiry (web content processes stopped with SIGSTOP)", async (t) => {
      const page = await verificationPage(`${engine}/paused`, {});
      const checked = await page.evaluate((args) => window.verification.run("pausableHolder", args), {
        grantorUrl: grantor.url,
        tag: `${engine}/paused`,
        leaseMs,
        marginMs,
      });
      assertPausable(checked);

      const stopped = browser.pauseContent();
      t.diagnostic(`stopped ${stopped.length} content processes`);
      let replacement;
      try {
        await sleep(pauseMs);
        replacement = await replace(grantor.url, checked.resource);
      } finally {
        browser.resumeContent();
      }
      const acted = await page.evaluate(() => window.verification.call("act"));
      const testWrite = await replacement.grantor.fencedWrite(checked.resource, "value", checked.token);
      await replacement.release();
      t.diagnostic(`heartbeat gap ${acted.longestGap.ms.toFixed(0)} ms for a ${pauseMs} ms pause`);
      checkPausedHolder({ checked, acted, pauseMs, replacement, testWrite });
      await page.close();
    });
  });
}
