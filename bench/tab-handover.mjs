// Benchmark: the gap with no active tab when the role moves on purpose, in one Chromium run with
// four candidate tabs: `handOff(tabId)` to a chosen tab (the last in the Web Lock's queue),
// `handOff()` to the next candidate, and `release()` with the next candidate waiting in
// `acquire()`. Figures, not pass/fail.
//
// The gap is from the old leader's `onInactive` to the new leader's `onActive`, both on the
// machine's one wall clock (`Date.now()` in each page).
//
//   node bench/tab-handover.mjs            (TRIALS=20 by default)

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

async function leaderOf(pages) {
  for (;;) {
    const states = await snapshots(pages);
    const active = states.flatMap((state, i) => (state?.active ? [i] : []));
    if (active.length === 1) return { index: active[0], states };
    await sleep(10);
  }
}

function percentile(sorted, q) {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

const METHODS = [
  ["`handOff(tabId)` to the last in line", "named"],
  ["`handOff()` to the next in line", "next"],
  ["`release()`, the next tab waiting in `acquire()`", "release"],
];

const chrome = await launchPlaywrightOverCdp();
const server = await serveStatic(repo);
try {
  const rows = [];
  for (const [label, method] of METHODS) {
    const params = { name: `bench-handover-${method}`, leaseMs: LEASE_MS, marginMs: MARGIN_MS };
    const tabs = [];
    for (let i = 0; i < TABS; i += 1) {
      const page = await chrome.newPage(tabUrl(server, params));
      await page.waitForFunction(() => window.ready === true, null, { polling: 50 });
      tabs.push(page);
    }
    process.stderr.write(`${method}: ${TRIALS} trials\n`);
    const gaps = [];
    for (let i = 0; i < TRIALS; i += 1) {
      const { index, states } = await leaderOf(tabs);
      await sleep(100);
      const others = [...tabs.keys()].filter((t) => t !== index);
      const target = others.at(-1);
      await tabs[index].evaluate(
        async ([how, to]) => {
          if (how === "named") await window.tab.handOff(to);
          else if (how === "next") await window.tab.handOff();
          else {
            await window.tab.release();
            window.tab.acquire().catch(() => {});
          }
        },
        [method, states[target].tabId],
      );
      const next = await leaderOf(tabs.filter((_, t) => t !== index));
      const active = next.states[next.index].events.at(-1);
      const [old] = await snapshots([tabs[index]]);
      const inactive = old.events.findLast((event) => event.type === "inactive");
      gaps.push(active.at - inactive.at);
    }
    gaps.sort((a, b) => a - b);
    rows.push(`| ${label} | ${percentile(gaps, 0.5)} ms | ${percentile(gaps, 0.95)} ms | ${gaps.at(-1)} ms |`);
    for (const page of tabs) await page.close();
  }
  const version = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  console.log(`Handover gap (no active tab), ${TRIALS} trials each, ${TABS} tabs, leaseMs ${LEASE_MS}, ${version}`);
  console.log("(from the old leader's onInactive to the new leader's onActive)");
  console.log("");
  console.log("| how | p50 | p95 | max |");
  console.log("| --- | --- | --- | --- |");
  for (const row of rows) console.log(row);
} finally {
  await chrome.close();
  await server.close();
}
