// Internal plumbing shared by the grantor adapters that speak someone else's JSON API over fetch
// (etcd, Redis over HTTP, ...): one POST with its own timeout combined with the caller's signal,
// no redirects followed, a size-capped reply, and transport failures as typed, retryable
// `ERR_GRANTOR` errors. What a reply means is each adapter's business.

import { LeaseError } from "./errors.js";
import { checkedBaseUrl, grantorError, readLimited, retryAfterMs } from "./http-grantor.js";

export { grantorError };

/** Replies larger than this are hostile or broken: the adapters' replies are a few hundred bytes. */
const MAX_REPLY_BYTES = 64 * 1024;

function configError(field, message) {
  return new LeaseError("ERR_LEASE_CONFIG", message, { field });
}

/**
 * A JSON-over-HTTP endpoint reached with `fetch`. Every request goes to `baseUrl` + a fixed path
 * chosen by the adapter, so configured headers (credentials) reach no other origin; redirects
 * are never followed for the same reason.
 */
export class JsonEndpoint {
  #baseUrl;
  #headers;
  #timeoutMs;
  #credentials;
  #fetch;

  /**
   * @param {object} options `baseUrl` (http or https, no credentials, query or fragment),
   *   `headers` (sent with every request), `timeoutMs` (each request's own timeout, default
   *   10 000), `credentials` (fetch's, only passed when given), `fetch` (instead of the global)
   */
  constructor({ baseUrl, headers = {}, timeoutMs = 10_000, credentials, fetch } = {}) {
    this.#baseUrl = checkedBaseUrl(baseUrl);
    const url = new URL(this.#baseUrl);
    if (url.search !== "" || url.hash !== "") {
      throw configError("baseUrl", "baseUrl must not have a query or a fragment");
    }
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw configError("timeoutMs", "timeoutMs must be a finite number above 0");
    }
    if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
      throw configError("headers", "headers must be an object of header names to strings");
    }
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string") {
        throw configError("headers", `header ${name} must be a string`);
      }
    }
    // Called as a plain function: browsers throw "Illegal invocation" when fetch gets a `this`
    // other than the global object.
    const fetchFunction =
      fetch ?? (typeof globalThis.fetch === "function" ? (u, init) => globalThis.fetch(u, init) : undefined);
    if (typeof fetchFunction !== "function") {
      throw configError("fetch", "no fetch function available");
    }
    this.#headers = { ...headers };
    this.#timeoutMs = timeoutMs;
    this.#credentials = credentials;
    this.#fetch = fetchFunction;
  }

  /** The base URL, without a trailing slash. */
  get baseUrl() {
    return this.#baseUrl;
  }

  /**
   * POSTs `body` as JSON to `baseUrl + path`. Resolves `{status, headers, text}` whatever the
   * status; rejects with `ERR_GRANTOR` of kind `unreachable`, `timed_out` or (a reply over
   * 64 KiB) `malformed_reply`.
   */
  async post(path, body, signal) {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", ...this.#headers },
      body: JSON.stringify(body),
      signal: combined,
      redirect: "manual",
    };
    // Some runtimes (workerd) reject the option outright, so only pass it when asked for.
    if (this.#credentials !== undefined) init.credentials = this.#credentials;
    try {
      const fetchFunction = this.#fetch;
      const response = await fetchFunction(this.#baseUrl + path, init);
      const text = await readLimited(response, MAX_REPLY_BYTES);
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (error instanceof LeaseError) throw error;
      const kind = timeout.aborted && !signal?.aborted ? "timed_out" : "unreachable";
      throw grantorError(kind, `${path || "/"}: ${error?.message ?? error}`, { cause: error });
    }
  }
}

/** Parses a reply's JSON text; anything else is a `malformed_reply`. */
export function parseJson(what, text, status) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw grantorError("malformed_reply", `${what}: reply is not JSON`, { status, cause: error });
  }
}

/**
 * The failure a non-2xx reply stands for: `rate_limited` (429, with `Retry-After`),
 * `server_error` (5xx), else `bad_request` (a refused request, a redirect, failed
 * authentication), unless the adapter knows better and passes `kind`. `grantorCode` and
 * `message` are what the reply body said, if anything.
 */
export function statusFailure(what, { status, headers }, { grantorCode, message, kind } = {}) {
  const extra = { status, grantorCode, retryAfterMs: retryAfterMs(headers.get("retry-after")) };
  // The body is the server's (or a middlebox's) text: keep enough to diagnose, not a whole page.
  const detail = typeof message === "string" ? `: ${message.slice(0, 200)}` : "";
  if (kind !== undefined) return grantorError(kind, `${what}: ${status}${detail}`, extra);
  if (status === 429) return grantorError("rate_limited", `${what}: rate limited${detail}`, extra);
  if (status >= 500) return grantorError("server_error", `${what}: error ${status}${detail}`, extra);
  return grantorError("bad_request", `${what}: ${status}${detail || " refused"}`, extra);
}

/** How many recent renewals an adapter remembers, to answer retries of them. */
const REMEMBERED_CALLS = 1024;

/**
 * Recent successful calls, keyed by attempt (an adapter's key built from the `requestId`), with
 * when each started and the duration it promised. A retried attempt is carried out again, so it
 * still finds out whether the grant exists, but it is answered like the original, as the
 * reference grantor replays a stored reply: it promises no more than the original has left.
 */
export class RecentCalls {
  #calls = new Map();

  /**
   * The duration a reply to attempt `key` (started at `startedAt`, a `performance.now()`
   * reading) may promise, given the grantor now promised `durationMs`: no more than the
   * original has left, in whole ms. An attempt not seen before, or whose original promise has
   * run out, stands on its own: it promises `durationMs`, and is remembered.
   */
  promise(key, startedAt, durationMs) {
    const original = this.#calls.get(key);
    if (original !== undefined) {
      const left = Math.floor(original.durationMs - (performance.now() - original.startedAt));
      if (left >= 1) return Math.min(durationMs, left);
    }
    this.#calls.delete(key);
    this.#calls.set(key, { startedAt, durationMs });
    if (this.#calls.size > REMEMBERED_CALLS) this.#calls.delete(this.#calls.keys().next().value);
    return durationMs;
  }
}
