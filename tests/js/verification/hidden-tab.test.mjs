// A hidden tab whose timers fire late, in Debian's Chromium driven over DevTools.
//
// What is real and what is emulated: the tab is really hidden, because another tab is brought to
// the front through CDP (`Target.createTarget`), and Chromium's own throttling of hidden pages (1 s
// wake-ups) really applies. Chrome's intensive throttling (timers checked once a minute) starts
// only after 5 minutes hidden, so it is emulated by `fixtures/intensive-throttling.js`, installed
// through `Page.addScriptToEvaluateOnNewDocument`: while hidden, timers wait for the next whole
// minute. No CDP command delays timers while keeping the clocks honest (virtual time stops the
// clocks too), hence the page-side shim. The leases are short so each case runs in seconds.
//
// The holder must never believe past its margin deadline, nor past the grantor's expiry, however
// late its timers are: asking delivers the loss at once, and so does waking the tab. "At once" is
// checked as the page saw it, not against a wall-clock bound a loaded machine can stretch: the
// loss is delivered by the very query that first answers false, and inside the dispatch of the
// wake-up event itself (the event being dispatched is recorded with the loss), where a late timer
// could not have delivered it.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startGrantor } from "../support/grantor-process.mjs";
import { serveStatic } from "../support/static-server.mjs";
import { startCdpChromium } from "../support/cdp-chromium.mjs";
import { sleep } from "../support/memory-grantor.mjs";
import { LEASE_MS, MARGIN_MS, figureLog } from "../support/verification.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const shim = readFileSync(join(repo, "tests/js/fixtures/intensive-throttling.js"), "utf8");
const leaseMs = LEASE_MS;
const marginMs = MARGIN_MS;
const round = (value) => Math.round(value * 10) / 10;

describe("a hidden tab with throttled timers, in Chromium", () => {
  let grantor;
  let server;
  let browser;
  const figures = figureLog("hidden-tab");

  before(async () => {
    grantor = await startGrantor();
    server = await serveStatic(repo);
    browser = await startCdpChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await grantor?.stop();
    figures.write();
  });

  async function holdersPage(tag) {
    const page = await browser.newPage(`${server.url}/tests/js/fixtures/verification-page.html`, {
      initScript: shim,
    });
    await page.waitFor(() => window.verificationReady === true);
    await page.evaluate((a) => window.verification.run("warmUp", a), { grantorUrl: grantor.url, tag });
    const started = await page.evaluate(
      (args) => window.verification.run("hiddenTabHolders", args),
      { grantorUrl: grantor.url, tag, leaseMs, marginMs },
    );
    assert.equal(started.acquired, true, `both holders acquired: ${JSON.stringify(started.outcomes)}`);
    return { page, started };
  }

  const call = (page, name) => page.evaluate((n) => window.verification.call(n), name);

  it("never believes past expiry while its timers are late; a query or a wake delivers the loss", async () => {
    const { page, started } = await holdersPage("hidden");
    await sleep(200);
    const other = await browser.newPage("about:blank"); // to the front: our tab is hidden now
    const hidden = await call(page, "peek");
    assert.equal(hidden.visibility, "hidden");
    const hiding = hidden.lifecycle.find((e) => e.type === "visibilitychange");
    assert.ok(hiding, `the tab saw itself hidden: ${JSON.stringify(hidden.lifecycle)}`);
    const hiddenAt = hiding.at;

    // Sample from outside for two lease periods (past both deadlines and the grantor's expiry):
    // DevTools evaluations run in a throttled page.
    const samples = [];
    const statuses = [];
    const until = performance.now() + 2 * leaseMs;
    let nextStatus = 0;
    while (performance.now() < until) {
      samples.push(await call(page, "sample"));
      if (performance.now() >= nextStatus) {
        statuses.push(await call(page, "status"));
        nextStatus = performance.now() + 150;
      }
      await sleep(40);
    }
    const beforeWake = await call(page, "peek");
    await page.activate(); // the user comes back to the tab
    await sleep(200);
    const afterWake = await call(page, "peek");
    await other.close();

    // The grantor's own view, as lower bounds on when each original grant ends.
    const expiry = (who) =>
      Math.max(
        -Infinity,
        ...statuses
          .map((s) => s[who])
          .filter((s) => s.holder === "tab" && s.token === started.tokens[who])
          .map((s) => s.expiryLowerBound),
      );
    const finite = (value) => (Number.isFinite(value) ? round(value) : null);
    const deadlineQueried = beforeWake.deadlines.queried;
    const deadlineUnqueried = beforeWake.deadlines.unqueried;
    const firstFalse = samples.find((s) => !s.safe);
    const lastTrue = samples.filter((s) => s.safe).at(-1);
    const lostQueried = beforeWake.lost.queried;
    const lostUnqueried = afterWake.lost.unqueried;
    // Bringing the tab back fires `visibilitychange`, and often `focus` before it: the first is
    // the wake.
    const wake = afterWake.lifecycle.find(
      (e) => e.at > hiddenAt && (e.type === "focus" || (e.type === "visibilitychange" && e.visibility === "visible")),
    );

    const entry = {
      case: "hidden tab, timers up to 60 s late",
      deferredTimers: beforeWake.deferredTimers,
      queriedLossAfterDeadlineMs: lostQueried ? round(lostQueried.at - deadlineQueried) : null,
      queriedSlackToGrantorExpiryMs: lostQueried ? finite(expiry("queried") - lostQueried.at) : null,
      unqueriedOverdueAtWakeMs: wake ? round(wake.at - deadlineUnqueried) : null,
      unqueriedLossAfterWakeMs: lostUnqueried && wake ? round(lostUnqueried.at - wake.at) : null,
      unqueriedLossDuring: lostUnqueried?.during ?? null,
    };
    await figures.record(entry, () => {
      // The timers really were late: nothing renewed while hidden, and the unqueried holder's
      // own expiry timer had not fired a second after its deadline.
      assert.ok(beforeWake.deferredTimers > 0, "timers were held back");
      assert.equal(beforeWake.renewals.filter((r) => r.sentAt > hiddenAt + 50).length, 0);
      assert.equal(beforeWake.lost.unqueried, undefined, "its timer did not fire");
      assert.ok(beforeWake.at - deadlineUnqueried > 1_000, "long after its deadline");
      assert.ok(samples.length >= 20, `${samples.length} samples`);
      assert.ok(Number.isFinite(expiry("queried")), "the grantor's expiry of the queried grant was observed");

      // Never believed past its margin deadline, nor past the grantor's expiry.
      for (const sample of samples.filter((s) => s.safe)) {
        assert.ok(sample.t0 < sample.deadline, `believed at ${sample.t0} past ${sample.deadline}`);
      }
      assert.ok(lastTrue, "the queried holder believed while hidden, before its deadline");
      assert.ok(lastTrue.t1 < expiry("queried"), "last belief before the grantor's expiry");
      // The first query after the deadline answered false and delivered the loss right then.
      assert.ok(firstFalse, "a query found the lease no longer safely held");
      assert.ok(firstFalse.t0 >= deadlineQueried - 1);
      assert.ok(lostQueried, "the queried holder lost the lease while hidden");
      assert.equal(lostQueried.reason, "margin_exhausted");
      assert.ok(lostQueried.at >= firstFalse.t0 && lostQueried.at <= firstFalse.t1, "delivered by the query");
      assert.ok(lostQueried.at < expiry("queried"), "and before the grantor's expiry");

      // Waking the tab delivers the other holder's loss at once, and aborts its signal.
      assert.ok(wake, `the tab woke: ${JSON.stringify(afterWake.lifecycle)}`);
      assert.equal(afterWake.visibility, "visible");
      assert.ok(lostUnqueried, `the wake delivered the unqueried holder's loss: ${JSON.stringify(afterWake.lost)}`);
      assert.equal(lostUnqueried.reason, "margin_exhausted");
      // Not before the wake (nothing had delivered it while hidden, above), and by the wake's own
      // `focus` or `visibilitychange`. Whether `focus` comes at all varies; the package listens on
      // the window in the capture phase, so it may run before the page's listener that records
      // the event: the event being dispatched is what tells, not the two timestamps.
      assert.ok(
        ["focus", "visibilitychange"].includes(lostUnqueried.during),
        `delivered by the wake-up event, not a timer: during ${lostUnqueried.during}`,
      );
      assert.equal(afterWake.signalAborted, true);
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  });

  it("a resume after a freeze delivers the loss at once, while timers are still late", async () => {
    const { page } = await holdersPage("resumed");
    await sleep(200);
    // Freezing hides the page first; after `active` it is resumed but stays hidden, so its
    // timers are still late: only the `resume` event can tell the holder at once.
    await page.send("Page.setWebLifecycleState", { state: "frozen" });
    await sleep(2 * leaseMs);
    await page.send("Page.setWebLifecycleState", { state: "active" });
    await sleep(500);
    const peek = await call(page, "peek");
    const resume = peek.lifecycle.find((e) => e.type === "resume");
    const freeze = peek.lifecycle.find((e) => e.type === "freeze");
    const lostAtResume = peek.lost.unqueried;
    // Asking still works, whatever the events did.
    const asked = await call(page, "sample");

    const entry = {
      case: "resumed after a freeze, still hidden",
      unqueriedOverdueAtResumeMs: resume ? round(resume.at - peek.deadlines.unqueried) : null,
      unqueriedLossAfterResumeMs: lostAtResume && resume ? round(lostAtResume.at - resume.at) : null,
      unqueriedLossDuring: lostAtResume?.during ?? null,
    };
    await figures.record(entry, () => {
      assert.ok(freeze && resume, `the page was frozen and resumed: ${JSON.stringify(peek.lifecycle)}`);
      assert.equal(peek.visibility, "hidden");
      assert.ok(resume.at > peek.deadlines.unqueried, "resumed past the deadline");
      assert.equal(asked.safe, false);
      assert.equal(asked.lost?.reason, "margin_exhausted");
      // The README promises that a `resume` delivers the loss at once: in the dispatch of the
      // `resume` event itself (the package listens on the window, in the capture phase, so its
      // listener may run before the page's own, which records the event's time).
      assert.ok(lostAtResume, `the resume delivered the unqueried holder's loss: ${JSON.stringify(peek.lost)}`);
      assert.equal(lostAtResume.during, "resume", "delivered by the resume event, not a timer");
      assert.ok(lostAtResume.at >= freeze.at, "after the freeze");
      assert.equal(peek.signalAborted, true);
      assert.deepEqual(page.errors, []);
    });
    await page.close();
  });
});
