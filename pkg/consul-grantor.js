// ConsulGrantor: leases from Consul's sessions and KV locks, over Consul's HTTP API. The
// WebAssembly core (src/wasm/adapters/consul.rs) translates the calls and does the IO; this class
// gives it its JavaScript shape.

import { ConsulGrantorCore } from "./glue/tenure.js";
import { construct, settled } from "./http-grantor.js";
import { Observation } from "./observe.js";

/**
 * A grantor on Consul: sessions with a TTL, and locks on KV keys.
 *
 * - **Durations.** A session TTL is whole seconds from 10 s to 24 h: a request is rounded up and
 *   clamped into that range, and the reply's `durationMs` says what was granted. Consul may take
 *   up to twice the TTL (plus the lock-delay) to invalidate an unrenewed session; the holder
 *   believes only the TTL, so another holder may wait up to 2 × TTL for a takeover.
 * - **Fencing token: the key's `LockIndex`.** Consul increments it on every acquisition of the key
 *   by a new session and leaves it alone on renewals, so it is per key, strictly increasing across
 *   grants, and stable for the whole grant. Sessions use `Behavior: "release"` (the key stays when
 *   a session ends), because deleting the key would restart `LockIndex` at 1. Never delete lock
 *   keys under `keyPrefix`.
 * - **Lock-delay** (`lockDelayMs`, default 0). Consul refuses to re-lock a key for the lock-delay
 *   after its session was invalidated while holding it. A tenure holder stops at its margin before
 *   the TTL, and the resource rejects stale fencing tokens, so the default here is 0. Raise it if
 *   the protected resource cannot check tokens.
 * - **Retries.** The key's value records the holder and the attempt's `requestId`, so a retried
 *   grant gets the original token, and a new grant by the same holder replaces its own older one
 *   with a larger token.
 *
 * Auth: `token` is sent as `X-Consul-Token`. In browsers, Consul must be configured to send CORS
 * headers allowing that header (`http_config.response_headers`).
 *
 * Options: `baseUrl` (the agent, e.g. `"http://127.0.0.1:8500"`), `token` (ACL token),
 * `keyPrefix` (default `"tenure/"`), `lockDelayMs` (0 to 60 000, default 0), `headers`,
 * `timeoutMs` (each request's, default 10 000), `credentials`, `fetch`.
 */
export class ConsulGrantor {
  #core;

  constructor(options = {}) {
    this.#core = construct(() => new ConsulGrantorCore(options));
  }

  /** The agent's base URL. */
  get baseUrl() {
    return this.#core.baseUrl;
  }

  /** The KV key that locks `resource`. */
  keyOf(resource) {
    return construct(() => this.#core.keyOf(resource));
  }

  /** Creates a session and locks the resource's key with it; see the class notes on retries. */
  grant(args) {
    return settled(this.#core.grant(args));
  }

  /** Renews the session that locked the key, then checks the key is still locked by it. */
  renew(args) {
    return settled(this.#core.renew(args));
  }

  /** Unlocks the key if this holder's grant still holds it, then destroys its session. */
  release(args) {
    return settled(this.#core.release(args));
  }

  /**
   * Who holds `resource`, change by change: blocking queries on its lock key (`?index=`, up to
   * 30 s each), as an async iterator of `{holder, token, expiresInMs: null, handedTo: null,
   * version, since}`; the token is the key's `LockIndex`.
   */
  observe(resource, { signal } = {}) {
    return new Observation(construct(() => this.#core.observe(resource, signal)));
  }
}
