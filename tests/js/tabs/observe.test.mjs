// TabLease's view of who holds a name, in Debian's Chromium over CDP: every tab (candidate or
// not) sees the active tab's id and epoch through `holder`, `onHolderChange` and `observe()`,
// across leader changes (close, crash, freeze), in epoch order.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../support/static-server.mjs";
import { launchPlaywrightOverCdp } from "../support/playwright-cdp.mjs";
import { tabUrl, openTabs, snapshots, until, oneActive } from "../support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const LEASE_MS = 1_500;
const MARGIN_MS = 300;
const RENEW_MS = LEASE_MS / 3;

/** Asserts that `changes` come in epoch order: a larger epoch, or the end of the one before. */
function assertInOrder(changes, what) {
  for (let i = 1; i < changes.length; i += 1) {
    const [before, now] = [changes[i - 1], changes[i]];
    const newer = now.epoch > before.epoch;
    const ended = now.epoch === before.epoch && before.holder !== null && now.holder === null;
    const revived = now.epoch === before.epoch && before.holder === null && now.holder !== null;
    assert.ok(newer || ended || revived, `${what}: ${JSON.stringify(before)} then ${JSON.stringify(now)}`);
  }
}

describe("TabLease holder changes in Chromium", () => {
  let chrome;
  let server;
  let pages = [];
  let errors = [];
  let run = 0;

  const lease = (extra = {}) => ({ name: `observe-${++run}`, leaseMs: LEASE_MS, marginMs: MARGIN_MS, ...extra });
  const open = async (params, count) => {
    const opened = await openTabs((url) => chrome.newPage(url), tabUrl(server, params), count, errors);
    pages.push(...opened);
    return opened;
  };

  before(async () => {
    chrome = await launchPlaywrightOverCdp();
    server = await serveStatic(repo);
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  afterEach(async () => {
    for (const page of pages) await page.close().catch(() => {});
    pages = [];
    assert.deepEqual(errors, []);
    errors = [];
  });

  /** Waits until every page in `watchers` reports `tabId` holding `epoch`, by all three means. */
  const allSee = (watchers, tabId, epoch, maxMs) =>
    until(
      async () => {
        const states = await snapshots(watchers);
        return states.every(
          (state) =>
            state?.holder?.tabId === tabId &&
            state.holder.epoch === epoch &&
            state.holderChanges.at(-1)?.holder === tabId &&
            state.observed.at(-1)?.holder === tabId &&
            state.observed.at(-1)?.epoch === epoch,
        ) && states;
      },
      maxMs,
      `every tab sees ${tabId} holding epoch ${epoch}`,
    );

  it("every tab, candidate or not, sees each leader across changes, in epoch order", async () => {
    const params = lease();
    const [idle] = await open({ ...params, join: "false" }, 1);
    // Just after construction, before anything was read: nobody, or the holder already read.
    const start = await idle.evaluate(() => ({ holder: window.holderAtStart, tabId: window.tab.tabId }));
    assert.equal(start.holder, null);
    assert.match(start.tabId, /^tab-[0-9a-f]{24}$/);
    // The first snapshot of an empty log: nobody, epoch 0.
    await until(async () => (await snapshots([idle]))[0].observed.length > 0, 5_000, "the first snapshot");
    assert.deepEqual(
      (await snapshots([idle]))[0].observed.map(({ holder, epoch }) => ({ holder, epoch })),
      [{ holder: null, epoch: 0 }],
    );

    let tabs = await open(params, 4);
    const seen = [];
    for (let change = 0; change < 3; change += 1) {
      const { index, states } = await oneActive(tabs, 3 * LEASE_MS);
      const leader = states[index];
      seen.push(leader.epoch);
      const watchers = [idle, ...tabs];
      const all = await allSee(watchers, leader.tabId, leader.epoch, 3_000);
      for (const state of all) {
        assertInOrder(state.holderChanges, `holderChanges of ${state.tabId}`);
        assertInOrder(state.observed, `observe() of ${state.tabId}`);
        // observe() began with the snapshot, then saw what the callback saw.
        const tail = state.holderChanges.map(({ holder, epoch }) => `${holder}@${epoch}`);
        const iterated = state.observed.map(({ holder, epoch }) => `${holder}@${epoch}`);
        assert.deepEqual(iterated.slice(-tail.length), tail);
      }
      // Take the leader away: closed, crashed, then frozen.
      const gone = tabs[index];
      tabs = tabs.filter((_, i) => i !== index);
      if (change === 0) await gone.close();
      else if (change === 1) await chrome.crash(gone);
      else {
        await chrome.freeze(gone);
        // The frozen leader stops beating: the others report it gone, then the next leader, by
        // the time the takeover happens.
        const next = await oneActive(tabs, 3 * LEASE_MS);
        const successor = next.states[next.index];
        await allSee([idle, ...tabs], successor.tabId, successor.epoch, 3_000);
        const watched = (await snapshots([idle]))[0].holderChanges;
        const ended = watched.find((c) => c.holder === null && c.epoch === leader.epoch);
        const took = watched.find((c) => c.holder === successor.tabId);
        if (ended) assert.ok(ended.at <= took.at + 50, "the freeze was reported before the takeover");
        await chrome.resume(gone);
        // Resumed, the old leader catches up from the log and reports the successor too.
        const back = await until(
          async () => {
            const [state] = await snapshots([gone]);
            return state?.holder?.epoch === successor.epoch && state;
          },
          5_000,
          "the resumed leader sees its successor",
        );
        assert.equal(back.holder.tabId, successor.tabId);
        assertInOrder(back.holderChanges, "the resumed leader's changes");
        const lifecycle = back.lifecycle.map((event) => event.type);
        assert.ok(lifecycle.includes("freeze"), `the page saw freeze: ${lifecycle}`);
        seen.push(successor.epoch);
      }
    }
    for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i] > seen[i - 1]);
  });

  it("a released hold is reported ended with its epoch, and observe() ends on abort and close", async () => {
    const params = lease();
    const [leader, watcher] = await open({ ...params, join: "false" }, 2);
    const epoch = await leader.evaluate(async () => (await window.tab.acquire()).epoch);
    const leaderId = await leader.evaluate(() => window.tab.tabId);
    await allSee([watcher, leader], leaderId, epoch, 3_000);
    await leader.evaluate(() => window.tab.release());
    await until(
      async () => {
        const [state] = await snapshots([watcher]);
        const last = state.holderChanges.at(-1);
        return last.holder === null && last.epoch === epoch && state.holder === null;
      },
      3_000,
      "the release is reported",
    );
    const ends = await watcher.evaluate(async () => {
      const controller = new AbortController();
      const iterator = window.tab.observe({ signal: controller.signal });
      const first = await iterator.next();
      const pending = iterator.next();
      controller.abort();
      const afterAbort = await pending;
      const second = window.tab.observe();
      await second.next();
      const waiting = second.next();
      await window.tab.close();
      const afterClose = await waiting;
      const onClosed = await window.tab.observe().next();
      return { first: first.value, afterAbort: afterAbort.done, afterClose: afterClose.done, onClosed: onClosed.done };
    });
    assert.equal(ends.first.holder, null);
    assert.equal(ends.first.epoch, epoch);
    assert.deepEqual([ends.afterAbort, ends.afterClose, ends.onClosed], [true, true, true]);
  });

  it("a tab that missed the channel (no BroadcastChannel notices) catches up from the log", async () => {
    const params = lease();
    const [watcher] = await open({ ...params, join: "false" }, 1);
    // Drop every notice to this page's TabLease: only its reads of the log tell it.
    await watcher.evaluate(() => {
      Object.defineProperty(BroadcastChannel.prototype, "onmessage", { set() {}, get: () => null });
    });
    await watcher.evaluate(() => window.tab.close());
    const id = await watcher.evaluate(() => {
      window.late = new window.tab.constructor(new URLSearchParams(location.search).get("name"), {
        leaseMs: 1_500,
        marginMs: 300,
      });
      window.lateChanges = [];
      window.late.onHolderChange = (change) => window.lateChanges.push(change);
      return window.late.tabId;
    });
    assert.ok(id);
    const [leader] = await open(params, 1);
    await oneActive([leader], 3_000);
    // Without notices, the watch reads the log once the newest entry it knows (the empty log)
    // outlived a lease: within leaseMs plus a read.
    const seen = await until(
      async () => {
        const changes = await watcher.evaluate(() => window.lateChanges);
        return changes.find((c) => c.holder !== null);
      },
      LEASE_MS + RENEW_MS + 2_000,
      "the muted tab learns the holder from the log",
    );
    const leaderState = (await snapshots([leader]))[0];
    assert.equal(seen.holder, leaderState.tabId);
    assert.equal(seen.epoch, leaderState.epoch);
  });
});
