// Types of "tenure/tabs": TabLease and FencedStore on a smaller module of their own. The same
// classes as the main entry's, except that `global` mode needs the main entry ("tenure").

export type {
  FencedEntry,
  FencedKey,
  FencedWriteResult,
  LeaseErrorCode,
  TabInactiveReason,
  TabLeaseGlobalOptions,
  TabLeaseGrant,
  TabLeaseHold,
  TabLeaseOptions,
} from "./index.js";
export { FencedStore, LeaseError, LeaseExpiredError, TabLease, isLeaseError } from "./index.js";
