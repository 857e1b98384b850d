// Type-checks "tenure/deno-kv" as the guide uses it, in a project without Deno's types (a
// Deno.Kv is checked against the declarations by `deno check` of examples/deno-kv).
import { DenoKvGrantor, openKv, type DenoKv, type DenoKvGrantorOptions } from "tenure/deno-kv";
import { HttpGrantor, LeaseHolder, type Grantor } from "tenure";

declare const kv: DenoKv;

const options: DenoKvGrantorOptions = {
  prefix: ["apps", "billing", 1n],
  clockSkewMs: 0,
  minDurationMs: 500,
  maxDurationMs: 60_000,
  watchPollMs: 250,
  timeoutMs: 5_000,
  batchRenewals: { maxDelayMs: 100 },
};
const grantor = new DenoKvGrantor(kv, options);
const asHttp: HttpGrantor = grantor;
const asGrantor: Grantor = grantor;
const holder = new LeaseHolder(new DenoKvGrantor(kv), { resource: "jobs/nightly", holderId: "a", leaseMs: 10_000, marginMs: 2_000 });
void [asHttp, asGrantor, holder];

// @ts-expect-error: the prefix is an array of key parts
new DenoKvGrantor(kv, { prefix: "tenure" });
// @ts-expect-error: no baseUrl: the grantor is in this process
new DenoKvGrantor(kv, { baseUrl: "http://127.0.0.1:8040" });
// @ts-expect-error: a Deno.Kv is required
new DenoKvGrantor({});

// openKv waits its turn at a file other processes are opening, and gives what a grantor takes.
const opened: Promise<DenoKv> = openKv("data/leases.sqlite3");
void opened.then((db) => new DenoKvGrantor(db, { clockSkewMs: 0 }));
