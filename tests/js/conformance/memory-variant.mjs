// Runs the conformance suite against one variant of the in-memory grantor, named by
// TENURE_CONFORMANCE_VARIANT; self-check.test.mjs runs it once per variant in a child process.

import { describeConformance } from "./suite.mjs";
import { ConformanceMemoryGrantor } from "./memory-grantor.mjs";

const variant = process.env.TENURE_CONFORMANCE_VARIANT ?? "conforming";

describeConformance(`in-memory grantor (${variant})`, {
  setup: async () => ({ grantor: new ConformanceMemoryGrantor(variant), teardown: async () => {} }),
  durationMs: 400,
  expiryGraceMs: 100,
});
