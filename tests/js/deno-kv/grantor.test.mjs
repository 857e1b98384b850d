// DenoKvGrantor's own tests (grantor.deno.mjs) in a real Deno over a local Deno KV database: its
// options and records, Deno KV's limits, a locked database, timeouts, and watches.

import { it } from "node:test";
import { join } from "node:path";
import { kvPermissions, repo, runDenoTests, scratchDir } from "../support/deno.mjs";

it("DenoKvGrantor in Deno, over a local Deno KV", { timeout: 180_000 }, async (t) => {
  const dir = scratchDir("deno-kv");
  await runDenoTests(t, join(repo, "tests", "js", "deno-kv", "grantor.deno.mjs"), {
    permissions: kvPermissions(dir),
    args: [dir],
    atLeast: 8,
    timeoutMs: 120_000,
  });
});
