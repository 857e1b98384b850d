// An in-memory grantor with the design's semantics (grant if expired or same holder, token =
// token + 1; fenced writes accept last_token <= token), plus switches to inject faults. It judges
// expiry on its own clock, the way a real grantor does, independent of the holders' beliefs.

const realNow = () => performance.now();

export class MemoryGrantor {
  #leases = new Map();
  #tokens = new Map();
  #protected = new Map();
  #blocked = new Set();
  #now;

  constructor({ now = realNow } = {}) {
    this.#now = now;
  }

  /** Every request from `holder` now fails as if the network were down. */
  block(holder) {
    this.#blocked.add(holder);
  }

  unblock(holder) {
    this.#blocked.delete(holder);
  }

  #reachable(holder) {
    if (this.#blocked.has(holder)) throw new TypeError("fetch failed: grantor unreachable");
  }

  /** The grantor's own view: who holds `resource` right now, by its clock. */
  currentHolder(resource) {
    const lease = this.#leases.get(resource);
    if (lease === undefined || lease.expiresAt <= this.#now()) return null;
    return { holder: lease.holder, token: lease.token, expiresInMs: lease.expiresAt - this.#now() };
  }

  async grant({ resource, holder, durationMs }) {
    this.#reachable(holder);
    const current = this.currentHolder(resource);
    if (current !== null && current.holder !== holder) {
      return { granted: false, holder: current.holder, expiresInMs: current.expiresInMs };
    }
    const token = (this.#tokens.get(resource) ?? 0) + 1;
    this.#tokens.set(resource, token);
    this.#leases.set(resource, { holder, token, expiresAt: this.#now() + durationMs });
    return { granted: true, token, durationMs };
  }

  async renew({ resource, holder, token, durationMs }) {
    this.#reachable(holder);
    const current = this.currentHolder(resource);
    if (current === null) return { renewed: false, reason: "expired" };
    if (current.holder !== holder || current.token !== token) {
      return { renewed: false, reason: "not_holder" };
    }
    this.#leases.get(resource).expiresAt = this.#now() + durationMs;
    return { renewed: true, token, durationMs };
  }

  async release({ resource, holder, token }) {
    this.#reachable(holder);
    const current = this.#leases.get(resource);
    if (current?.holder === holder && current.token === token) this.#leases.delete(resource);
    return { released: true };
  }

  revoke(resource) {
    this.#leases.delete(resource);
  }

  /** The design's protected_state: accept only when last_token <= incoming token. */
  write(resource, payload, token) {
    const state = this.#protected.get(resource) ?? { lastToken: 0, payload: null };
    if (state.lastToken > token) return { accepted: false, lastToken: state.lastToken };
    this.#protected.set(resource, { lastToken: token, payload });
    return { accepted: true, lastToken: token };
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `predicate` every 5 ms until it holds or `maxMs` passes; returns whether it held. */
export async function eventually(predicate, maxMs) {
  const start = performance.now();
  while (performance.now() - start < maxMs) {
    if (predicate()) return true;
    await sleep(5);
  }
  return predicate();
}
