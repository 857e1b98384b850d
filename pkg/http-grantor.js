// HttpGrantor: the tenure grantor protocol (/v1, JSON over HTTP) over fetch. It only translates:
// requests to fetch calls, HTTP outcomes to replies or typed failures. Replies are validated by
// the holder's core like any grantor's, so a malformed reply can never become a grant.

import { LeaseError } from "./errors.js";

/** Replies larger than this are hostile or broken: a protocol reply is a few hundred bytes. */
const MAX_REPLY_BYTES = 64 * 1024;

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
  return new TextDecoder().decode(bytes);
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

/**
 * A grantor speaking the tenure protocol over `fetch`, for `LeaseHolder` or direct use.
 *
 * Every call has its own timeout (`timeoutMs`), and also stops when the holder's `signal` aborts,
 * which the holder does when its lease's remaining budget runs out. 5xx, 429 (with
 * `Retry-After`), timeouts and network errors are retryable failures; a refusal in the reply body
 * (`renewed: false`) is a definitive loss.
 */
export class HttpGrantor {
  #baseUrl;
  #headers;
  #timeoutMs;
  #credentials;
  #fetch;

  constructor({ baseUrl, headers = {}, timeoutMs = 10_000, credentials, fetch } = {}) {
    this.#baseUrl = checkedBaseUrl(baseUrl);
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new LeaseError("ERR_LEASE_CONFIG", "timeoutMs must be a finite number above 0", {
        field: "timeoutMs",
      });
    }
    // Called as a plain function: browsers throw "Illegal invocation" when fetch gets a `this`
    // other than the global object.
    const fetchFunction =
      fetch ?? (typeof globalThis.fetch === "function" ? (url, init) => globalThis.fetch(url, init) : undefined);
    if (typeof fetchFunction !== "function") {
      throw new LeaseError("ERR_LEASE_CONFIG", "no fetch function available", { field: "fetch" });
    }
    this.#headers = { ...headers };
    this.#timeoutMs = timeoutMs;
    this.#credentials = credentials;
    this.#fetch = fetchFunction;
  }

  /** The grantor's base URL. */
  get baseUrl() {
    return this.#baseUrl;
  }

  /** `POST /v1/grant`. */
  grant({ resource, holder, durationMs, requestId, signal }) {
    return this.#post("/v1/grant", { resource, holder, durationMs, requestId }, signal);
  }

  /** `POST /v1/renew`. */
  renew({ resource, holder, token, durationMs, requestId, signal }) {
    return this.#post("/v1/renew", { resource, holder, token, durationMs, requestId }, signal);
  }

  /** `POST /v1/release`: idempotent. */
  release({ resource, holder, token, signal }) {
    return this.#post("/v1/release", { resource, holder, token }, signal);
  }

  /** `POST /v1/status`: `{resource, holder, token, expiresInMs}`, nulls when free. */
  status(resource, { signal } = {}) {
    return this.#post("/v1/status", { resource }, signal);
  }

  /** `POST /v1/revoke` (admin): pass the admin key as `headers: {authorization: "Bearer …"}`. */
  revoke(resource, { signal } = {}) {
    return this.#post("/v1/revoke", { resource }, signal);
  }

  /** `POST /v1/fenced/write`: accepted only if no write with a larger token came first. */
  fencedWrite(resource, payload, token, { signal } = {}) {
    return this.#post("/v1/fenced/write", { resource, payload, token }, signal);
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
  claim({ queue, worker, claimMs, requestId, signal }) {
    return this.#post("/v1/queues/claim", { queue, worker, claimMs, requestId }, signal);
  }

  /** `POST /v1/queues/heartbeat`: extends a live claim; a stale one rejects with `stale_claim`. */
  heartbeat({ queue, itemId, worker, token, claimMs, signal }) {
    return this.#post("/v1/queues/heartbeat", { queue, itemId, worker, token, claimMs }, signal);
  }

  /** `POST /v1/queues/complete`: fenced by the claim token; a stale one rejects with `stale_claim`. */
  complete({ queue, itemId, worker, token, result, signal }) {
    return this.#post("/v1/queues/complete", { queue, itemId, worker, token, result }, signal);
  }

  /** `POST /v1/queues/fail`: fenced by the claim token; `{state, attempts, maxAttempts}`. */
  fail({ queue, itemId, worker, token, error, signal }) {
    return this.#post("/v1/queues/fail", { queue, itemId, worker, token, error }, signal);
  }

  /** `POST /v1/queues/stats`: `{queue, pending, claimed, done, dead}`. */
  queueStats(queue, { signal } = {}) {
    return this.#post("/v1/queues/stats", { queue }, signal);
  }

  /** `POST /v1/queues/item`: one item's record, including the token that completed it. */
  queueItem(queue, itemId, { signal } = {}) {
    return this.#post("/v1/queues/item", { queue, itemId }, signal);
  }

  async #post(path, body, signal) {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", ...this.#headers },
      body: JSON.stringify(body),
      signal: combined,
      // Never follow a redirect: it could carry our headers to another origin.
      redirect: "manual",
    };
    // Some runtimes (workerd) reject the option outright, so only pass it when asked for.
    if (this.#credentials !== undefined) init.credentials = this.#credentials;
    let response;
    let text;
    try {
      const fetchFunction = this.#fetch;
      response = await fetchFunction(this.#baseUrl + path, init);
      text = await readLimited(response, MAX_REPLY_BYTES);
    } catch (error) {
      if (error instanceof LeaseError) throw error;
      const kind = timeout.aborted && !signal?.aborted ? "timed_out" : "unreachable";
      throw grantorError(kind, `${path}: ${error?.message ?? error}`, { cause: error });
    }
    const status = response.status;
    if (status >= 200 && status < 300) {
      try {
        return JSON.parse(text);
      } catch (error) {
        throw grantorError("malformed_reply", `${path}: reply is not JSON`, { status, cause: error });
      }
    }
    let grantorCode;
    try {
      grantorCode = JSON.parse(text)?.error?.code;
    } catch {
      grantorCode = undefined;
    }
    const extra = { status, grantorCode, retryAfterMs: retryAfterMs(response.headers.get("retry-after")) };
    if (status === 429) throw grantorError("rate_limited", `${path}: rate limited`, extra);
    if (status >= 500) throw grantorError("server_error", `${path}: grantor error ${status}`, extra);
    throw grantorError("bad_request", `${path}: ${status} ${grantorCode ?? "refused"}`, extra);
  }
}
