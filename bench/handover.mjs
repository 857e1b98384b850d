// Benchmark: the handover gap, the time with no holder when a lease moves from one LeaseHolder to
// the next, against the reference grantor (embedded SQLite). From the moment the current holder
// calls handOff()/release() to the moment the next holder's acquire resolves, p50 and p95 over
// `--trials` moves, four ways:
//
// - `handOff("next")`, the next holder campaigning (`acquire({ wait: true })`);
// - `release()`, the next holder campaigning: its campaign follows the grantor's change feed;
// - `release()`, then the next holder's `acquire()` (the plain release + acquire baseline);
// - `release()`, the next holder campaigning on a grantor without a change feed (its `observe`
//   hidden): it asks again only when the denial's `expiresInMs` has passed.
//
// Figures, not pass/fail. `node bench/handover.mjs [--trials 50] [--lease-ms 5000]`. Needs
// `scripts/build` and `cargo build --release -p tenure-grantor` (or TENURE_GRANTOR_BIN).

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { argument } from "./args.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
const { HttpGrantor, LeaseHolder } = await import("tenure");

const TRIALS = argument("trials", 50);
const LEASE_MS = argument("lease-ms", 5_000);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The nearest-rank quantile `q` of ascending `sorted`, in ms with one decimal. */
function quantile(sorted, q) {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[at] * 10) / 10;
}

/** A grantor that hides `observe`: campaigns on it cannot follow the change feed. */
function withoutFeed(grantor) {
  return {
    grant: (args) => grantor.grant(args),
    renew: (args) => grantor.renew(args),
    release: (args) => grantor.release(args),
  };
}

const WAYS = [
  { label: '`handOff("next")`, next holder campaigning', hand: true, campaign: true, feed: true },
  { label: "`release()`, next holder campaigning (follows the change feed)", campaign: true, feed: true },
  { label: "`release()`, then the next holder's `acquire()`", campaign: false, feed: true },
  { label: "`release()`, next holder campaigning without a change feed", campaign: true, feed: false },
];

async function measure(grantor, way, index) {
  const gaps = [];
  const trials = way.feed ? TRIALS : Math.min(TRIALS, 5);
  for (let trial = 0; trial < trials; trial++) {
    const resource = `bench/handover/${index}/${trial}`;
    const config = (holderId) => ({ resource, holderId, leaseMs: LEASE_MS, marginMs: LEASE_MS / 5 });
    const current = new LeaseHolder(grantor, config("current"));
    const next = new LeaseHolder(way.feed ? grantor : withoutFeed(grantor), config("next"));
    if (!(await current.acquire()).acquired) throw new Error("the first grant was denied");
    let campaign;
    if (way.campaign) {
      campaign = next.acquire({ wait: true });
      await sleep(100); // denied once, now waiting (and following the feed, where it can)
    }
    const started = performance.now();
    if (way.hand) await current.handOff("next");
    else await current.release();
    const outcome = await (campaign ?? next.acquire());
    gaps.push(performance.now() - started);
    if (!outcome.acquired) throw new Error(`${way.label}: the next holder was not granted`);
    await next.release();
  }
  gaps.sort((a, b) => a - b);
  return { trials, p50: quantile(gaps, 0.5), p95: quantile(gaps, 0.95) };
}

const grantorProcess = await startGrantor();
try {
  const grantor = new HttpGrantor({ baseUrl: grantorProcess.url });
  console.log(`Handover gap, reference grantor on SQLite, leaseMs ${LEASE_MS} (ms from the call to the next holder's grant)\n`);
  console.log("| how the lease moves | trials | p50 | p95 |");
  console.log("| --- | --- | --- | --- |");
  for (const [index, way] of WAYS.entries()) {
    const { trials, p50, p95 } = await measure(grantor, way, index);
    console.log(`| ${way.label} | ${trials} | ${p50} | ${p95} |`);
  }
} finally {
  await grantorProcess.stop();
}
