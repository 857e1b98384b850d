// Records the JS fuzz corpus: real conversations between each grantor adapter and its server
// (a real etcd and a real redis-server behind the REST shim; the Consul and Kubernetes fakes,
// since neither server can run here; the reference grantor for HttpGrantor). For each adapter it
// records a grant, a denial to another holder, and a renewal: the call, its arguments, and every
// HTTP exchange (method, path, status, headers that matter, body), after the exchanges of any
// calls it needs first (`setup`: the renewal's grant). The fuzzer replays these replies, mutated,
// to the same calls.
//
//   node fuzz/js/record-corpus.mjs      # rewrites fuzz/corpus/js/*.json

import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ConsulGrantor,
  EtcdGrantor,
  HttpGrantor,
  KubernetesLeaseGrantor,
  RedisHttpGrantor,
} from "tenure";
import { startEtcd } from "../../tests/js/support/etcd.mjs";
import { startRedis } from "../../tests/js/support/redis.mjs";
import { startGrantor } from "../../tests/js/support/grantor-process.mjs";
import { startConsulFake } from "../../tests/fakes/consul.mjs";
import { startKubernetesFake } from "../../tests/fakes/kubernetes.mjs";

const out = join(dirname(fileURLToPath(import.meta.url)), "..", "corpus", "js");

/** A fetch that passes everything through and records each exchange into `log`. */
function recordingFetch(log) {
  return async (url, init) => {
    const response = await fetch(url, init);
    const body = await response.text();
    const { pathname, search } = new URL(url);
    const headers = {};
    for (const name of ["content-type", "retry-after", "x-consul-index"]) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    log.push({ method: init?.method ?? "GET", path: pathname + search, status: response.status, headers, body });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** Records grant, denial and renewal through the adapter `make(fetch)` builds. */
async function record(name, make) {
  const conversations = [];
  const run = async (call, args, extra = {}) => {
    const exchanges = [];
    const grantor = make(recordingFetch(exchanges));
    for (const [earlierCall, earlierArgs] of extra.before ?? []) await grantor[earlierCall](earlierArgs);
    const setup = exchanges.splice(0);
    const reply = await grantor[call](args);
    conversations.push({ adapter: name, call, args, before: extra.before ?? [], setup, exchanges, reply });
    return reply;
  };
  const resource = "fuzz-resource";
  const grant = (holder, requestId) => ({ resource, holder, durationMs: 10_000, requestId });
  const first = await run("grant", grant("alpha", "g1"));
  await run("grant", grant("beta", "g2"));
  await run("renew", { resource, holder: "alpha", token: first.token, durationMs: 10_000, requestId: "r1" }, {
    before: [["grant", grant("alpha", "g1")]],
  });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify(conversations, null, 1)}\n`);
  console.log(`${name}: ${conversations.map((c) => `${c.call} ${c.exchanges.length} exchanges`).join(", ")}`);
}

const etcd = await startEtcd();
const redis = await startRedis();
const consul = await startConsulFake({ token: "corpus-token" });
const kubernetes = await startKubernetesFake({ token: "corpus-token" });
const grantor = await startGrantor();
try {
  await record("etcd", (fetch) => new EtcdGrantor({ baseUrl: etcd.url, fetch }));
  await record("redis", (fetch) => new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token, fetch }));
  await record("consul", (fetch) => new ConsulGrantor({ baseUrl: consul.url, token: "corpus-token", fetch }));
  await record(
    "kubernetes",
    (fetch) => new KubernetesLeaseGrantor({ baseUrl: kubernetes.url, token: "corpus-token", namespace: "fuzz", fetch }),
  );
  await record("http", (fetch) => new HttpGrantor({ baseUrl: grantor.url, fetch }));
} finally {
  await etcd.cleanup();
  await redis.cleanup();
  await consul.close();
  await kubernetes.close();
  await grantor.stop();
}
