// Benchmark: how long a change of active tab takes to reach every tab's watch
// (`TabLease.onHolderChange`), in one Chromium run with four candidate tabs and one bystander
// (not a candidate). Figures, not pass/fail.
//
// Each trial makes the active tab release (the next one is active at once through Web Locks) and
// measures, on the machine's one wall clock, from the new leader's `onActive` to the last of the
// five tabs to report it, and from the release call to the same. Then crashes of the leader
// (CDP `Page.crash`), where the Web Lock passes when the renderer dies.
//
//   node bench/tab-observe.mjs            (TRIALS=20 by default)

import { execFileSync } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { launchPlaywrightOverCdp } from "../tests/js/support/playwright-cdp.mjs";
import { serveStatic } from "../tests/js/support/static-server.mjs";
import { CHROMIUM } from "../tests/js/support/browser.mjs";
import { tabUrl, snapshots } from "../tests/js/support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

const TRIALS = Number(process.env.TRIALS ?? 20);
const TABS = 4;
const LEASE_MS = 1_000;
const MARGIN_MS = 200;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function open(chrome, url) {
  const page = await chrome.newPage(url);
  await page.waitForFunction(() => window.ready === true, null, { polling: 50 });
  return page;
}

/** The one active page and its snapshot, once exactly one is active. */
async function leaderOf(pages) {
  for (;;) {
    const states = await snapshots(pages);
    const active = states.flatMap((state, i) => (state?.active ? [i] : []));
    if (active.length === 1) return { page: pages[active[0]], state: states[active[0]] };
    await sleep(10);
  }
}

/** When each of `watchers` first reported `tabId` holding `epoch` (waits for all). */
async function seenAt(watchers, tabId, epoch) {
  for (;;) {
    const states = await snapshots(watchers);
    const times = states.map((state) => state.holderChanges.find((c) => c.holder === tabId && c.epoch === epoch)?.at);
    if (times.every((at) => at !== undefined)) return times;
    await sleep(10);
  }
}

function percentile(sorted, q) {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

function row(label, values) {
  const sorted = [...values].sort((a, b) => a - b);
  return `| ${label} | ${percentile(sorted, 0.5)} ms | ${percentile(sorted, 0.95)} ms | ${sorted.at(-1)} ms |`;
}

const chrome = await launchPlaywrightOverCdp();
const server = await serveStatic(repo);
try {
  const params = { name: "bench-observe", leaseMs: LEASE_MS, marginMs: MARGIN_MS };
  const bystander = await open(chrome, tabUrl(server, { ...params, join: "false" }));
  let tabs = [];
  for (let i = 0; i < TABS; i += 1) tabs.push(await open(chrome, tabUrl(server, params)));
  const fromActive = [];
  const fromRelease = [];
  process.stderr.write(`${TRIALS} release trials\n`);
  for (let i = 0; i < TRIALS; i += 1) {
    const old = await leaderOf(tabs);
    await sleep(100);
    const releasedAt = await old.page.evaluate(() => {
      const at = Date.now();
      window.tab.release();
      return at;
    });
    const next = await leaderOf(tabs.filter((page) => page !== old.page));
    const active = next.state.events.at(-1);
    const seen = await seenAt([bystander, ...tabs], next.state.tabId, next.state.epoch);
    const last = Math.max(...seen);
    fromActive.push(last - active.at);
    fromRelease.push(last - releasedAt);
    // The old leader becomes a candidate again for the next trials.
    await old.page.evaluate(() => {
      window.tab.acquire().catch(() => {});
    });
  }
  const fromCrash = [];
  process.stderr.write(`${TRIALS} crash trials\n`);
  for (let i = 0; i < TRIALS; i += 1) {
    const old = await leaderOf(tabs);
    await sleep(100);
    const crashedAt = Date.now();
    await chrome.crash(old.page);
    await old.page.close().catch(() => {});
    tabs = tabs.filter((page) => page !== old.page);
    const next = await leaderOf(tabs);
    const seen = await seenAt([bystander, ...tabs], next.state.tabId, next.state.epoch);
    fromCrash.push(Math.max(...seen) - crashedAt);
    tabs.push(await open(chrome, tabUrl(server, params)));
  }
  const version = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  console.log(
    `Holder changes seen by every tab (${TABS} candidates and a bystander), ${TRIALS} trials each, ` +
      `leaseMs ${LEASE_MS}, ${version}`,
  );
  console.log("(to the last of the five tabs' onHolderChange naming the new leader)");
  console.log("");
  console.log("| from | p50 | p95 | max |");
  console.log("| --- | --- | --- | --- |");
  console.log(row("the new leader's onActive", fromActive));
  console.log(row("the old leader's release() call", fromRelease));
  console.log(row("the old leader's crash (CDP Page.crash)", fromCrash));
} finally {
  await chrome.close();
  await server.close();
}
