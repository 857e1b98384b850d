// HttpGrantor: the tenure grantor protocol (/v1, JSON over HTTP) over fetch. It only translates:
// requests to fetch calls, HTTP outcomes to replies or typed failures. Replies are validated by
// the holder's core like any grantor's, so a malformed reply can never become a grant.

import { BatchCore, retryAfterMs as retryAfterCore } from "./glue/tenure.js";
import { LeaseError, fromCore } from "./errors.js";
import { coreModule } from "./core.js";
import { parseReplyJson } from "./strict-json.js";
import {
  ERROR_CODE,
  MAX_REPLY_BYTES,
  REMEMBERED_LEASES,
  limit,
  maxBatchReplyBytes,
  refusesUnknownField,
  statusKind,
} from "./protocol.js";

const BATCH_PATH = "/v1/renew/batch";

/**
 * A map that forgets its oldest entries beyond `limit`, so remembering every grant's secret
 * costs bounded memory however long the HttpGrantor lives.
 */
class BoundedMap {
  #entries = new Map();
  #limit;

  constructor(limit) {
    this.#limit = limit;
  }

  get(key) {
    return this.#entries.get(key);
  }

  set(key, value) {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value);
  }

  delete(key) {
    this.#entries.delete(key);
  }
}

/** The map key of a grant or claim: two values that cannot run into each other. */
const pairKey = (a, b) => JSON.stringify([a, b]);

/** An explicit secret must be a non-empty string; absent means "the one this HttpGrantor knows". */
function checkedSecret(secret, field) {
  if (secret === undefined) return undefined;
  if (typeof secret !== "string" || secret === "") {
    throw grantorError("bad_request", `${field} must be a non-empty string`, {
      grantorCode: field === "claimSecret" ? ERROR_CODE.BAD_CLAIM_SECRET : ERROR_CODE.BAD_LEASE_SECRET,
    });
  }
  return secret;
}

/** `apiKey`: a bearer key, one header word. */
function checkedApiKey(apiKey, headers) {
  if (apiKey === undefined) return undefined;
  if (typeof apiKey !== "string" || !/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new LeaseError("ERR_LEASE_CONFIG", "apiKey must be a non-empty string of printable ASCII without spaces", {
      field: "apiKey",
    });
  }
  if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) {
    throw new LeaseError("ERR_LEASE_CONFIG", "give apiKey or an authorization header, not both", {
      field: "headers",
    });
  }
  return apiKey;
}

/** A grantor failure: `ERR_GRANTOR` with its `kind`, and the status and codes the reply had. */
export function grantorError(kind, message, extra = {}) {
  const error = new LeaseError("ERR_GRANTOR", message, { cause: extra.cause });
  error.kind = kind;
  if (extra.status !== undefined) error.status = extra.status;
  if (extra.grantorCode !== undefined) error.grantorCode = extra.grantorCode;
  if (extra.retryAfterMs !== undefined) error.retryAfterMs = extra.retryAfterMs;
  return error;
}

/** `Retry-After` as the core reads it (delay-seconds or an HTTP-date); undefined when absent or unreadable. */
function retryAfterMs(header) {
  if (header === null) return undefined;
  coreModule();
  return retryAfterCore(header);
}

/** Reads at most `limit` bytes of the body; more is an error, so a huge reply costs nothing. */
export async function readLimited(response, limit) {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    response.body?.cancel().catch(() => {});
    throw grantorError("malformed_reply", `reply of ${declared} bytes exceeds ${limit}`);
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      throw grantorError("malformed_reply", `reply exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  // Fatal: invalid UTF-8 is a broken reply, not text to be patched with replacement characters.
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw grantorError("malformed_reply", "reply is not valid UTF-8", { cause: error });
  }
}

/**
 * `timeoutMs`, each request's own timeout: 10 000 when absent, else a number above 0 and within a
 * timer's reach (the protocol's longest duration, 2^31 - 1); else a config error.
 */
export function checkedTimeoutMs(timeoutMs = 10_000) {
  const max = limit().maxDurationMs;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= max)) {
    throw new LeaseError("ERR_LEASE_CONFIG", `timeoutMs must be a number above 0 and at most ${max}`, {
      field: "timeoutMs",
    });
  }
  return timeoutMs;
}

/**
 * The failure a non-2xx reply stands for, as the core maps statuses: `rate_limited` (429, with
 * `Retry-After`), `timed_out` (408: the server gave up waiting for the request, nothing was
 * done), `server_error` (5xx), else `bad_request` (a refused request, a redirect, failed
 * authentication), unless the caller knows better and passes `kind`. `grantorCode` and `message`
 * are what the reply body said, if anything.
 */
export function statusFailure(what, { status, headers }, { grantorCode, message, kind } = {}) {
  const extra = { status, grantorCode, retryAfterMs: retryAfterMs(headers.get("retry-after")) };
  // The body is the server's (or a middlebox's) text: keep enough to diagnose, not a whole page.
  const detail = typeof message === "string" ? `: ${message.slice(0, 200)}` : "";
  if (kind !== undefined) return grantorError(kind, `${what}: ${status}${detail}`, extra);
  const failure = statusKind(status);
  switch (failure) {
    case "rate_limited":
      return grantorError(failure, `${what}: rate limited${detail}`, extra);
    case "timed_out":
      return grantorError(failure, `${what}: request timed out at the server${detail}`, extra);
    case "server_error":
      return grantorError(failure, `${what}: error ${status}${detail}`, extra);
    default:
      return grantorError(failure, `${what}: ${status}${detail || " refused"}`, extra);
  }
}

/** An absolute http(s) URL without credentials, less its trailing slash; else a config error. */
export function checkedBaseUrl(baseUrl) {
  let url;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new LeaseError("ERR_LEASE_CONFIG", "baseUrl must be an absolute URL", { field: "baseUrl" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new LeaseError("ERR_LEASE_CONFIG", "baseUrl must be http: or https:", { field: "baseUrl" });
  }
  if (url.username !== "" || url.password !== "") {
    throw new LeaseError("ERR_LEASE_CONFIG", "baseUrl must not carry credentials; use headers", {
      field: "baseUrl",
    });
  }
  return url.href.endsWith("/") ? url.href.slice(0, -1) : url.href;
}

/** Makes a core object, loading the core on first use; its errors become `LeaseError`s. */
function construct(make) {
  coreModule();
  try {
    return make();
  } catch (error) {
    throw fromCore(error);
  }
}

/**
 * `batchRenewals`: off (absent or false), on with the defaults (true), or `{maxDelayMs,
 * maxBatch}`, which the core checks; the batcher's core, or null.
 */
function batchCore(batchRenewals) {
  if (batchRenewals === undefined || batchRenewals === false) return null;
  if (batchRenewals === true) return construct(() => new BatchCore(undefined, undefined));
  if (typeof batchRenewals !== "object" || batchRenewals === null || Array.isArray(batchRenewals)) {
    throw new LeaseError("ERR_LEASE_CONFIG", "batchRenewals must be true, false or {maxDelayMs?, maxBatch?}", {
      field: "batchRenewals",
    });
  }
  const { maxDelayMs, maxBatch, ...rest } = batchRenewals;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw new LeaseError("ERR_LEASE_CONFIG", `batchRenewals has no option ${unknown[0]}`, { field: "batchRenewals" });
  }
  return construct(() => new BatchCore(maxDelayMs, maxBatch));
}

// What BatchCore.poll() answers (see src/wasm/batch.rs).
const SEND = 0;
const SEND_ALONE = 1;
const REPLY = 0;
const ELEMENT_FAILED = 1;
const BATCH_FAILED = 2;
const MALFORMED = 3;

/**
 * The shared renew scheduler of one HttpGrantor: renewals wait in a queue and go out together as
 * `POST /v1/renew/batch`, each answered with its own result, so many leases on one grantor cost
 * one request per flush instead of one each.
 *
 * The core (`BatchCore`) decides how long each renewal waits, when a batch goes and what it
 * carries, and how each renewal ends; this class does the IO: it sends what the core asks, keeps
 * one timer for the core's next deadline, and settles each renewal's promise as the core says.
 */
class RenewBatcher {
  #core;
  #send;
  #single;
  /** Renewal id → `{body, text, resolve, reject, signal, onAbort}`, until settled. */
  #entries = new Map();
  #timer = null;
  #timerDue = undefined;

  /**
   * @param core the `BatchCore`
   * @param send `(path, text, signal, maxReplyBytes)` → the parsed reply, or a typed failure
   * @param single `(body, signal)` → the reply of `POST /v1/renew`
   */
  constructor(core, send, single) {
    this.#core = core;
    this.#send = send;
    this.#single = single;
  }

  /**
   * Queues the renew `body`; resolves its reply or rejects with its failure. `attempt`, if its
   * holder says, is `{requestTimeoutMs, safeForMs}`: how long it waits for this attempt and what
   * is left of its lease before the margin.
   */
  renew(body, signal, attempt) {
    if (signal?.aborted) return Promise.reject(abandoned(signal));
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const entry = { body, text, resolve, reject, signal, onAbort: null };
      const key = pairKey(body.resource, body.holder);
      const id = this.#core.enqueue(key, body.durationMs, attempt?.requestTimeoutMs, attempt?.safeForMs, text.length);
      this.#entries.set(id, entry);
      if (signal) {
        entry.onAbort = () => {
          this.#core.abandon(id);
          this.#drive();
        };
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.#drive();
    });
  }

  /** Forgets what was learned about the lease of `holder` on `resource`: it was released. */
  forget(resource, holder) {
    this.#core.forget(pairKey(resource, holder));
  }

  /** Does what the core asks; `outcome` is the batch reply or failure it is answering. */
  #drive(outcome) {
    for (let output = this.#core.poll(); output !== undefined; output = this.#core.poll()) {
      const [what, id] = output;
      if (what === SEND) {
        this.#sendBatch(id, output.slice(2));
      } else if (what === SEND_ALONE) {
        const entry = this.#take(id);
        if (entry) this.#single(entry.body, entry.signal).then(entry.resolve, entry.reject);
      } else {
        const entry = this.#take(id);
        if (entry) this.#settle(entry, output, outcome);
      }
    }
    this.#arm();
  }

  #take(id) {
    const entry = this.#entries.get(id);
    this.#entries.delete(id);
    // Sent or settled: an abort can no longer unsend it, and its holder ignores the reply.
    entry?.signal?.removeEventListener("abort", entry.onAbort);
    return entry;
  }

  /** One timer, for the core's next deadline. */
  #arm() {
    const due = this.#core.dueAt();
    if (due === this.#timerDue) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerDue = due;
    if (due === undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerDue = undefined;
      this.#core.handleTimeout();
      this.#drive();
    }, this.#core.delayUntilDue());
  }

  async #sendBatch(batchId, ids) {
    const entries = ids.map((id) => this.#entries.get(id));
    for (const entry of entries) entry?.signal?.removeEventListener("abort", entry.onAbort);
    const body = `{"renewals":[${entries.map((entry) => entry.text).join(",")}]}`;
    let reply;
    try {
      reply = await this.#send(BATCH_PATH, body, undefined, maxBatchReplyBytes(entries.length));
    } catch (error) {
      this.#core.handleFailure(batchId, error.status, error.grantorCode);
      this.#drive({ error });
      return;
    }
    this.#core.handleReply(batchId, reply?.results);
    this.#drive({ results: reply?.results, count: entries.length });
  }

  /** Settles one renewal as the core said (`[2, id, settlement, index, kind]`). */
  #settle(entry, [, , settlement, index, kind], outcome) {
    switch (settlement) {
      case REPLY:
        entry.resolve(outcome.results[index]);
        return;
      case ELEMENT_FAILED: {
        const code = outcome.results[index]?.error?.code;
        const grantorCode = typeof code === "string" ? code : undefined;
        entry.reject(grantorError(kind, `${BATCH_PATH}: ${grantorCode ?? "refused"}`, { grantorCode }));
        return;
      }
      case BATCH_FAILED:
        entry.reject(outcome.error);
        return;
      case MALFORMED:
        entry.reject(grantorError("malformed_reply", `${BATCH_PATH}: expected ${outcome.count} results`));
        return;
      default:
        entry.reject(abandoned(entry.signal));
    }
  }
}

function abandoned(signal) {
  return grantorError("unreachable", `${BATCH_PATH}: the renewal was abandoned before it was sent`, {
    cause: signal?.reason,
  });
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
  #baseUrl;
  #headers;
  #timeoutMs;
  #credentials;
  #fetch;
  /** `[resource, token]` → the grant's secret. */
  #leaseSecrets = new BoundedMap(REMEMBERED_LEASES);
  /** `[resource, holder]` → the secret of that holder's latest grant, for a re-grant. */
  #holderSecrets = new BoundedMap(REMEMBERED_LEASES);
  /** `[itemId, token]` → the claim's secret. */
  #claimSecrets = new BoundedMap(REMEMBERED_LEASES);
  /** The shared renew scheduler, or null when renewals go one by one. */
  #batcher = null;
  /** Set once the grantor refuses `claimNext` (it predates it): settle, then claim apart. */
  #claimNextRefused = false;

  constructor({ baseUrl, apiKey, headers = {}, timeoutMs, credentials, fetch, batchRenewals } = {}) {
    this.#baseUrl = checkedBaseUrl(baseUrl);
    const batching = batchCore(batchRenewals);
    const requestTimeoutMs = checkedTimeoutMs(timeoutMs);
    if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
      throw new LeaseError("ERR_LEASE_CONFIG", "headers must be an object of header names to strings", {
        field: "headers",
      });
    }
    const key = checkedApiKey(apiKey, headers);
    // Called as a plain function: browsers throw "Illegal invocation" when fetch gets a `this`
    // other than the global object.
    const fetchFunction =
      fetch ?? (typeof globalThis.fetch === "function" ? (url, init) => globalThis.fetch(url, init) : undefined);
    if (typeof fetchFunction !== "function") {
      throw new LeaseError("ERR_LEASE_CONFIG", "no fetch function available", { field: "fetch" });
    }
    this.#headers = key === undefined ? { ...headers } : { ...headers, authorization: `Bearer ${key}` };
    this.#timeoutMs = requestTimeoutMs;
    this.#credentials = credentials;
    this.#fetch = fetchFunction;
    if (batching !== null) {
      this.#batcher = new RenewBatcher(
        batching,
        (path, text, signal, maxReplyBytes) => this.#request(path, text, signal, maxReplyBytes),
        (body, signal) => this.#post("/v1/renew", body, signal),
      );
    }
  }

  /**
   * The longest `batchRenewals.maxDelayMs` that puts none of the holders with these settings at
   * risk: for each, half of the time from when its renewal is due to when its core gives up on
   * that attempt (its `requestTimeoutMs`, or the start of its margin if sooner), leaving the
   * other half for the round trip; the smallest over `configs` (LeaseHolder configs, or just
   * their `leaseMs`, `marginMs`, `renewIntervalMs?` and `requestTimeoutMs?`).
   *
   * It is at least `renewIntervalMs` (which makes at most one batch per renew interval, however
   * the leases' renewals are spread) when `requestTimeoutMs` and `leaseMs - marginMs -
   * renewIntervalMs` are both at least twice `renewIntervalMs`: for example leaseMs 20 s,
   * renewIntervalMs 5 s, marginMs 4 s, requestTimeoutMs 11 s.
   */
  static batchDelayMs(configs) {
    return construct(() => BatchCore.delayMs(Array.isArray(configs) ? configs : [configs]));
  }

  /** The grantor's base URL. */
  get baseUrl() {
    return this.#baseUrl;
  }

  /**
   * `POST /v1/grant`. A grant's reply carries its `leaseSecret`, remembered for the calls about
   * that grant. A holder re-granting its own live lease sends that grant's secret (the one this
   * object remembers, or `leaseSecret`), without which the grantor denies it like anyone else.
   */
  async grant({ resource, holder, durationMs, requestId, leaseSecret, signal }) {
    const secret = checkedSecret(leaseSecret, "leaseSecret") ?? this.#holderSecrets.get(pairKey(resource, holder));
    const reply = await this.#post(
      "/v1/grant",
      { resource, holder, durationMs, requestId, leaseSecret: secret },
      signal,
    );
    if (reply?.granted === true && typeof reply.leaseSecret === "string") {
      this.#leaseSecrets.set(pairKey(resource, reply.token), reply.leaseSecret);
      this.#holderSecrets.set(pairKey(resource, holder), reply.leaseSecret);
    }
    return reply;
  }

  /** The secret to send with a call about the grant of `resource` with `token`. */
  #leaseSecret(resource, token, leaseSecret) {
    return checkedSecret(leaseSecret, "leaseSecret") ?? this.#leaseSecrets.get(pairKey(resource, token));
  }

  /**
   * `POST /v1/renew`, with the grant's secret; with `batchRenewals`, one element of the next
   * `POST /v1/renew/batch` instead, answered the same way. A signal that aborts while the renewal
   * waits for its batch takes it out of the batch.
   */
  async renew({ resource, holder, token, durationMs, requestId, leaseSecret, signal, requestTimeoutMs, safeForMs }) {
    const secret = this.#leaseSecret(resource, token, leaseSecret);
    const body = { resource, holder, token, durationMs, requestId, leaseSecret: secret };
    const attempt = { requestTimeoutMs, safeForMs };
    const reply =
      this.#batcher === null
        ? await this.#post("/v1/renew", body, signal)
        : await this.#batcher.renew(body, signal, attempt);
    // A lease in use keeps its secret among the newest remembered.
    if (reply?.renewed === true && secret !== undefined) this.#leaseSecrets.set(pairKey(resource, token), secret);
    return reply;
  }

  /** `POST /v1/release`, with the grant's secret: idempotent. */
  async release({ resource, holder, token, leaseSecret, signal }) {
    const secret = this.#leaseSecret(resource, token, leaseSecret);
    this.#batcher?.forget(resource, holder);
    return this.#post("/v1/release", { resource, holder, token, leaseSecret: secret }, signal);
  }

  /** `POST /v1/status`: `{resource, holder, token, expiresInMs}`, nulls when free. */
  status(resource, { signal } = {}) {
    return this.#post("/v1/status", { resource }, signal);
  }

  /** `POST /v1/revoke`: needs an admin `apiKey` (or, on a grantor without keys, loopback). */
  revoke(resource, { signal } = {}) {
    return this.#post("/v1/revoke", { resource }, signal);
  }

  /**
   * `POST /v1/fenced/write`: accepted only if no write with a larger token came first; sent with
   * the secret of the grant with `token`.
   */
  async fencedWrite(resource, payload, token, { signal, leaseSecret } = {}) {
    const secret = this.#leaseSecret(resource, token, leaseSecret);
    return this.#post("/v1/fenced/write", { resource, payload, token, leaseSecret: secret }, signal);
  }

  /** `POST /v1/fenced/read`: `{payload, lastToken}`. */
  fencedRead(resource, { signal } = {}) {
    return this.#post("/v1/fenced/read", { resource }, signal);
  }

  /**
   * `POST /v1/queues/enqueue`: `items` is an array of `{payload, dedupeKey?, maxAttempts?}`;
   * resolves `{items: [{itemId, enqueued}]}` in the same order.
   */
  enqueue(queue, items, { signal } = {}) {
    return this.#post("/v1/queues/enqueue", { queue, items }, signal);
  }

  /**
   * `POST /v1/queues/claim`: `{claimed: true, item, token, claimMs}` or `{claimed: false}`.
   * `WorkClaimer` calls it; use that for a claim that heartbeats and knows its deadline.
   */
  async claim({ queue, worker, claimMs, requestId, signal }) {
    const reply = await this.#post("/v1/queues/claim", { queue, worker, claimMs, requestId }, signal);
    this.#rememberClaim(reply);
    return reply;
  }

  /** Remembers the secret of the claim a claim reply (or a settlement's `next`) made. */
  #rememberClaim(reply) {
    if (reply?.claimed === true && typeof reply.claimSecret === "string") {
      this.#claimSecrets.set(pairKey(reply.item?.id, reply.token), reply.claimSecret);
    }
  }

  /** The secret to send with a call about the claim of `itemId` with `token`. */
  #claimSecret(itemId, token, claimSecret) {
    return checkedSecret(claimSecret, "claimSecret") ?? this.#claimSecrets.get(pairKey(itemId, token));
  }

  /** `POST /v1/queues/heartbeat`: extends a live claim; a stale one rejects with `stale_claim`. */
  async heartbeat({ queue, itemId, worker, token, claimMs, claimSecret, signal }) {
    const secret = this.#claimSecret(itemId, token, claimSecret);
    return this.#post(
      "/v1/queues/heartbeat",
      { queue, itemId, worker, token, claimMs, claimSecret: secret },
      signal,
    );
  }

  /**
   * `POST /v1/queues/complete`: fenced by the claim token; a stale one rejects with `stale_claim`.
   * With `claimNext` (`{claimMs, requestId?}`), see `#settleClaim`.
   */
  async complete({ queue, itemId, worker, token, result, claimSecret, claimNext, signal }) {
    const secret = this.#claimSecret(itemId, token, claimSecret);
    const body = { queue, itemId, worker, token, result, claimSecret: secret };
    return this.#settleClaim("/v1/queues/complete", body, claimNext, signal);
  }

  /**
   * `POST /v1/queues/fail`: fenced by the claim token; `{state, attempts, maxAttempts}`. With
   * `claimNext`, see `#settleClaim`.
   */
  async fail({ queue, itemId, worker, token, error, claimSecret, claimNext, signal }) {
    const secret = this.#claimSecret(itemId, token, claimSecret);
    const body = { queue, itemId, worker, token, error, claimSecret: secret };
    return this.#settleClaim("/v1/queues/fail", body, claimNext, signal);
  }

  /**
   * Completes or fails a claim (`body` for `path`). With `claimNext`, once that took effect the
   * grantor claims the worker's next item on the queue in the same request, and the reply's
   * `next` is what `claim` would have answered, its secret remembered like a claim's (and checked
   * by `WorkClaimer` like a claim's). A grantor that predates claimNext refuses the field; from
   * then on this object settles and then claims in two requests, with the same reply.
   */
  async #settleClaim(path, body, claimNext, signal) {
    if (claimNext === undefined) return this.#post(path, body, signal);
    if (!this.#claimNextRefused) {
      try {
        const reply = await this.#post(path, { ...body, claimNext }, signal);
        this.#rememberClaim(reply?.next);
        return reply;
      } catch (error) {
        if (!refusesUnknownField(error)) throw error;
        this.#claimNextRefused = true;
      }
    }
    const reply = await this.#post(path, body, signal);
    const { claimMs, requestId } = claimNext;
    const next = await this.claim({ queue: body.queue, worker: body.worker, claimMs, requestId, signal });
    return { ...reply, next };
  }

  /** `POST /v1/queues/stats`: `{queue, pending, claimed, done, dead}`. */
  queueStats(queue, { signal } = {}) {
    return this.#post("/v1/queues/stats", { queue }, signal);
  }

  /** `POST /v1/queues/item`: one item's record, including the token that completed it. */
  queueItem(queue, itemId, { signal } = {}) {
    return this.#post("/v1/queues/item", { queue, itemId }, signal);
  }

  #post(path, body, signal) {
    return this.#request(path, JSON.stringify(body), signal, MAX_REPLY_BYTES);
  }

  /** POSTs the JSON text `text`; resolves the parsed reply or rejects with a typed failure. */
  async #request(path, text, signal, maxReplyBytes) {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", ...this.#headers },
      body: text,
      signal: combined,
      // Never follow a redirect: it could carry our headers to another origin.
      redirect: "manual",
    };
    // Some runtimes (workerd) reject the option outright, so only pass it when asked for.
    if (this.#credentials !== undefined) init.credentials = this.#credentials;
    let response;
    let reply;
    try {
      const fetchFunction = this.#fetch;
      response = await fetchFunction(this.#baseUrl + path, init);
      reply = await readLimited(response, maxReplyBytes);
    } catch (error) {
      if (error instanceof LeaseError) throw error;
      const kind = timeout.aborted && !signal?.aborted ? "timed_out" : "unreachable";
      throw grantorError(kind, `${path}: ${error?.message ?? error}`, { cause: error });
    }
    const status = response.status;
    if (status >= 200 && status < 300) {
      try {
        return parseReplyJson(reply);
      } catch (error) {
        throw grantorError("malformed_reply", `${path}: reply is not JSON without duplicate keys`, {
          status,
          cause: error,
        });
      }
    }
    let grantorCode;
    try {
      grantorCode = JSON.parse(reply)?.error?.code;
    } catch {
      grantorCode = undefined;
    }
    throw statusFailure(path, response, { grantorCode, message: grantorCode });
  }
}
