// The conformance suite against DenoKvGrantor in a real Deno over a local Deno KV database (SQLite):
// suite.mjs runs unchanged under `deno test`, which runs node:test's describe, it and hooks, from
// deno-kv.deno.mjs; each of its tests is reported here. Several processes sharing one database are
// tested in tests/js/deno-kv/.

import { it } from "node:test";
import { join } from "node:path";
import { kvPermissions, repo, runDenoTests, scratchDir } from "../support/deno.mjs";

it("grantor conformance in Deno: DenoKvGrantor on a local Deno KV", { timeout: 600_000 }, async (t) => {
  const dir = scratchDir("deno-kv-conformance");
  await runDenoTests(t, join(repo, "tests", "js", "conformance", "deno-kv.deno.mjs"), {
    permissions: kvPermissions(dir),
    args: [dir],
    // Two runs of the suite (one clock; the defaults) of 11 tests each, observe included.
    atLeast: 22,
    timeoutMs: 480_000,
  });
});
