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
    let stub = namespace.get(id);
    const fetch = async (url, init) => {
      try {
        return await stub.fetch(url, init);
      } catch (error) {
        // A stub whose object was reset (evicted, restarted, overloaded) stays broken: the next
        // request goes through a new one. This one fails, and is retried as any failed request.
        stub = namespace.get(id);
        throw error;
      }
    };
    super({ ...client, baseUrl: "https://durable-object.tenure.invalid", fetch });
  }
}
