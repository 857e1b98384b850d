// The conformance suite against the reference grantor on PostgreSQL, over HttpGrantor: two grantor
// processes share one database, and every call goes to either of them in turn, so each check
// also holds across processes.

import { HttpGrantor } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { startPostgres } from "../support/postgres.mjs";
import { describeConformance } from "./suite.mjs";

/**
 * A grantor whose calls alternate between `grantors`. An HttpGrantor sends the secrets of the
 * grants it made itself; across several of them the secrets travel as explicit `leaseSecret`
 * arguments, as they must for any client that spreads one lease over several grantor addresses.
 */
function alternating(grantors) {
  let next = 0;
  const pick = () => grantors[next++ % grantors.length];
  const key = (a, b) => JSON.stringify([a, b]);
  const byGrant = new Map(); // [resource, token] -> that grant's secret
  const byHolder = new Map(); // [resource, holder] -> the secret of its latest grant
  return {
    async grant(request) {
      const reply = await pick().grant({ leaseSecret: byHolder.get(key(request.resource, request.holder)), ...request });
      if (reply.granted === true && typeof reply.leaseSecret === "string") {
        byGrant.set(key(request.resource, reply.token), reply.leaseSecret);
        byHolder.set(key(request.resource, request.holder), reply.leaseSecret);
      }
      return reply;
    },
    renew: (request) => pick().renew({ ...request, leaseSecret: byGrant.get(key(request.resource, request.token)) }),
    release: (request) => pick().release({ ...request, leaseSecret: byGrant.get(key(request.resource, request.token)) }),
    fencedWrite: (resource, payload, token) =>
      pick().fencedWrite(resource, payload, token, { leaseSecret: byGrant.get(key(resource, token)) }),
    // Watched on whichever grantor process comes next: changes made through the other one reach
    // it through PostgreSQL's notifications.
    observe: (resource, options) => pick().observe(resource, options),
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
  observe: true,
});
