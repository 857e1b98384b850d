// EtcdGrantor: leases kept in etcd v3, through its JSON gateway (`/v3/...`), over fetch.
//
// A grant is an etcd lease plus a key created under it (`<keyPrefix><resource>`, value = the
// holder id) by a transaction that succeeds only while the key does not exist. The fencing token
// is the key's `create_revision`: etcd's store revision is one counter for the whole cluster that
// only grows, so each new grant of a resource gets a larger one, across holders and restarts.
// Renewal is a keepalive of the lease; release deletes the key only if it is still the one this
// grant created, then revokes the lease. The gateway sends 64-bit integers as decimal strings
// and keys and values as base64: both are parsed strictly, and anything unexpected is a
// `malformed_reply`, never a grant.

import { LeaseError } from "./errors.js";
import {
  RestEndpoint,
  RecentCalls,
  checkDurationMs,
  checkTextName,
  checkToken,
  grantorError,
  parseJson,
  statusFailure,
} from "./fetch-json.js";
import { RENEW_REFUSAL } from "./protocol.js";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_INT64 = (1n << 63n) - 1n;
/** etcd refuses longer leases (`MaxLeaseTTL`). */
const MAX_TTL_SECONDS = 9_000_000_000;
/** Lease IDs remembered for renewals; beyond this the oldest are forgotten and looked up again. */
const MAX_TRACKED = 1024;

// gRPC codes whose meaning does not depend on the HTTP status a gateway build maps them to.
const GRPC_KINDS = new Map([
  [4, "server_error"], // DeadlineExceeded
  [8, "rate_limited"], // ResourceExhausted: etcd's "too many requests"
  [10, "server_error"], // Aborted
  [13, "server_error"], // Internal
  [14, "server_error"], // Unavailable: no leader, stopping, ...
]);
const GRPC_NOT_FOUND = 5;

const malformed = (what, detail) => grantorError("malformed_reply", `${what}: ${detail}`);

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A 64-bit integer as the gateway sends it: a canonical decimal string (no sign on zero, no
 * leading zeros, no spaces, no exponent). A field etcd omits is its default, `absent`.
 */
function int64(what, field, value, absent) {
  if (value === undefined && absent !== undefined) return absent;
  if (typeof value !== "string" || !/^(?:0|-?[1-9][0-9]{0,18})$/.test(value)) {
    throw malformed(what, `${field} is not a decimal integer string`);
  }
  const number = BigInt(value);
  if (number > MAX_INT64 || number < -MAX_INT64 - 1n) {
    throw malformed(what, `${field} is out of the 64-bit range`);
  }
  return number;
}

/** A fencing token: a create revision in 1 ..= 2^53 - 1, so it is exact as a number. */
function revision(what, value) {
  const number = int64(what, "create_revision", value);
  if (number <= 0n || number > MAX_SAFE) {
    throw malformed(what, `create_revision ${value} is not a token in 1..2^53-1`);
  }
  return Number(number);
}

/** A lease ID, kept as its decimal string: IDs use all 63 bits, beyond a number's precision. */
function leaseId(what, value, { optional = false } = {}) {
  const number = int64(what, "lease ID", value, optional ? 0n : undefined);
  if (number < 0n || (number === 0n && !optional)) throw malformed(what, `lease ID ${value} is not positive`);
  return number === 0n ? null : value;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Standard base64 of a string's UTF-8 bytes, with only what every runtime has (no Buffer). */
function toBase64(text) {
  let binary = "";
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Decodes a base64 field holding UTF-8 text; etcd omits empty bytes fields. */
function fromBase64(what, field, value) {
  if (value === undefined) return "";
  if (typeof value !== "string" || !BASE64.test(value)) throw malformed(what, `${field} is not base64`);
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  try {
    return decoder.decode(bytes);
  } catch {
    throw malformed(what, `${field} is not UTF-8`);
  }
}

/** A txn's `succeeded`: etcd omits false. */
function succeeded(what, txn) {
  if (txn.succeeded === undefined) return false;
  if (typeof txn.succeeded !== "boolean") throw malformed(what, "succeeded is not a boolean");
  return txn.succeeded;
}

/**
 * The key/value of the range at `txn.responses[index]`, checked to be `key`; null when the range
 * found nothing.
 */
function rangedKv(what, txn, index, key) {
  const responses = txn.responses;
  if (!Array.isArray(responses) || !isObject(responses[index])) {
    throw malformed(what, "a txn response is missing");
  }
  const range = responses[index].response_range;
  if (!isObject(range)) throw malformed(what, "a range response is missing");
  if (range.kvs === undefined || (Array.isArray(range.kvs) && range.kvs.length === 0)) return null;
  if (!Array.isArray(range.kvs) || range.kvs.length !== 1 || !isObject(range.kvs[0])) {
    throw malformed(what, "kvs is not a list of one key");
  }
  const kv = range.kvs[0];
  if (kv.key !== key) throw malformed(what, "the range returned another key");
  return kv;
}

/**
 * The lease TTL for `durationMs` (the protocol's 1 to 2^31 - 1 ms): whole seconds, rounded up, so
 * the holder never asks for less; well within etcd's longest lease.
 */
function ttlSeconds(durationMs) {
  return Math.ceil(checkDurationMs(durationMs) / 1000);
}

/**
 * A grantor keeping leases in etcd v3 through its JSON gateway, for `LeaseHolder` or direct use.
 *
 * Durations are whole seconds (requests are rounded up; etcd may raise them to its minimum TTL,
 * 2 s by default) and replies report what etcd granted; a renewal restores the lease's own TTL,
 * which a keepalive cannot change. Every request has its own timeout
 * (`timeoutMs`) and also stops when the caller's `signal` aborts. Network failures, timeouts and
 * gateway errors (5xx, gRPC Unavailable) are retryable `ERR_GRANTOR` failures with a `kind`; a
 * refusal is a definitive loss.
 *
 * A holder id names one holder: a grant asked for by the holder that already holds the resource
 * is treated as a retry of the grant that made it, and returns that grant (same token), reporting
 * only the time its etcd lease has left.
 */
export class EtcdGrantor {
  #endpoint;
  #prefix;
  /** `resource \0 holder \0 token` → the etcd lease ID of that grant. */
  #leases = new Map();
  #recent = new RecentCalls();

  /**
   * @param {object} options `baseUrl` (the etcd client URL, e.g. `"http://127.0.0.1:2379"`),
   *   `token` (an etcd auth token, sent raw in `Authorization` as the gateway expects),
   *   `headers`, `timeoutMs` (per request, default 10 000), `keyPrefix` (default
   *   `"tenure/leases/"`), `credentials`, `fetch`
   */
  constructor({
    baseUrl,
    token,
    headers = {},
    timeoutMs,
    keyPrefix = "tenure/leases/",
    credentials,
    fetch,
  } = {}) {
    if (typeof keyPrefix !== "string") {
      throw new LeaseError("ERR_LEASE_CONFIG", "keyPrefix must be a string", { field: "keyPrefix" });
    }
    let allHeaders = headers;
    if (token !== undefined) {
      if (typeof token !== "string" || token === "") {
        throw new LeaseError("ERR_LEASE_CONFIG", "token must be a non-empty string", { field: "token" });
      }
      if (isObject(headers) && Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) {
        throw new LeaseError("ERR_LEASE_CONFIG", "give either token or an authorization header", {
          field: "token",
        });
      }
      // The gateway wants the token itself: with a "Bearer " prefix etcd answers 401.
      allHeaders = { ...headers, authorization: token };
    }
    this.#endpoint = new RestEndpoint({ baseUrl, headers: allHeaders, timeoutMs, credentials, fetch });
    this.#prefix = keyPrefix;
  }

  /** The etcd client URL. */
  get baseUrl() {
    return this.#endpoint.baseUrl;
  }

  /** The etcd key holding `resource`'s grant. */
  keyOf(resource) {
    return this.#prefix + resource;
  }

  /**
   * Grants a new lease (`/v3/lease/grant`) and creates the resource's key under it if the key
   * does not exist (`/v3/kv/txn`). Resolves `{granted: true, token, durationMs}` or
   * `{granted: false, holder, expiresInMs?}`.
   */
  async grant({ resource, holder, durationMs, signal }) {
    checkTextName("resource", resource);
    checkTextName("holder", holder);
    const what = "grant";
    const ttl = ttlSeconds(durationMs);
    const key = toBase64(this.keyOf(resource));
    const granted = await this.#call(what, "/v3/lease/grant", { TTL: String(ttl) }, signal);
    const lease = leaseId(what, granted.ID);
    const grantedTtl = int64(what, "TTL", granted.TTL);
    if (grantedTtl <= 0n || grantedTtl > BigInt(MAX_TTL_SECONDS)) throw malformed(what, `TTL ${granted.TTL}`);

    // If this request's reply is lost after the commit, the lease keeps the key alive for its
    // TTL and a retry finds the key naming this holder (below). Revoking here instead could
    // race that retry and delete a key the holder was just told it holds.
    const txn = await this.#call(
      what,
      "/v3/kv/txn",
      {
        compare: [{ key, target: "CREATE", result: "EQUAL", create_revision: "0" }],
        success: [{ request_put: { key, value: toBase64(holder), lease } }, { request_range: { key } }],
        failure: [{ request_range: { key } }],
      },
      signal,
    );
    if (succeeded(what, txn)) {
      const kv = rangedKv(what, txn, 1, key);
      if (kv === null) throw malformed(what, "the created key is missing");
      const ours = fromBase64(what, "value", kv.value) === holder;
      if (!ours || leaseId(what, kv.lease, { optional: true }) !== lease) {
        throw malformed(what, "the created key does not hold this grant");
      }
      const token = revision(what, kv.create_revision);
      this.#track(resource, holder, token, lease);
      return { granted: true, token, durationMs: Number(grantedTtl) * 1000 };
    }

    // Held already. The lease just made is not needed: revoke it so it does not linger for its
    // TTL, and ask how long the current grant has left. Neither is needed for a denial, so their
    // failures only leave the lease to expire and the denial without a hint.
    const kv = rangedKv(what, txn, 0, key);
    if (kv === null) throw malformed(what, "the txn failed but the key is missing");
    const current = fromBase64(what, "value", kv.value);
    const currentLease = leaseId(what, kv.lease, { optional: true });
    const [, left] = await Promise.all([
      this.#revoke(lease, signal).catch(() => false),
      currentLease === null ? null : this.#timeToLive(currentLease, signal).catch(() => null),
    ]);
    if (current === holder && currentLease !== null && left !== null && left > 0) {
      // A retry of a grant whose reply was lost: the same grant. The holder's clock starts at
      // this retry's send, so it may only believe what the lease has left now (etcd truncates
      // to whole seconds, which errs on the short side), never a fresh TTL.
      const token = revision(what, kv.create_revision);
      this.#track(resource, holder, token, currentLease);
      return { granted: true, token, durationMs: left * 1000 };
    }
    // `left` is whole seconds, truncated: the grant ends within the next second after it. A lease
    // that has run out (-1) is deleted by etcd's next expiry sweep, twice a second.
    const denial = { granted: false, holder: current };
    if (left !== null) denial.expiresInMs = left >= 0 ? (left + 1) * 1000 : 0;
    return denial;
  }

  /**
   * Keeps the grant's lease alive (`/v3/lease/keepalive`), then checks that the resource's key
   * is still the one this grant created, under this lease. Resolves `{renewed: true, token,
   * durationMs}` (the lease's full TTL) or `{renewed: false, reason}`: `expired` when the lease
   * (or, looked up afresh, the key) is gone, `not_holder` when the key was deleted or replaced
   * while the lease lived. A retry (same `requestId`) is carried out again but promises no more
   * than the original renewal has left.
   */
  async renew({ resource, holder, token, requestId, signal }) {
    checkTextName("resource", resource);
    checkTextName("holder", holder);
    checkToken(token);
    const startedAt = performance.now();
    const what = "renew";
    const key = toBase64(this.keyOf(resource));
    const id = this.#id(resource, holder, token);
    let lease = this.#leases.get(id);
    if (lease === undefined) {
      // Granted through another instance, or forgotten: the key says which lease it lives on.
      const found = await this.#call(what, "/v3/kv/range", { key }, signal);
      const kv = rangedKv(what, { responses: [{ response_range: found }] }, 0, key);
      if (kv === null) return { renewed: false, reason: RENEW_REFUSAL.EXPIRED };
      const mine =
        fromBase64(what, "value", kv.value) === holder && revision(what, kv.create_revision) === token;
      lease = leaseId(what, kv.lease, { optional: true });
      if (!mine || lease === null) return { renewed: false, reason: RENEW_REFUSAL.NOT_HOLDER };
      this.#track(resource, holder, token, lease);
    }

    const ttl = await this.#keepAlive(lease, signal);
    if (ttl <= 0) {
      this.#leases.delete(id);
      return { renewed: false, reason: RENEW_REFUSAL.EXPIRED };
    }
    // A live lease is not enough: the key may have been deleted (or replaced) by someone else
    // while the lease lived on, and a renewal must not vouch for a grant that no longer exists.
    // Checked after the keepalive, so what it finds is the state the extension applies to.
    const txn = await this.#call(
      what,
      "/v3/kv/txn",
      {
        compare: [
          { key, target: "CREATE", result: "EQUAL", create_revision: String(token) },
          { key, target: "VALUE", result: "EQUAL", value: toBase64(holder) },
          { key, target: "LEASE", result: "EQUAL", lease },
        ],
        success: [],
        failure: [{ request_range: { key } }],
      },
      signal,
    );
    if (succeeded(what, txn)) {
      const ttlMs = ttl * 1000;
      const attempt = JSON.stringify([resource, holder, token, requestId]);
      const durationMs = requestId === undefined ? ttlMs : this.#recent.promise(attempt, startedAt, ttlMs);
      return { renewed: true, token, durationMs };
    }
    this.#leases.delete(id);
    const kv = rangedKv(what, txn, 0, key);
    // The lease protects nothing of ours any more; revoking it cannot touch a key that lives on
    // another lease. A key still on our lease was rewritten by someone: leave it alone.
    if (kv === null || leaseId(what, kv.lease, { optional: true }) !== lease) {
      await this.#revoke(lease, signal).catch(() => false);
    }
    return { renewed: false, reason: RENEW_REFUSAL.NOT_HOLDER };
  }

  /**
   * Deletes the resource's key if it is still the one this grant created (its create revision
   * is `token` and it names `holder`), then revokes the grant's lease. Resolves `{released}`;
   * idempotent, and never touches a newer grant.
   */
  async release({ resource, holder, token, signal }) {
    checkTextName("resource", resource);
    checkTextName("holder", holder);
    checkToken(token);
    const what = "release";
    const key = toBase64(this.keyOf(resource));
    const txn = await this.#call(
      what,
      "/v3/kv/txn",
      {
        compare: [
          { key, target: "CREATE", result: "EQUAL", create_revision: String(token) },
          { key, target: "VALUE", result: "EQUAL", value: toBase64(holder) },
        ],
        success: [{ request_range: { key } }, { request_delete_range: { key } }],
        failure: [],
      },
      signal,
    );
    const released = succeeded(what, txn);
    const id = this.#id(resource, holder, token);
    let lease = this.#leases.get(id) ?? null;
    this.#leases.delete(id);
    if (released) {
      const kv = rangedKv(what, txn, 0, key);
      lease ??= kv === null ? null : leaseId(what, kv.lease, { optional: true });
    }
    // The key is gone either way; a lease left behind only lingers until its TTL runs out.
    if (lease !== null) await this.#revoke(lease, signal).catch(() => false);
    return { released };
  }

  #id(resource, holder, token) {
    return `${resource}\u0000${holder}\u0000${token}`;
  }

  #track(resource, holder, token, lease) {
    const id = this.#id(resource, holder, token);
    this.#leases.delete(id);
    this.#leases.set(id, lease);
    if (this.#leases.size > MAX_TRACKED) this.#leases.delete(this.#leases.keys().next().value);
  }

  /** `/v3/lease/keepalive`: the lease's TTL in seconds after the keepalive, 0 when it is gone. */
  async #keepAlive(lease, signal) {
    const what = "renew";
    // The gateway answers a stream: one `{"result": ...}` (or `{"error": ...}`) line per
    // request object in the body. One object, one line.
    const reply = await this.#endpoint.post("/v3/lease/keepalive", { ID: lease }, signal);
    if (reply.status < 200 || reply.status >= 300) throw this.#failure(what, reply);
    const line = reply.text.split("\n").find((part) => part.trim() !== "");
    const message = parseJson(what, line ?? "", reply.status);
    if (!isObject(message)) throw malformed(what, "keepalive reply is not an object");
    if (message.error !== undefined) {
      const error = isObject(message.error) ? message.error : {};
      const status = Number.isInteger(error.http_code) ? error.http_code : 500;
      const parsed = { code: error.grpc_code, message: error.message };
      throw this.#failure(what, { status, headers: new Headers() }, parsed);
    }
    const result = message.result;
    if (!isObject(result)) throw malformed(what, "keepalive reply has no result");
    if (leaseId(what, result.ID) !== lease) throw malformed(what, "keepalive answered for another lease");
    const ttl = int64(what, "TTL", result.TTL, 0n);
    if (ttl > BigInt(MAX_TTL_SECONDS)) throw malformed(what, `TTL ${result.TTL}`);
    return ttl <= 0n ? 0 : Number(ttl);
  }

  /** `/v3/lease/timetolive`: whole seconds left (truncated), -1 when the lease is gone. */
  async #timeToLive(lease, signal) {
    const what = "grant";
    const reply = await this.#call(what, "/v3/lease/timetolive", { ID: lease }, signal);
    const ttl = int64(what, "TTL", reply.TTL, 0n);
    if (ttl < -1n || ttl > BigInt(MAX_TTL_SECONDS)) throw malformed(what, `TTL ${reply.TTL}`);
    return Number(ttl);
  }

  /** `/v3/lease/revoke`: true if revoked, false if etcd no longer knew the lease. */
  async #revoke(lease, signal) {
    const reply = await this.#endpoint.post("/v3/lease/revoke", { ID: lease }, signal);
    if (reply.status >= 200 && reply.status < 300) return true;
    const failure = this.#failure("revoke", reply);
    if (failure.grantorCode === String(GRPC_NOT_FOUND)) return false;
    throw failure;
  }

  /** One gateway call; resolves the reply object of a 2xx, else rejects with the typed failure. */
  async #call(what, path, body, signal) {
    const reply = await this.#endpoint.post(path, body, signal);
    if (reply.status < 200 || reply.status >= 300) throw this.#failure(what, reply);
    const value = parseJson(what, reply.text, reply.status);
    if (!isObject(value)) throw malformed(what, `${path} reply is not an object`);
    return value;
  }

  /**
   * The failure of a non-2xx gateway reply, `{error, message, code}` (3.4, 3.5) or
   * `{code, message}` (3.6). The HTTP status a gRPC code maps to differs between builds, so
   * codes with a clear meaning decide the kind.
   */
  #failure(what, reply, parsed) {
    let body = parsed;
    if (body === undefined) {
      try {
        body = JSON.parse(reply.text);
      } catch {
        body = undefined;
      }
    }
    const code = Number.isInteger(body?.code) ? body.code : undefined;
    const text = body?.message ?? body?.error;
    return statusFailure(what, reply, {
      grantorCode: code === undefined ? undefined : String(code),
      message: typeof text === "string" ? text : undefined,
      kind: GRPC_KINDS.get(code),
    });
  }
}
