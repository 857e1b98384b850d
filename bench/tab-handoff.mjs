// Benchmark: how long the single-active-tab role takes to move when the active tab closes and
// when it is frozen, for tenure's TabLease and for broadcast-channel's createLeaderElection, side
// by side in one Chromium run with four tabs per group. Figures, not pass/fail.
//
// Latency is from the event (Node's clock just before closing the tab; the frozen page's own
// `freeze` event) to the new leader's callback, all on the machine's one wall clock.

import { execFileSync } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { launchPlaywrightOverCdp } from "../tests/js/support/playwright-cdp.mjs";
import { serveStatic } from "../tests/js/support/static-server.mjs";
import { CHROMIUM } from "../tests/js/support/browser.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

const TRIALS = Number(process.env.TRIALS ?? 20);
const TABS = 4;
const LEASE_MS = 1_000;
const MARGIN_MS = 200;
const RENEW_MS = LEASE_MS / 3;
/** How long to wait for a takeover after freezing the leader. */
const FREEZE_WAIT_MS = 10_000;
/** Groups frozen at once, for trials that mostly wait. */
const PARALLEL = 5;

const IMPLS = [
  { id: "tenure", label: `tenure \`TabLease\` (leaseMs ${LEASE_MS}, marginMs ${MARGIN_MS})` },
  { id: "broadcast-channel", label: "broadcast-channel 7.4 `createLeaderElection`" },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let groups = 0;

class Group {
  constructor(chrome, server, impl) {
    this.chrome = chrome;
    this.url = `${server.url}/bench/tab-handoff/page.html?${new URLSearchParams({
      impl,
      name: `bench-${impl}-${++groups}`,
      leaseMs: LEASE_MS,
      marginMs: MARGIN_MS,
    })}`;
    this.pages = [];
  }

  async fill() {
    while (this.pages.length < TABS) {
      const page = await this.chrome.newPage(this.url);
      await page.waitForFunction(() => window.ready === true, null, { polling: 50 });
      this.pages.push(page);
    }
  }

  /** The single leader, once there is exactly one. */
  async leader() {
    for (;;) {
      const flags = await Promise.all(this.pages.map((page) => page.evaluate(() => window.isLeader())));
      if (flags.filter(Boolean).length === 1) return this.pages[flags.indexOf(true)];
      await sleep(20);
    }
  }

  /** Waits for another page to report leadership; resolves its time, or null after `maxMs`. */
  async nextLeaderAt(except, maxMs) {
    const others = this.pages.filter((page) => page !== except);
    const start = Date.now();
    while (Date.now() - start < maxMs) {
      const times = await Promise.all(others.map((page) => page.evaluate(() => window.leaderAt)));
      const at = times.find((time) => time !== null);
      if (at !== undefined) return at;
      await sleep(10);
    }
    return null;
  }

  async drop(page) {
    this.pages = this.pages.filter((p) => p !== page);
    await page.close();
  }

  async close() {
    for (const page of this.pages) await page.close().catch(() => {});
    this.pages = [];
  }
}

async function closeTrials(chrome, server, impl) {
  const group = new Group(chrome, server, impl);
  const latencies = [];
  for (let i = 0; i < TRIALS; i += 1) {
    await group.fill();
    const leader = await group.leader();
    await sleep(200);
    const closedAt = Date.now();
    await group.drop(leader);
    const at = await group.nextLeaderAt(leader, FREEZE_WAIT_MS);
    latencies.push(at === null ? null : at - closedAt);
  }
  await group.close();
  return latencies;
}

async function freezeTrial(chrome, server, impl) {
  const group = new Group(chrome, server, impl);
  await group.fill();
  const leader = await group.leader();
  await sleep(200);
  await chrome.freeze(leader);
  const at = await group.nextLeaderAt(leader, FREEZE_WAIT_MS);
  await chrome.resume(leader);
  const frozenAt = await leader.evaluate(() => window.frozenAt);
  await group.close();
  if (frozenAt === null) throw new Error("the page never received its freeze event");
  return at === null ? null : at - frozenAt;
}

async function freezeTrials(chrome, server, impl) {
  const latencies = [];
  while (latencies.length < TRIALS) {
    const batch = Math.min(PARALLEL, TRIALS - latencies.length);
    // tenure's trials run one at a time, so nothing else competes for the measured takeover.
    const concurrent = impl === "tenure" ? 1 : batch;
    latencies.push(
      ...(await Promise.all(Array.from({ length: concurrent }, () => freezeTrial(chrome, server, impl)))),
    );
  }
  return latencies;
}

function percentile(sorted, q) {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

function cells(latencies) {
  const done = latencies.filter((latency) => latency !== null).sort((a, b) => a - b);
  if (done.length === 0) {
    return [`never within ${FREEZE_WAIT_MS / 1000} s (0/${latencies.length})`, "—"];
  }
  const suffix = done.length < latencies.length ? ` (${done.length}/${latencies.length} handed off)` : "";
  return [`${percentile(done, 0.5)} ms${suffix}`, `${percentile(done, 0.95)} ms`];
}

const chrome = await launchPlaywrightOverCdp();
const server = await serveStatic(repo);
try {
  const rows = [];
  for (const impl of IMPLS) {
    process.stderr.write(`${impl.id}: ${TRIALS} close trials\n`);
    const close = await closeTrials(chrome, server, impl.id);
    process.stderr.write(`${impl.id}: ${TRIALS} freeze trials\n`);
    const freeze = await freezeTrials(chrome, server, impl.id);
    rows.push([impl.label, ...cells(close), ...cells(freeze)]);
  }
  const version = execFileSync(CHROMIUM, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  console.log(`Single-active-tab handoff, ${TRIALS} trials each, ${TABS} tabs per group, ${version}`);
  console.log(
    `(leader closed: Node's clock before closing to the new leader's callback; leader frozen with ` +
      `CDP Page.setWebLifecycleState: its freeze event to the new leader's callback. TabLease's ` +
      `bound on freeze: leaseMs + renewIntervalMs = ${Math.round(LEASE_MS + RENEW_MS)} ms.)`,
  );
  console.log("");
  console.log("| implementation | close p50 | close p95 | freeze p50 | freeze p95 |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
} finally {
  await chrome.close();
  await server.close();
}
