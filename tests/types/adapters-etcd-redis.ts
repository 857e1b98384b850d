// Compile-time check of the etcd and Redis-over-HTTP grantor declarations: typical use type-checks.
import { EtcdGrantor, LeaseHolder, RedisHttpGrantor, isLeaseError, type Grantor } from "tenure";

const etcd = new EtcdGrantor({ baseUrl: "http://127.0.0.1:2379", token: "etcd-auth-token", timeoutMs: 5_000 });
const redis = new RedisHttpGrantor({
  baseUrl: "https://example.upstash.io",
  token: "rest-token",
  keyPrefix: "app:",
  fetch: (input, init) => fetch(input, init),
});
const cluster = new EtcdGrantor({ endpoints: ["http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://10.0.0.3:2379"] });
const members: string[] = cluster.endpoints;
const grantors: Grantor[] = [etcd, redis, cluster];
const key: string = etcd.keyOf("reports") + redis.keyOf("reports") + etcd.baseUrl + members.join();

export async function hold(): Promise<number | null> {
  const holder = new LeaseHolder(etcd, { resource: "reports", holderId: "w1", leaseMs: 10_000, marginMs: 2_000 });
  const outcome = await holder.acquire({ wait: true, signal: AbortSignal.timeout(30_000) });
  return outcome.acquired ? outcome.token : null;
}

export async function direct(signal: AbortSignal): Promise<void> {
  try {
    const reply = await redis.grant({ resource: "r", holder: "h", durationMs: 5_000, requestId: "1", signal });
    if (reply.granted) {
      const renewed = await redis.renew({ resource: "r", holder: "h", token: reply.token, durationMs: 5_000, requestId: "2", signal });
      if (!renewed.renewed) console.log(renewed.reason);
      const { released }: { released: boolean } = await redis.release({ resource: "r", holder: "h", token: reply.token, requestId: "3", signal });
      console.log(released, key, grantors.length);
    } else {
      console.log(reply.holder, reply.expiresInMs);
    }
  } catch (error) {
    if (isLeaseError(error) && error.code === "ERR_GRANTOR") console.log(error.kind, error.status);
  }
}
