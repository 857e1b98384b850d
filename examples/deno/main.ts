// Deno: hold a lease for the length of a scope. `await using` releases it when the scope ends,
// however it ends, so the next holder is granted at once. Inside, each write to the protected
// resource carries the fencing token, and waits for a renewal between writes to show the lease
// being kept alive. Every line printed is a JSON event.
//
//   deno run --allow-net=127.0.0.1:8040 --allow-read main.ts [grantor URL] [holder id]

import { HttpGrantor, LeaseHolder, type HolderStats } from "tenure";

const grantorUrl = Deno.args[0] ?? "http://127.0.0.1:8040";
const holderId = Deno.args[1] ?? `deno-${Deno.pid}`;
const resource = "cache/rebuild";

const log = (event: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ event, holder: holderId, ...fields }));

const grantor = new HttpGrantor({ baseUrl: grantorUrl });

async function waitForRenewal(holder: LeaseHolder, after: number): Promise<HolderStats> {
  while (holder.stats().renewals <= after) {
    holder.signal.throwIfAborted(); // lost while waiting: stop here
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return holder.stats();
}

async function rebuild(): Promise<void> {
  await using holder = new LeaseHolder(grantor, { resource, holderId, leaseMs: 1_500, marginMs: 300 });
  const held = await holder.acquire({ wait: true, signal: AbortSignal.timeout(10_000) });
  if (!held.acquired) throw new Error(`not acquired: ${held.reason}`);
  log("acquired", { token: held.token });

  for (let part = 1; part <= 3; part += 1) {
    const stats = await waitForRenewal(holder, part - 1);
    const { accepted } = await grantor.fencedWrite(resource, { part, by: holderId }, held.token);
    log("wrote", { part, accepted, renewals: stats.renewals, renewRttP99Ms: stats.renewRttP99Ms });
  }
  log("status-inside", { holder: (await grantor.status(resource)).holder });
} // released here

await rebuild();
log("status-after", { holder: (await grantor.status(resource)).holder });
