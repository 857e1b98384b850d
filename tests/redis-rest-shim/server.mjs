// A Redis REST endpoint in the shape of Upstash's, in front of a real redis-server: what
// RedisHttpGrantor is tested against, since Upstash's own local server needs Docker.
//
//   POST /          body ["CMD", "arg", 1, ...]        → 200 {"result": ...} | 400 {"error": "ERR ..."}
//   POST /pipeline  body [["CMD", ...], ["CMD", ...]]  → 200 [{"result": ...} | {"error": ...}, ...]
//
// `Authorization: Bearer <token>` is required (401 {"error": "Unauthorized"} otherwise); other
// methods get 405. Arguments may be strings or numbers. Replies follow Upstash's JSON mapping of
// RESP: integers as JSON numbers (printed exactly as Redis sent them), bulk and simple strings as
// strings, nil as null, arrays as arrays. Every request gets its own connection to Redis, so a
// slow command never holds up another request. Node only, no dependencies.
//
//   node tests/redis-rest-shim/server.mjs --redis 127.0.0.1:6379 --token secret [--listen 127.0.0.1:0]

import { createServer } from "node:http";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

const MAX_BODY_BYTES = 1024 * 1024;
/** Commands that turn a connection into a subscription or a stream: they have no single reply. */
const UNSUPPORTED = new Set(["SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR", "SYNC", "PSYNC"]);

class RedisError {
  constructor(message) {
    this.message = message;
  }
}

/** One RESP2 command: an array of bulk strings. */
function encodeCommand(args) {
  const parts = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg), "utf8");
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

/** Parses one RESP2 value at `offset`: `{value, next}`, or null when more bytes are needed. */
function parseReply(buffer, offset) {
  const lineEnd = buffer.indexOf("\r\n", offset);
  if (lineEnd === -1) return null;
  const type = String.fromCharCode(buffer[offset]);
  const line = buffer.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, next };
    case "-":
      return { value: new RedisError(line), next };
    case ":":
      return { value: BigInt(line), next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return null;
      return { value: buffer.toString("utf8", next, next + length), next: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items = [];
      let at = next;
      for (let i = 0; i < count; i += 1) {
        const item = parseReply(buffer, at);
        if (item === null) return null;
        items.push(item.value);
        at = item.next;
      }
      return { value: items, next: at };
    }
    default:
      throw new Error(`unexpected RESP type byte ${JSON.stringify(type)}`);
  }
}

/** JSON text for a reply: integers keep every digit (JSON.stringify would refuse a BigInt). */
function toJson(value) {
  if (value === null) return "null";
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
  // An error nested in an array (a MULTI/EXEC step) is reported by its message.
  if (value instanceof RedisError) return JSON.stringify(value.message);
  return JSON.stringify(value);
}

/**
 * Sends `commands` (arrays of arguments) to `redis` (`{host, port}`) on a fresh connection and
 * resolves their replies, in order: strings, BigInt integers, null, arrays, and `{message}` for
 * Redis errors.
 */
export function runCommands(redis, commands) {
  return new Promise((resolve, reject) => {
    const socket = connect(redis.port, redis.host);
    let buffer = Buffer.alloc(0);
    const replies = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error("redis did not answer in 30 s")));
    socket.on("connect", () => socket.write(Buffer.concat(commands.map(encodeCommand))));
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        for (;;) {
          const parsed = parseReply(buffer, 0);
          if (parsed === null) break;
          replies.push(parsed.value);
          buffer = buffer.subarray(parsed.next);
          if (replies.length === commands.length) {
            socket.end();
            resolve(replies);
            return;
          }
        }
      } catch (error) {
        socket.destroy(error);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error("redis closed the connection")));
  });
}

/** A command array as Upstash takes it: a non-empty array of strings and numbers. */
function checkCommand(command) {
  if (!Array.isArray(command) || command.length === 0) return "ERR command must be a non-empty array";
  if (!command.every((arg) => typeof arg === "string" || (typeof arg === "number" && Number.isFinite(arg)))) {
    return "ERR command arguments must be strings or numbers";
  }
  if (UNSUPPORTED.has(String(command[0]).toUpperCase())) return `ERR Command is not available: '${command[0]}'`;
  return null;
}

function send(response, status, text) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(text);
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let total = 0;
    request.on("data", (chunk) => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        reject(new Error("body too large"));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/**
 * Starts the shim: `redis` is `{host, port}` of a redis-server, `token` the bearer token it
 * demands. Resolves `{url, close}`.
 */
export async function startRedisRestShim({ redis, token, listen = { host: "127.0.0.1", port: 0 } }) {
  if (typeof token !== "string" || token === "") throw new TypeError("token must be a non-empty string");
  const server = createServer(async (request, response) => {
    try {
      if (request.method !== "POST") {
        send(response, 405, JSON.stringify({ error: "Method not allowed" }));
        return;
      }
      if (request.headers.authorization !== `Bearer ${token}`) {
        send(response, 401, JSON.stringify({ error: "Unauthorized" }));
        return;
      }
      const path = new URL(request.url, "http://shim").pathname;
      let body;
      try {
        body = JSON.parse(await readBody(request));
      } catch (error) {
        send(response, 400, JSON.stringify({ error: `ERR failed to parse command: ${error.message}` }));
        return;
      }
      if (path === "/") {
        const problem = checkCommand(body);
        if (problem !== null) {
          send(response, 400, JSON.stringify({ error: problem }));
          return;
        }
        const [reply] = await runCommands(redis, [body]);
        if (reply instanceof RedisError) send(response, 400, JSON.stringify({ error: reply.message }));
        else send(response, 200, `{"result":${toJson(reply)}}`);
        return;
      }
      if (path === "/pipeline") {
        const problem = Array.isArray(body) && body.length > 0
          ? body.map(checkCommand).find((found) => found !== null)
          : "ERR pipeline must be a non-empty array of commands";
        if (problem !== undefined) {
          send(response, 400, JSON.stringify({ error: problem }));
          return;
        }
        const replies = await runCommands(redis, body);
        const items = replies.map((reply) =>
          reply instanceof RedisError ? JSON.stringify({ error: reply.message }) : `{"result":${toJson(reply)}}`,
        );
        send(response, 200, `[${items.join(",")}]`);
        return;
      }
      send(response, 404, JSON.stringify({ error: "Not found" }));
    } catch (error) {
      // Redis unreachable or gone mid-reply: the REST service's own failure.
      if (!response.headersSent) send(response, 502, JSON.stringify({ error: `redis: ${error.message}` }));
      else response.destroy();
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const { address, port } = server.address();
  return {
    url: `http://${address}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// As a command: serve until SIGTERM or Ctrl-C.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const index = args.indexOf(`--${name}`);
    return index === -1 ? fallback : args[index + 1];
  };
  const [redisHost, redisPort] = option("redis", "127.0.0.1:6379").split(/:(?=\d+$)/);
  const [host, port] = option("listen", "127.0.0.1:0").split(/:(?=\d+$)/);
  const shim = await startRedisRestShim({
    redis: { host: redisHost, port: Number(redisPort) },
    token: option("token", process.env.REDIS_REST_TOKEN),
    listen: { host, port: Number(port) },
  });
  console.log(`listening on ${shim.url}`);
  const stop = () => shim.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
