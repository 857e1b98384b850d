// Source of the "tenure/tabs" entry: TabLease and FencedStore on a module of their own, which
// carries no holder, grantor or claim code. scripts/build bundles this file with the tabs module's
// glue (pkg/glue-tabs/) into glue-tabs/tabs.js, the file the entry names; importing this source
// directly would load the main module instead.

export { TabLease, FencedStore } from "./tab-lease.js";
export { LeaseError, LeaseExpiredError, isLeaseError } from "./errors.js";
