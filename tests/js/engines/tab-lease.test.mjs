// TabLease end to end in Firefox ESR (geckodriver) and WebKitGTK (MiniBrowser through
// WebKitWebDriver, under Xvfb), over plain WebDriver: three tabs of one profile, each its own
// window, with the engine's own Web Locks, IndexedDB, BroadcastChannel and dedicated workers, on
// the same fixture page as the Chromium suite (`tests/js/tabs/tab-lease.test.mjs`). Faults are the
// browser's own: closing a window, reloading it, minimizing it (the document becomes hidden), a
// busy main thread, and in WebKit, whose windows each get a web process of their own, the active
// tab's process stopped with SIGSTOP (a real freeze, workers included). The README's "Browser
// engines" table lists what each engine cannot be made to do.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../support/static-server.mjs";
import { ENGINES, USER_AGENTS, startBrowser } from "../support/webdriver.mjs";
import { tabUrl, openTabs, snapshots, until, oneActive, assertExclusive, sleep } from "../support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const LEASE_MS = 1_500;
const MARGIN_MS = 300;
const RENEW_MS = LEASE_MS / 3;
const TABS = 3;

for (const engine of ENGINES) {
  describe(`TabLease in ${engine}`, () => {
    let browser;
    let server;
    let pages = [];
    let run = 0;

    const lease = () => ({ name: `${engine}-tabs-${++run}`, leaseMs: LEASE_MS, marginMs: MARGIN_MS });
    const open = async (params, count = TABS) => {
      const opened = await openTabs((url) => browser.newPage(url), tabUrl(server, params), count);
      pages.push(...opened);
      return opened;
    };

    before(async () => {
      server = await serveStatic(repo);
      browser = await startBrowser(engine);
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    afterEach(async () => {
      browser.resumeContent();
      // What the fixture caught from `acquire()`; WebDriver reports no page errors by itself.
      const caught = [];
      for (const page of pages) {
        if (!page.isClosed()) caught.push(...((await page.evaluate(() => window.errors).catch(() => null)) ?? []));
        await page.close().catch(() => {});
      }
      pages = [];
      assert.deepEqual(caught, []);
    });

    it(`runs in ${engine}: exactly one of ${TABS} tabs is active at every sample`, async () => {
      const tabs = await open(lease());
      const agents = await Promise.all(tabs.map((tab) => tab.evaluate(() => navigator.userAgent)));
      for (const agent of agents) assert.match(agent, USER_AGENTS[engine]);
      const { index, states } = await oneActive(tabs);
      assert.equal(states[index].mode, "web-locks", "the engine's Web Locks elect the tab");
      assert.equal(states[index].heartbeat, "worker");
      assert.ok(states[index].epoch >= 1);
      await assertExclusive(tabs, { samples: 15, everyMs: 100 });
      const later = await snapshots(tabs);
      assert.equal(later[index].active, true, "the role stayed with the same tab");
      assert.equal(later[index].epoch, states[index].epoch, "and the same epoch: renewals keep it");
      for (const [i, state] of later.entries()) if (i !== index) assert.equal(state.state, "waiting");
    });

    it("closing the active tab hands the role over at once, with a larger epoch", async () => {
      const tabs = await open(lease());
      const { index, states } = await oneActive(tabs);
      const closedAt = Date.now();
      await tabs[index].close();
      const rest = tabs.filter((_, i) => i !== index);
      const next = await oneActive(rest, 5_000);
      const event = next.states[next.index].events.at(-1);
      assert.equal(event.type, "active");
      assert.ok(event.epoch > states[index].epoch, `epoch ${event.epoch} after ${states[index].epoch}`);
      // Web Locks hand over when the document goes: sooner than a lease could expire.
      assert.ok(event.at - closedAt < LEASE_MS, `handed over ${event.at - closedAt} ms after close`);
      await assertExclusive(rest, { samples: 5, everyMs: 100 });
    });

    it("reloading the active tab hands the role over; the reloaded page is a candidate again", async () => {
      const tabs = await open(lease());
      const { index, states } = await oneActive(tabs);
      const reloadedAt = Date.now();
      await tabs[index].reload();
      await tabs[index].waitForFunction(() => window.ready === true);
      const next = await oneActive(tabs, 5_000);
      const event = next.states[next.index].events.at(-1);
      assert.ok(event.epoch > states[index].epoch, `epoch ${event.epoch} after ${states[index].epoch}`);
      assert.ok(event.at - reloadedAt < LEASE_MS, `handed over ${event.at - reloadedAt} ms after the reload`);
      if (next.index === index) {
        // The new document won the lock back: a new instance, with a new epoch all the same.
        assert.deepEqual(next.states[index].events.map((e) => e.type), ["active"]);
      } else {
        const reloaded = next.states[index];
        assert.equal(reloaded.state, "waiting", "the new document is a candidate");
        assert.deepEqual(reloaded.events, [], "a fresh instance");
      }
      await assertExclusive(tabs, { samples: 5, everyMs: 100 });
    });

    it("a hidden (minimized) active tab keeps the role: its heartbeat runs in a worker", async () => {
      const tabs = await open(lease());
      const { index, states } = await oneActive(tabs);
      const hidden = tabs[index];
      await hidden.minimize();
      const visibility = await until(
        async () => ((await snapshots([hidden]))[0].visibility === "hidden" ? "hidden" : null),
        5_000,
        "the minimized page's document is hidden",
      );
      assert.equal(visibility, "hidden");
      // Several lease periods hidden; the others never take over. (Reading the hidden page does
      // not show it: its window stays minimized.)
      const hiddenFor = 4 * LEASE_MS;
      const start = Date.now();
      while (Date.now() - start < hiddenFor) {
        const all = await snapshots(tabs);
        assert.equal(all[index].visibility, "hidden");
        assert.deepEqual(
          all.map((state) => state.active),
          tabs.map((_, i) => i === index),
          "only the hidden tab is active",
        );
        await sleep(200);
      }
      await hidden.restore();
      const back = await until(
        async () => {
          const state = (await snapshots([hidden]))[0];
          return state.visibility === "visible" ? state : null;
        },
        5_000,
        "the restored page is visible",
      );
      const changes = back.lifecycle.filter((e) => e.type === "visibilitychange").map((e) => e.visibility);
      assert.deepEqual(changes, ["hidden", "visible"]);
      const [hide, show] = back.lifecycle.filter((e) => e.type === "visibilitychange");
      assert.ok(show.at - hide.at >= hiddenFor, `hidden for ${show.at - hide.at} ms`);
      assert.equal(back.active, true);
      assert.equal(back.epoch, states[index].epoch, "the same epoch throughout");
      assert.deepEqual(back.events.map((e) => e.type), ["active"], "never lost it");
    });

    it("a busy main thread past its lease loses the role; woken, it knows, and its fenced write is refused", async () => {
      const tabs = await open(lease());
      const { index, states } = await oneActive(tabs);
      const busy = tabs[index];
      const oldEpoch = states[index].epoch;
      assert.deepEqual(await busy.evaluate(() => window.fencedWrite("doc", "from the first holder")), {
        accepted: true,
        epoch: oldEpoch,
      });
      // Started a moment after this command's reply: the reply must leave before the loop.
      const busyMs = 3 * LEASE_MS;
      await busy.evaluate((ms) => {
        setTimeout(() => {
          window.busyFrom = Date.now();
          while (Date.now() - window.busyFrom < ms);
          window.afterBusy = { active: window.tab.isActive, signal: window.tab.signal.aborted, at: Date.now() };
        }, 200);
      }, busyMs);
      const rest = tabs.filter((_, i) => i !== index);
      const next = await oneActive(rest, busyMs);
      const successor = rest[next.index];
      const takeover = next.states[next.index].events.at(-1);
      assert.ok(takeover.epoch > oldEpoch);
      assert.deepEqual(await successor.evaluate(() => window.fencedWrite("doc", "from the successor")), {
        accepted: true,
        epoch: takeover.epoch,
      });

      const afterBusy = await until(() => busy.evaluate(() => window.afterBusy), 15_000, "the loop ends");
      const busyFrom = await busy.evaluate(() => window.busyFrom);
      assert.ok(takeover.at > busyFrom, "taken over during the loop");
      assert.ok(takeover.at < afterBusy.at, "before the loop ended");
      assert.ok(
        takeover.at - busyFrom <= LEASE_MS + RENEW_MS,
        `taken over ${takeover.at - busyFrom} ms into the loop (bound ${LEASE_MS + RENEW_MS})`,
      );
      // The first thing it runs after the loop already knows.
      assert.deepEqual({ active: afterBusy.active, signal: afterBusy.signal }, { active: false, signal: true });
      const events = (await snapshots([busy]))[0].events;
      assert.deepEqual(events.at(-1).type, "inactive");
      assert.equal(events.at(-1).reason, "expired");
      assert.deepEqual(await busy.evaluate((epoch) => window.fencedWrite("doc", "stale", epoch), oldEpoch), {
        accepted: false,
        epoch: takeover.epoch,
      });
      assert.deepEqual(await busy.evaluate(() => window.tab.fencedRead("doc")), {
        value: "from the successor",
        epoch: takeover.epoch,
      });
      await assertExclusive(tabs, { samples: 5, everyMs: 100 });
    });

    if (engine === "webkit") {
      it("a frozen active tab (its web process stopped) is taken over; resumed, it knows it lost and its writes are fenced", async () => {
        const tabs = await open(lease());
        for (const tab of tabs) assert.equal(tab.newProcesses.length, 1, "each window got a web process of its own");
        const { index, states } = await oneActive(tabs);
        const frozen = tabs[index];
        const oldEpoch = states[index].epoch;
        assert.deepEqual(await frozen.evaluate(() => window.fencedWrite("doc", "from the first holder")), {
          accepted: true,
          epoch: oldEpoch,
        });
        // The page must be hearing heartbeats before it is stopped, or hearing none meanwhile would
        // prove nothing: a tab just made active may not have sent its first one yet.
        await until(() => frozen.evaluate(() => window.beats.length > 0), 5_000, "the page hears heartbeats");
        const frozenAt = Date.now();
        browser.pauseContent(frozen.newProcesses);
        const rest = tabs.filter((_, i) => i !== index);
        const next = await oneActive(rest, 4 * LEASE_MS);
        const takeover = next.states[next.index].events.at(-1);
        assert.ok(takeover.epoch > oldEpoch);
        assert.ok(
          takeover.at - frozenAt <= LEASE_MS + RENEW_MS,
          `taken over ${takeover.at - frozenAt} ms after the freeze (bound ${LEASE_MS + RENEW_MS})`,
        );
        await assertExclusive(rest, { samples: 5, everyMs: 100 });
        assert.deepEqual(await rest[next.index].evaluate(() => window.fencedWrite("doc", "from the successor")), {
          accepted: true,
          epoch: takeover.epoch,
        });
        await sleep(LEASE_MS);
        const resumedAt = Date.now();
        browser.resumeContent();

        const resumed = await frozen.evaluate(() => ({
          active: window.tab.isActive,
          signal: window.tab.signal.aborted,
          epoch: window.tab.epoch,
          beats: window.beats.map((beat) => beat.at),
        }));
        assert.equal(resumed.active, false);
        assert.equal(resumed.signal, true);
        assert.equal(resumed.epoch, oldEpoch);
        // The process really stopped: the page, which heard heartbeats before, heard none, its own
        // or the successor's, meanwhile (those queued for it arrive after `resumedAt`). A beat may
        // land in the moment between `frozenAt` and the signal taking effect.
        const heardWhileStopped = resumed.beats.filter((at) => at > frozenAt + 50 && at < resumedAt);
        assert.deepEqual(
          heardWhileStopped.map((at) => at - frozenAt),
          [],
          `heard while stopped (ms after the freeze; stopped ${resumedAt - frozenAt} ms, pids ${frozen.newProcesses})`,
        );
        const heardAfter = await until(
          () => frozen.evaluate((since) => window.beats.filter((beat) => beat.at >= since).length, resumedAt),
          5_000,
          "the resumed page hears the successor's heartbeats",
        );
        assert.ok(heardAfter > 0);
        const lost = await until(
          async () => (await snapshots([frozen]))[0].events.find((e) => e.type === "inactive"),
          5_000,
          "the resumed tab reports the loss",
        );
        assert.ok(["expired", "stolen", "superseded"].includes(lost.reason), lost.reason);
        assert.deepEqual(await frozen.evaluate(() => window.fencedWrite("doc", "stale")), {
          accepted: false,
          epoch: takeover.epoch,
        });
        const after = await snapshots(tabs);
        assert.equal(after.filter((state) => state?.active).length, 1);
        assert.equal(after[index].state, "waiting", "it rejoined as a candidate");
      });
    }
  });
}
