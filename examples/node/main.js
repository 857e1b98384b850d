// A singleton job: of all the instances started, one runs the nightly report at a time. It writes
// each step through the grantor's fenced resource with its lease token, so an instance that
// paused past its lease cannot overwrite a newer one's work. It releases when done or on SIGTERM,
// so a waiting instance is granted at its next try rather than after the lease runs out. Every
// line printed is a JSON event.

import { hostname } from "node:os";
import { HttpGrantor, LeaseHolder, adviseDuration } from "tenure";

const GRANTOR_URL = process.env.GRANTOR_URL ?? "http://127.0.0.1:8040";
const RESOURCE = process.env.RESOURCE ?? "reports/nightly";
const HOLDER_ID = process.env.HOLDER_ID ?? `${hostname()}-${process.pid}`;
const STEPS = Number(process.env.STEPS ?? 5);
const STEP_MS = Number(process.env.STEP_MS ?? 1_000);

const log = (event, fields = {}) => console.log(JSON.stringify({ event, holder: HOLDER_ID, ...fields }));
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const grantor = new HttpGrantor({ baseUrl: GRANTOR_URL, timeoutMs: 2_000 });
const config = { resource: RESOURCE, holderId: HOLDER_ID, leaseMs: 3_000, marginMs: 600 };
const holder = new LeaseHolder(grantor, config);
holder.onLeaseLost = (reason) => log("lost", { reason });

// SIGTERM (a deploy, Ctrl-C): stop campaigning or working, and release.
const shutdown = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => shutdown.abort(new Error(signal)));

async function runReport(token, signal) {
  for (let step = 1; step <= STEPS; step += 1) {
    await sleep(STEP_MS, signal); // the work of one step; stops when the lease is no longer safe
    const payload = { step, of: STEPS, by: HOLDER_ID };
    const { accepted, lastToken } = await grantor.fencedWrite(RESOURCE, payload, token, { signal });
    log("step", { step, token, accepted });
    if (!accepted) throw new Error(`fenced out by token ${lastToken}`);
  }
}

log("campaigning", { resource: RESOURCE });
const held = await holder.acquire({ wait: true, signal: shutdown.signal }).catch(() => null);
if (held?.acquired) {
  log("acquired", { token: held.token });
  // One signal for the work: aborts at the lease's margin or on shutdown, whichever comes first.
  const signal = AbortSignal.any([holder.signal, shutdown.signal]);
  try {
    await runReport(held.token, signal);
    log("done", { token: held.token });
  } catch (error) {
    log("stopped", { reason: String(signal.reason?.message ?? error.message) });
  }
  const stats = holder.stats();
  const { safe, problems } = adviseDuration(stats, config);
  log("stats", { renewals: stats.renewals, renewRttP99Ms: stats.renewRttP99Ms, safe, problems });
  await holder.release();
  log("released");
} else {
  log("gave-up");
}
