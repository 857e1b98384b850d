// The grantor adapters' reply parsing under a seeded fuzzer (fuzz/js/fuzz-adapters.mjs): real
// etcd, Redis-over-HTTP, Consul, Kubernetes and reference-grantor replies from the checked-in
// corpus, mutated, replayed to grant and renew calls. Nothing may escape but a LeaseError, and no
// mutated reply may become a grant with a token the replies did not state, or outside
// 1..2^53-1. The long run is `scripts/fuzz`; this is a fixed-seed slice of it.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fuzzAdapters, loadCorpus } from "../../fuzz/js/fuzz-adapters.mjs";

describe("adapter replies under the fuzzer", { timeout: 120_000 }, () => {
  it("every adapter survives its mutated replies", async () => {
    const adapters = [...loadCorpus().keys()];
    assert.deepEqual(adapters.sort(), ["consul", "etcd", "http", "kubernetes", "redis"]);
    const report = await fuzzAdapters({ seed: 20_261_129, iterations: 25_000, seconds: 60 });
    for (const [name, entry] of Object.entries(report)) {
      console.log(`${name}: ${entry.execs} execs, outcomes ${JSON.stringify(entry.labels)}`);
      assert.deepEqual(entry.failures, [], `${name}: ${JSON.stringify(entry.failures[0], null, 1)}`);
      assert.ok(entry.execs >= 1_000, `${name}: only ${entry.execs} execs`);
      // The mutations reached both sides: grants that stood and replies that were refused.
      const outcomes = Object.keys(entry.labels);
      assert.ok(outcomes.some((l) => l === "grant true"), `${name}: no grant survived: ${outcomes}`);
      assert.ok(outcomes.some((l) => /malformed_reply/.test(l)), `${name}: nothing malformed: ${outcomes}`);
    }
  });

  it("finds a planted parsing bug: a token read with parseInt", async () => {
    const report = await fuzzAdapters({ seed: 1, iterations: 5_000, seconds: 30, adapters: ["http"], mutant: "loose-http-token" });
    const [failure] = report.http.failures;
    assert.ok(failure !== undefined, `not found in ${report.http.execs} execs`);
    assert.match(failure.problem, /which no reply stated/);
  });
});
