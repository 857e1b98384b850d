// Benchmark: lease renewals per second against a real server, with one client-side load generator
// for every server so that a ratio compares servers, not clients: N keep-alive HTTP connections
// from this Node process, each renewing its own lease back to back (send, await the reply, send
// the next) for a fixed time; a warm-up second first. The tenure reference grantor is asked
// `POST /v1/renew`; etcd (through its JSON gateway) `POST /v3/lease/keepalive`. Every reply is
// checked: a refused renewal or an error ends the run rather than counting. Where the grantor has
// `POST /v1/renew/batch`, each connection also renews 100 leases per request. Figures, not
// pass/fail.
//
// `measureRenewals(server, {connections, seconds})` is used by bench/table.mjs; run alone it starts
// both servers and prints one line each.

import http from "node:http";
import { pathToFileURL } from "node:url";

/**
 * POSTs `body` on `agent` (JSON text as is, anything else serialised) and resolves the parsed
 * reply; rejects on any non-2xx.
 */
function post(agent, url, path, body) {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}${path}`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (response.statusCode < 200 || response.statusCode > 299) {
            reject(new Error(`${path}: ${response.statusCode} ${text.slice(0, 200)}`));
            return;
          }
          // etcd's keepalive answers a stream of lines; one question gets one line.
          resolve(JSON.parse(text.split("\n")[0]));
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/** The tenure reference grantor at `url`: one lease per connection, renewed with its token. */
export function tenureServer(url) {
  return {
    name: "tenure-grantor",
    async lease(agent, index) {
      const resource = `bench/renewals/${process.pid}/${index}`;
      const holder = `bench-${index}`;
      const reply = await post(agent, url, "/v1/grant", {
        resource,
        holder,
        durationMs: 60_000,
        requestId: `${holder}-grant`,
      });
      if (reply.granted !== true) throw new Error(`grant refused: ${JSON.stringify(reply)}`);
      let sequence = 0;
      return async () => {
        sequence += 1;
        const renewed = await post(agent, url, "/v1/renew", {
          resource,
          holder,
          token: reply.token,
          durationMs: 60_000,
          requestId: `${holder}-${sequence}`,
          // A grantor that binds grants to a secret sends it with the grant.
          ...(typeof reply.leaseSecret === "string" ? { leaseSecret: reply.leaseSecret } : {}),
        });
        if (renewed.renewed !== true) throw new Error(`renewal refused: ${JSON.stringify(renewed)}`);
      };
    },
  };
}

/**
 * The tenure reference grantor at `url`, renewing `batchSize` leases per request through
 * `POST /v1/renew/batch` (docs/protocol.md): each connection holds `batchSize` leases of its own.
 */
export function tenureBatchServer(url, batchSize = 100) {
  return {
    name: `tenure-grantor, batches of ${batchSize}`,
    async lease(agent, index) {
      const leases = [];
      for (let n = 0; n < batchSize; n += 1) {
        const resource = `bench/batch/${process.pid}/${index}/${n}`;
        const holder = `bench-${index}-${n}`;
        const reply = await post(agent, url, "/v1/grant", {
          resource,
          holder,
          durationMs: 60_000,
          requestId: `${holder}-grant`,
        });
        if (reply.granted !== true) throw new Error(`grant refused: ${JSON.stringify(reply)}`);
        leases.push({ resource, holder, token: reply.token, leaseSecret: reply.leaseSecret });
      }
      // Each renewal's fixed text around its request id, so that a batch of a thousand is
      // assembled by concatenation: the client's serialising is not what is measured.
      const bodies = leases.map(({ resource, holder, token, leaseSecret }) => {
        const text = JSON.stringify({
          resource,
          holder,
          token,
          durationMs: 60_000,
          requestId: "\u0000",
          ...(typeof leaseSecret === "string" ? { leaseSecret } : {}),
        });
        const [head, tail] = text.split('"\\u0000"');
        return (id) => `${head}"${id}"${tail}`;
      });
      let sequence = 0;
      return async () => {
        sequence += 1;
        const renewals = bodies.map((body, n) => body(`${n}-${sequence}`)).join(",");
        const reply = await post(agent, url, "/v1/renew/batch", `{"renewals":[${renewals}]}`);
        const refused = reply.results?.find((result) => result.renewed !== true);
        if (reply.results?.length !== batchSize || refused !== undefined) {
          throw new Error(`batch renewal failed: ${JSON.stringify(refused ?? reply).slice(0, 300)}`);
        }
        return batchSize;
      };
    },
  };
}

/** etcd at `url` through its JSON gateway: one lease per connection, kept alive. */
export function etcdServer(url) {
  return {
    name: "etcd",
    async lease(agent) {
      const granted = await post(agent, url, "/v3/lease/grant", { TTL: "60" });
      return async () => {
        const reply = await post(agent, url, "/v3/lease/keepalive", { ID: granted.ID });
        if (!(Number(reply.result?.TTL) > 0)) throw new Error(`keepalive failed: ${JSON.stringify(reply)}`);
      };
    },
  };
}

/**
 * Renewals per second over `seconds`, after one second of warm-up, with `connections` clients
 * renewing at once. Resolves `{renewalsPerSecond, requestsPerSecond, renewals, seconds, connections,
 * p50Ms, p99Ms}`;
 * the latencies are per request (a whole batch for a batch server).
 */
export async function measureRenewals(server, { connections = 16, seconds = 10 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  try {
    const renewers = await Promise.all(
      Array.from({ length: connections }, (_, index) => server.lease(agent, index)),
    );
    const run = async (ms, latencies) => {
      const end = performance.now() + ms;
      let count = 0;
      await Promise.all(
        renewers.map(async (renew) => {
          while (performance.now() < end) {
            const sent = performance.now();
            // A renewer returns how many leases one request renewed (a batch), or nothing for one.
            const renewed = await renew();
            latencies?.push(performance.now() - sent);
            count += renewed ?? 1;
          }
        }),
      );
      return count;
    };
    await run(1_000);
    const latencies = [];
    const started = performance.now();
    const renewals = await run(seconds * 1000, latencies);
    const requests = latencies.length;
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const rank = (p) => latencies[Math.max(0, Math.ceil(p * latencies.length) - 1)];
    return {
      renewalsPerSecond: renewals / elapsed,
      requestsPerSecond: requests / elapsed,
      renewals,
      seconds: elapsed,
      connections,
      p50Ms: rank(0.5),
      p99Ms: rank(0.99),
    };
  } finally {
    agent.destroy();
  }
}

/**
 * Whether the grantor renews in batches: `false` for a grantor whose `/v1/renew/batch` answers
 * 501 (reserved, not implemented), so a batch row never claims a figure it did not measure.
 */
export async function renewsInBatches(url) {
  const response = await fetch(`${url}/v1/renew/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  await response.arrayBuffer();
  return response.status !== 501;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
  const { startEtcd } = await import("../tests/js/support/etcd.mjs");
  const seconds = Number(process.env.TENURE_BENCH_SECONDS ?? 10);
  const grantor = await startGrantor();
  try {
    const figures = await measureRenewals(tenureServer(grantor.url), { seconds });
    console.log("tenure-grantor", JSON.stringify(figures));
    if (await renewsInBatches(grantor.url)) {
      const batched = await measureRenewals(tenureBatchServer(grantor.url), { seconds });
      console.log("tenure-grantor, batched", JSON.stringify(batched));
    }
  } finally {
    await grantor.stop();
  }
  const etcd = await startEtcd();
  try {
    const figures = await measureRenewals(etcdServer(etcd.url), { seconds });
    console.log("etcd", JSON.stringify(figures));
  } finally {
    await etcd.cleanup();
  }
}
