// A fault-injecting HTTP proxy for the tenure grantor protocol. It sits between a holder and a
// grantor, relays every request untouched while no fault is set, and injects one fault at a time,
// switched at runtime through this module's API or through its control listener (see README.md).
//
// Faults that model a grantor or middlebox acting on the request and the reply then going wrong
// (delay, drop-reply, malformed-json, wrong-types, lower-token, drip) forward the request first,
// so the grantor really commits it; faults that model an answer given in front of the grantor
// (status, rate-limit) or a dead path (block, hang) never reach it. CORS preflights always pass
// through, so a browser sees the injected fault rather than a CORS failure.

import { createServer, request as httpRequest, Agent } from "node:http";

export const FAULT_KINDS = [
  "block",
  "hang",
  "delay",
  "drop-reply",
  "status",
  "rate-limit",
  "malformed-json",
  "wrong-types",
  "lower-token",
  "drip",
];

// Hop-by-hop headers are per connection: never copied across the proxy.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "content-length",
]);

const MAX_BODY_BYTES = 1024 * 1024;

function parseHostPort(listen) {
  const match = /^(.*):(\d+)$/.exec(listen);
  if (!match) throw new Error(`listen address must be HOST:PORT, got ${listen}`);
  return { host: match[1].replace(/^\[(.*)\]$/, "$1"), port: Number(match[2]) };
}

function number(value, fallback, name, { min = 0, max = Infinity } = {}) {
  const n = value === undefined ? fallback : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < min || n > max) {
    throw new TypeError(`${name} must be a number from ${min} to ${max}`);
  }
  return n;
}

/** Validates a fault description and fills in its defaults; `null` means no fault. */
export function normalizeFault(fault) {
  if (fault === null || fault === undefined) return null;
  if (typeof fault !== "object" || !FAULT_KINDS.includes(fault.kind)) {
    throw new TypeError(`fault.kind must be one of ${FAULT_KINDS.join(", ")}`);
  }
  const paths = fault.paths ?? null;
  if (paths !== null && !(Array.isArray(paths) && paths.every((p) => typeof p === "string"))) {
    throw new TypeError("fault.paths must be an array of path prefixes");
  }
  const normalized = { kind: fault.kind, paths };
  switch (fault.kind) {
    case "delay":
      normalized.ms = number(fault.ms, 1_000, "delay.ms");
      normalized.jitterMs = number(fault.jitterMs, 0, "delay.jitterMs");
      break;
    case "status":
      normalized.status = number(fault.status, 503, "status.status", { min: 500, max: 599 });
      break;
    case "rate-limit":
      normalized.retryAfter = number(fault.retryAfter, 1, "rate-limit.retryAfter");
      break;
    case "drip":
      normalized.byteIntervalMs = number(fault.byteIntervalMs, 100, "drip.byteIntervalMs", {
        min: 1,
      });
      break;
    default:
      break;
  }
  return normalized;
}

function readBody(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let total = 0;
    stream.on("data", (chunk) => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        stream.destroy();
        reject(new Error("body too large"));
        return;
      }
      chunks.push(chunk);
    });
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function resourceOf(request, body) {
  try {
    const parsed = JSON.parse(body.toString("utf8"));
    if (typeof parsed?.resource === "string") return parsed.resource;
  } catch {
    // not JSON: fall back to the query string
  }
  return new URL(request.url, "http://proxy").searchParams.get("resource");
}

/** CORS headers for a reply the proxy makes up itself, so a page can read it like the grantor's. */
function corsFor(request) {
  const origin = request.headers.origin;
  if (origin === undefined) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "retry-after",
    vary: "origin",
  };
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Starts a proxy to `target` (the grantor's base URL) on `listen` (HOST:PORT, port 0 for any).
 * With `control` (HOST:PORT), also serves the control API there. Resolves the proxy handle:
 * `url`, `controlUrl`, `fault`, `set(fault)`, `heal()`, `stats()`, `close()`.
 */
export async function startFaultProxy({ target, listen = "127.0.0.1:0", control = null } = {}) {
  const upstream = new URL(target);
  if (upstream.protocol !== "http:") throw new Error("the target must be an http: URL");
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const { host, port: requestedPort } = parseHostPort(listen);

  let fault = null;
  let listening = false;
  let closed = false;
  let port = requestedPort;
  const sockets = new Set();
  const lastHonestToken = new Map();
  const counts = { requests: 0, forwarded: 0, faulted: {} };

  const forward = (request, response, body) =>
    new Promise((resolve, reject) => {
      const headers = { ...request.headers, host: upstream.host };
      delete headers.connection;
      headers["content-length"] = String(body.length);
      const outgoing = httpRequest(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers,
          agent,
        },
        async (reply) => {
          try {
            resolve({ status: reply.statusCode, headers: reply.headers, body: await readBody(reply) });
          } catch (error) {
            reject(error);
          }
        },
      );
      // A client that gives up takes its upstream request with it.
      response.once("close", () => {
        if (!response.writableFinished) outgoing.destroy();
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  const replyHeaders = (upstreamHeaders, length) => {
    const headers = {};
    for (const [name, value] of Object.entries(upstreamHeaders)) {
      if (!HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers["content-length"] = String(length);
    return headers;
  };

  const send = (response, status, headers, body) => {
    if (response.destroyed || response.writableEnded) return;
    response.writeHead(status, headers);
    response.end(body);
  };

  const sendJson = (request, response, status, value, extra = {}) => {
    const body = Buffer.from(JSON.stringify(value));
    send(response, status, {
      "content-type": "application/json",
      "content-length": String(body.length),
      ...corsFor(request),
      ...extra,
    }, body);
  };

  const relayHonestly = (request, response, body, result) => {
    if (result.status >= 200 && result.status < 300) {
      try {
        const parsed = JSON.parse(result.body.toString("utf8"));
        if (Number.isSafeInteger(parsed?.token)) {
          lastHonestToken.set(resourceOf(request, body), parsed.token);
        }
      } catch {
        // not a token-bearing reply
      }
    }
    send(response, result.status, replyHeaders(result.headers, result.body.length), result.body);
  };

  const transform = (kind, request, body, result) => {
    const text = result.body.toString("utf8");
    if (kind === "malformed-json") {
      // Cut the JSON off mid-way, as a truncated or corrupted reply would be.
      return Buffer.from(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    }
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      return result.body;
    }
    if (parsed === null || typeof parsed !== "object") return result.body;
    if (kind === "wrong-types") {
      // Well-formed JSON, every scalar turned into a string: {"granted": "true", "token": "7"}.
      const retyped = {};
      for (const [key, value] of Object.entries(parsed)) {
        retyped[key] = typeof value === "boolean" || typeof value === "number" ? String(value) : value;
      }
      return Buffer.from(JSON.stringify(retyped));
    }
    if (kind === "lower-token" && Number.isSafeInteger(parsed.token)) {
      const last = lastHonestToken.get(resourceOf(request, body)) ?? parsed.token;
      return Buffer.from(JSON.stringify({ ...parsed, token: Math.max(0, last - 1) }));
    }
    return result.body;
  };

  const serve = async (request, response) => {
    counts.requests += 1;
    let body;
    try {
      body = await readBody(request);
    } catch {
      response.destroy();
      return;
    }
    const active = fault;
    const path = new URL(request.url, "http://proxy").pathname;
    const applies =
      active !== null &&
      active.kind !== "block" &&
      request.method !== "OPTIONS" &&
      (active.paths === null || active.paths.some((prefix) => path.startsWith(prefix)));
    if (applies) counts.faulted[active.kind] = (counts.faulted[active.kind] ?? 0) + 1;

    if (applies && active.kind === "hang") return; // accepted, never answered
    if (applies && active.kind === "status") {
      sendJson(request, response, active.status, {
        error: { code: active.status === 503 ? "storage_unavailable" : "internal", message: "injected" },
      });
      return;
    }
    if (applies && active.kind === "rate-limit") {
      sendJson(
        request,
        response,
        429,
        { error: { code: "rate_limited", message: "injected" } },
        { "retry-after": String(active.retryAfter) },
      );
      return;
    }

    let result;
    try {
      result = await forward(request, response, body);
      counts.forwarded += 1;
    } catch (error) {
      if (response.destroyed) return;
      sendJson(request, response, 502, {
        error: { code: "bad_gateway", message: `grantor unreachable: ${error.message}` },
      });
      return;
    }
    if (!applies) {
      relayHonestly(request, response, body, result);
      return;
    }
    switch (active.kind) {
      case "delay":
        await sleep(active.ms + Math.random() * active.jitterMs);
        relayHonestly(request, response, body, result);
        return;
      case "drop-reply":
        // The grantor acted; the holder never learns how it went.
        request.socket.destroy();
        return;
      case "drip": {
        response.writeHead(result.status, replyHeaders(result.headers, result.body.length));
        for (const byte of result.body) {
          if (response.destroyed) return;
          response.write(Buffer.of(byte));
          await sleep(active.byteIntervalMs);
        }
        if (!response.destroyed) response.end();
        return;
      }
      default: {
        const changed = transform(active.kind, request, body, result);
        send(response, result.status, replyHeaders(result.headers, changed.length), changed);
      }
    }
  };

  const server = createServer((request, response) => {
    serve(request, response).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 5_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  const startListening = async () => {
    // Re-binding the same port after a block: retry briefly in case the old socket lingers.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await new Promise((resolve, reject) => {
          server.once("error", reject);
          server.listen(port, host, () => {
            server.off("error", reject);
            resolve();
          });
        });
        break;
      } catch (error) {
        if (error.code !== "EADDRINUSE" || attempt >= 50) throw error;
        await sleep(20);
      }
    }
    port = server.address().port;
    listening = true;
  };

  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    const done = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    await done;
  };

  await startListening();

  const proxy = {
    get url() {
      return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
    },
    controlUrl: null,
    /** The fault in force, or null. */
    get fault() {
      return fault;
    },
    /** Switches to `fault` (null heals). `block` closes the listening socket: connections are refused. */
    async set(next) {
      const normalized = normalizeFault(next);
      if (closed) throw new Error("the proxy is closed");
      fault = normalized;
      if (normalized?.kind === "block") {
        counts.faulted.block = (counts.faulted.block ?? 0) + 1;
        await stopListening();
      } else if (!listening) {
        await startListening();
      }
      return fault;
    },
    /** No fault: relay everything again. */
    heal() {
      return proxy.set(null);
    },
    /** Counters since start: requests seen, forwarded, and faulted by kind. */
    stats() {
      return { fault, ...counts, faulted: { ...counts.faulted } };
    },
    async close() {
      if (closed) return;
      closed = true;
      await stopListening();
      await controlServer?.close();
      agent.destroy();
    },
  };

  let controlServer = null;
  if (control !== null) {
    controlServer = await startControl(proxy, control);
    proxy.controlUrl = controlServer.url;
  }
  return proxy;
}

/**
 * The control API: `GET /fault`, `PUT /fault` (or `POST`) with a fault as JSON, `DELETE /fault`,
 * `GET /stats`. Open to any origin, so a test page can switch faults itself; it listens on
 * loopback only by default, and it is a test tool.
 */
async function startControl(proxy, listen) {
  const { host, port } = parseHostPort(listen);
  const cors = {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, PUT, POST, DELETE",
    "access-control-allow-headers": "content-type",
  };
  const reply = (response, status, value) => {
    const body = JSON.stringify(value);
    response.writeHead(status, { "content-type": "application/json", ...cors });
    response.end(body);
  };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url, "http://control").pathname;
    try {
      if (request.method === "OPTIONS") {
        response.writeHead(204, cors).end();
      } else if (path === "/fault" && request.method === "GET") {
        reply(response, 200, { fault: proxy.fault });
      } else if (path === "/fault" && (request.method === "PUT" || request.method === "POST")) {
        const text = (await readBody(request)).toString("utf8");
        reply(response, 200, { fault: await proxy.set(text.trim() === "" ? null : JSON.parse(text)) });
      } else if (path === "/fault" && request.method === "DELETE") {
        reply(response, 200, { fault: await proxy.heal() });
      } else if (path === "/stats" && request.method === "GET") {
        reply(response, 200, proxy.stats());
      } else {
        reply(response, 404, { error: "not found" });
      }
    } catch (error) {
      reply(response, 400, { error: String(error.message ?? error) });
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
