// Hidden tabs under Chrome's real intensive wake-up throttling (chained main-thread timers wake
// at most once a minute). Only the five-minute grace before it starts is shortened, to ten
// seconds, through the IntensiveWakeUpThrottling feature parameter; the tabs are hidden by
// Chromium itself (the DevTools freeze/resume round trip hides the page before freezing it and
// leaves it hidden). A chained-timer probe in each tab shows the throttling is in force.
//
// Four tabs beat from dedicated workers and keep their roles; four control tabs of another name
// beat from their main thread (`heartbeat: "inline"`) and lose theirs.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../support/static-server.mjs";
import { launchPlaywrightOverCdp } from "../support/playwright-cdp.mjs";
import { tabUrl, openTabs, snapshots, oneActive, assertExclusive, sleep, until } from "../support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const GRACE_S = 10;
const LEASE_MS = 1_000;
const MARGIN_MS = 200;
const RENEW_MS = LEASE_MS / 3;
const WINDOW_MS = 15_000;

describe("TabLease in hidden, intensively throttled tabs", () => {
  let chrome;
  let server;
  const errors = [];

  before(async () => {
    chrome = await launchPlaywrightOverCdp({
      args: [`--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/${GRACE_S}`],
    });
    server = await serveStatic(repo);
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  it("worker heartbeats keep one active tab and their cadence; main-thread heartbeats do not", async (t) => {
    const common = { leaseMs: LEASE_MS, marginMs: MARGIN_MS, join: false };
    const open = (params) => openTabs((url) => chrome.newPage(url), tabUrl(server, params), 4, errors);
    const workers = await open({ ...common, name: "throttled-worker" });
    const inline = await open({ ...common, name: "throttled-inline", heartbeat: "inline" });

    for (const page of [...workers, ...inline]) {
      await chrome.freeze(page);
      await chrome.resume(page);
    }
    const hiddenAt = Date.now();
    for (const state of await snapshots([...workers, ...inline])) {
      assert.equal(state.visibility, "hidden");
      assert.ok(state.lifecycle.some((event) => event.type === "visibilitychange"));
    }
    for (const page of [...workers, ...inline]) {
      await page.evaluate(() => {
        // The probe: a chained 100 ms timer, as a main-thread heartbeat would be.
        window.wakes = [];
        const tick = () => {
          window.wakes.push(Date.now());
          setTimeout(tick, 100);
        };
        tick();
        window.tab.acquire();
      });
    }
    const { index: activeIndex, states } = await oneActive(workers);
    const epoch = states[activeIndex].epoch;
    assert.equal(states[activeIndex].heartbeat, "worker");

    await sleep(hiddenAt + (GRACE_S + 2) * 1_000 - Date.now());
    const windowStart = Date.now();
    await assertExclusive(workers, { samples: WINDOW_MS / 1_000, everyMs: 1_000 });
    const windowEnd = Date.now();

    const active = workers[activeIndex];
    const wakes = await active.evaluate(
      ([from, to]) => window.wakes.filter((at) => at >= from && at <= to).length,
      [windowStart, windowEnd],
    );
    // At one-second alignment the probe would have woken ~15 times; intensive throttling: once
    // a minute at most.
    assert.ok(wakes <= 1, `the active tab's main thread woke ${wakes} times in ${WINDOW_MS} ms`);

    const after = await snapshots(workers);
    assert.equal(after[activeIndex].active, true);
    assert.equal(after[activeIndex].epoch, epoch, "no takeover, no re-grant");
    for (const state of after) {
      assert.ok(!state.events.some((event) => event.type === "inactive"), JSON.stringify(state.events));
    }
    // The cadence as another hidden tab received the heartbeats.
    const observer = workers[(activeIndex + 1) % workers.length];
    const beats = await observer.evaluate(
      ([from, to]) => window.beats.filter((beat) => beat.at >= from && beat.at <= to).map((beat) => beat.at),
      [windowStart, windowEnd],
    );
    const gaps = beats.slice(1).map((at, i) => at - beats[i]);
    assert.ok(beats.length >= (0.8 * WINDOW_MS) / RENEW_MS, `${beats.length} heartbeats in ${WINDOW_MS} ms`);
    assert.ok(Math.max(...gaps) <= RENEW_MS + 250, `longest gap between heartbeats: ${Math.max(...gaps)} ms`);

    // The control: the same lease beating from hidden main threads keeps losing its role.
    const lost = (await snapshots(inline)).flatMap((state) =>
      state.events.filter((event) => event.type === "inactive" && event.reason === "expired"),
    );
    assert.ok(lost.length >= 1, "a main-thread heartbeat lapses in a hidden tab");
    t.diagnostic(
      `over ${WINDOW_MS} ms: probe wake-ups ${wakes}, worker heartbeats ${beats.length} ` +
        `(longest gap ${Math.max(...gaps)} ms), main-thread heartbeat losses ${lost.length}`,
    );

    // Closing the active hidden tab: a throttled one takes over without waiting for a timer.
    const closedAt = Date.now();
    await active.close();
    const rest = workers.filter((_, i) => i !== activeIndex);
    const next = await oneActive(rest, 5_000);
    const takeover = next.states[next.index].events.at(-1);
    assert.ok(takeover.epoch > epoch);
    assert.ok(takeover.at - closedAt < LEASE_MS, `taken over ${takeover.at - closedAt} ms after close`);
    await until(async () => (await snapshots(rest)).filter((s) => s.active).length === 1, 1_000, "one active");
    assert.deepEqual(errors, []);
  });
});
