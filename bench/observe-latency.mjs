// Benchmark: how soon an observer sees a change. One client grants and releases a resource in
// turn (`--changes`, default 60) on each grantor; another client's `observe()` yields each
// change. Each figure is the time from the change's request being sent to the observer's yield
// (so it includes the write's own round trip), p50 and p95 over all changes, per grantor: the
// reference grantor on SQLite (`/v1/watch` long polls), etcd (watch streams through the JSON
// gateway), the Consul fake (blocking queries), the Kubernetes fake (a watch) and Redis behind
// the REST shim (polled: its figure depends on how long the key stayed the same before, so the
// changes come a random 200 to 700 ms apart, after the observer saw the previous one).
//
// Run `scripts/build` and `cargo build -p tenure-grantor` first (or set TENURE_GRANTOR_BIN), then
// `node bench/observe-latency.mjs [--changes 60]`. A grantor whose observe fails (a reference
// grantor without `/v1/watch`) gets its row marked unavailable, with the reason.

import { ConsulGrantor, EtcdGrantor, HttpGrantor, KubernetesLeaseGrantor, RedisHttpGrantor } from "tenure";
import { argument } from "./args.mjs";
import { startGrantor } from "../tests/js/support/grantor-process.mjs";
import { startEtcd } from "../tests/js/support/etcd.mjs";
import { startRedis } from "../tests/js/support/redis.mjs";
import { startConsulFake } from "../tests/fakes/consul.mjs";
import { startKubernetesFake } from "../tests/fakes/kubernetes.mjs";

const CHANGES = argument("changes", 60);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The nearest-rank percentile `p` of `values`. */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The next value of `observation` and when it came, failing after `ms`. */
function nextChange(observation, ms = 30_000) {
  return Promise.race([
    observation.next().then(({ value, done }) => {
      if (done) throw new Error("the observation ended");
      return { value, at: performance.now() };
    }),
    sleep(ms).then(() => {
      throw new Error(`no change within ${ms} ms`);
    }),
  ]);
}

/** Grants and releases `resource` in turn through `writer`; `watcher.observe` sees each change. */
async function measure({ writer, watcher, resource, durationMs, gap }) {
  const controller = new AbortController();
  const observation = watcher.observe(resource, { signal: controller.signal });
  try {
    await nextChange(observation);
    const samples = [];
    let held;
    for (let i = 0; i < CHANGES; i += 1) {
      await sleep(gap());
      const seen = nextChange(observation);
      const sentAt = performance.now();
      if (held === undefined) {
        const holder = `h${i}`;
        const reply = await writer.grant({ resource, holder, durationMs, requestId: `bench-${i}` });
        if (reply.granted !== true) throw new Error(`grant ${i} refused: ${JSON.stringify(reply)}`);
        held = { holder, token: reply.token };
      } else {
        await writer.release({ resource, ...held });
        held = undefined;
      }
      const { value, at } = await seen;
      const expected = held?.holder ?? null;
      if (value.holder !== expected) throw new Error(`saw ${JSON.stringify(value)}, expected ${expected}`);
      samples.push(at - sentAt);
    }
    return samples;
  } finally {
    controller.abort();
  }
}

const grantors = [
  {
    name: "reference grantor (SQLite), /v1/watch",
    async start() {
      const grantor = await startGrantor();
      const make = () => new HttpGrantor({ baseUrl: grantor.url });
      return { writer: make(), watcher: make(), stop: () => grantor.stop(), durationMs: 30_000 };
    },
  },
  {
    name: "etcd, watch stream",
    async start() {
      const etcd = await startEtcd();
      const make = () => new EtcdGrantor({ baseUrl: etcd.url });
      return { writer: make(), watcher: make(), stop: () => etcd.cleanup(), durationMs: 30_000 };
    },
  },
  {
    name: "Consul fake, blocking queries",
    async start() {
      const consul = await startConsulFake();
      const make = () => new ConsulGrantor({ baseUrl: consul.url });
      return { writer: make(), watcher: make(), stop: () => consul.close(), durationMs: 30_000 };
    },
  },
  {
    name: "Kubernetes fake, watch",
    async start() {
      const api = await startKubernetesFake();
      const make = () => new KubernetesLeaseGrantor({ baseUrl: api.url });
      return { writer: make(), watcher: make(), stop: () => api.close(), durationMs: 30_000 };
    },
  },
  {
    name: "Redis over HTTP, polled",
    async start() {
      const redis = await startRedis();
      const make = () => new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token });
      return { writer: make(), watcher: make(), stop: () => redis.cleanup(), durationMs: 30_000 };
    },
  },
];

const rows = [];
for (const { name, start } of grantors) {
  const { writer, watcher, stop, durationMs } = await start();
  try {
    const gap = () => 200 + Math.random() * 500;
    const samples = await measure({ writer, watcher, resource: "observe-bench", durationMs, gap });
    rows.push({ name, changes: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95) });
  } catch (error) {
    rows.push({ name, unavailable: error.message ?? String(error) });
  } finally {
    await stop();
  }
}

console.log(`time from a change's request to the observer's yield, ${CHANGES} changes each (ms)`);
console.log(`${"grantor".padEnd(40)} ${"changes".padStart(8)} ${"p50".padStart(8)} ${"p95".padStart(8)}`);
for (const row of rows) {
  if (row.unavailable !== undefined) {
    console.log(`${row.name.padEnd(40)} unavailable: ${row.unavailable}`);
  } else {
    console.log(
      `${row.name.padEnd(40)} ${String(row.changes).padStart(8)} ${row.p50.toFixed(1).padStart(8)} ${row.p95.toFixed(1).padStart(8)}`,
    );
  }
}
