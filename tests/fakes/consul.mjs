// A fake Consul agent (HTTP API) for tests, on 127.0.0.1 with an ephemeral port, written from
// Consul's documented API and its source (agent/session_endpoint.go, agent/kvs_endpoint.go,
// agent/http.go, agent/consul/session_ttl.go, agent/consul/state/{kvs,session}.go).
//
// Reproduced:
// - Sessions: `PUT /v1/session/create` with Name, TTL, LockDelay, Behavior, NodeChecks/Checks
//   (defaults: the agent's node, the serfHealth check, 15 s lock-delay, "release"; an empty
//   `Checks` or `NodeChecks` list gives a pure TTL session); replies `{"ID": uuid}`. TTL is a Go
//   duration string; outside 10 s .. 24 h it fails with 500 and Consul's "Invalid Session TTL"
//   text; a bad Behavior fails with 500. LockDelay as a Go duration string or a number, either
//   read as seconds when below 1000 (ns), capped at 60 s when applied.
// - The TTL timer: armed at TTL × `ttlMultiplier` (Consul uses 2: "the contract is that a session
//   is not expired before the TTL") on create and on every renewal; when it fires the session is
//   invalidated. `ttlMultiplier: 1` gives the earliest invalidation the contract allows.
// - `PUT /v1/session/renew/<id>` → 200 with a one-element list of the session (TTL as its string,
//   LockDelay in ns, CreateIndex, ModifyIndex), or 404 text "Session id '<id>' not found".
//   `setRenewTtl` makes later renewals raise the session's TTL, as Consul may under load.
// - `PUT /v1/session/destroy/<id>` → `true`, also for unknown ids. `GET /v1/session/info/<id>`.
// - Ending a session (destroy or invalidation): every key it holds is unlocked (Behavior
//   "release": Session cleared, ModifyIndex bumped) or deleted ("delete"), and its lock-delay
//   starts on those keys; a `?acquire` during the lock-delay answers `false`.
// - KV: `GET /v1/kv/<key>` → 200 `[{LockIndex, Key, Flags, Value (base64 or null), Session
//   (omitted when empty), CreateIndex, ModifyIndex}]` with X-Consul-Index, X-Consul-KnownLeader,
//   X-Consul-LastContact (and X-Consul-Effective-Consistency for `?consistent`), or 404 with an
//   empty body. `PUT /v1/kv/<key>` stores the raw body and answers `true`; `?acquire=<id>` locks
//   (LockIndex + 1 unless the same session already holds it; body written) and answers
//   true/false, or 500 `invalid session "<id>"` for an unknown session; `?release=<id>` unlocks
//   only if that session holds the key (body written, LockIndex kept); `?cas=<index>`. Two of
//   cas/acquire/release → 400 "Conflicting flags". `DELETE /v1/kv/<key>`. Keys are checked as
//   current Consul does (characters `A-Za-z0-9,-_./`, no leading "/", no traversal, no
//   "suspicious" file extensions) → 400 with the reason.
// - One raft index across all writes (sessions and keys); renewals do not write.
// - ACLs with default-deny when `token` is set: `X-Consul-Token` or `Authorization: Bearer`;
//   none → 403 "Permission denied: anonymous token lacks permission ..."; an unknown token → 403
//   "ACL not found". Errors are plain text, as Consul's are. Wrong methods → 405 with `Allow`.
//
// - Blocking queries on a KV key (agent/blocking_query.go): `GET /v1/kv/<key>?index=N&wait=D`
//   with N > 0 waits until the key's index (its ModifyIndex, or the store's index when there is
//   no key) passes N or the wait (a Go duration, default 5 min, at most 10 min) runs out, then
//   answers as a plain GET. `dropBlocking()` cuts every waiting query's connection.
//
// For tests of hostile servers, `intercept` answers chosen requests with any reply instead.
//
// Not reproduced: the jitter Consul adds to a blocking query's wait, `?recurse`, `?keys`, `?raw`, `/v1/txn`,
// datacenters, namespaces and partitions, health checks other than "always passing", real ACL
// policies (a token is all or nothing), leader elections (which reset TTL timers), the value size
// limit, and `?stale` reads.

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

const NODE_NAME = "fake-consul-node";
const NS_PER_MS = 1e6;
const MIN_TTL_MS = 10_000;
const MAX_TTL_MS = 24 * 3600_000;
const MAX_LOCK_DELAY_MS = 60_000;
const SUSPICIOUS_EXTENSIONS = [
  ".js",
  ".css",
  ".html",
  ".htm",
  ".xml",
  ".json",
  ".txt",
  ".log",
  ".php",
  ".asp",
  ".jsp",
  ".cgi",
  ".pl",
  ".py",
  ".rb",
  ".sh",
  ".exe",
  ".dll",
  ".bat",
  ".cmd",
  ".com",
  ".scr",
  ".vbs",
  ".pdf",
  ".doc",
  ".docx",
  ".xls",
  ".xlsx",
  ".ppt",
  ".pptx",
  ".zip",
  ".rar",
  ".tar",
  ".gz",
  ".7z",
  ".bz2",
  ".jpg",
  ".jpeg",
  ".png",
  ".gif",
  ".svg",
  ".ico",
  ".bmp",
  ".mp3",
  ".mp4",
  ".avi",
  ".mov",
  ".wmv",
  ".flv",
  ".swf",
  ".woff",
  ".woff2",
  ".ttf",
  ".eot",
  ".otf",
];

const GO_UNITS_NS = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration (sign, decimals, units), in ns; throws on bad input. */
function parseGoDuration(text) {
  const match = /^([-+]?)(.*)$/.exec(text);
  let rest = match[2];
  if (rest === "0") return 0;
  if (rest === "") throw new Error(`time: invalid duration "${text}"`);
  let total = 0;
  while (rest !== "") {
    const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (part === null) throw new Error(`time: invalid duration "${text}"`);
    total += Number(part[1]) * GO_UNITS_NS[part[2]];
    rest = rest.slice(part[0].length);
  }
  return match[1] === "-" ? -total : total;
}

class HttpError extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

/** Consul's validateKVKey. */
function validateKey(key) {
  if (key === "") return "key cannot be empty";
  if (key.startsWith("/")) return "key must not begin with a '/'";
  for (let i = 0; i < key.length; i += 1) {
    if (!/[A-Za-z0-9,\-_./]/.test(key[i])) {
      return `key contains invalid character '${key[i]}' at position ${i}. Only alphanumeric characters and ,-_./ are allowed`;
    }
  }
  if (key.includes("../")) return "key contains path traversal sequence";
  const lower = key.toLowerCase();
  const ext = SUSPICIOUS_EXTENSIONS.find((e) => lower.endsWith(e));
  if (ext !== undefined) {
    return `key contains suspicious file extension '${ext}' that may be cached by proxies`;
  }
  return undefined;
}

/**
 * Starts the fake agent. Options: `token` (ACL token every request must carry; none = ACLs off),
 * `ttlMultiplier` (1..2, default 2).
 * Resolves a handle with `url`, `close()`, functions to inspect and change its state, `intercept`,
 * and `requests` (every request's method, path, query, headers and body).
 */
export async function startConsulFake({ token, ttlMultiplier = 2 } = {}) {
  if (!(ttlMultiplier >= 1 && ttlMultiplier <= 2)) throw new Error("ttlMultiplier must be within 1..2");
  let index = 100; // the raft index; a fresh cluster has written a few entries already
  const sessions = new Map();
  const kv = new Map();
  const lockDelays = new Map(); // key -> performance.now() until which ?acquire answers false
  const requests = [];
  let nextRenewTtl;

  const sessionJson = (s) => ({
    ID: s.ID,
    Name: s.Name,
    Node: s.Node,
    LockDelay: s.LockDelay,
    Behavior: s.Behavior,
    TTL: s.TTL,
    NodeChecks: s.NodeChecks,
    ServiceChecks: null,
    CreateIndex: s.CreateIndex,
    ModifyIndex: s.ModifyIndex,
  });

  const entryJson = (e) => {
    const json = {
      LockIndex: e.LockIndex,
      Key: e.Key,
      Flags: e.Flags,
      Value: e.Value === null ? null : e.Value.toString("base64"),
    };
    if (e.Session !== "") json.Session = e.Session;
    json.CreateIndex = e.CreateIndex;
    json.ModifyIndex = e.ModifyIndex;
    return json;
  };

  const armTimer = (session) => {
    clearTimeout(session.timer);
    if (session.ttlMs === 0) return;
    session.timer = setTimeout(() => destroySession(session.ID), session.ttlMs * ttlMultiplier);
  };

  // state/session.go deleteSessionTxn: unlock or delete the session's keys, start their lock-delay.
  const destroySession = (id) => {
    const session = sessions.get(id);
    if (session === undefined) return;
    clearTimeout(session.timer);
    sessions.delete(id);
    index += 1;
    const delayMs = Math.min(session.LockDelay / NS_PER_MS, MAX_LOCK_DELAY_MS);
    for (const entry of [...kv.values()]) {
      if (entry.Session !== id) continue;
      if (session.Behavior === "delete") {
        kv.delete(entry.Key);
      } else {
        entry.Session = "";
        entry.ModifyIndex = index;
      }
      if (delayMs > 0) lockDelays.set(entry.Key, performance.now() + delayMs);
    }
    wakeBlocked();
  };

  const checkAcl = (req, permission, resource) => {
    if (token === undefined) return;
    const header =
      req.headers["x-consul-token"] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (header === undefined || header === "") {
      throw new HttpError(
        403,
        `Permission denied: anonymous token lacks permission '${permission}' on "${resource}"`,
      );
    }
    if (header !== token) throw new HttpError(403, "ACL not found");
  };

  const allow = (req, methods) => {
    if (!methods.includes(req.method)) {
      const error = new HttpError(405, `method ${req.method} not allowed`);
      error.allow = ["OPTIONS", ...methods].join(",");
      throw error;
    }
  };

  const queryMeta = (res, query, modifyIndex) => {
    res.setHeader("X-Consul-Index", String(Math.max(1, modifyIndex)));
    res.setHeader("X-Consul-KnownLeader", "true");
    res.setHeader("X-Consul-LastContact", "0");
    if (query.has("consistent")) res.setHeader("X-Consul-Effective-Consistency", "consistent");
  };

  const createSession = (req, body) => {
    checkAcl(req, "session:write", NODE_NAME);
    const session = {
      ID: randomUUID(),
      Name: "",
      Node: NODE_NAME,
      LockDelay: 15e9,
      Behavior: "release",
      TTL: "",
      NodeChecks: ["serfHealth"],
      Checks: ["serfHealth"],
    };
    if (body.length > 0) {
      let input;
      try {
        input = JSON.parse(body);
      } catch (error) {
        throw new HttpError(400, `Request decode failed: ${error.message}`);
      }
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw new HttpError(400, "Request decode failed: expected an object");
      }
      for (const [field, value] of Object.entries(input)) {
        switch (field.toLowerCase()) {
          case "name":
            session.Name = String(value);
            break;
          case "ttl":
            session.TTL = String(value);
            break;
          case "behavior":
            session.Behavior = String(value);
            break;
          case "nodechecks":
            session.NodeChecks = Array.isArray(value) ? value : session.NodeChecks;
            break;
          case "checks":
            session.Checks = Array.isArray(value) ? value : session.Checks;
            break;
          case "lockdelay": {
            let ns;
            try {
              ns = typeof value === "string" ? parseGoDuration(value) : Number(value);
            } catch (error) {
              throw new HttpError(400, `Request decode failed: ${error.message}`);
            }
            session.LockDelay = ns < 1000 ? ns * 1e9 : ns;
            break;
          }
          default:
            break; // Consul ignores fields it does not know
        }
      }
    }
    // agent/session_endpoint.go fixupEmptySessionChecks.
    if (session.Checks.length === 0) session.NodeChecks = [];
    delete session.Checks;
    if (session.Behavior === "") session.Behavior = "release";
    if (session.Behavior !== "release" && session.Behavior !== "delete") {
      throw new HttpError(500, `Invalid Behavior setting '${session.Behavior}'`);
    }
    session.ttlMs = 0;
    if (session.TTL !== "") {
      let ns;
      try {
        ns = parseGoDuration(session.TTL);
      } catch (error) {
        throw new HttpError(500, `Session TTL '${session.TTL}' invalid: ${error.message}`);
      }
      if (ns !== 0 && (ns < MIN_TTL_MS * NS_PER_MS || ns > MAX_TTL_MS * NS_PER_MS)) {
        throw new HttpError(500, `Invalid Session TTL '${ns}', must be between [10s=24h0m0s]`);
      }
      session.ttlMs = ns / NS_PER_MS;
    }
    index += 1;
    session.CreateIndex = index;
    session.ModifyIndex = index;
    sessions.set(session.ID, session);
    armTimer(session);
    return { ID: session.ID };
  };

  const renewSession = (req, id) => {
    checkAcl(req, "session:write", NODE_NAME);
    const session = sessions.get(id);
    if (session === undefined) throw new HttpError(404, `Session id '${id}' not found`);
    if (nextRenewTtl !== undefined && session.ttlMs !== 0) {
      session.TTL = nextRenewTtl;
      session.ttlMs = parseGoDuration(nextRenewTtl) / NS_PER_MS;
    }
    armTimer(session);
    return [sessionJson(session)];
  };

  const kvPut = (req, key, query, body) => {
    checkAcl(req, "key:write", key);
    const flags = ["cas", "acquire", "release"].filter((f) => query.has(f));
    if (flags.length > 1) throw new HttpError(400, `Conflicting flags: ${query.toString()}\n`);
    const existing = kv.get(key);
    const value = Buffer.from(body, "utf8");
    if (query.has("acquire")) {
      const id = query.get("acquire");
      const until = lockDelays.get(key);
      if (until !== undefined && until > performance.now()) return false; // kvsPreApply lock-delay
      if (!sessions.has(id)) throw new HttpError(500, `invalid session "${id}"`);
      if (existing !== undefined && existing.Session !== "" && existing.Session !== id) return false;
      index += 1;
      if (existing === undefined) {
        kv.set(key, {
          Key: key,
          Flags: 0,
          Value: value,
          Session: id,
          LockIndex: 1,
          CreateIndex: index,
          ModifyIndex: index,
        });
      } else {
        if (existing.Session !== id) existing.LockIndex += 1;
        Object.assign(existing, { Value: value, Session: id, ModifyIndex: index });
      }
      return true;
    }
    if (query.has("release")) {
      const id = query.get("release");
      if (existing === undefined || existing.Session !== id) return false;
      index += 1;
      Object.assign(existing, { Value: value, Session: "", ModifyIndex: index });
      return true;
    }
    if (query.has("cas")) {
      const cas = Number(query.get("cas"));
      if (cas === 0 ? existing !== undefined : existing?.ModifyIndex !== cas) return false;
    }
    index += 1;
    if (existing === undefined) {
      kv.set(key, {
        Key: key,
        Flags: 0,
        Value: value,
        Session: "",
        LockIndex: 0,
        CreateIndex: index,
        ModifyIndex: index,
      });
    } else {
      Object.assign(existing, { Value: value, ModifyIndex: index });
    }
    return true;
  };

  const route = (req, res, path, query, body) => {
    if (path === "/v1/session/create") {
      allow(req, ["PUT"]);
      return createSession(req, body);
    }
    if (path.startsWith("/v1/session/renew/")) {
      allow(req, ["PUT"]);
      return renewSession(req, path.slice("/v1/session/renew/".length));
    }
    if (path.startsWith("/v1/session/destroy/")) {
      allow(req, ["PUT"]);
      checkAcl(req, "session:write", NODE_NAME);
      const id = path.slice("/v1/session/destroy/".length);
      if (id === "") throw new HttpError(400, "Missing session");
      destroySession(id);
      return true;
    }
    if (path.startsWith("/v1/session/info/")) {
      allow(req, ["GET"]);
      checkAcl(req, "session:read", NODE_NAME);
      const session = sessions.get(path.slice("/v1/session/info/".length));
      queryMeta(res, query, index);
      return session === undefined ? [] : [sessionJson(session)];
    }
    if (path.startsWith("/v1/kv/")) {
      allow(req, ["GET", "PUT", "DELETE"]);
      if (path.includes("../")) throw new HttpError(400, "URL path contains invalid traversal sequence");
      const key = path.slice("/v1/kv/".length);
      const problem = validateKey(key);
      if (problem !== undefined) throw new HttpError(400, key === "" ? "Missing key name" : problem);
      if (req.method === "GET") {
        checkAcl(req, "key:read", key);
        const entry = kv.get(key);
        queryMeta(res, query, entry?.ModifyIndex ?? index);
        if (entry === undefined) throw new HttpError(404, "");
        return [entryJson(entry)];
      }
      if (req.method === "PUT") return kvPut(req, key, query, body);
      checkAcl(req, "key:write", key);
      index += 1;
      kv.delete(key);
      return true;
    }
    throw new HttpError(404, "Invalid URL path: not a recognized HTTP API endpoint\n");
  };

  // Blocking queries waiting for a change: each is woken after every write.
  const blocked = new Set();
  const wakeBlocked = () => {
    for (const wake of [...blocked]) wake();
  };
  /** Answers `answerNow()` once the key's index passes the query's, or its wait runs out. */
  const blockOr = (req, res, url, path, answerNow) => {
    const query = url.searchParams;
    const wanted = Number(query.get("index") ?? 0);
    if (req.method !== "GET" || !path.startsWith("/v1/kv/") || !(wanted > 0)) return answerNow();
    const key = path.slice("/v1/kv/".length);
    const current = () => kv.get(key)?.ModifyIndex ?? index;
    if (current() > wanted) return answerNow();
    let waitMs = 5 * 60_000;
    try {
      if (query.has("wait")) waitMs = Math.min(parseGoDuration(query.get("wait")) / NS_PER_MS, 10 * 60_000);
    } catch {
      // Consul answers a bad wait as no wait at all
    }
    const finish = () => {
      blocked.delete(wake);
      clearTimeout(timer);
      if (!res.destroyed) answerNow();
    };
    const wake = () => {
      if (current() > wanted) finish();
    };
    const timer = setTimeout(finish, waitMs);
    wake.drop = () => {
      blocked.delete(wake);
      clearTimeout(timer);
      res.destroy();
    };
    res.on("close", () => {
      blocked.delete(wake);
      clearTimeout(timer);
    });
    blocked.add(wake);
  };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url, "http://fake");
      let path;
      try {
        path = decodeURIComponent(url.pathname);
      } catch {
        path = url.pathname;
      }
      const body = Buffer.concat(chunks).toString("utf8");
      const record = { method: req.method, path, query: url.search, headers: { ...req.headers }, body };
      requests.push(record);
      const answerNow = () => {
        answer(req, res, url, path, body);
        if (req.method !== "GET") wakeBlocked();
      };
      const respond = () => blockOr(req, res, url, path, answerNow);
      if (handle.intercept !== undefined) {
        interceptOr(handle.intercept, record, res, respond);
      } else {
        respond();
      }
    });
  });

  const answer = (req, res, url, path, body) => {
    try {
      const result = route(req, res, path, url.searchParams, body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(result));
    } catch (error) {
      // Anything but an HttpError is a bug in the fake: answer it as Consul answers RPC errors.
      const status = error instanceof HttpError ? error.status : 500;
      if (error.allow !== undefined) res.setHeader("Allow", error.allow);
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      res.end(error.message);
    }
  };
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();

  const handle = {
    url: `http://127.0.0.1:${port}`,
    requests,
    /**
     * Assign `(request) => reply | undefined` (or a promise of one) to answer a request yourself,
     * e.g. with a hostile reply: `{status, headers?, body}`. Undefined lets the fake answer.
     */
    intercept: undefined,
    /** The session as Consul would list it, or undefined. */
    session: (id) => (sessions.has(id) ? sessionJson(sessions.get(id)) : undefined),
    /** Every live session id. */
    sessionIds: () => [...sessions.keys()],
    /** The key as `GET /v1/kv/<key>` would list it, or undefined. */
    entry: (key) => (kv.has(key) ? entryJson(kv.get(key)) : undefined),
    /** Ends a session now, as its TTL timer (or a failed health check) would. */
    invalidateSession: destroySession,
    /** Cuts the connection of every blocking query waiting for a change. */
    dropBlocking: () => {
      for (const wake of [...blocked]) wake.drop();
    },
    /** How many blocking queries are waiting. */
    blockedCount: () => blocked.size,
    /** Makes later renewals switch each session to this TTL string. */
    setRenewTtl: (ttl) => {
      nextRenewTtl = ttl;
    },
    async close() {
      for (const session of sessions.values()) clearTimeout(session.timer);
      sessions.clear();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return handle;
}

/** Answers with what `intercept` returns for `record`, or with `fallback()` when it returns nothing. */
export function interceptOr(intercept, record, res, fallback) {
  Promise.resolve(intercept(record)).then(
    (reply) => {
      if (reply === undefined) return fallback();
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? "");
    },
    (error) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    },
  );
}
