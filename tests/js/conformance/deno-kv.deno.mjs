// The conformance suite, unchanged, against DenoKvGrantor in Deno over a local Deno KV database:
// run under `deno test` (which runs node:test's describe and it) by deno-kv.test.mjs, which passes
// a scratch directory for the database as the first argument.

import { DenoKvGrantor } from "tenure/deno-kv";
import { describeConformance } from "./suite.mjs";

const dir = Deno.args[0];
if (!dir) throw new Error("usage: deno test ... deno-kv.deno.mjs -- <directory for the database>");

/** A grantor over a database file of its own, closed when the suite ends. */
function setupWith(name, options) {
  return async () => {
    const kv = await Deno.openKv(`${dir}/${name}.sqlite3`);
    return { grantor: new DenoKvGrantor(kv, options), teardown: () => kv.close() };
  };
}

describeConformance("Deno KV grantor", {
  // clockSkewMs 0: the suite and the grantor run in one process, on one clock, so no grant needs
  // to count as live past its recorded expiry, and a takeover comes as soon as it runs out.
  setup: setupWith("one-clock", { clockSkewMs: 0 }),
  durationMs: 1_000,
  // Expiry is judged at each request from the recorded expiry, on Date.now: a takeover waits only
  // for the suite's next attempt after it.
  expiryGraceMs: 250,
  // Observed through kv.watch (this process's writes) and the record's re-reads (any process's).
  observe: true,
});

describeConformance("Deno KV grantor with its defaults, as on Deno Deploy", {
  // clockSkewMs 1000 by default, for grantors on machines whose clocks differ: every grant counts
  // as live for a second past its recorded expiry, so a takeover comes that much later.
  setup: setupWith("defaults", {}),
  durationMs: 1_000,
  expiryGraceMs: 1_250,
  observe: true,
});
