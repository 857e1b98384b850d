// An in-memory grantor that meets the conformance contract, with switches that each break one
// rule. The conformance suite's own check runs the suite against every broken variant and expects
// the matching test to fail, so a suite that cannot fail would be caught.

/** The rule each variant breaks, by name. */
export const VARIANTS = {
  conforming: "nothing",
  "grants-everyone": "a held resource is granted to anybody who asks",
  "renews-any-holder": "a renewal is accepted whoever sends it",
  "reuses-tokens": "a grant after a release reuses the released token",
  "expires-early": "a lease ends at half its duration",
  "replays-full-duration": "a retried request gets the original reply verbatim, full duration included",
  "releases-newer-grants": "a release frees the resource whatever token it names",
};

export class ConformanceMemoryGrantor {
  #variant;
  #leases = new Map();
  #tokens = new Map();
  #outcomes = new Map();

  constructor(variant = "conforming") {
    if (!(variant in VARIANTS)) throw new Error(`unknown variant ${variant}`);
    this.#variant = variant;
  }

  #live(resource) {
    const lease = this.#leases.get(resource);
    return lease !== undefined && lease.expiresAt > performance.now() ? lease : null;
  }

  // Idempotency: a retry gets the original outcome, cut to what the grant has left by now.
  #replay(kind, { resource, holder, requestId }, compute) {
    const key = `${kind}\n${resource}\n${holder}\n${requestId}`;
    const stored = this.#outcomes.get(key);
    if (stored === undefined) {
      const reply = compute();
      this.#outcomes.set(key, reply);
      return reply;
    }
    if (this.#variant === "replays-full-duration" || stored.token === undefined) return stored;
    const lease = this.#live(resource);
    if (lease === null || lease.token !== stored.token || lease.holder !== holder) {
      return kind === "grant" ? { granted: false } : { renewed: false, reason: "expired" };
    }
    return { ...stored, durationMs: Math.floor(lease.expiresAt - performance.now()) };
  }

  async grant(request) {
    return this.#replay("grant", request, () => {
      const { resource, holder, durationMs } = request;
      const current = this.#live(resource);
      if (current !== null && current.holder !== holder && this.#variant !== "grants-everyone") {
        return {
          granted: false,
          holder: current.holder,
          expiresInMs: Math.ceil(current.expiresAt - performance.now()),
        };
      }
      const last = this.#tokens.get(resource) ?? 0;
      const token = this.#variant === "reuses-tokens" && current === null && last > 0 ? last : last + 1;
      this.#tokens.set(resource, token);
      const lifetime = this.#variant === "expires-early" ? durationMs / 2 : durationMs;
      this.#leases.set(resource, { holder, token, expiresAt: performance.now() + lifetime });
      return { granted: true, token, durationMs };
    });
  }

  async renew(request) {
    return this.#replay("renew", request, () => {
      const { resource, holder, token, durationMs } = request;
      const current = this.#live(resource);
      if (current === null) return { renewed: false, reason: "expired" };
      const matches = current.holder === holder && current.token === token;
      if (!matches && this.#variant !== "renews-any-holder") return { renewed: false, reason: "not_holder" };
      const lifetime = this.#variant === "expires-early" ? durationMs / 2 : durationMs;
      current.expiresAt = performance.now() + lifetime;
      return { renewed: true, token: current.token, durationMs };
    });
  }

  async release({ resource, holder, token }) {
    const current = this.#leases.get(resource);
    const matches = current?.holder === holder && current.token === token;
    if (current !== undefined && (matches || this.#variant === "releases-newer-grants")) {
      this.#leases.delete(resource);
      return { released: true };
    }
    return { released: false };
  }
}
