// TabLease end to end in Debian's Chromium, driven by Playwright over CDP: four or more tabs of
// one profile, with real Web Locks, IndexedDB, BroadcastChannel and dedicated workers. Faults are
// the browser's own: closing a tab, crashing its renderer (`Page.crash`), freezing it
// (`Page.setWebLifecycleState`), a busy main thread, navigation with the back/forward cache.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../support/static-server.mjs";
import { launchPlaywrightOverCdp } from "../support/playwright-cdp.mjs";
import { tabUrl, openTabs, snapshots, until, oneActive, assertExclusive, serveCacheable } from "../support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const LEASE_MS = 1_500;
const MARGIN_MS = 300;
const RENEW_MS = LEASE_MS / 3;

describe("TabLease in Chromium", () => {
  let chrome;
  let server;
  let cacheable;
  let pages = [];
  let errors = [];
  let run = 0;

  const lease = (extra = {}) => ({ name: `tabs-${++run}`, leaseMs: LEASE_MS, marginMs: MARGIN_MS, ...extra });
  const open = async (params, count, page, from = server) => {
    const opened = await openTabs((url) => chrome.newPage(url), tabUrl(from, params, page), count, errors);
    pages.push(...opened);
    return opened;
  };

  before(async () => {
    chrome = await launchPlaywrightOverCdp();
    server = await serveStatic(repo);
    cacheable = await serveCacheable(repo);
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
    await cacheable?.close();
  });

  afterEach(async () => {
    for (const page of pages) await page.close().catch(() => {});
    pages = [];
    assert.deepEqual(errors, []);
    errors = [];
  });

  it("exactly one of four tabs is active at every sample", async () => {
    const tabs = await open(lease(), 4);
    const { index, states } = await oneActive(tabs);
    assert.equal(states[index].mode, "web-locks");
    assert.equal(states[index].heartbeat, "worker");
    assert.ok(states[index].epoch >= 1);
    await assertExclusive(tabs, { samples: 20, everyMs: 100 });
    const after = await snapshots(tabs);
    assert.equal(after[index].active, true, "the role stayed with the same tab");
    assert.equal(after[index].epoch, states[index].epoch, "and the same epoch: renewals keep it");
    for (const [i, state] of after.entries()) {
      if (i !== index) assert.equal(state.state, "waiting");
    }
  });

  it("closing the active tab hands the role over at once, with a larger epoch", async () => {
    const tabs = await open(lease(), 4);
    const { index, states } = await oneActive(tabs);
    const closedAt = Date.now();
    await tabs[index].close();
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 5_000);
    const event = next.states[next.index].events.at(-1);
    assert.equal(event.type, "active");
    assert.ok(event.epoch > states[index].epoch, `epoch ${event.epoch} after ${states[index].epoch}`);
    // Web Locks hand over when the document goes: far sooner than a lease could expire.
    assert.ok(event.at - closedAt < LEASE_MS, `handed over ${event.at - closedAt} ms after close`);
    await assertExclusive(rest, { samples: 5, everyMs: 100 });
  });

  it("a crashed active tab (CDP Page.crash) is taken over", async () => {
    const tabs = await open(lease(), 4);
    const { index, states } = await oneActive(tabs);
    const crashedAt = Date.now();
    await chrome.crash(tabs[index]);
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 5_000);
    const event = next.states[next.index].events.at(-1);
    assert.ok(event.epoch > states[index].epoch);
    // The renderer's death releases its worker's Web Lock: no lease expiry involved.
    assert.ok(event.at - crashedAt < LEASE_MS, `taken over ${event.at - crashedAt} ms after the crash`);
    await assertExclusive(rest, { samples: 5, everyMs: 100 });
  });

  it("a frozen active tab is taken over within leaseMs + renewIntervalMs; resumed, it knows it lost and its writes are fenced", async () => {
    const tabs = await open(lease(), 4);
    const { index, states } = await oneActive(tabs);
    const frozen = tabs[index];
    const oldEpoch = states[index].epoch;
    assert.deepEqual(await frozen.evaluate(() => window.fencedWrite("doc", "from the first holder")), {
      accepted: true,
      epoch: oldEpoch,
    });
    await chrome.freeze(frozen);
    // Not a word to the frozen page until it resumes: evaluating would run its code.
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 3 * LEASE_MS);
    const successor = rest[next.index];
    const takeover = next.states[next.index].events.at(-1);
    assert.ok(takeover.epoch > oldEpoch);
    await assertExclusive(rest, { samples: 5, everyMs: 100 });
    assert.deepEqual(await successor.evaluate(() => window.fencedWrite("doc", "from the successor")), {
      accepted: true,
      epoch: takeover.epoch,
    });

    await chrome.resume(frozen);
    const resumed = await frozen.evaluate(() => ({
      active: window.tab.isActive,
      signal: window.tab.signal.aborted,
      epoch: window.tab.epoch,
      lifecycle: window.snapshot().lifecycle,
    }));
    // The first thing it is asked after the resume: it already knows.
    assert.equal(resumed.active, false);
    assert.equal(resumed.signal, true);
    assert.equal(resumed.epoch, oldEpoch);
    const freeze = resumed.lifecycle.find((event) => event.type === "freeze");
    const resume = resumed.lifecycle.find((event) => event.type === "resume");
    assert.ok(freeze && resume, `the page saw freeze and resume: ${JSON.stringify(resumed.lifecycle)}`);
    const within = takeover.at - freeze.at;
    assert.ok(within <= LEASE_MS + RENEW_MS, `taken over ${within} ms after the freeze`);
    assert.ok(takeover.at < resume.at, "while it was frozen");

    const lost = await until(
      async () => (await frozen.evaluate(() => window.snapshot().events)).find((e) => e.type === "inactive"),
      5_000,
      "the resumed tab reports the loss",
    );
    assert.ok(["expired", "stolen", "superseded"].includes(lost.reason), lost.reason);
    assert.ok(lost.at >= resume.at, "reported on resume, not before the freeze");
    // Its write with the stale epoch is rejected by the store, not merely by a local check.
    assert.deepEqual(await frozen.evaluate(() => window.fencedWrite("doc", "stale")), {
      accepted: false,
      epoch: takeover.epoch,
    });
    assert.deepEqual(await frozen.evaluate(() => window.tab.fencedRead("doc")), {
      value: "from the successor",
      epoch: takeover.epoch,
    });
    const after = await snapshots(tabs);
    assert.equal(after.filter((state) => state?.active).length, 1);
    assert.equal(after[index].state, "waiting", "it rejoined as a candidate");
  });

  it("a hung main thread loses the role, and knows it as soon as it runs again", async () => {
    const tabs = await open(lease(), 4);
    const { index } = await oneActive(tabs);
    const hungAt = Date.now();
    // Its worker still runs, but writes a heartbeat only once the page answers.
    await tabs[index].evaluate(() => {
      setTimeout(() => {
        const end = Date.now() + 3_000;
        while (Date.now() < end);
        window.afterHang = { active: window.tab.isActive, signal: window.tab.signal.aborted };
      }, 0);
    });
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 3 * LEASE_MS);
    const takeover = next.states[next.index].events.at(-1);
    assert.ok(takeover.at - hungAt <= LEASE_MS + RENEW_MS, `taken over ${takeover.at - hungAt} ms into the hang`);
    const afterHang = await until(() => tabs[index].evaluate(() => window.afterHang), 5_000, "the hang ends");
    assert.deepEqual(afterHang, { active: false, signal: true });
    const events = (await snapshots([tabs[index]]))[0].events;
    assert.equal(events.at(-1).type, "inactive");
    assert.equal(events.at(-1).reason, "expired");
    await assertExclusive(tabs, { samples: 5, everyMs: 100 });
  });

  for (const heartbeat of ["worker", "inline"]) {
    it(`leaving a page hands off on pagehide; back again, it is a candidate (${heartbeat} heartbeat)`, async () => {
      // Served without `no-store`, so the page may enter the back/forward cache.
      const tabs = await open(lease({ heartbeat }), 4, "tab.html", cacheable);
      const { index, states } = await oneActive(tabs);
      const leaving = tabs[index];
      const url = leaving.url();
      const leftAt = Date.now();
      await leaving.goto(`${cacheable.url}/tests/js/fixtures/tabs/elsewhere.html`);
      const rest = tabs.filter((_, i) => i !== index);
      const next = await oneActive(rest, 5_000);
      const takeover = next.states[next.index].events.at(-1);
      assert.ok(takeover.epoch > states[index].epoch);
      assert.ok(takeover.at - leftAt < LEASE_MS, `handed off ${takeover.at - leftAt} ms after leaving`);

      // A restore from the cache fires no load event: wait for the commit only.
      await leaving.goBack({ waitUntil: "commit" });
      assert.equal(leaving.url(), url);
      const back = await until(
        async () => {
          const state = (await snapshots([leaving]))[0];
          return state?.state === "waiting" ? state : null;
        },
        5_000,
        "the page is a candidate again",
      );
      const restored = back.lifecycle.some((event) => event.type === "pageshow" && event.persisted);
      // With the worker, nothing runs in the page once it left, so the cache keeps it. Inline,
      // an IndexedDB request still in flight may complete in the cached page, which evicts it:
      // then the page loads afresh, a new candidate all the same.
      if (heartbeat === "worker") assert.ok(restored, "restored from the back/forward cache");
      if (restored) {
        // The same instance: it stepped down on pagehide and rejoined on pageshow.
        assert.deepEqual(
          back.events.map((event) => [event.type, event.reason]),
          [
            ["active", undefined],
            ["inactive", "pagehide"],
          ],
        );
      }
      assert.equal(back.state, "waiting");
      assert.equal(back.active, false);
      await assertExclusive(tabs, { samples: 5, everyMs: 100 });
    });
  }

  it("without Web Locks the lease alone elects one tab, hands off on close, and fences a crashed holder", async () => {
    const tabs = await open(lease({ webLocks: false }), 4);
    const first = await oneActive(tabs);
    assert.equal(first.states[first.index].mode, "lease");
    await assertExclusive(tabs, { samples: 10, everyMs: 100 });

    // Closing: the page announces it is leaving, so nobody waits for the lease.
    const closedAt = Date.now();
    await tabs[first.index].close();
    const rest = tabs.filter((_, i) => i !== first.index);
    const second = await oneActive(rest, 5_000);
    const handoff = second.states[second.index].events.at(-1);
    assert.ok(handoff.epoch > first.states[first.index].epoch);
    assert.ok(handoff.at - closedAt < LEASE_MS, `handed off ${handoff.at - closedAt} ms after close`);

    // A crash says nothing: the heartbeat goes stale and the lease decides.
    const crashedAt = Date.now();
    await chrome.crash(rest[second.index]);
    const survivors = rest.filter((_, i) => i !== second.index);
    const third = await oneActive(survivors, 3 * LEASE_MS);
    const takeover = third.states[third.index].events.at(-1);
    assert.ok(takeover.epoch > handoff.epoch);
    assert.ok(takeover.at - crashedAt <= LEASE_MS + RENEW_MS, `taken over ${takeover.at - crashedAt} ms after`);
    await assertExclusive(survivors, { samples: 5, everyMs: 100 });
    assert.deepEqual(await survivors[third.index].evaluate(() => window.fencedWrite("k", 1)), {
      accepted: true,
      epoch: takeover.epoch,
    });
    assert.deepEqual(await survivors[third.index].evaluate((epoch) => window.fencedWrite("k", 0, epoch), handoff.epoch), {
      accepted: false,
      epoch: takeover.epoch,
    });
  });

  it("instances in a dedicated and a shared worker take part like tabs", async () => {
    const params = lease();
    const windows = await open(params, 2);
    const [dedicated] = await open(params, 1, "worker-host.html");
    const [shared] = await open({ ...params, kind: "shared" }, 1, "worker-host.html");
    const all = [...windows, dedicated, shared];
    await oneActive(all);
    await assertExclusive(all, { samples: 10, everyMs: 100 });

    for (const page of windows) await page.evaluate(() => window.tab.release());
    const inWorker = await oneActive(all, 5_000);
    assert.ok(inWorker.index >= 2, "a worker-hosted instance took over");
    for (const state of inWorker.states.slice(2)) {
      assert.equal(state.heartbeat, "inline", "a worker beats from its own timers");
      assert.equal(state.hasDocument, false);
      assert.equal(state.mode, "web-locks");
    }
    const other = inWorker.index === 2 ? shared : dedicated;
    await (inWorker.index === 2 ? dedicated : shared).evaluate(() => window.release());
    const handed = await until(async () => (await snapshots([other]))[0]?.active, 5_000, "the other worker takes over");
    assert.ok(handed);
    await assertExclusive(all, { samples: 5, everyMs: 100 });
  });
});
