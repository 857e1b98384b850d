// The conformance suite against the reference grantor on embedded SQLite, over HttpGrantor.

import { HttpGrantor } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { describeConformance } from "./suite.mjs";

describeConformance("reference grantor on SQLite", {
  async setup() {
    const grantorProcess = await startGrantor();
    return {
      grantor: new HttpGrantor({ baseUrl: grantorProcess.url }),
      teardown: () => grantorProcess.stop(),
    };
  },
  durationMs: 1_000,
  // The reference grantor expires a lease exactly at its duration on its monotonic clock.
  expiryGraceMs: 250,
  observe: true,
});
