// Deno KV: one instance at a time runs the job, with no grantor server. Every Deno process sharing
// the database (a local file, or Deno Deploy's own) takes the lease from it through
// DenoKvGrantor. The job writes each step through the grantor's fenced resource with the lease's
// token, so an instance that paused past its lease cannot overwrite a newer one's work. The
// holder is declared with `await using`: the lease is released when the scope ends, however it
// ends, and a waiting instance is granted it at once. Every line printed is a JSON event.
//
//   deno run --unstable-kv --allow-read --allow-write=data main.ts [database file] [holder id]
//
// Without a database file (on Deno Deploy) it opens the platform's database.

import { DenoKvGrantor, openKv } from "tenure/deno-kv";
import { LeaseHolder } from "tenure";

const path: string | undefined = Deno.args[0];
const holderId = Deno.args[1] ?? `deno-${Deno.pid}`;
const resource = "jobs/compact";
const steps = 3;

const log = (event: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ event, holder: holderId, ...fields }));
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

// Several processes opening one local file at once take turns at its lock: openKv waits its turn.
const kv = await openKv(path);
// A local file is shared only by processes on this machine, which read one clock: no grant needs
// to count as live past its recorded expiry. On Deno Deploy, grantors run on many machines: keep
// the default, 1000 ms.
const grantor = new DenoKvGrantor(kv, path === undefined ? {} : { clockSkewMs: 0 });

async function compact(): Promise<void> {
  await using holder = new LeaseHolder(grantor, { resource, holderId, leaseMs: 2_000, marginMs: 500 });
  log("campaigning");
  const held = await holder.acquire({ wait: true, signal: AbortSignal.timeout(30_000) });
  if (!held.acquired) throw new Error(`not acquired: ${held.reason}`);
  log("acquired", { token: held.token });

  for (let step = 1; step <= steps; step += 1) {
    await sleep(400, holder.signal); // the work of one step; stops if the lease is no longer safe
    const { accepted } = await grantor.fencedWrite(resource, { step, of: steps, by: holderId }, held.token, {
      signal: holder.signal,
    });
    log("step", { step, accepted });
    if (!accepted) throw new Error("fenced out: a newer holder has written");
  }
  log("done", { renewals: holder.stats().renewals });
} // released here

await compact();
log("released", { holderNow: (await grantor.status(resource)).holder });
kv.close();
