// Compile-time check of the Consul and Kubernetes grantor declarations: typical use type-checks.
import { ConsulGrantor, KubernetesLeaseGrantor, LeaseHolder, isLeaseError, type Grantor } from "tenure";

const consul = new ConsulGrantor({
  baseUrl: "http://127.0.0.1:8500",
  token: "acl-token",
  keyPrefix: "apps/billing/",
  lockDelayMs: 0,
  timeoutMs: 5_000,
});
const kubernetes = new KubernetesLeaseGrantor({
  baseUrl: "https://10.0.0.1:6443",
  namespace: "jobs",
  token: "service-account-token",
  fetch: (input, init) => fetch(input, init),
});
const grantors: Grantor[] = [consul, kubernetes];
const where: string = consul.keyOf("reports") + kubernetes.namespace + consul.baseUrl + kubernetes.baseUrl;

export async function hold(): Promise<number | null> {
  const holder = new LeaseHolder(kubernetes, {
    resource: "nightly-report",
    holderId: "pod-1",
    leaseMs: 15_000,
    marginMs: 5_000,
  });
  const outcome = await holder.acquire({ wait: true, signal: AbortSignal.timeout(60_000) });
  return outcome.acquired ? outcome.token : null;
}

export async function direct(signal: AbortSignal): Promise<void> {
  try {
    const reply = await consul.grant({
      resource: "r",
      holder: "h",
      durationMs: 10_000,
      requestId: "1",
      signal,
    });
    if (reply.granted) {
      const renewed = await consul.renew({
        resource: "r",
        holder: "h",
        token: reply.token,
        durationMs: 10_000,
        requestId: "2",
        signal,
      });
      if (!renewed.renewed) console.log(renewed.reason);
      const { released }: { released: boolean } = await consul.release({
        resource: "r",
        holder: "h",
        token: reply.token,
        requestId: "3",
        signal,
      });
      console.log(released, where, grantors.length);
    } else {
      console.log(reply.holder, reply.expiresInMs);
    }
  } catch (error) {
    if (isLeaseError(error) && error.code === "ERR_GRANTOR") console.log(error.kind, error.status);
  }
}
