// The sync engine: holds the lease `sync/uploads` while it uploads batches, each a fenced write
// carrying the lease token, with a renewal between batches. It releases when done or when the
// page says stop, and reports every step to the page.

import { HttpGrantor, LeaseHolder } from "tenure";

const report = (type, fields = {}) => postMessage({ type, ...fields });
let holder = null;

async function sync({ grantorUrl, batches }) {
  const grantor = new HttpGrantor({ baseUrl: grantorUrl });
  const resource = "sync/uploads";
  const holderId = `worker-${crypto.randomUUID().slice(0, 8)}`;
  holder = new LeaseHolder(grantor, { resource, holderId, leaseMs: 1_500, marginMs: 300 });
  holder.onLeaseLost = (reason) => report("lost", { reason });

  const { acquired, token } = await holder.acquire({ wait: true });
  if (!acquired) return;
  report("acquired", { holderId, token });
  const signal = holder.signal;
  for (let batch = 1; batch <= batches && !signal.aborted; batch += 1) {
    // Wait for the lease to be renewed once more: a batch takes about that long.
    const renewals = holder.stats().renewals;
    while (holder.stats().renewals === renewals && !signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (signal.aborted) break;
    const { accepted } = await grantor.fencedWrite(resource, { batch, by: holderId }, token, { signal });
    report("uploaded", { batch, token, accepted, renewals: holder.stats().renewals });
  }
  const { renewals, renewRttP99Ms, timerLatenessP99Ms } = holder.stats();
  report("stats", { renewals, renewRttP99Ms, timerLatenessP99Ms });
  await holder.release();
  report("released", { holder: (await grantor.status(resource)).holder });
}

addEventListener("message", ({ data }) => {
  if (data.type === "start") sync(data).catch((error) => report("error", { message: String(error) }));
  if (data.type === "stop") holder?.release();
});
// The package loads its WebAssembly with a top-level await, so this module's body runs only once
// that is done; a message posted before this listener existed would be lost. Say when to start.
report("ready");
