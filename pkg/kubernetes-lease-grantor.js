// KubernetesLeaseGrantor: leases from Kubernetes `coordination.k8s.io/v1` Lease objects, over the
// API server's REST API. The WebAssembly core (src/wasm/adapters/kubernetes.rs) translates the
// calls and does the IO; this class gives it its JavaScript shape.

import { KubernetesLeaseGrantorCore } from "./glue/tenure.js";
import { construct, settled } from "./http-grantor.js";
import { Observation } from "./observe.js";

/**
 * A grantor on Kubernetes Lease objects (`coordination.k8s.io/v1`), one per resource, named after
 * it, in one namespace, with client-go leaderelection's rules: every change is a compare-and-swap
 * on `metadata.resourceVersion`.
 *
 * - **Expiry, as client-go judges it.** The adapter records when, on its own monotonic clock, it
 *   first saw each version of a Lease, and takes another holder's lease over only once
 *   `leaseDurationSeconds` has passed since then with the record unchanged. Clock skew between
 *   machines is therefore harmless (skewed clock *rates* are not), and a process that starts
 *   while someone holds a lease waits one full lease duration before taking it.
 * - **Durations.** `leaseDurationSeconds` is whole seconds: a request is rounded up, and the
 *   reply's `durationMs` says what was granted.
 * - **Fencing token: `spec.leaseTransitions + 1`**, bumped on every grant; the compare-and-swap
 *   makes each value belong to one grant. Never delete these Leases (grant RBAC `get`, `create`,
 *   `update` on `leases`, not `delete`), and do not share one with holders that do not use this
 *   adapter.
 * - **Release**, as client-go's `ReleaseOnCancel`: `holderIdentity` cleared and
 *   `leaseDurationSeconds: 1`, only if this grant still holds it.
 * - **Retries.** The annotation `tenure/request-id` records which attempt made the grant, so a
 *   retried grant gets the original token.
 *
 * Auth: `token` is sent as `Authorization: Bearer <token>`. Browsers need the API server's
 * `--cors-allowed-origins`, or a same-origin proxy such as `kubectl proxy`.
 *
 * Options: `baseUrl` (the API server, e.g. `"https://10.0.0.1:6443"`, or a `kubectl proxy`),
 * `namespace` (default `"default"`), `token` (bearer token), `headers`, `timeoutMs` (each
 * request's, default 10 000), `credentials`, `fetch`.
 */
export class KubernetesLeaseGrantor {
  #core;

  constructor(options = {}) {
    this.#core = construct(() => new KubernetesLeaseGrantorCore(options));
  }

  /** The API server's base URL. */
  get baseUrl() {
    return this.#core.baseUrl;
  }

  /** The namespace the Lease objects live in. */
  get namespace() {
    return this.#core.namespace;
  }

  /**
   * Grants the Lease named `resource`: creates it if missing; takes it if it is free, expired by
   * this process's observation, or this holder's own older grant; otherwise denies, naming the
   * holder and (by this process's observation) how long its lease has left.
   */
  grant(args) {
    return settled(this.#core.grant(args));
  }

  /** Renews: a compare-and-swap of `renewTime` (and the duration), only while this grant holds. */
  renew(args) {
    return settled(this.#core.renew(args));
  }

  /** Releases as client-go's `ReleaseOnCancel` does, if this grant still holds. */
  release(args) {
    return settled(this.#core.release(args));
  }

  /**
   * Who holds the Lease named `resource`, change by change: a list, then a watch (`?watch=1`)
   * from its resourceVersion, again every 30 s. A holder counts as gone once this process's
   * observation says its lease ran out (no event says so; the watch ends then and the Lease is
   * read afresh). The token is `leaseTransitions + 1`; `version` grows with it.
   */
  observe(resource, { signal } = {}) {
    return new Observation(construct(() => this.#core.observe(resource, signal)));
  }
}
