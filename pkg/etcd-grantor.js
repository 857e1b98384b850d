// EtcdGrantor: leases kept in etcd v3, through its JSON gateway (`/v3/...`), over fetch. The
// WebAssembly core (src/wasm/adapters/etcd.rs) translates the calls and does the IO; this class
// gives it its JavaScript shape.

import { EtcdGrantorCore } from "./glue/tenure.js";
import { construct, settled } from "./http-grantor.js";
import { Observation } from "./observe.js";

/**
 * A grantor keeping leases in etcd v3 through its JSON gateway, for `LeaseHolder` or direct use.
 *
 * A grant is an etcd lease plus a key created under it (`<keyPrefix><resource>`, value = the
 * holder id) only while the key does not exist; the fencing token is the key's `create_revision`.
 * Durations are whole seconds (requests are rounded up; etcd may raise them to its minimum TTL,
 * 2 s by default) and replies report what etcd granted; a renewal restores the lease's own TTL,
 * which a keepalive cannot change. Every request has its own timeout (`timeoutMs`) and also stops
 * when the caller's `signal` aborts. Network failures, timeouts and gateway errors (5xx, gRPC
 * Unavailable) are retryable `ERR_GRANTOR` failures with a `kind`; a refusal is a definitive loss.
 *
 * A holder id names one holder: a grant asked for by the holder that already holds the resource
 * is treated as a retry of the grant that made it, and returns that grant (same token), reporting
 * only the time its etcd lease has left.
 *
 * A cluster is given as `endpoints`, its members' client URLs: requests stay on a member that
 * answers; one that cannot be reached, times out or answers a server error is tried after the
 * others for a few seconds, and a request goes on to the next member only when sending it twice
 * cannot change the answer (the grant's create-if-absent and the release's delete are sent once:
 * if one goes unanswered the call fails retryably, and the holder's retry goes to the next member).
 *
 * Options: `baseUrl` (the etcd client URL, e.g. `"http://127.0.0.1:2379"`) or `endpoints` (the
 * members' client URLs), `token` (an etcd auth token, sent raw in `Authorization` as the gateway
 * expects), `headers`, `timeoutMs` (per request, default 10 000), `keyPrefix` (default
 * `"tenure/leases/"`), `credentials`, `fetch`.
 */
export class EtcdGrantor {
  #core;

  constructor(options = {}) {
    this.#core = construct(() => new EtcdGrantorCore(options));
  }

  /** The etcd client URL (the first member's, given `endpoints`). */
  get baseUrl() {
    return this.#core.baseUrl;
  }

  /** Every member's client URL, in the order given. */
  get endpoints() {
    return this.#core.endpoints;
  }

  /** The etcd key holding `resource`'s grant. */
  keyOf(resource) {
    return this.#core.keyOf(resource);
  }

  /** `{granted: true, token, durationMs}` or `{granted: false, holder, expiresInMs?}`. */
  grant(args) {
    return settled(this.#core.grant(args));
  }

  /** `{renewed: true, token, durationMs}` or `{renewed: false, reason}` (`expired`, `not_holder`). */
  renew(args) {
    return settled(this.#core.renew(args));
  }

  /** `{released}`: idempotent, and never touches a newer grant. */
  release(args) {
    return settled(this.#core.release(args));
  }

  /**
   * Who holds `resource`, change by change: a range of its key, then `/v3/watch` streams of it,
   * each resuming at the revision after the last one yielded; a compacted revision or a cut
   * stream starts again from a range. `version` is etcd's revision, `token` the key's
   * `create_revision`.
   */
  observe(resource, { signal } = {}) {
    return new Observation(construct(() => this.#core.observe(resource, signal)));
  }
}
