// A Cloudflare Worker with a grantor of its own: LeaseGrantorObject, a Durable Object, keeps the
// leases, fenced writes and watches in its storage, so there is no grantor server to run.
//
// - POST /report: a singleton step. Holds the lease `reports/daily` through the binding
//   (DurableObjectGrantor: no HTTP hop), writes the report through the grantor's fenced resource
//   with its token once a renewal has come back, and releases. A second request while the first
//   holds the lease answers {acquired: false, heldBy}.
// - /grantor/v1/...: the same grantor over HTTP, for holders outside Cloudflare:
//   new HttpGrantor({ baseUrl: "https://<your worker>/grantor", apiKey }). The object answers
//   whatever it is sent, so this Worker checks the key before passing a request on.
//
// In Workers, Date.now() and performance.now() move only when I/O completes: the deadline checks
// here come after an await.

import { DurableObjectGrantor, LeaseHolder } from "tenure";

// The class wrangler.toml binds as GRANTOR: exported from the Worker under the same name.
export { LeaseGrantorObject } from "tenure/durable-object";

// One object serves every resource of a grantor name: all of this Worker's leases are in one.
const GRANTOR_NAME = "tenure";

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function report(env) {
  const grantor = new DurableObjectGrantor({ namespace: env.GRANTOR, name: GRANTOR_NAME });
  const holderId = `edge-${crypto.randomUUID().slice(0, 8)}`;
  const holder = new LeaseHolder(grantor, { resource: "reports/daily", holderId, leaseMs: 1_500, marginMs: 300 });
  const held = await holder.acquire();
  if (!held.acquired) return { acquired: false, heldBy: held.holder ?? null };
  try {
    const signal = holder.signal;
    while (holder.stats().renewals === 0) {
      await pause(50); // I/O: the clock moves, and the lease can notice it is no longer safe
      signal.throwIfAborted();
    }
    const payload = { rows: 1200, by: holderId };
    const { accepted } = await grantor.fencedWrite("reports/daily", payload, held.token, { signal });
    return { acquired: true, holderId, token: held.token, accepted, renewals: holder.stats().renewals };
  } finally {
    await holder.release();
  }
}

/** Whether `request` carries `Authorization: Bearer <GRANTOR_API_KEY>`; never without a key set. */
async function authorized(request, env) {
  const key = env.GRANTOR_API_KEY;
  if (typeof key !== "string" || key === "") return false;
  const given = request.headers.get("authorization") ?? "";
  // Compared as digests, in constant time: neither the key nor its length shows in the timing.
  const encode = (text) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const [expected, actual] = await Promise.all([encode(`Bearer ${key}`), encode(given)]);
  return crypto.subtle.timingSafeEqual(expected, actual);
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/report") return Response.json(await report(env));
    if (pathname.startsWith("/grantor/")) {
      if (!(await authorized(request, env))) {
        return Response.json({ code: "unauthorized", message: "a valid API key is required" }, { status: 401 });
      }
      const stub = env.GRANTOR.get(env.GRANTOR.idFromName(GRANTOR_NAME));
      const path = pathname.slice("/grantor".length);
      return stub.fetch(new Request(new URL(path, "https://grantor.invalid"), request));
    }
    return new Response("not found", { status: 404 });
  },
};
