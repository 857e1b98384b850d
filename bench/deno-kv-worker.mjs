// One Deno process of bench/deno-kv.mjs: a closed loop of grants or renewals through
// DenoKvGrantor over a local Deno KV file shared with the other processes. Each of `concurrency`
// loops waits for its answer before asking again. Prints one JSON line: {id, kind, done, failed}.
//
//   deno run --unstable-kv ... deno-kv-worker.mjs <database> <id> <settings as JSON>

import { DenoKvGrantor } from "tenure/deno-kv";

const [path, id, settingsText] = Deno.args;
const { kind, startAtMs, durationMs, concurrency, leases } = JSON.parse(settingsText);
const kv = await Deno.openKv(path);
// One machine, one clock.
const grantor = new DenoKvGrantor(kv, { clockSkewMs: 0 });
const durationOfLease = 600_000; // long enough that nothing expires during the run

let done = 0;
let failed = 0;
const failures = {};
const attempt = async (call) => {
  try {
    await call();
    done += 1;
  } catch (error) {
    failed += 1;
    const key = `${error.code}/${error.kind}: ${error.message}`.slice(0, 120);
    failures[key] = (failures[key] ?? 0) + 1;
  }
};

// Renewals renew leases this process was granted first (before the start, not counted).
const held = [];
if (kind === "renew") {
  for (let i = 0; i < leases; i += 1) {
    const resource = `${id}-held-${i}`;
    const reply = await grantor.grant({ resource, holder: id, durationMs: durationOfLease, requestId: crypto.randomUUID() });
    if (!reply.granted) throw new Error(`${resource} not granted: ${JSON.stringify(reply)}`);
    held.push({ resource, token: reply.token });
  }
}
await grantor.status(`${id}-warm`); // the server key read, the module compiled

await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAtMs - Date.now())));
const endAt = performance.now() + durationMs;
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async (_, loop) => {
    while (performance.now() < endAt) {
      if (kind === "grant") {
        // A fresh resource each time: one read and one commit, a grant on a free resource.
        const resource = `${id}-${loop}-${(next += 1)}`;
        await attempt(() => grantor.grant({ resource, holder: id, durationMs: durationOfLease, requestId: crypto.randomUUID() }));
      } else {
        const { resource, token } = held[(next += 1) % held.length];
        await attempt(async () => {
          const reply = await grantor.renew({ resource, holder: id, token, durationMs: durationOfLease, requestId: crypto.randomUUID() });
          if (!reply.renewed) throw new Error(`refused: ${reply.reason}`);
        });
      }
    }
  }),
);
console.log(JSON.stringify({ id, kind, done, failed, failures }));
kv.close();
