// A Cloudflare Worker with two jobs for the same grantor:
//
// - GET /report: a singleton step. Holds the lease `reports/edge` while it writes the report
//   through the grantor's fenced resource with its token, waits for one renewal to show the lease
//   kept alive across I/O, and releases.
// - The cron trigger (and POST /drain): drains the queue `thumbnails` with work claims, each item
//   under its own processing lease, completed with a fenced token.
//
// In Workers the clocks move only when I/O completes, so every deadline check here comes after
// an await: the lease's own checks happen on its renewal replies and timers, and
// `claim.complete()` checks right before sending.

import { HttpGrantor, LeaseHolder, WorkClaimer } from "tenure";

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function report(env) {
  const grantor = new HttpGrantor({ baseUrl: env.GRANTOR_URL });
  const holderId = `edge-${crypto.randomUUID().slice(0, 8)}`;
  const holder = new LeaseHolder(grantor, { resource: "reports/edge", holderId, leaseMs: 1_500, marginMs: 300 });
  const held = await holder.acquire();
  if (!held.acquired) return { acquired: false, heldBy: held.holder ?? null };
  try {
    const signal = holder.signal;
    while (holder.stats().renewals === 0) {
      await pause(50); // I/O: the clock moves, and the lease can notice it is no longer safe
      signal.throwIfAborted();
    }
    const payload = { rows: 1200, by: holderId };
    const { accepted } = await grantor.fencedWrite("reports/edge", payload, held.token, { signal });
    const { renewals, renewRttP99Ms } = holder.stats();
    return { acquired: true, holderId, token: held.token, accepted, renewals, renewRttP99Ms };
  } finally {
    await holder.release();
  }
}

/** The work on one item: here, naming its thumbnail. It checks the claim after its I/O. */
async function makeThumbnail(item, { signal }) {
  await pause(1); // stands for fetching the image
  signal.throwIfAborted();
  return { thumbnail: item.payload.image.replace(/\.png$/, ".thumb.png") };
}

async function drain(env) {
  const grantor = new HttpGrantor({ baseUrl: env.GRANTOR_URL });
  const claimer = new WorkClaimer(grantor, {
    queue: "thumbnails",
    workerId: `edge-${crypto.randomUUID().slice(0, 8)}`,
    claimMs: 15_000,
    marginMs: 3_000,
  });
  const stop = new AbortController();
  return claimer.process(makeThumbnail, {
    concurrency: 2,
    signal: stop.signal,
    onIdle: async () => {
      const { pending, claimed } = await grantor.queueStats("thumbnails");
      if (pending + claimed === 0) stop.abort();
    },
  });
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/report") return Response.json(await report(env));
    if (request.method === "POST" && pathname === "/drain") return Response.json(await drain(env));
    return new Response("not found", { status: 404 });
  },

  async scheduled(controller, env, ctx) {
    ctx.waitUntil(drain(env));
  },
};
