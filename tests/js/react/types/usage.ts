// What a TypeScript app writes with tenure/react, resolved through the package's "./react"
// export. Checked by tsc (tests/js/react/types.test.mjs); the @ts-expect-error lines must fail.

import { HttpGrantor, type LeaseError, type TabLease } from "tenure";
import { useLease, useTabLease, type LeaseState, type TabLeaseState } from "tenure/react";

const grantor = new HttpGrantor({ baseUrl: "http://127.0.0.1:8040" });

export function tabPanel(): string {
  const tab: TabLeaseState = useTabLease("editor", { leaseMs: 5_000, marginMs: 1_000 });
  const active: boolean = tab.isActive;
  const epoch: number | null = tab.epoch;
  const signal: AbortSignal = tab.signal;
  const error: LeaseError | null = tab.error;
  const instance: TabLease | null = tab.tabLease;
  void instance?.fencedWrite("doc", { at: Date.now() });
  // @ts-expect-error the hook sets the callbacks itself
  useTabLease("editor", { onActive: () => {} });
  return `${active} ${epoch} ${signal.aborted} ${error?.code} ${tab.state} ${tab.inactiveReason}`;
}

export function leasePanel(): string {
  const lease: LeaseState = useLease(grantor, { resource: "dashboard/refresh", leaseMs: 15_000, marginMs: 3_000 });
  const held: boolean = lease.isHeld;
  const token: number | null = lease.token;
  const stats = lease.leaseHolder?.stats();
  useLease(grantor, { resource: "r", holderId: "tab-1", leaseMs: 15_000, marginMs: 3_000 });
  // @ts-expect-error resource is required
  useLease(grantor, { leaseMs: 15_000, marginMs: 3_000 });
  return `${held} ${token} ${lease.signal.aborted} ${lease.lostReason} ${stats?.acquisitions}`;
}
