// The conformance suite against the reference grantor on PostgreSQL, over HttpGrantor: two grantor
// processes share one database, and every call goes to either of them in turn, so each check
// also holds across processes.

import { HttpGrantor } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { startPostgres } from "../support/postgres.mjs";
import { describeConformance } from "./suite.mjs";

/** A grantor whose calls alternate between `grantors`. */
function alternating(grantors) {
  let next = 0;
  const pick = () => grantors[next++ % grantors.length];
  return {
    grant: (request) => pick().grant(request),
    renew: (request) => pick().renew(request),
    release: (request) => pick().release(request),
    fencedWrite: (resource, payload, token) => pick().fencedWrite(resource, payload, token),
  };
}

describeConformance("reference grantor on PostgreSQL", {
  async setup() {
    const postgres = await startPostgres();
    const started = [];
    try {
      const url = await postgres.createDatabase();
      for (let i = 0; i < 2; i++) started.push(await startGrantor({ postgres: url }));
    } catch (error) {
      await Promise.all(started.map((grantor) => grantor.stop()));
      await postgres.stop();
      throw error;
    }
    return {
      grantor: alternating(started.map((g) => new HttpGrantor({ baseUrl: g.url }))),
      async teardown() {
        await Promise.all(started.map((grantor) => grantor.stop()));
        await postgres.stop();
      },
    };
  },
  durationMs: 1_000,
  // Expiry is the database clock passing the stored expires_at; a takeover needs only the next
  // request after that.
  expiryGraceMs: 250,
});
