// Calls into the active tab (`handle`, `call`) in Debian's Chromium over CDP, with four tabs of
// one profile: answered by the leader only, from every tab; a call in flight when the leader
// closes or freezes fails retryably and a retry reaches the next leader; a call made while no
// tab is active waits for one, or times out.

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

describe("TabLease calls into the active tab in Chromium", () => {
  let chrome;
  let server;
  let pages = [];
  let errors = [];
  let run = 0;

  const lease = (extra = {}) => ({ name: `calls-${++run}`, leaseMs: LEASE_MS, marginMs: MARGIN_MS, ...extra });
  const open = async (params, count) => {
    const opened = await openTabs((url) => chrome.newPage(url), tabUrl(server, params), count, errors);
    pages.push(...opened);
    return opened;
  };
  const call = (page, name, args, options) =>
    page.evaluate(([n, a, o]) => window.call(n, a, o), [name, args, options]);
  /** Waits until every page's watch names the active tab. */
  const settled = (watchers, leader) =>
    until(
      async () => (await snapshots(watchers)).every((s) => s?.holder?.tabId === leader.tabId && s.holder.epoch === leader.epoch),
      3_000,
      "every tab sees the leader",
    );

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

  it("every tab's call, the leader's own included, runs once in the leader and gets its answer", async () => {
    const params = lease();
    const tabs = await open(params, 4);
    const [bystander] = await open({ ...params, join: "false" }, 1);
    const { index, states } = await oneActive(tabs);
    const leader = states[index];
    await settled([...tabs, bystander], leader);
    for (const [i, page] of [...tabs, bystander].entries()) {
      const answer = await call(page, "echo", { from: i, data: new Array(3).fill(i) });
      assert.equal(answer.ok, true, JSON.stringify(answer));
      assert.deepEqual(answer.value, { args: { from: i, data: [i, i, i] }, by: leader.tabId, epoch: leader.epoch });
    }
    const ran = await snapshots(tabs).then(() => Promise.all(tabs.map((p) => p.evaluate(() => window.calledHere.length))));
    assert.deepEqual(
      ran,
      tabs.map((_, i) => (i === index ? 5 : 0)),
      "each call ran once, in the leader only",
    );
    const thrown = await call(bystander, "boom");
    assert.deepEqual([thrown.ok, thrown.code, thrown.retryable, thrown.message], [false, "ERR_TAB_CALL_FAILED", false, "boom from the handler"]);
    const missing = await call(bystander, "nothing");
    assert.deepEqual([missing.ok, missing.code, missing.retryable], [false, "ERR_TAB_NO_HANDLER", false]);
    // Arguments that cannot be cloned fail at once, from another tab and from the leader itself.
    for (const page of [bystander, tabs[index]]) {
      const uncloneable = await page.evaluate(() =>
        window.tab.call("echo", () => {}, { timeoutMs: 5_000 }).then(
          () => "resolved",
          (error) => error.code,
        ),
      );
      assert.equal(uncloneable, "ERR_TAB_CALL_FAILED");
    }
    const aborted = await bystander.evaluate(async () => {
      const controller = new AbortController();
      const pending = window.tab.call("slow", 1_000, { signal: controller.signal });
      controller.abort(new Error("gave up"));
      return pending.then(() => "resolved", (error) => error.message);
    });
    assert.equal(aborted, "gave up");
  });

  it("a call in flight when the leader closes fails retryably, and a retry reaches the next leader", async () => {
    const params = lease();
    const tabs = await open(params, 4);
    const [caller] = await open({ ...params, join: "false" }, 1);
    const { index, states } = await oneActive(tabs);
    await settled([caller], states[index]);
    const inFlight = call(caller, "slow", 2_000);
    await until(() => tabs[index].evaluate(() => window.calledHere.length === 1), 3_000, "the leader runs the call");
    await tabs[index].close();
    const failed = await inFlight;
    assert.deepEqual([failed.ok, failed.code, failed.retryable], [false, "ERR_TAB_LEADER_CHANGED", true]);
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 3_000);
    const retried = await call(caller, "echo", "again");
    assert.equal(retried.ok, true, JSON.stringify(retried));
    assert.equal(retried.value.by, next.states[next.index].tabId);
    assert.ok(retried.value.epoch > states[index].epoch);
  });

  it("a call in flight when the leader freezes fails retryably; a retry reaches the next leader", async () => {
    const params = lease();
    const tabs = await open(params, 4);
    const [caller] = await open({ ...params, join: "false" }, 1);
    const { index, states } = await oneActive(tabs);
    await settled([caller], states[index]);
    const frozen = tabs[index];
    const inFlight = call(caller, "slow", 1_000);
    await until(() => frozen.evaluate(() => window.calledHere.length === 1), 3_000, "the leader runs the call");
    const frozenAt = Date.now();
    await chrome.freeze(frozen);
    const failed = await inFlight;
    assert.deepEqual([failed.ok, failed.code, failed.retryable], [false, "ERR_TAB_LEADER_CHANGED", true]);
    // Failed once the freeze was seen (the hold's entry outlived its lease, or the next hold
    // began): about a lease after the freeze, not before the leader stopped answering.
    assert.ok(failed.at - frozenAt < 3 * LEASE_MS, `failed ${failed.at - frozenAt} ms after the freeze`);
    const rest = tabs.filter((_, i) => i !== index);
    const next = await oneActive(rest, 3 * LEASE_MS);
    const retried = await call(caller, "echo", "again");
    assert.equal(retried.ok, true, JSON.stringify(retried));
    assert.equal(retried.value.by, next.states[next.index].tabId);
    await chrome.resume(frozen);
    const resumed = await until(async () => (await snapshots([frozen]))[0], 5_000, "the frozen tab answers again");
    assert.ok(resumed.lifecycle.some((event) => event.type === "freeze"), "the page saw freeze");
    // Its handler finished after it lost the hold: no second answer reached the caller, whose
    // call had already failed (and the retry went to the new leader).
    assert.equal(await caller.evaluate(() => window.calledHere.length), 0);
  });

  it("a call made while no tab is active waits for one, or times out", async () => {
    const params = lease();
    const [caller, later] = await open({ ...params, join: "false" }, 2);
    const timedOut = await call(caller, "echo", 1, { timeoutMs: 300 });
    assert.deepEqual([timedOut.ok, timedOut.code, timedOut.retryable], [false, "ERR_TAB_CALL_TIMEOUT", true]);
    const waiting = call(caller, "echo", 2, { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const epoch = await later.evaluate(async () => (await window.tab.acquire()).epoch);
    const answer = await waiting;
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.deepEqual(answer.value.args, 2);
    assert.equal(answer.value.epoch, epoch);
  });
});
