// Type-checks the TabLease declarations against the way the README uses them.
import {
  FencedStore,
  HttpGrantor,
  TabLease,
  isLeaseError,
  type TabInactiveReason,
  type TabLeaseGrant,
} from "tenure";

const tab = new TabLease("editor", { leaseMs: 5_000, marginMs: 1_000, heartbeat: "worker" });
tab.onActive = ({ epoch, grantorToken, signal }) => console.log(epoch + 1, grantorToken, signal.aborted);
tab.onInactive = (reason: TabInactiveReason) => console.log(reason.toUpperCase());

const store = new FencedStore<{ text: string }>("editor");

const global = new TabLease("sync", {
  global: {
    grantor: new HttpGrantor({ baseUrl: "http://127.0.0.1:8040" }),
    resource: "sync/main",
    leaseMs: 15_000,
    marginMs: 3_000,
  },
  onInactive: (reason) => console.log(reason),
});

async function main(): Promise<void> {
  const grant: TabLeaseGrant = await tab.acquire({ signal: AbortSignal.timeout(60_000) });
  const mode: "web-locks" | "lease" = tab.mode;
  const state: "idle" | "waiting" | "active" | "closed" = tab.state;
  if (tab.isActive) {
    tab.assertActive();
    const { accepted, epoch } = await store.write("doc:1", { text: "hi" }, grant.epoch);
    const read = await store.read("doc:1");
    if (read !== null) console.log(read.value.text, read.epoch, accepted, epoch);
    await tab.fencedWrite(["doc", 2], { text: "there" });
  }
  const token: number | null = global.grantorToken ?? tab.epoch;
  console.log(mode, state, token, tab.signal.aborted, tab.heartbeat, tab.renewIntervalMs);
  try {
    await tab.release();
  } catch (error) {
    if (isLeaseError(error) && error.code === "ERR_TAB_UNSUPPORTED") console.log(error.missing);
  }
  await tab.close();
}

void main();
