// Type-checks the package's declarations against the way the README uses them.
import {
  HttpGrantor,
  Lease,
  LeaseError,
  LeaseExpiredError,
  LeaseHolder,
  isLeaseError,
  leasedRead,
  observe,
  type AcquireResult,
  type HolderChange,
  type Grantor,
} from "tenure";

const lease = new Lease(10_000, 1_000);
lease.grant(1, Lease.stamp());
const remaining: number = lease.remainingMs();
const token: number | null = lease.token;
try {
  lease.assertHeld();
} catch (error) {
  if (error instanceof LeaseExpiredError) console.log(error.remainingMs, error.requiredMarginMs);
  if (isLeaseError(error)) console.log(error.code);
}

const custom: Grantor = {
  grant: async ({ resource, holder, durationMs, requestId, signal }) =>
    signal.aborted ? { granted: false, holder: resource + holder + requestId } : { granted: true, token: durationMs },
  renew: ({ token }) => ({ renewed: true, token }),
};

const http = new HttpGrantor({ baseUrl: "http://127.0.0.1:8040", timeoutMs: 2_000 });
const holder = new LeaseHolder(Math.random() > 0.5 ? http : custom, {
  resource: "reports",
  holderId: "w1",
  leaseMs: 15_000,
  marginMs: 3_000,
});
holder.onLeaseLost = (reason) => console.log(reason.toUpperCase());

async function main(): Promise<void> {
  const result: AcquireResult = await holder.acquire({ wait: true, signal: AbortSignal.timeout(5_000) });
  if (result.acquired) {
    const fenced: number = result.token;
    const signal: AbortSignal = holder.signal;
    const read = await leasedRead(holder, () => 42);
    if (read.ok) console.log(read.value + 1, read.servedFrom, fenced, signal.aborted);
    else console.log(read.holder);
    const write = await http.fencedWrite("reports", { rows: 1 }, fenced);
    console.log(write.accepted, write.lastToken);
  } else {
    console.log(result.reason, result.holder, result.expiresInMs);
  }
  await holder.release();
  const failures: number = holder.consecutiveFailures + remaining + (token ?? 0);
  console.log(failures, new LeaseError() instanceof Error);
}

async function watchAndHandOver(): Promise<void> {
  const controller = new AbortController();
  for await (const change of http.observe("reports", { signal: controller.signal })) {
    const who: string | null = change.holder;
    const version: number = change.version;
    if (who === null && change.handedTo === "w1") controller.abort();
    console.log(who, version, change.token ?? 0, change.expiresInMs, change.since);
  }
  const polled = observe({ status: (resource: string) => http.status(resource) }, "reports");
  const latest: HolderChange | null = polled.current;
  polled.close();
  holder.onAcquired = (token: number) => console.log(token, latest);
  await holder.acquire({ wait: true, recontend: true });
  await holder.handOff("w2");
  await holder.handOff();
}

void main();
void watchAndHandOver();
