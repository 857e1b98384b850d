// HttpGrantor: the tenure grantor protocol (/v1, JSON over HTTP) over fetch. It only translates:
// requests to fetch calls, HTTP outcomes to replies or typed failures. Replies are validated by
// the holder's core like any grantor's, so a malformed reply can never become a grant.

import { LeaseError } from "./errors.js";
import { parseReplyJson } from "./strict-json.js";
import { codeKind, statusKind } from "./protocol.js";

/** Replies larger than this are hostile or broken: a protocol reply is a few hundred bytes. */
const MAX_REPLY_BYTES = 64 * 1024;

/**
 * How many grants' and claims' secrets one HttpGrantor remembers (the oldest go first): room for
 * the leases of a client that batches its renewals (up to 10,000 per request) several times over.
 */
const REMEMBERED_SECRETS = 65_536;

/** The most renewals one `POST /v1/renew/batch` may carry: the protocol's limit. */
const MAX_BATCH_RENEWALS = 10_000;

/** A batch body is split before it reaches this size, well inside the grantor's 8 MiB. */
const MAX_BATCH_BODY_CHARS = 4 * 1024 * 1024;

/** Room for each result of a batch reply: a renew reply or error body is a few hundred bytes. */
const MAX_BATCH_RESULT_BYTES = 1024;

/**
 * How long a renewal waits for others to join its batch, as a fraction of its lease, unless
 * `maxDelayMs` says: `(leaseMs - marginMs - renewIntervalMs) / 2` for a holder with the default
 * `renewIntervalMs` (a third of the lease) and a margin of up to a third. It then still has as
 * long again for the round trip before the holder's default attempt timeout, a third of the
 * lease; see `HttpGrantor.batchDelayMs` for other configurations.
 */
const DEFAULT_DELAY_FRACTION = 1 / 6;

/** The longest delay a JavaScript timer can wait. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const perf = globalThis.performance;

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
      grantorCode: field === "claimSecret" ? "bad_claim_secret" : "bad_lease_secret",
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

/** `Retry-After` as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header) {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (header.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
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

function batchConfigError(field, message) {
  return new LeaseError("ERR_LEASE_CONFIG", message, { field });
}

/** `batchRenewals`: off (absent or false), on with the defaults (true), or `{maxDelayMs, maxBatch}`. */
function checkedBatchOptions(batchRenewals) {
  if (batchRenewals === undefined || batchRenewals === false) return null;
  if (batchRenewals === true) return { maxDelayMs: undefined, maxBatch: MAX_BATCH_RENEWALS };
  if (typeof batchRenewals !== "object" || batchRenewals === null || Array.isArray(batchRenewals)) {
    throw batchConfigError("batchRenewals", "batchRenewals must be true, false or {maxDelayMs?, maxBatch?}");
  }
  const { maxDelayMs, maxBatch = MAX_BATCH_RENEWALS, ...rest } = batchRenewals;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw batchConfigError("batchRenewals", `batchRenewals has no option ${unknown[0]}`);
  }
  if (maxDelayMs !== undefined && !(Number.isFinite(maxDelayMs) && maxDelayMs >= 0 && maxDelayMs <= MAX_TIMER_MS)) {
    throw batchConfigError("batchRenewals.maxDelayMs", `maxDelayMs must be a number from 0 to ${MAX_TIMER_MS}`);
  }
  if (!(Number.isSafeInteger(maxBatch) && maxBatch >= 1 && maxBatch <= MAX_BATCH_RENEWALS)) {
    throw batchConfigError("batchRenewals.maxBatch", `maxBatch must be an integer from 1 to ${MAX_BATCH_RENEWALS}`);
  }
  return { maxDelayMs, maxBatch };
}

/** A holder setting for `batchDelayMs`: a finite number above 0, or absent where allowed. */
function timing(config, field, fallback) {
  const value = config?.[field];
  if (value === undefined && fallback !== undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) {
    throw batchConfigError(field, `${field} must be a finite number above 0`);
  }
  return value;
}

/** The `kind` a batch element's error stands for, by its code, as the status would say it alone. */
function elementErrorKind(code) {
  return codeKind(code);
}

/**
 * The shared renew scheduler of one HttpGrantor: renewals wait in a queue and go out together as
 * `POST /v1/renew/batch`, each answered with its own result, so many leases on one grantor cost
 * one request per flush instead of one each.
 *
 * A renewal waits at most its delay (`maxDelayMs`, or a sixth of its lease), and a flush carries
 * every renewal queued by then, so the most urgent one decides for all. Waiting is safe because
 * a holder's core stamps an attempt's send time when it calls `renew()`: a later send only makes
 * the holder believe less, never more, and each lease's own deadline and margin stay enforced by
 * its core whatever happens here. A lease whose latest attempt failed is renewed at once (with
 * whatever is queued), so batching never costs a retry its time; one whose attempt was abandoned
 * while it waited (its holder's budget was shorter than the delay) waits at most half as long
 * from then on.
 */
class RenewBatcher {
  #send;
  #single;
  #maxDelayMs;
  #maxBatch;
  #queue = [];
  /** How many queued renewals are still wanted (abandoned ones stay in `#queue`, skipped). */
  #waiting = 0;
  #timer = null;
  #timerAt = Infinity;
  /** Leases (`[resource, holder]`) whose latest attempt failed (bounded, like the secrets). */
  #urgent = new BoundedMap(REMEMBERED_SECRETS);
  /** Lease → the longest delay it may wait, learned from an attempt abandoned while queued. */
  #caps = new BoundedMap(REMEMBERED_SECRETS);
  /** Set once the grantor answers that it has no batch route: every renewal goes alone. */
  #unsupported = false;

  /**
   * @param send `(path, text, signal, maxReplyBytes)` → the parsed reply, or a typed failure
   * @param single `(body, signal)` → the reply of `POST /v1/renew`
   */
  constructor({ maxDelayMs, maxBatch }, send, single) {
    this.#maxDelayMs = maxDelayMs;
    this.#maxBatch = maxBatch;
    this.#send = send;
    this.#single = single;
  }

  /** Queues the renew `body`; resolves its reply or rejects with its failure. */
  renew(body, signal) {
    if (this.#unsupported) return this.#single(body, signal);
    if (signal?.aborted) return Promise.reject(this.#abandoned(signal));
    const key = pairKey(body.resource, body.holder);
    const now = perf.now();
    let delayMs = this.#urgent.get(key) ? 0 : (this.#maxDelayMs ?? body.durationMs * DEFAULT_DELAY_FRACTION);
    delayMs = Math.min(delayMs, this.#caps.get(key) ?? Infinity);
    // A duration that is not a number still goes out, at once: the grantor answers it.
    if (!(delayMs > 0)) delayMs = 0;
    return new Promise((resolve, reject) => {
      const entry = { body, key, queuedAt: now, resolve, reject, signal, onAbort: null, dropped: false };
      if (signal) {
        entry.onAbort = () => this.#drop(entry);
        signal.addEventListener("abort", entry.onAbort, { once: true });
      }
      this.#queue.push(entry);
      this.#waiting += 1;
      if (this.#waiting >= this.#maxBatch) this.#flush();
      else this.#arm(now + delayMs);
    });
  }

  #abandoned(signal) {
    return grantorError("unreachable", "/v1/renew/batch: the renewal was abandoned before it was sent", {
      cause: signal.reason,
    });
  }

  /** An attempt abandoned before its batch went out: it leaves the queue and is never sent. */
  #drop(entry) {
    if (entry.dropped) return;
    entry.dropped = true;
    this.#waiting -= 1;
    // Its holder gave up on it sooner than it was meant to wait: next time it waits at most half
    // as long, and its retry goes at once. (A holder that releases also abandons its renewal;
    // `forget` then clears what this learned.)
    const waitedMs = perf.now() - entry.queuedAt;
    this.#caps.set(entry.key, Math.min(this.#caps.get(entry.key) ?? Infinity, waitedMs / 2));
    this.#urgent.set(entry.key, true);
    entry.reject(this.#abandoned(entry.signal));
  }

  /** Forgets what was learned about the lease of `holder` on `resource`: it was released. */
  forget(resource, holder) {
    const key = pairKey(resource, holder);
    this.#caps.delete(key);
    this.#urgent.delete(key);
  }

  /** Makes sure a flush happens no later than `at` (`performance.now()` ms). */
  #arm(at) {
    if (at >= this.#timerAt) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#flush(), Math.min(MAX_TIMER_MS, Math.max(0, at - perf.now())));
  }

  /** Sends everything queued, in batches of at most `maxBatch` renewals and 4 MiB. */
  #flush() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
    const entries = this.#queue.filter((entry) => !entry.dropped);
    this.#queue = [];
    this.#waiting = 0;
    let chunk = [];
    let chars = 0;
    for (const entry of entries) {
      // Sent now: an abort can no longer unsend it, and its holder ignores the reply.
      entry.signal?.removeEventListener("abort", entry.onAbort);
      entry.text = JSON.stringify(entry.body);
      if (chunk.length > 0 && (chunk.length >= this.#maxBatch || chars + entry.text.length > MAX_BATCH_BODY_CHARS)) {
        this.#sendBatch(chunk);
        chunk = [];
        chars = 0;
      }
      chunk.push(entry);
      chars += entry.text.length + 1;
    }
    if (chunk.length > 0) this.#sendBatch(chunk);
  }

  async #sendBatch(chunk) {
    const body = `{"renewals":[${chunk.map((entry) => entry.text).join(",")}]}`;
    let reply;
    try {
      reply = await this.#send("/v1/renew/batch", body, undefined, 1024 + chunk.length * MAX_BATCH_RESULT_BYTES);
    } catch (error) {
      // A grantor without the batch route (older, or another implementation): renew one by one
      // from now on. One that refuses this batch's size: send these alone.
      const noRoute = error.status === 501 || (error.status === 404 && error.grantorCode === "not_found");
      if (noRoute || error.status === 413) {
        if (noRoute) this.#unsupported = true;
        for (const entry of chunk) this.#single(entry.body, entry.signal).then(entry.resolve, entry.reject);
        return;
      }
      for (const entry of chunk) this.#failed(entry, error);
      return;
    }
    const results = reply?.results;
    if (!Array.isArray(results) || results.length !== chunk.length) {
      const error = grantorError("malformed_reply", `/v1/renew/batch: expected ${chunk.length} results`);
      for (const entry of chunk) this.#failed(entry, error);
      return;
    }
    chunk.forEach((entry, index) => this.#settle(entry, results[index]));
  }

  /** Delivers one element's result: its reply (the holder's core validates it) or its error. */
  #settle(entry, result) {
    const failure = result !== null && typeof result === "object" ? result.error : undefined;
    if (failure === undefined) {
      if (result?.renewed === true) this.#urgent.delete(entry.key);
      entry.resolve(result);
      return;
    }
    const code = typeof failure?.code === "string" ? failure.code : undefined;
    this.#failed(
      entry,
      grantorError(elementErrorKind(code), `/v1/renew/batch: ${code ?? "refused"}`, { grantorCode: code }),
    );
  }

  #failed(entry, error) {
    this.#urgent.set(entry.key, true);
    entry.reject(error);
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
  #baseUrl;
  #headers;
  #timeoutMs;
  #credentials;
  #fetch;
  /** `[resource, token]` → the grant's secret. */
  #leaseSecrets = new BoundedMap(REMEMBERED_SECRETS);
  /** `[resource, holder]` → the secret of that holder's latest grant, for a re-grant. */
  #holderSecrets = new BoundedMap(REMEMBERED_SECRETS);
  /** `[itemId, token]` → the claim's secret. */
  #claimSecrets = new BoundedMap(REMEMBERED_SECRETS);
  /** The shared renew scheduler, or null when renewals go one by one. */
  #batcher = null;
  /** Set once the grantor refuses `claimNext` (it predates it): settle, then claim apart. */
  #claimNextRefused = false;

  constructor({ baseUrl, apiKey, headers = {}, timeoutMs = 10_000, credentials, fetch, batchRenewals } = {}) {
    this.#baseUrl = checkedBaseUrl(baseUrl);
    const batching = checkedBatchOptions(batchRenewals);
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new LeaseError("ERR_LEASE_CONFIG", "timeoutMs must be a finite number above 0", {
        field: "timeoutMs",
      });
    }
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
    this.#timeoutMs = timeoutMs;
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
    const list = Array.isArray(configs) ? configs : [configs];
    if (list.length === 0) throw batchConfigError("configs", "give at least one holder configuration");
    let delayMs = Infinity;
    for (const config of list) {
      const leaseMs = timing(config, "leaseMs");
      const marginMs = timing(config, "marginMs");
      const intervalMs = timing(config, "renewIntervalMs", leaseMs / 3);
      const timeoutMs = timing(config, "requestTimeoutMs", intervalMs);
      const budgetMs = Math.min(timeoutMs, leaseMs - marginMs - intervalMs);
      if (!(budgetMs > 0)) {
        throw batchConfigError("renewIntervalMs", "renewIntervalMs must be less than leaseMs - marginMs");
      }
      delayMs = Math.min(delayMs, budgetMs / 2);
    }
    return Math.floor(delayMs);
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
  async renew({ resource, holder, token, durationMs, requestId, leaseSecret, signal }) {
    const secret = this.#leaseSecret(resource, token, leaseSecret);
    const body = { resource, holder, token, durationMs, requestId, leaseSecret: secret };
    const reply =
      this.#batcher === null ? await this.#post("/v1/renew", body, signal) : await this.#batcher.renew(body, signal);
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
        // The refusal of an unknown request field: the grantor did nothing else.
        if (error.status !== 400 || error.grantorCode !== "unknown_field") throw error;
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
    const extra = { status, grantorCode, retryAfterMs: retryAfterMs(response.headers.get("retry-after")) };
    const kind = statusKind(status);
    switch (kind) {
      case "rate_limited":
        throw grantorError(kind, `${path}: rate limited`, extra);
      // The grantor gave up waiting for the request (it came too slowly): nothing was done.
      case "timed_out":
        throw grantorError(kind, `${path}: request timed out at the grantor`, extra);
      case "server_error":
        throw grantorError(kind, `${path}: grantor error ${status}`, extra);
      default:
        throw grantorError(kind, `${path}: ${status} ${grantorCode ?? "refused"}`, extra);
    }
  }
}
