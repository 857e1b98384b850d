// useTabLease in Chromium, in a React 19 app under <StrictMode>, two tabs of one profile: one
// active, one candidate per mounted hook, a handoff on unmount without waiting out the lease,
// a signal that aborts on loss, no restart for equal options, a restart for a new name, and
// nothing in the console.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import { buildReactApp, openApp, probe, until, sleep } from "./react-app.mjs";

// Long enough that a handoff within HANDOFF_MAX_MS cannot be a takeover by expiry.
const LONG_LEASE = { leaseMs: 30_000, marginMs: 5_000 };
const HANDOFF_MAX_MS = 10_000;
// Short, for the test that makes a tab lose its role by hanging its main thread.
const SHORT_LEASE = { leaseMs: 2_000, marginMs: 500 };

describe("useTabLease under StrictMode", () => {
  let app;
  let server;
  let browser;
  let pages = [];
  let problems = [];
  let run = 0;

  const open = (query) => openApp(browser, server.url, { mode: "tab", ...query }, problems);
  const openTwo = async (query) => {
    pages = [await open(query), await open(query)];
    return pages;
  };
  const activeIndex = async (tabs, maxMs) =>
    until(
      async () => {
        const states = await Promise.all(tabs.map(probe));
        const active = states.flatMap((state, i) => (state.view.isActive ? [i] : []));
        return active.length === 1 ? { index: active[0], states } : null;
      },
      maxMs,
      "exactly one active tab",
    );

  before(async () => {
    app = await buildReactApp();
    server = await serveStatic(app.dir);
    browser = await launchChromium();
  });

  afterEach(async () => {
    for (const page of pages) await page.close().catch(() => {});
    pages = [];
    problems = [];
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    app?.remove();
  });

  it("makes one candidate per tab, hands off on unmount, restarts on a new name only", async () => {
    const name = `editor-${++run}`;
    const tabs = await openTwo({ name, ...LONG_LEASE });
    const { index, states } = await activeIndex(tabs, 15_000);
    const other = 1 - index;
    for (const state of states) {
      assert.equal(state.effectMounts, 2, "StrictMode mounted the panel twice");
      assert.equal(state.workersCreated, 1, "one candidate (one heartbeat worker) per mounted hook");
    }
    assert.equal(states[other].view.state, "waiting");
    const first = states[index].view;
    assert.ok(Number.isSafeInteger(first.epoch) && first.epoch >= 1, `epoch ${first.epoch}`);

    // Re-renders with a new, equal options object keep the same instance and hold.
    for (let i = 0; i < 3; i += 1) await tabs[index].click("#rerender");
    await until(async () => (await tabs[index].textContent("#rerender")).includes("(3)"), 5_000, "re-rendered");
    const rerendered = await probe(tabs[index]);
    assert.ok(rerendered.commits > states[index].commits, "the panel re-rendered");
    assert.equal(rerendered.workersCreated, 1, "no new candidate on re-render");
    assert.equal(rerendered.view.isActive, true);
    assert.equal(rerendered.view.epoch, first.epoch);
    assert.equal(await tabs[index].evaluate(() => window.instances.length), 1);

    // Unmounting hands off at once: far sooner than the 30 s lease could expire.
    const unmountedAt = Date.now();
    await tabs[index].click("#unmount");
    await until(async () => (await probe(tabs[other])).view.isActive, HANDOFF_MAX_MS, "the other tab takes over");
    const handoffMs = Date.now() - unmountedAt;
    const next = await probe(tabs[other]);
    assert.ok(next.view.epoch > first.epoch, `epoch ${next.view.epoch} after ${first.epoch}`);
    assert.ok(handoffMs < LONG_LEASE.leaseMs - LONG_LEASE.marginMs, `handed off in ${handoffMs} ms`);
    const gone = await probe(tabs[index]);
    const held = gone.signals.find((entry) => entry.held && entry.mark === first.epoch);
    assert.ok(held, "the active tab's signal was recorded");
    assert.equal(held.aborted, true, "the unmounted tab's signal aborted");
    assert.equal(held.code, "ERR_LEASE_RELEASED");
    assert.deepEqual(await tabs[index].evaluate(() => window.instances.map((tab) => tab.state)), ["closed"]);

    // A new name closes the old instance and starts one for the new name.
    await tabs[other].click("#rename");
    const renamed = await until(
      async () => {
        const state = await probe(tabs[other]);
        return state.view.name === `${name}-renamed` && state.view.isActive ? state : null;
      },
      15_000,
      "the renamed panel becomes active",
    );
    assert.equal(renamed.workersCreated, 2, "one new candidate for the new name");
    assert.deepEqual(await tabs[other].evaluate(() => window.instances.map((tab) => [tab.name, tab.state])), [
      [name, "closed"],
      [`${name}-renamed`, "active"],
    ]);
    assert.deepEqual(problems, []);
  });

  it("shows the loss when a hung tab is taken over, and its signal aborts with ERR_LEASE_LOST", async () => {
    const name = `hung-${++run}`;
    const tabs = await openTwo({ name, ...SHORT_LEASE });
    const { index, states } = await activeIndex(tabs, 15_000);
    const epoch = states[index].view.epoch;
    const other = 1 - index;
    // The hung page cannot answer its worker, so its heartbeat stops and the other tab takes over.
    await tabs[index].evaluate((ms) => window.busy(ms), 4 * SHORT_LEASE.leaseMs);
    await until(async () => (await probe(tabs[other])).view.isActive, 6 * SHORT_LEASE.leaseMs, "the takeover");
    const after = await until(
      async () => {
        const state = await probe(tabs[index]);
        return state.view.isActive === false && state.view.inactiveReason !== null ? state : null;
      },
      6 * SHORT_LEASE.leaseMs,
      "the hung tab shows the loss once it runs again",
    );
    assert.ok(["expired", "stolen", "superseded"].includes(after.view.inactiveReason), after.view.inactiveReason);
    const held = after.signals.find((entry) => entry.held && entry.mark === epoch);
    assert.ok(held?.aborted, "the lost hold's signal aborted");
    assert.equal(held.code, "ERR_LEASE_LOST");
    assert.equal(held.reason, after.view.inactiveReason);
    assert.ok((await probe(tabs[other])).view.epoch > epoch);
    // Still exactly one active, and the loser stays a candidate (no second instance).
    await sleep(500);
    const [a, b] = await Promise.all(tabs.map(probe));
    assert.equal([a, b].filter((state) => state.view.isActive).length, 1);
    assert.equal(after.workersCreated, 1);
    assert.deepEqual(problems, []);
  });

  it("the candidate count catches a hook that starts its TabLease in the effect body", async () => {
    // The control: naive-hooks.js, mounted twice by StrictMode, makes two candidates.
    const name = `naive-${++run}`;
    pages = [await open({ name, ...LONG_LEASE, hooks: "naive" })];
    await until(async () => (await probe(pages[0])).view.isActive, 15_000, "the naive hook's tab is active");
    const state = await probe(pages[0]);
    assert.equal(state.effectMounts, 2);
    assert.equal(state.workersCreated, 2, "the naive hook made two candidates");
  });
});
