// HttpGrantor: the tenure grantor protocol (/v1, JSON over HTTP) over fetch. The WebAssembly core
// (src/wasm/http_grantor.rs) builds the requests, does the IO and reads the replies; this class
// only gives it the JavaScript shape and turns its errors into LeaseErrors.

import { HttpGrantorCore } from "./glue/tenure.js";
import { coreModule } from "./core.js";
import { fromCore } from "./errors.js";
import { Observation } from "./observe.js";

/** Calls `make` with the core loaded; its errors become `LeaseError`s. */
export function construct(make) {
  coreModule();
  try {
    return make();
  } catch (error) {
    throw fromCore(error);
  }
}

/** The core's promise, its rejections as `LeaseError`s. */
export async function settled(promise) {
  try {
    return await promise;
  } catch (error) {
    throw fromCore(error);
  }
}

/**
 * A grantor speaking the tenure protocol over `fetch`, for `LeaseHolder` or direct use.
 *
 * Every call has its own timeout (`timeoutMs`), and also stops when the holder's `signal` aborts,
 * which the holder does when its lease's remaining budget runs out. 5xx, 408, 429 (with
 * `Retry-After`), timeouts and network errors are retryable failures; a refusal in the reply body
 * (`renewed: false`) is a definitive loss.
 *
 * `apiKey` goes out as `Authorization: Bearer <apiKey>`, only ever to `baseUrl`'s origin:
 * redirects are never followed. Each grant's reply carries a `leaseSecret` (and each claim's a
 * `claimSecret`) that the grantor requires to renew, release, write with or re-grant that grant
 * (or to heartbeat, complete or fail that claim). This object remembers them (the newest 65,536;
 * a renewal keeps its grant's among the newest) and sends each with the calls about its grant or
 * claim, so use one HttpGrantor for a lease's whole life; or pass `leaseSecret` / `claimSecret`
 * yourself.
 *
 * With `batchRenewals`, renewals are not sent one by one: they wait in a shared queue and go out
 * together as one `POST /v1/renew/batch`, each waiting at most `maxDelayMs` (by default a sixth
 * of its lease; see `HttpGrantor.batchDelayMs`), at most `maxBatch` (default and most 10,000) per
 * request. Each renewal still gets its own reply or failure, as if sent alone.
 */
export class HttpGrantor {
  #core;

  constructor(options = {}) {
    this.#core = construct(() => new HttpGrantorCore(options));
  }

  /**
   * The longest `batchRenewals.maxDelayMs` that puts none of the holders with these settings at
   * risk (LeaseHolder configs, or just their `leaseMs`, `marginMs`, `renewIntervalMs?` and
   * `requestTimeoutMs?`): half of the shortest renewal budget among them.
   */
  static batchDelayMs(configs) {
    return construct(() => HttpGrantorCore.batchDelayMs(configs));
  }

  /** The grantor's base URL. */
  get baseUrl() {
    return this.#core.baseUrl;
  }

  /** `POST /v1/grant`; a grant's `leaseSecret` is remembered for the calls about that grant. */
  grant(args) {
    return settled(this.#core.grant(args));
  }

  /** `POST /v1/renew` (or, with `batchRenewals`, one element of a batch), with the grant's secret. */
  renew(args) {
    return settled(this.#core.renew(args));
  }

  /** `POST /v1/release`, with the grant's secret: idempotent. */
  release(args) {
    return settled(this.#core.release(args));
  }

  /** `POST /v1/status`: `{resource, holder, token, expiresInMs}`, nulls when free. */
  status(resource, { signal } = {}) {
    return settled(this.#core.status(resource, signal));
  }

  /**
   * Who holds `resource`, change by change: `POST /v1/watch` long polls one after another, as
   * an async iterator of `{holder, token, expiresInMs, handedTo, version, since}`.
   */
  observe(resource, { signal } = {}) {
    return new Observation(construct(() => this.#core.observe(resource, signal)));
  }

  /** `POST /v1/revoke`: needs an admin `apiKey` (or, on a grantor without keys, loopback). */
  revoke(resource, { signal } = {}) {
    return settled(this.#core.revoke(resource, signal));
  }

  /** `POST /v1/fenced/write`, sent with the secret of the grant with `token`. */
  fencedWrite(resource, payload, token, options = {}) {
    return settled(this.#core.fencedWrite(resource, payload, token, options));
  }

  /** `POST /v1/fenced/read`: `{payload, lastToken}`. */
  fencedRead(resource, { signal } = {}) {
    return settled(this.#core.fencedRead(resource, signal));
  }

  /** `POST /v1/queues/enqueue`: `items` is an array of `{payload, dedupeKey?, maxAttempts?}`. */
  enqueue(queue, items, { signal } = {}) {
    return settled(this.#core.enqueue(queue, items, signal));
  }

  /** `POST /v1/queues/claim`: `WorkClaimer` calls it; its `claimSecret` is remembered. */
  claim(args) {
    return settled(this.#core.claim(args));
  }

  /** `POST /v1/queues/heartbeat`: extends a live claim; a stale one rejects with `stale_claim`. */
  heartbeat(args) {
    return settled(this.#core.heartbeat(args));
  }

  /** `POST /v1/queues/complete`, fenced by the claim token; `claimNext` claims the next item too. */
  complete(args) {
    return settled(this.#core.complete(args));
  }

  /** `POST /v1/queues/fail`, fenced by the claim token; `claimNext` claims the next item too. */
  fail(args) {
    return settled(this.#core.fail(args));
  }

  /** `POST /v1/queues/stats`: `{queue, pending, claimed, done, dead}`. */
  queueStats(queue, { signal } = {}) {
    return settled(this.#core.queueStats(queue, signal));
  }

  /** `POST /v1/queues/item`: one item's record, including the token that completed it. */
  queueItem(queue, itemId, { signal } = {}) {
    return settled(this.#core.queueItem(queue, itemId, signal));
  }
}
