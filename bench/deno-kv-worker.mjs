// One Deno process of bench/deno-kv.mjs: closed loops of grants or renewals (bench/grant-loops.js)
// through DenoKvGrantor over a local Deno KV file shared with the other processes, or (with
// `baseUrl`) through HttpGrantor against the reference grantor: the same loops, so the two
// targets differ only in the grantor behind the client. Prints one JSON line:
// {id, kind, done, failed, failures, lateMs}.
//
//   deno run --unstable-kv ... deno-kv-worker.mjs <database> <id> <settings as JSON>

import { grantLoops } from "./grant-loops.js";

const [path, id, settingsText] = Deno.args;
const { kind, startAtMs, warmupMs, durationMs, concurrency, leases, baseUrl } = JSON.parse(settingsText);

// Only the target's module is loaded: the Deno KV target stays as it was measured before the
// reference target existed (no second WebAssembly module compiled in the process).
let grantor;
let kv = null;
if (baseUrl === undefined) {
  const { DenoKvGrantor, openKv } = await import("tenure/deno-kv");
  kv = await openKv(path);
  // One machine, one clock.
  grantor = new DenoKvGrantor(kv, { clockSkewMs: 0 });
} else {
  const { HttpGrantor } = await import("tenure");
  grantor = new HttpGrantor({ baseUrl });
}

const figures = await grantLoops({ grantor, id, kind, leases, concurrency, warmupMs, durationMs, startAtMs });
console.log(JSON.stringify({ id, kind, ...figures }));
kv?.close();
