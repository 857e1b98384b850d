// ConsulGrantor: leases from Consul's sessions and KV locks, over Consul's HTTP API.
//
// A grant is a TTL session plus `PUT /v1/kv/<key>?acquire=<session>`; a renewal renews the session
// and then checks that the key is still locked by it; a release unlocks the key, then destroys the
// session. The fencing token is the key's `LockIndex`. Nothing is kept between calls that the
// answer depends on: the key records which holder (and which attempt) locked it, so any instance
// of the adapter can renew or release a grant another one made.

import { LeaseError } from "./errors.js";
import {
  RecentCalls,
  RestEndpoint,
  attemptKey,
  badArgument,
  checkDurationMs,
  checkHolder,
  checkRequestId,
  checkToken,
  checkedCredential,
  grantorError,
  parseJson,
  statusFailure,
} from "./fetch-json.js";
import { ERROR_CODE, RENEW_REFUSAL, limit } from "./protocol.js";

const perf = globalThis.performance;

function configError(field, message) {
  return new LeaseError("ERR_LEASE_CONFIG", message, { field });
}

/** Consul's session TTL bounds: the server's default `session_ttl_min`, and `SessionTTLMax`. */
const MIN_TTL_S = 10;
const MAX_TTL_S = 86_400;
/** Consul caps a session's lock-delay at 60 s. */
const MAX_LOCK_DELAY_MS = 60_000;
/** Consul replies here are a few hundred bytes; a session renewal lists one session. */
const MAX_REPLY_BYTES = 64 * 1024;

/** Consul session ids are UUIDs; anything else from a reply never reaches a URL. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The characters current Consul accepts in a key (`validateKVKey`). */
const KEY_CHARS = /^[A-Za-z0-9,\-_./]*$/;

function malformed(what, detail, status) {
  return grantorError("malformed_reply", `${what}: ${detail}`, { status });
}

/** A key or key prefix made only of characters Consul accepts, with no empty, `.` or `..` segment. */
function checkKeyPath(path, what) {
  if (!KEY_CHARS.test(path)) return `${what} may only contain letters, digits and , - _ . /`;
  if (path.startsWith("/")) return `${what} must not begin with /`;
  const segments = path.split("/");
  // A key prefix may end with "/", which leaves one empty last segment.
  const inner = what === "keyPrefix" && path.endsWith("/") ? segments.slice(0, -1) : segments;
  if (path !== "" && inner.some((s) => s === "" || s === "." || s === "..")) {
    return `${what} must not have empty, "." or ".." segments`;
  }
  return undefined;
}

const GO_DURATION_UNITS_MS = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
const GO_DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** A Go duration string (`"15s"`, `"1m30s"`) in whole milliseconds, rounded down; else undefined. */
function parseGoDurationMs(text) {
  if (typeof text !== "string" || text === "" || text.length > 64) return undefined;
  let total = 0;
  GO_DURATION_PART.lastIndex = 0;
  while (GO_DURATION_PART.lastIndex < text.length) {
    const match = GO_DURATION_PART.exec(text);
    if (match === null) return undefined;
    total += Number(match[1]) * GO_DURATION_UNITS_MS[match[2]];
  }
  return Number.isFinite(total) ? Math.floor(total) : undefined;
}

/** Base64 (standard alphabet) to a UTF-8 string; undefined if it is not valid base64 or UTF-8. */
function decodeBase64Utf8(text) {
  try {
    const binary = atob(text);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Who locked a key, as this adapter records it in the value; undefined for anything else. */
function ownerOf(value) {
  if (value === null) return undefined;
  const text = decodeBase64Utf8(value);
  if (text === undefined) return undefined;
  try {
    const owner = JSON.parse(text);
    if (typeof owner?.holder !== "string") return undefined;
    return {
      holder: owner.holder,
      requestId: typeof owner.requestId === "string" ? owner.requestId : undefined,
    };
  } catch {
    return undefined;
  }
}

/** A non-negative safe integer from a reply. */
function isIndex(value) {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * A grantor on Consul: sessions with a TTL, and locks on KV keys.
 *
 * - **Durations.** A session TTL is whole seconds from 10 s to 24 h: a request is rounded up and
 *   clamped into that range, and the reply's `durationMs` says what was granted. Consul may take
 *   up to twice the TTL (plus the lock-delay) to invalidate an unrenewed session; the holder
 *   believes only the TTL, so another holder may wait up to 2 × TTL for a takeover.
 * - **Fencing token: the key's `LockIndex`.** Consul increments it on every acquisition of the key
 *   by a new session and leaves it alone on renewals, so it is per key, strictly increasing across
 *   grants, and stable for the whole grant (a renewal can check it). Consul's documentation names
 *   it the lock's sequencer. The raft `ModifyIndex` also grows, but it moves on every write to the
 *   key, so it cannot identify one grant. `LockIndex` restarts at 1 if the key is deleted, which
 *   is why sessions use `Behavior: "release"` (the key stays when a session ends; `"delete"`
 *   would delete it and restart the tokens). Never delete lock keys under `keyPrefix`.
 * - **Lock-delay** (`lockDelayMs`, default 0). Consul refuses to re-lock a key for the lock-delay
 *   after its session was invalidated while holding it (its default is 15 s): a guard for clients
 *   that cannot tell they lost the lock. A tenure holder stops at its margin before the TTL, and
 *   the resource rejects stale fencing tokens, so the default here is 0: takeover as soon as
 *   Consul invalidates the session. Raise it if the protected resource cannot check tokens.
 * - **Retries.** The key's value records the holder and the attempt's `requestId`, so a retried
 *   grant gets the original token, and a new grant by the same holder replaces its own older one
 *   with a larger token.
 *
 * Auth: `token` is sent as `X-Consul-Token`. In browsers, Consul must be configured to send CORS
 * headers allowing that header (`http_config.response_headers`).
 */
export class ConsulGrantor {
  #http;
  #keyPrefix;
  #lockDelay;
  #recent = new RecentCalls();

  /**
   * @param {object} options `baseUrl` (the agent, e.g. `"http://127.0.0.1:8500"`), `token` (ACL
   *   token), `keyPrefix` (default `"tenure/"`), `lockDelayMs` (0 to 60 000, default 0),
   *   `headers`, `timeoutMs` (each request's, default 10 000), `credentials`, `fetch`
   */
  constructor({ baseUrl, token, keyPrefix = "tenure/", lockDelayMs = 0, ...rest } = {}) {
    const auth = token === undefined ? {} : { "x-consul-token": checkedCredential(token, "token") };
    this.#http = new RestEndpoint({ baseUrl, ...rest }, auth, MAX_REPLY_BYTES);
    if (typeof keyPrefix !== "string" || checkKeyPath(keyPrefix, "keyPrefix") !== undefined) {
      throw configError(
        "keyPrefix",
        checkKeyPath(String(keyPrefix), "keyPrefix") ?? "keyPrefix must be a string",
      );
    }
    if (!Number.isSafeInteger(lockDelayMs) || lockDelayMs < 0 || lockDelayMs > MAX_LOCK_DELAY_MS) {
      throw configError("lockDelayMs", `lockDelayMs must be an integer from 0 to ${MAX_LOCK_DELAY_MS}`);
    }
    this.#keyPrefix = keyPrefix;
    // Consul reads a lock-delay string below 1000 ns as seconds; "0ms" and "1ms".."60000ms" are
    // all far above it or zero, so the value means what it says.
    this.#lockDelay = `${lockDelayMs}ms`;
  }

  /** The agent's base URL. */
  get baseUrl() {
    return this.#http.baseUrl;
  }

  /** The KV key that locks `resource`. */
  keyOf(resource) {
    const max = limit().maxResourceLength;
    if (typeof resource !== "string" || resource === "" || resource.length > max) {
      throw badArgument(ERROR_CODE.BAD_RESOURCE, `resource must be a string of 1 to ${max} characters`);
    }
    const problem = checkKeyPath(resource, "resource");
    if (problem !== undefined) throw badArgument(ERROR_CODE.BAD_RESOURCE, problem);
    return this.#keyPrefix + resource;
  }

  /** Creates a session and locks the resource's key with it; see the class notes on retries. */
  async grant({ resource, holder, durationMs, requestId, signal }) {
    const key = this.keyOf(resource);
    checkHolder(holder);
    checkDurationMs(durationMs);
    checkRequestId(requestId);
    const startedAt = perf.now();
    const ttlSeconds = Math.min(MAX_TTL_S, Math.max(MIN_TTL_S, Math.ceil(durationMs / 1000)));
    const attempt = attemptKey("grant", resource, holder, requestId);

    const entry = await this.#read(key, signal);
    if (entry?.session !== undefined) {
      const owner = ownerOf(entry.value);
      if (owner?.holder !== holder) return denied(owner);
      if (requestId !== undefined && owner.requestId === requestId) {
        return this.#replayGrant(key, entry, attempt, signal);
      }
      // The same holder again, in a new attempt: its older grant gives way to this one. Unlock
      // first: destroying a session that still holds the key would start Consul's lock-delay.
      await this.#unlock(key, entry.session, entry.value, signal);
      await this.#destroy(entry.session, signal);
    }

    const session = await this.#createSession(resource, holder, ttlSeconds, signal);
    let granted = false;
    try {
      const locked = await this.#acquire(key, session, { holder, requestId }, signal);
      if (!locked) {
        // Held by another session, or inside the lock-delay of one that was invalidated.
        const current = await this.#read(key, signal);
        return denied(current?.session === undefined ? undefined : ownerOf(current.value));
      }
      const after = await this.#read(key, signal);
      if (after?.session !== session) {
        throw malformed(`GET /v1/kv/${key}`, "the key is not locked by the session that acquired it");
      }
      checkToken(after.lockIndex);
      const reply = { granted: true, token: after.lockIndex, durationMs: ttlSeconds * 1000 };
      if (attempt !== undefined) this.#recent.remember(attempt, startedAt, reply.durationMs);
      granted = true;
      return reply;
    } finally {
      // Whatever went wrong, leave no session (and no lock) behind for a grant nobody received.
      // (An acquire whose reply was lost may have locked the key: unlock it too.)
      if (!granted) this.#cleanUp(key, session, { holder, requestId });
    }
  }

  /**
   * Renews the session that locked the key, then checks the key is still locked by it with the
   * same `LockIndex`: a live session whose lock was taken away is not a renewal.
   */
  async renew({ resource, holder, token, durationMs, requestId, signal }) {
    const key = this.keyOf(resource);
    checkHolder(holder);
    checkToken(token);
    checkDurationMs(durationMs);
    checkRequestId(requestId);
    const startedAt = perf.now();
    const entry = await this.#read(key, signal);
    const refusal = refusalFor(entry, holder, token);
    if (refusal !== undefined) return { renewed: false, reason: refusal };
    const ttlMs = await this.#renewSession(entry.session, signal);
    if (ttlMs === undefined) return { renewed: false, reason: RENEW_REFUSAL.EXPIRED };
    const after = await this.#read(key, signal);
    if (after?.session !== entry.session || after.lockIndex !== token) {
      return { renewed: false, reason: refusalFor(after, holder, token) ?? RENEW_REFUSAL.NOT_HOLDER };
    }
    const attempt = attemptKey("renew", resource, holder, requestId, token);
    // Consul renews to the session's TTL, which it may have raised: that is what was granted.
    // A retried renewal promises no more than the original had left.
    const promisedMs = attempt === undefined ? ttlMs : this.#recent.promise(attempt, startedAt, ttlMs);
    return { renewed: true, token, durationMs: promisedMs };
  }

  /** Unlocks the key if this holder's grant `token` still holds it, then destroys its session. */
  async release({ resource, holder, token, signal }) {
    const key = this.keyOf(resource);
    checkHolder(holder);
    checkToken(token);
    const entry = await this.#read(key, signal);
    if (refusalFor(entry, holder, token) !== undefined) return { released: false };
    // `?release=` only unlocks if this session still holds the key, so a newer grant is safe.
    const released = await this.#unlock(key, entry.session, entry.value, signal);
    await this.#destroy(entry.session, signal);
    return { released };
  }

  /** A retried grant: the original token, and no more time than the original has left. */
  async #replayGrant(key, entry, attempt, signal) {
    const token = checkToken(entry.lockIndex);
    const left = this.#recent.remainingMs(attempt);
    if (left !== undefined) return { granted: true, token, durationMs: left };
    // Not remembered here (another instance made it, or it was forgotten): renew the session, so
    // its full TTL counts from now, after the retry was sent.
    const ttlMs = await this.#renewSession(entry.session, signal);
    const after = ttlMs === undefined ? undefined : await this.#read(key, signal);
    if (after?.session !== entry.session || after.lockIndex !== token) {
      return denied(after?.session === undefined ? undefined : ownerOf(after.value));
    }
    return { granted: true, token, durationMs: ttlMs };
  }

  /** `GET /v1/kv/<key>?consistent`: `{session?, lockIndex, value}`, or null when there is no key. */
  async #read(key, signal) {
    const what = `GET /v1/kv/${key}`;
    const reply = await this.#http.request("GET", `/v1/kv/${key}?consistent`, { signal });
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw failure(what, reply);
    const entries = parseJson(what, reply.text, reply.status);
    if (!Array.isArray(entries) || entries.length !== 1) {
      throw malformed(what, "expected a list of exactly one entry", reply.status);
    }
    const [entry] = entries;
    if (typeof entry !== "object" || entry === null || entry.Key !== key) {
      throw malformed(what, "the entry is not the key asked for", reply.status);
    }
    if (!isIndex(entry.LockIndex) || !isIndex(entry.ModifyIndex) || !isIndex(entry.CreateIndex)) {
      throw malformed(
        what,
        "LockIndex, ModifyIndex and CreateIndex must be non-negative safe integers",
        reply.status,
      );
    }
    if (entry.Value !== null && entry.Value !== undefined && typeof entry.Value !== "string") {
      throw malformed(what, "Value must be a base64 string or null", reply.status);
    }
    const session = entry.Session;
    if (session !== undefined && session !== null && session !== "") {
      if (typeof session !== "string" || !SESSION_ID.test(session)) {
        throw malformed(what, "Session must be a session id", reply.status);
      }
      if (entry.LockIndex < 1) {
        throw malformed(what, "a locked key must have a LockIndex of 1 or more", reply.status);
      }
      return { session, lockIndex: entry.LockIndex, value: entry.Value ?? null };
    }
    return { session: undefined, lockIndex: entry.LockIndex, value: entry.Value ?? null };
  }

  /** `PUT /v1/session/create`: a TTL session tied to no health check; resolves its id. */
  async #createSession(resource, holder, ttlSeconds, signal) {
    const what = "PUT /v1/session/create";
    const body = {
      Name: `tenure ${resource} ${holder}`,
      TTL: `${ttlSeconds}s`,
      LockDelay: this.#lockDelay,
      Behavior: "release",
      // A holder is not a Consul node: without these the session would follow the agent's
      // serfHealth check as well as its TTL. `Checks` is the field agents before 1.7 read.
      NodeChecks: [],
      Checks: [],
    };
    const reply = await this.#http.request("PUT", "/v1/session/create", { json: body, signal });
    if (reply.status !== 200) throw failure(what, reply);
    const created = parseJson(what, reply.text, reply.status);
    if (typeof created?.ID !== "string" || !SESSION_ID.test(created.ID)) {
      throw malformed(what, "ID must be a session id", reply.status);
    }
    return created.ID;
  }

  /** `PUT /v1/kv/<key>?acquire=<session>`, writing who locked it: resolves whether it locked. */
  async #acquire(key, session, owner, signal) {
    const path = `/v1/kv/${key}?acquire=${session}`;
    return this.#booleanReply("PUT", path, owner, signal);
  }

  /** `PUT /v1/kv/<key>?release=<session>`, keeping the value: resolves whether it unlocked. */
  async #unlock(key, session, value, signal) {
    const path = `/v1/kv/${key}?release=${session}`;
    // Consul writes the request body as the key's value; send back what was there.
    const owner = value === null ? undefined : ownerOf(value);
    return this.#booleanReply("PUT", path, owner ?? {}, signal);
  }

  /** `PUT /v1/session/destroy/<session>`; Consul answers true even for an unknown session. */
  async #destroy(session, signal) {
    const done = await this.#booleanReply("PUT", `/v1/session/destroy/${session}`, undefined, signal);
    if (done !== true) throw malformed(`PUT /v1/session/destroy/${session}`, "expected true");
  }

  /** `PUT /v1/session/renew/<session>`: the TTL Consul renewed to, in ms, or undefined if gone. */
  async #renewSession(session, signal) {
    const what = `PUT /v1/session/renew/${session}`;
    const reply = await this.#http.request("PUT", `/v1/session/renew/${session}`, { signal });
    if (reply.status === 404) return undefined; // "Session id '…' not found": invalidated
    if (reply.status !== 200) throw failure(what, reply);
    const sessions = parseJson(what, reply.text, reply.status);
    const renewed = Array.isArray(sessions) ? sessions.find((s) => s?.ID === session) : undefined;
    if (renewed === undefined) throw malformed(what, "the reply does not list the session", reply.status);
    const ttlMs = parseGoDurationMs(renewed.TTL);
    const { maxDurationMs } = limit();
    if (ttlMs === undefined || ttlMs < 1 || ttlMs > maxDurationMs) {
      throw malformed(what, `TTL must be a duration from 1 ms to ${maxDurationMs} ms`, reply.status);
    }
    return ttlMs;
  }

  async #booleanReply(method, path, json, signal) {
    const what = `${method} ${path.split("?")[0]}`;
    const reply = await this.#http.request(method, path, { json, signal });
    if (reply.status !== 200) throw failure(what, reply);
    const value = parseJson(what, reply.text, reply.status);
    if (typeof value !== "boolean") throw malformed(what, "expected true or false", reply.status);
    return value;
  }

  /**
   * Unlocks the key (if the session holds it) and destroys the session, in the background: the
   * caller's grant failed, so nobody may believe in this session. Unlocking first keeps a
   * lock-delay from starting. If this fails too, Consul invalidates the session after its TTL.
   */
  #cleanUp(key, session, owner) {
    this.#booleanReply("PUT", `/v1/kv/${key}?release=${session}`, owner, undefined)
      .catch(() => {})
      .then(() => this.#destroy(session, undefined))
      .catch(() => {});
  }
}

function denied(owner) {
  return owner === undefined ? { granted: false } : { granted: false, holder: owner.holder };
}

/** Why `holder` cannot renew or release grant `token` given the key's state; undefined if it can. */
function refusalFor(entry, holder, token) {
  if (entry === null || entry === undefined) return RENEW_REFUSAL.UNKNOWN; // no such key
  if (entry.lockIndex < token) return RENEW_REFUSAL.UNKNOWN; // a token never handed out
  if (entry.lockIndex > token) return RENEW_REFUSAL.NOT_HOLDER; // locked again since
  if (entry.session === undefined) return RENEW_REFUSAL.EXPIRED; // the session ended and unlocked the key
  if (ownerOf(entry.value)?.holder !== holder) return RENEW_REFUSAL.NOT_HOLDER;
  return undefined;
}

/** A non-2xx Consul reply: Consul's error bodies are plain text, quoted briefly. */
function failure(what, reply) {
  const message = reply.text.trim().slice(0, 200) || undefined;
  return statusFailure(what, reply, { message });
}
