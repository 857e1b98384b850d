// DurableObjectGrantor: an HttpGrantor whose requests go to a LeaseGrantorObject through a Durable
// Object namespace binding (`stub.fetch`), with no public HTTP hop.

import { HttpGrantor } from "./http-grantor.js";
import { LeaseError } from "./errors.js";

/**
 * A grantor living in a Durable Object (`LeaseGrantorObject` from "tenure/durable-object"),
 * reached through its namespace binding: `new DurableObjectGrantor({namespace: env.GRANTOR})`.
 * `name` picks the object (one object serves every resource of a name; "tenure" by default).
 * Every HttpGrantor option but `baseUrl` and `fetch` applies.
 */
export class DurableObjectGrantor extends HttpGrantor {
  constructor(options = {}) {
    const { namespace, name = "tenure", ...client } = options;
    if (typeof namespace?.idFromName !== "function" || typeof namespace?.get !== "function") {
      throw new LeaseError("ERR_LEASE_CONFIG", "namespace must be a Durable Object namespace binding", { field: "namespace" });
    }
    if (typeof name !== "string" || name === "") {
      throw new LeaseError("ERR_LEASE_CONFIG", "name must be a non-empty string", { field: "name" });
    }
    const id = namespace.idFromName(name);
    // A new stub for each request, never one kept: a stub whose object was reset (evicted with a
    // request in flight, redeployed, aborted) fails every later request made through it, and a
    // stub belongs to the request that made it, so a grantor kept across requests could not use
    // it. Making one is local and cheap.
    const fetch = (url, init) => namespace.get(id).fetch(url, init);
    super({ ...client, baseUrl: "https://durable-object.tenure.invalid", fetch });
  }
}
