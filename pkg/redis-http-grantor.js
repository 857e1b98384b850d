// RedisHttpGrantor: leases kept in Redis behind an Upstash-style REST endpoint (`POST` a JSON
// command array, `Authorization: Bearer <token>`, replies `{"result": ...}` or `{"error": ...}`),
// over fetch.
//
// Each operation is one Lua script, so it is atomic in Redis. A resource's grant is the key
// `<keyPrefix>{<resource>}` holding `<token>:<holder>` with a `PX` expiry; the fencing token comes
// from `INCR` of `<keyPrefix>{<resource>}:fence` (the braces keep both keys in one hash slot). The
// token only grows while that counter survives: Redis must keep it (persistence on, no eviction of
// these keys), and a replica promoted after an asynchronous failover may have lost recent grants.

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

// Grant. KEYS[1] the lock, KEYS[2] its fence counter; ARGV[1] the holder, ARGV[2] the duration
// in ms. Returns {1, value, ms} for a new grant, {2, value, pttl} when the holder already holds
// it, {0, value, pttl} when someone else does. The counter is read back with GET: a Lua number
// would print a large counter in exponent form.
const GRANT = `local current = redis.call("GET", KEYS[1])
if current then
  local pttl = redis.call("PTTL", KEYS[1])
  local sep = string.find(current, ":", 1, true)
  if sep and string.sub(current, sep + 1) == ARGV[1] then return {2, current, pttl} end
  return {0, current, pttl}
end
redis.call("INCR", KEYS[2])
local value = redis.call("GET", KEYS[2]) .. ":" .. ARGV[1]
redis.call("SET", KEYS[1], value, "PX", ARGV[2])
return {1, value, tonumber(ARGV[2])}`;

// Renew. KEYS[1] the lock; ARGV[1] the grant's value, ARGV[2] the duration in ms. Resets the
// expiry to the full duration from now: 1; the key is gone: 0; it holds another grant: -1.
const RENEW = `local current = redis.call("GET", KEYS[1])
if not current then return 0 end
if current ~= ARGV[1] then return -1 end
redis.call("PEXPIRE", KEYS[1], ARGV[2])
return 1`;

// Release. KEYS[1] the lock; ARGV[1] the grant's value. Deletes only that grant: 1, else 0.
const RELEASE = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0`;

const malformed = (what, detail) => grantorError("malformed_reply", `${what}: ${detail}`);

/**
 * A grant's stored value, `<token>:<holder>`: the token a canonical decimal in 1..2^53-1 (the
 * counter as Redis printed it), so it is exact as a number.
 */
function parseValue(what, value) {
  if (typeof value !== "string") throw malformed(what, "the grant's value is not a string");
  const match = /^([1-9][0-9]{0,15}):([\s\S]*)$/.exec(value);
  const token = match === null ? NaN : Number(match[1]);
  if (!Number.isSafeInteger(token)) throw malformed(what, "the grant's value has no token in 1..2^53-1");
  return { token, holder: match[2] };
}

/** An integer of a reply, as Upstash sends them: a JSON number. */
function integer(what, field, value) {
  if (!Number.isSafeInteger(value)) throw malformed(what, `${field} is not an integer`);
  return value;
}

/**
 * A grantor keeping leases in Redis behind an Upstash-style REST endpoint, for `LeaseHolder` or
 * direct use.
 *
 * Every request has its own timeout (`timeoutMs`) and also stops when the caller's `signal`
 * aborts. Network failures, timeouts, 5xx and 429 are retryable `ERR_GRANTOR` failures with a
 * `kind`; a Redis error (HTTP 400) is `bad_request`; a refusal is a definitive loss.
 *
 * A holder id names one holder: a grant asked for by the holder that already holds the resource
 * is treated as a retry of the grant that made it, and returns that grant (same token), reporting
 * only the time its key has left.
 */
export class RedisHttpGrantor {
  #endpoint;
  #prefix;
  #recent = new RecentCalls();

  /**
   * @param {object} options `baseUrl` (the REST URL), `token` (sent as
   *   `Authorization: Bearer <token>`), `headers`, `timeoutMs` (per request, default 10 000),
   *   `keyPrefix` (default `"tenure:"`), `credentials`, `fetch`
   */
  constructor({
    baseUrl,
    token,
    headers = {},
    timeoutMs,
    keyPrefix = "tenure:",
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
      const named = typeof headers === "object" && headers !== null ? Object.keys(headers) : [];
      if (named.some((name) => name.toLowerCase() === "authorization")) {
        throw new LeaseError("ERR_LEASE_CONFIG", "give either token or an authorization header", {
          field: "token",
        });
      }
      allHeaders = { ...headers, authorization: `Bearer ${token}` };
    }
    this.#endpoint = new RestEndpoint({ baseUrl, headers: allHeaders, timeoutMs, credentials, fetch });
    this.#prefix = keyPrefix;
  }

  /** The REST endpoint's URL. */
  get baseUrl() {
    return this.#endpoint.baseUrl;
  }

  /** The Redis key holding `resource`'s grant; its fence counter is this plus `:fence`. */
  keyOf(resource) {
    return `${this.#prefix}{${resource}}`;
  }

  /**
   * Grants the resource if its key is free: `{granted: true, token, durationMs}`, or
   * `{granted: false, holder, expiresInMs?}` naming the current holder.
   */
  async grant({ resource, holder, durationMs, signal }) {
    checkTextName("resource", resource);
    checkTextName("holder", holder);
    const what = "grant";
    const ms = checkDurationMs(durationMs);
    const key = this.keyOf(resource);
    const result = await this.#eval(what, GRANT, [key, `${key}:fence`], [holder, String(ms)], signal);
    if (!Array.isArray(result) || result.length !== 3) {
      throw malformed(what, "result is not [status, value, ms]");
    }
    const status = integer(what, "status", result[0]);
    const left = integer(what, "ms", result[2]);
    if (status === 0) {
      if (typeof result[1] !== "string") throw malformed(what, "the holder's value is not a string");
      // Only a denial: a key written by other software still names whoever holds it.
      const named = /^[1-9][0-9]*:([\s\S]*)$/.exec(result[1]);
      // PTTL -1: a key without an expiry, set by something else; no end to announce.
      const denial = { granted: false, holder: named === null ? result[1] : named[1] };
      if (left >= 0) denial.expiresInMs = left;
      return denial;
    }
    const current = parseValue(what, result[1]);
    if (status === 1) {
      if (current.holder !== holder || left !== ms) throw malformed(what, "the new grant is not this one");
      return { granted: true, token: current.token, durationMs: ms };
    }
    if (status === 2 && current.holder === holder && left > 0) {
      // A retry of a grant whose reply was lost: the same grant. The holder's clock starts at
      // this retry's send, so it may believe only what the key has left now. The expiry is not
      // pushed out either: a late duplicate of a grant request must not keep alive a lease its
      // holder has stopped renewing.
      return { granted: true, token: current.token, durationMs: left };
    }
    if (status !== 2 || current.holder !== holder) throw malformed(what, `unexpected status ${status}`);
    // Ours, but with no time left (or no expiry at all): not a grant to believe in.
    return { granted: false, holder, expiresInMs: Math.max(left, 0) };
  }

  /**
   * Resets the grant's expiry to the full duration from now: `{renewed: true, token,
   * durationMs}`, or `{renewed: false, reason}` with `expired` (the key is gone) or `not_holder`
   * (it holds another grant). A retry (same `requestId`) is carried out again but promises no
   * more than the original renewal has left.
   */
  async renew({ resource, holder, token, durationMs, requestId, signal }) {
    checkTextName("resource", resource);
    checkTextName("holder", holder);
    checkToken(token);
    const startedAt = performance.now();
    const what = "renew";
    const ms = checkDurationMs(durationMs);
    const value = `${token}:${holder}`;
    const result = await this.#eval(what, RENEW, [this.keyOf(resource)], [value, String(ms)], signal);
    switch (integer(what, "result", result)) {
      case 1: {
        const attempt = JSON.stringify([resource, holder, token, requestId]);
        const promised = requestId === undefined ? ms : this.#recent.promise(attempt, startedAt, ms);
        return { renewed: true, token, durationMs: promised };
      }
      case 0:
        return { renewed: false, reason: RENEW_REFUSAL.EXPIRED };
      case -1:
        return { renewed: false, reason: RENEW_REFUSAL.NOT_HOLDER };
      default:
        throw malformed(what, `unknown result ${result}`);
    }
  }

  /** Deletes the grant's key if it still holds this grant: `{released}`; idempotent. */
  async release({ resource, holder, token, signal }) {
    checkTextName("resource", resource);
    checkTextName("holder", holder);
    checkToken(token);
    const what = "release";
    const result = await this.#eval(what, RELEASE, [this.keyOf(resource)], [`${token}:${holder}`], signal);
    const deleted = integer(what, "result", result);
    if (deleted !== 0 && deleted !== 1) throw malformed(what, `unknown result ${deleted}`);
    return { released: deleted === 1 };
  }

  /** `EVAL script numkeys keys... args...`: the command's `result`, or the typed failure. */
  async #eval(what, script, keys, args, signal) {
    const command = ["EVAL", script, String(keys.length), ...keys, ...args];
    const reply = await this.#endpoint.post("", command, signal);
    let body;
    if (reply.status >= 200 && reply.status < 300) {
      body = parseJson(what, reply.text, reply.status);
    } else {
      try {
        body = JSON.parse(reply.text);
      } catch {
        body = undefined;
      }
    }
    const message = typeof body?.error === "string" ? body.error : undefined;
    // A Redis error comes with status 400; one in a 2xx body is a refusal all the same.
    if (reply.status < 200 || reply.status >= 300 || message !== undefined) {
      const status = reply.status >= 200 && reply.status < 300 ? 400 : reply.status;
      throw statusFailure(what, { status, headers: reply.headers }, { message });
    }
    if (typeof body !== "object" || body === null || Array.isArray(body) || !("result" in body)) {
      throw malformed(what, "reply has no result");
    }
    return body.result;
  }
}
