// React hooks for tenure (`tenure/react`). React (18 or later) is an optional peer dependency.

import type {
  Grantor,
  LeaseError,
  LeaseHolder,
  LeaseHolderConfig,
  LossReason,
  TabInactiveReason,
  TabLease,
  TabLeaseOptions,
} from "./index.js";

/**
 * Options of {@link useTabLease}: those of {@link TabLease}, without the callbacks, which the hook
 * sets itself (render from `isActive` and `signal` instead). Compared by value on every render,
 * except `global.grantor`, compared by identity.
 */
export type UseTabLeaseOptions = Omit<TabLeaseOptions, "onActive" | "onInactive">;

/** What {@link useTabLease} renders: the `TabLease` state as of its latest change. */
export interface TabLeaseState {
  /** Whether this tab holds the role, as of the latest change; act under `signal`. */
  isActive: boolean;
  /** `"idle"` (starting), `"waiting"` (a candidate), `"active"` or `"closed"`. */
  state: "idle" | "waiting" | "active" | "closed";
  /** The epoch of the current or most recent hold (a fencing token), or null before any. */
  epoch: number | null;
  /** Global mode: the grantor token of the current or most recent grant, else null. */
  grantorToken: number | null;
  /**
   * The hold's signal while active: it aborts when the hold ends (`ERR_LEASE_LOST` with
   * `reason`, or `ERR_LEASE_RELEASED`). Already aborted while not active.
   */
  signal: AbortSignal;
  /** Why the latest hold ended, or null while active and before any hold. */
  inactiveReason: TabInactiveReason | null;
  /** Why the hook could not take part: `ERR_TAB_UNSUPPORTED`, `ERR_LEASE_CONFIG`, `ERR_TAB_WORKER`. */
  error: LeaseError | null;
  /** The instance, for `fencedWrite`, `fencedRead` and `assertActive()`; null until it starts. */
  tabLease: TabLease | null;
}

/**
 * Keeps this tab a candidate for the role `name` while the component is mounted: one
 * {@link TabLease} per mounted hook, also under StrictMode's double mount. Unmounting closes it,
 * so another tab takes the role at once; a new `name`, or options different by value, start a
 * new one. There is no holder-change event yet, so the state does not say which tab is active.
 *
 * @throws {LeaseError} `ERR_LEASE_USAGE` if `options` has `onActive` or `onInactive`
 *
 * @example
 * ```tsx
 * const { isActive, epoch, signal } = useTabLease("editor");
 * useEffect(() => {
 *   if (isActive) startSync({ epoch, signal }); // stops when signal aborts
 * }, [isActive, epoch, signal]);
 * ```
 */
export function useTabLease(name: string, options?: UseTabLeaseOptions): TabLeaseState;

/**
 * Config of {@link useLease}: a {@link LeaseHolderConfig} whose `holderId` may be left out (one is
 * made for each holder the hook starts). Compared by value on every render.
 */
export type UseLeaseConfig = Omit<LeaseHolderConfig, "holderId"> & { holderId?: string };

/** What {@link useLease} renders: the `LeaseHolder` state as of its latest change. */
export interface LeaseState {
  /** Whether the lease is held, as of the latest change; act under `signal`. */
  isHeld: boolean;
  /** The fencing token of the current hold, or null while not held. */
  token: number | null;
  /**
   * The hold's signal while held: it aborts no later than the lease stops being safely held
   * (`ERR_LEASE_LOST` with `reason`, or `ERR_LEASE_RELEASED`). Already aborted while not held.
   */
  signal: AbortSignal;
  /** Why the latest hold was lost (the hook then campaigns again); null while held and before any loss. */
  lostReason: LossReason | null;
  /** A config or usage error (`ERR_LEASE_CONFIG`, `ERR_LEASE_USAGE`), or null. */
  error: LeaseError | null;
  /** The instance, for `stats()` and `lease`; null until it starts. */
  leaseHolder: LeaseHolder | null;
}

/**
 * Campaigns for the lease (`acquire({wait: true})`) while the component is mounted, and again
 * after a loss: one {@link LeaseHolder} per mounted hook, also under StrictMode's double mount.
 * Unmounting releases, so the next holder is granted at once. A new `grantor` (compared by
 * identity: create it once, outside the component) or a config different by value starts a new
 * holder, releasing the old one. There is no holder-change event yet, so the state does not say
 * who holds the lease meanwhile.
 *
 * @example
 * ```tsx
 * const grantor = new HttpGrantor({ baseUrl: "https://leases.example.com" });
 *
 * function Refresher() {
 *   const { isHeld, token, signal } = useLease(grantor, {
 *     resource: "dashboard/refresh",
 *     leaseMs: 15_000,
 *     marginMs: 3_000,
 *   });
 *   useEffect(() => {
 *     if (isHeld) refreshLoop({ token, signal }); // stops when signal aborts
 *   }, [isHeld, token, signal]);
 *   return <p>{isHeld ? `refreshing (token ${token})` : "standing by"}</p>;
 * }
 * ```
 */
export function useLease(grantor: Grantor, config: UseLeaseConfig): LeaseState;
