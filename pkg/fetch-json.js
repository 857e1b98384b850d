// Internal plumbing shared by the grantor adapters that speak someone else's JSON API over fetch
// (etcd, Redis over HTTP, Consul, Kubernetes): requests with their own timeout combined with the
// caller's signal, no redirects followed, size-capped replies, transport failures as typed,
// retryable `ERR_GRANTOR` errors, the checks every adapter makes of its arguments before sending
// anything, and the memory of recent calls that answers retries. What a reply means is each
// adapter's business.

import { LeaseError } from "./errors.js";
import { parseReplyJson } from "./strict-json.js";
import { checkedBaseUrl, checkedTimeoutMs, grantorError, readLimited, statusFailure } from "./http-grantor.js";
import { RecentCallsCore } from "./glue/tenure.js";
import { coreModule } from "./core.js";
import { ERROR_CODE, issuedToken, limit, requestDuration, validName } from "./protocol.js";

export { grantorError, statusFailure };

const perf = globalThis.performance;

/** Replies larger than this are hostile or broken: the adapters' replies are a few hundred bytes. */
const MAX_REPLY_BYTES = 64 * 1024;

function configError(field, message) {
  return new LeaseError("ERR_LEASE_CONFIG", message, { field });
}

/** A call's argument the adapter refuses before sending anything: never a grant. */
export function badArgument(grantorCode, message) {
  return grantorError("bad_request", message, { grantorCode });
}

/** `holder`: a non-empty printable ASCII string within the protocol's length. */
export function checkHolder(holder) {
  const max = limit().maxHolderLength;
  if (!validName(holder, max)) {
    throw badArgument(ERROR_CODE.BAD_HOLDER, `holder must be 1 to ${max} printable ASCII characters`);
  }
  return holder;
}

/**
 * `resource` or `holder` (`field`) for a store that keeps names as any text (etcd, Redis): a
 * non-empty string within the protocol's length. Those stores hold UTF-8 names intact, and their
 * users rely on it, so only the length is the protocol's, not its printable-ASCII alphabet.
 */
export function checkTextName(field, value) {
  const resource = field === "resource";
  const max = resource ? limit().maxResourceLength : limit().maxHolderLength;
  if (typeof value !== "string" || value === "" || value.length > max) {
    const code = resource ? ERROR_CODE.BAD_RESOURCE : ERROR_CODE.BAD_HOLDER;
    throw badArgument(code, `${field} must be a string of 1 to ${max} characters`);
  }
  return value;
}

/** `requestId`: absent, or a non-empty printable ASCII string within the protocol's length. */
export function checkRequestId(requestId) {
  if (requestId === undefined) return undefined;
  const max = limit().maxRequestIdLength;
  if (!validName(requestId, max)) {
    throw badArgument(ERROR_CODE.BAD_REQUEST_ID, `requestId must be 1 to ${max} printable ASCII characters`);
  }
  return requestId;
}

/** `durationMs`: an integer from 1 to the protocol's longest duration (2^31 - 1). */
export function checkDurationMs(durationMs) {
  if (!requestDuration(durationMs)) {
    throw badArgument(ERROR_CODE.BAD_DURATION, `durationMs must be an integer from 1 to ${limit().maxDurationMs}`);
  }
  return durationMs;
}

/** `token`: one a grantor can have issued, an integer from 1 to 2^53 - 1. */
export function checkToken(token) {
  if (!issuedToken(token)) {
    throw badArgument(ERROR_CODE.BAD_TOKEN, "token must be a positive safe integer");
  }
  return token;
}

/** A header value for a credential: a non-empty string a `Headers` object accepts. */
export function checkedCredential(value, field) {
  if (typeof value !== "string" || value === "" || /[\r\n\0]/.test(value) || value.trim() !== value) {
    throw configError(field, `${field} must be a non-empty string without line breaks or outer spaces`);
  }
  return value;
}

/**
 * Internal: a JSON-over-HTTP API reached with `fetch`. Requests go
 * only to `baseUrl` plus a path the adapter builds from checked names, so the configured
 * credentials reach no other origin, and redirects are never followed for the same reason. Each
 * request has its own timeout and also stops when the caller's signal aborts; replies are read up
 * to a size cap.
 */
export class RestEndpoint {
  #baseUrl;
  #headers;
  #timeoutMs;
  #credentials;
  #fetch;
  #maxReplyBytes;

  /**
   * @param {object} options `baseUrl`, `headers`, `timeoutMs` (default 10 000), `credentials`,
   *   `fetch`, as for HttpGrantor
   * @param {Record<string, string>} authHeaders sent with every request; lowercase names
   * @param {number} maxReplyBytes a longer reply is a `malformed_reply`
   */
  constructor(
    { baseUrl, headers = {}, timeoutMs, credentials, fetch } = {},
    authHeaders = {},
    maxReplyBytes = MAX_REPLY_BYTES,
  ) {
    this.#baseUrl = checkedBaseUrl(baseUrl);
    const url = new URL(this.#baseUrl);
    if (url.search !== "" || url.hash !== "") {
      throw configError("baseUrl", "baseUrl must not have a query or a fragment");
    }
    const requestTimeoutMs = checkedTimeoutMs(timeoutMs);
    if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
      throw configError("headers", "headers must be an object of header names to strings");
    }
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string") throw configError("headers", `header ${name} must be a string`);
      // Two spellings of one header would both be sent, joined into one value.
      if (Object.hasOwn(authHeaders, name.toLowerCase())) {
        throw configError("headers", `header ${name} comes from token: give one or the other`);
      }
    }
    // Called as a plain function: browsers throw "Illegal invocation" when fetch gets a `this`
    // other than the global object.
    const fetchFunction =
      fetch ?? (typeof globalThis.fetch === "function" ? (u, init) => globalThis.fetch(u, init) : undefined);
    if (typeof fetchFunction !== "function") throw configError("fetch", "no fetch function available");
    this.#headers = { ...headers, ...authHeaders };
    this.#timeoutMs = requestTimeoutMs;
    this.#credentials = credentials;
    this.#fetch = fetchFunction;
    this.#maxReplyBytes = maxReplyBytes;
  }

  /** The base URL, without a trailing slash. */
  get baseUrl() {
    return this.#baseUrl;
  }

  /**
   * Sends `method` to `baseUrl + path`, with `json` (if given) as a JSON body. Resolves
   * `{status, headers, text}` whatever the status; rejects with `ERR_GRANTOR` of kind
   * `unreachable`, `timed_out` or (a reply over the cap) `malformed_reply`.
   */
  async request(method, path, { json, signal } = {}) {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers = { accept: "application/json", ...this.#headers };
    const init = { method, headers, signal: combined, redirect: "manual" };
    if (json !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    // Some runtimes (workerd) reject the option outright, so only pass it when asked for.
    if (this.#credentials !== undefined) init.credentials = this.#credentials;
    const what = `${method} ${path || "/"}`;
    try {
      const fetchFunction = this.#fetch;
      const response = await fetchFunction(this.#baseUrl + path, init);
      const text = await readLimited(response, this.#maxReplyBytes);
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (error instanceof LeaseError) throw error;
      const kind = timeout.aborted && !signal?.aborted ? "timed_out" : "unreachable";
      throw grantorError(kind, `${what}: ${error?.message ?? error}`, { cause: error });
    }
  }

  /** POSTs `body` as JSON to `baseUrl + path`; resolves and rejects as `request`. */
  post(path, body, signal) {
    return this.request("POST", path, { json: body, signal });
  }
}

/** Parses a reply's JSON text; anything else is a `malformed_reply`. */
export function parseJson(what, text, status) {
  try {
    return parseReplyJson(text);
  } catch (error) {
    throw grantorError("malformed_reply", `${what}: reply is not JSON`, { status, cause: error });
  }
}

/**
 * Internal: the durations of recent successful grants and renewals, keyed by attempt (holder,
 * resource, requestId), and when each call started. A retry of an attempt (same `requestId`) is
 * answered with what the original has left, counted from when the original call started, which
 * is before the grantor started its lease: a holder that measures from the retry must not be
 * promised more than the original grant had. The rule, and the bounded memory of the last 1024
 * attempts, are the core's (`RecentCallsCore`, the rule the reference grantor answers its stored
 * replies by); this only reads the clock for it. The core is loaded on the first call.
 */
export class RecentCalls {
  #core = null;

  #calls() {
    if (this.#core === null) {
      coreModule();
      this.#core = new RecentCallsCore();
    }
    return this.#core;
  }

  /** Records that the attempt `key`, which started at `startedAt` (`performance.now()`), got `durationMs`. */
  remember(key, startedAt, durationMs) {
    if (key !== undefined) this.#calls().remember(key, startedAt, durationMs);
  }

  /** Whole milliseconds the remembered attempt `key` has left, or undefined when unknown or spent. */
  remainingMs(key) {
    return key === undefined ? undefined : this.#calls().remainingMs(key, perf.now());
  }

  /**
   * For an attempt carried out again on a retry: the duration its reply may promise, given the
   * grantor now promised `durationMs` — no more than the original has left. An attempt not seen
   * before, or whose original promise has run out, stands on its own: it promises `durationMs`
   * and is remembered as starting at `startedAt`.
   */
  promise(key, startedAt, durationMs) {
    return this.#calls().promise(key, startedAt, durationMs, perf.now());
  }
}

/** The attempt key for RecentCalls: undefined for a call without a `requestId`. */
export function attemptKey(kind, resource, holder, requestId, token = 0) {
  return requestId === undefined ? undefined : JSON.stringify([kind, resource, holder, requestId, token]);
}
