/**
 * tenure: leases that stay safe when clocks lie, tabs freeze and networks hang.
 *
 * @example
 * ```ts
 * import { LeaseHolder } from "tenure";
 * const holder = new LeaseHolder(grantor, { resource: "job", holderId: "w1", leaseMs: 15000, marginMs: 3000 });
 * const { acquired, token } = await holder.acquire({ wait: true });
 * ```
 * @packageDocumentation
 */

/** Both clocks read at one moment; see {@link Lease.stamp}. */
export interface ClockStamp {
  /** `performance.now()`. */
  monoMs: number;
  /** `Date.now()`. */
  wallMs: number;
}

/**
 * A time-bounded grant as the holder sees it (the design's `Lease`). Elapsed time counts each step
 * between readings as the larger of the monotonic and the wall clock's forward movement, so OS
 * sleep and clock steps never add validity.
 */
export class Lease {
  /**
   * @param durationMs how long a grant lasts from the moment its request was sent
   * @param safetyMarginMs stop believing the lease is held once this little remains
   * @throws {LeaseError} `ERR_LEASE_CONFIG` unless `durationMs > safetyMarginMs > 0` (finite)
   */
  constructor(durationMs: number, safetyMarginMs: number);
  /** Both clocks now: take it just before sending a grant request, pass it to `grant`. */
  static stamp(): ClockStamp;
  /** The lease duration in ms. */
  readonly durationMs: number;
  /** The safety margin in ms. */
  readonly safetyMarginMs: number;
  /** The `performance.now()` stamp of the grant's send time, or null before a grant. */
  readonly acquiredAt: number | null;
  /** The fencing token of the current grant, or null. */
  readonly token: number | null;
  /**
   * Records a grant. `sentAt` is when its request was sent (a {@link ClockStamp}, or a
   * `performance.now()` reading); without it the lease starts now.
   * @throws {LeaseError} `ERR_LEASE_TOKEN` unless `token` is an integer in 0..2^53-1
   */
  grant(token: number, sentAt?: ClockStamp | number): void;
  /** Milliseconds left before the grantor may reclaim; 0 when not granted. */
  remainingMs(): number;
  /** Whether more than the safety margin remains. Check it before acting on the lease. */
  isSafelyHeld(): boolean;
  /** @throws {LeaseExpiredError} unless the lease is safely held */
  assertHeld(): void;
}

/** What a grantor's `grant` and `renew` receive besides the design's fields. */
export interface GrantorCallExtras {
  /** Unique per attempt; a retry of the same attempt reuses it, a new attempt never does. */
  requestId: string;
  /** Aborts when the holder stops waiting for this attempt. */
  signal: AbortSignal;
}

/** Arguments of {@link Grantor.grant}. */
export interface GrantArgs extends GrantorCallExtras {
  /** What the lease is on (`LeaseHolderConfig.resource`). */
  resource: string;
  /** Who asks (`LeaseHolderConfig.holderId`). */
  holder: string;
  /** The duration asked for (`leaseMs`); the reply's `durationMs` says what was granted. */
  durationMs: number;
}

/** Arguments of {@link Grantor.renew}. */
export interface RenewArgs extends GrantorCallExtras {
  resource: string;
  holder: string;
  /** The token of the grant being renewed. */
  token: number;
  durationMs: number;
  /** How long the holder waits for this attempt (`requestTimeoutMs`); a `LeaseHolder` says. */
  requestTimeoutMs?: number;
  /** What is left of the holder's lease before its margin, ms; a `LeaseHolder` says. */
  safeForMs?: number;
}

/** Arguments of {@link Grantor.release}. */
export interface ReleaseArgs extends GrantorCallExtras {
  resource: string;
  holder: string;
  /** Only this grant may be released, never a newer one. */
  token: number;
  /** {@link LeaseHolder.handOff}: keep the resource for this holder for a while. */
  handTo?: string;
}

/** A grant reply: granted with a token, or denied naming the holder and its time left. */
export type GrantReply =
  | { granted: true; token: number; durationMs?: number }
  | { granted: false; holder?: string; expiresInMs?: number };

/** Why a grantor refuses a renewal. Every reason is a definitive loss. */
export type RenewRefusal = "expired" | "revoked" | "not_holder" | "unknown";

/** A renew reply. */
export type RenewReply =
  | { renewed: true; token: number; durationMs?: number }
  | { renewed: false; reason?: RenewRefusal };

/** Anything that grants and renews leases. Replies are validated strictly. */
export interface Grantor {
  /**
   * Grants `resource` to `holder` unless another holds it. The token is a positive safe integer,
   * larger than every earlier grant's of the resource; a retry with the same `requestId` after a
   * success returns the same grant. Throw (reject) for retryable failures: a
   * {@link LeaseError} `ERR_GRANTOR` with a `kind`, or any error (counted as `unreachable`).
   */
  grant(args: GrantArgs): Promise<GrantReply> | GrantReply;
  /** Extends the grant with `token`; a refusal in the reply is a definitive loss. */
  renew(args: RenewArgs): Promise<RenewReply> | RenewReply;
  /** Ends the grant with `token` early, if it is still the current one; idempotent. */
  release?(args: ReleaseArgs): Promise<unknown> | unknown;
}

/** Configuration of a {@link LeaseHolder}. All durations in ms. */
export interface LeaseHolderConfig {
  /** What the lease is on: a name the grantor knows. */
  resource: string;
  /** This holder's identity, unique among the contenders (and stable across its retries). */
  holderId: string;
  /** The lease duration asked of the grantor. */
  leaseMs: number;
  /** Stop believing once this little remains; `0 < marginMs < leaseMs`. */
  marginMs: number;
  /** Default `leaseMs / 3`; must be less than `leaseMs - marginMs`. */
  renewIntervalMs?: number;
  /** One attempt's timeout; default `renewIntervalMs`. A renewal is also abandoned at the margin. */
  requestTimeoutMs?: number;
  /** First retry delay after a failure, doubling with jitter; default `renewIntervalMs / 8`. */
  retryDelayMs?: number;
  /** Longest retry delay; default `renewIntervalMs`. */
  retryDelayMaxMs?: number;
}

/** Why an acquire ended without a lease. */
export type AcquireFailureReason =
  | "denied"
  | "cancelled"
  | "unreachable"
  | "timed_out"
  | "server_error"
  | "rate_limited"
  | "bad_request"
  | "malformed_reply"
  | "wrong_reply"
  | "token_regressed"
  | "too_late";

/** The outcome of {@link LeaseHolder.acquire}. */
export type AcquireResult =
  | { acquired: true; token: number }
  | { acquired: false; reason: AcquireFailureReason; holder?: string; expiresInMs?: number };

/**
 * Why a hold ended: a {@link RenewRefusal}, `margin_exhausted`, `token_regressed`, `handed_off`
 * (by {@link LeaseHolder.handOff}), or the reason given to `surrender`.
 */
export type LossReason =
  | RenewRefusal
  | "margin_exhausted"
  | "token_regressed"
  | "handed_off"
  | (string & {});

/** Acquires and renews a lease from a grantor (the design's `LeaseHolder`). */
export class LeaseHolder implements AsyncDisposable {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` naming the bad option */
  constructor(grantor: Grantor, config: LeaseHolderConfig);
  /** The grantor given to the constructor. */
  readonly grantor: Grantor;
  /** `config.resource`. */
  readonly resource: string;
  /** `config.holderId`. */
  readonly holderId: string;
  /** The validated renew interval (default `leaseMs / 3`). */
  readonly renewIntervalMs: number;
  /** The lease as currently believed; read-only (its `grant` throws). */
  readonly lease: Lease;
  /** Renewal failures in a row; reset by a successful renewal. */
  readonly consecutiveFailures: number;
  /** True once the current (or last) hold ended without `release()`. */
  readonly surrendered: boolean;
  /** Aborts no later than the lease stops being safely held; aborted while nothing is held. */
  readonly signal: AbortSignal;
  /** Called with the reason when a hold is lost (not when released). */
  onLeaseLost: ((reason: LossReason) => void) | null;
  /**
   * Called with the token after each successful renewal, once `lease` reflects it (the reply
   * validated, the granted duration counted from when the renewal was sent).
   */
  onRenewed: ((token: number) => void) | null;
  /**
   * Called with the token each time the lease is acquired, including by the campaign that
   * `recontend` starts after a loss.
   */
  onAcquired: ((token: number) => void) | null;
  /**
   * Asks for the lease. With `wait: true`, campaigns until granted (using the denial's
   * `expiresInMs`, else jittered backoff; on a grantor with `observe`, also asking at once when
   * its change feed says the lease was released or handed to this holder); rejects with
   * `signal.reason` if aborted. A grant request in flight when the signal aborts is not
   * abandoned: if the grantor grants it anyway, the grant is released as soon as its reply
   * arrives.
   *
   * With `recontend: true` (and `wait: true`), every later loss (a refused renewal, renewals
   * that did not succeed in time) starts a new campaign within a retry base, until `release()`,
   * `handOff()`, `surrender()` or the signal; `onAcquired` hears each new grant.
   */
  acquire(options?: {
    wait?: boolean;
    recontend?: boolean;
    signal?: AbortSignal;
  }): Promise<AcquireResult>;
  /**
   * Hands the lease over: a release asking the grantor to keep the resource for `toHolderId`
   * for a while (the reference grantor keeps it up to 10 s), so that holder is granted it next;
   * without one, whoever asks next. The hold ends as lost with reason `handed_off`. The etcd,
   * Consul, Kubernetes and Redis adapters release plainly.
   * @throws {LeaseError} `ERR_LEASE_CONFIG` (as a rejection) for a `toHolderId` that is not
   *   another holder's valid id
   */
  handOff(toHolderId?: string): Promise<void>;
  /** Ends the hold locally and calls `onLeaseLost(reason)`. */
  surrender(reason?: string): void;
  /**
   * Ends the hold and tells the grantor; during an acquire, cancels it. A grant request of a
   * cancelled acquire still in flight is released when its reply arrives, after this resolves.
   */
  release(): Promise<void>;
  /**
   * What this holder has observed: counts since it was created, percentiles over its last 256
   * renewals. Feed it to {@link adviseDuration}, or export it as metrics.
   */
  stats(): HolderStats;
  /** Releases: enables `await using holder = new LeaseHolder(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * What {@link LeaseHolder.stats} returns. Durations in ms; percentiles are nearest-rank over the
 * last 256 samples and null until there is one. Counts cover the holder's whole life.
 */
export interface HolderStats {
  /** Grants obtained (each `acquire` that ended held). */
  acquisitions: number;
  /** Acquires that ended without a lease (denied, unreachable, ...), not counting cancelled ones. */
  acquireFailures: number;
  /** Successful renewals. */
  renewals: number;
  /** Failed renewal attempts (network, timeout, 5xx, 429, malformed reply), each retried. */
  renewFailures: number;
  /** Holds ended by `release()`. */
  releases: number;
  /** Holds lost: by refusal, at the margin, or by `surrender()`. */
  losses: number;
  /** Renewal failures in a row now; 0 after a success. */
  consecutiveFailures: number;
  /** Losses by reason, e.g. `{margin_exhausted: 1, revoked: 2}`. */
  lossReasons: Partial<Record<LossReason, number>>;
  /** Failed renewal attempts by kind, e.g. `{timed_out: 3, unreachable: 1}`. */
  failureKinds: Partial<Record<AcquireFailureReason, number>>;
  /** Renewal round trips in the window (at most 256). */
  samples: number;
  /** Median renewal round trip: from sending the request to applying the reply. */
  renewRttP50Ms: number | null;
  /** 99th percentile renewal round trip. The margin must cover it. */
  renewRttP99Ms: number | null;
  /** Slowest renewal round trip in the window. */
  renewRttMaxMs: number | null;
  /** Renewals timed for lateness in the window (the first attempt of each). */
  timerSamples: number;
  /** Median delay between a renewal falling due and its request going out. */
  timerLatenessP50Ms: number | null;
  /**
   * 99th percentile of that delay: a blocked event loop, a GC pause, a throttled background tab
   * (1 s, or 60 s under Chrome's intensive throttling) all show up here.
   */
  timerLatenessP99Ms: number | null;
  /** Largest such delay in the window. */
  timerLatenessMaxMs: number | null;
  /**
   * The least lease left when a renewal succeeded, over the holder's life: how close it came to
   * the margin (normally about `leaseMs - renewIntervalMs - RTT`). Null before the first renewal.
   */
  marginLowWaterMs: number | null;
}

/** What {@link adviseDuration} judges: the holder's configuration, as measured. */
export interface AdviseConfig {
  /** The holder's `leaseMs`. */
  leaseMs: number;
  /** The holder's `marginMs`. */
  marginMs: number;
  /** Default `leaseMs / 3`, as in {@link LeaseHolderConfig}. */
  renewIntervalMs?: number;
  /**
   * How far the holder's and the grantor's clocks may disagree over one lease, which the holder
   * cannot observe. Default 0.1% of `leaseMs`; raise it where clocks are coarse (e.g. Workers).
   */
  clockUncertaintyMs?: number;
}

/**
 * Stable codes of {@link AdviceProblem}:
 * - `no_samples`: no renewal has succeeded yet, nothing to judge by.
 * - `margin_too_small`: `marginMs` is below renewal RTT p99 + timer lateness p99 + clock uncertainty.
 * - `lease_too_short`: `leaseMs - renewIntervalMs - marginMs` cannot fit two renewal attempts.
 * - `renewal_near_margin`: a renewal succeeded within one attempt of the margin.
 * - `margin_losses`: holds were lost at the margin.
 */
export type AdviceProblemCode =
  | "no_samples"
  | "margin_too_small"
  | "lease_too_short"
  | "renewal_near_margin"
  | "margin_losses";

/** One finding of {@link adviseDuration}. */
export interface AdviceProblem {
  code: AdviceProblemCode;
  /** The figures behind it, for a log line. */
  message: string;
}

/** What {@link adviseDuration} returns. */
export interface DurationAdvice {
  /** True when the configuration covers the observed figures. */
  safe: boolean;
  /** Empty when safe. */
  problems: AdviceProblem[];
  /** `leaseMs` for the next run: unchanged when safe, else with 50% headroom, rounded up to 50 ms. */
  suggestedLeaseMs: number;
  /** `marginMs` for the next run, on the same terms. */
  suggestedMarginMs: number;
  /** The figures the verdict used. */
  basis: {
    renewRttP99Ms: number | null;
    timerLatenessP99Ms: number;
    clockUncertaintyMs: number;
    renewIntervalMs: number;
    /** RTT p99 + timer lateness p99 + clock uncertainty; null without samples. */
    requiredMarginMs: number | null;
    /** `leaseMs - renewIntervalMs - marginMs`: from a renewal falling due to the margin. */
    renewalBudgetMs: number;
    /** Two attempts, or the slowest renewal seen plus one; null without samples. */
    requiredBudgetMs: number | null;
  };
}

/**
 * Says whether `leaseMs` and `marginMs` are safe for what a holder observed, and suggests values,
 * by the design's rules: the margin covers a renewal's round trip, its timer's lateness and the
 * clock uncertainty; the lease leaves room, after the renewal interval and the margin, for two
 * renewal attempts and for the slowest renewal seen.
 *
 * @example
 * ```ts
 * const advice = adviseDuration(holder.stats(), config);
 * if (!advice.safe) console.warn(advice.problems, advice.suggestedLeaseMs, advice.suggestedMarginMs);
 * ```
 * @param config the configuration the stats were measured with
 * @throws {LeaseError} `ERR_LEASE_CONFIG` naming the bad field of `stats` or `config`
 */
export function adviseDuration(stats: HolderStats, config: AdviseConfig): DurationAdvice;

/** Options of {@link HttpGrantor}. */
export interface HttpGrantorOptions {
  /** The grantor's base URL, e.g. `"http://127.0.0.1:8040"`; paths `/v1/...` are appended. */
  baseUrl: string;
  /**
   * The grantor's API key, sent as `Authorization: Bearer <apiKey>` to `baseUrl`'s origin only
   * (redirects are never followed). Printable ASCII without spaces; not together with an
   * `authorization` header.
   */
  apiKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Each request's own timeout (default 10 000 ms); the holder's signal may end it sooner. */
  timeoutMs?: number;
  /** `fetch`'s `credentials`, only passed when given (some runtimes reject the option). */
  credentials?: "omit" | "same-origin" | "include";
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * Renew through `POST /v1/renew/batch`: renewals from every holder using this HttpGrantor wait
   * in one queue and go out together, each still answered on its own. `true` for the defaults.
   * A grantor without the batch route (`501`, `404 not_found`) is then renewed one by one.
   */
  batchRenewals?: boolean | BatchRenewalsOptions;
}

/** Options of {@link HttpGrantorOptions.batchRenewals}. */
export interface BatchRenewalsOptions {
  /**
   * The longest a renewal waits for others to join its batch, in ms (0 to 2^31 − 1). Default: a
   * sixth of that renewal's `durationMs`, which leaves half of the attempt's time for the round
   * trip for holders with the default `renewIntervalMs` and `requestTimeoutMs` and a `marginMs` of
   * at most a third of `leaseMs`; otherwise use {@link HttpGrantor.batchDelayMs}. The earliest
   * deadline among queued renewals decides when a batch goes out, and it carries them all. A
   * lease whose latest attempt failed is renewed at once.
   */
  maxDelayMs?: number;
  /** The most renewals per request, 1 to 10,000 (the default); a full queue goes out at once. */
  maxBatch?: number;
}

/** The settings of a holder that {@link HttpGrantor.batchDelayMs} needs: those of its config. */
export interface BatchTiming {
  leaseMs: number;
  marginMs: number;
  /** Default `leaseMs / 3`, as for a LeaseHolder. */
  renewIntervalMs?: number;
  /** Default `renewIntervalMs`, as for a LeaseHolder. */
  requestTimeoutMs?: number;
}

/**
 * A grant's secret, for a caller that keeps it itself. {@link HttpGrantor} remembers the secret of
 * every grant it received and sends it on its own; pass it when another HttpGrantor made the grant.
 */
export interface LeaseSecretOption {
  /** The `leaseSecret` of the grant's reply. */
  leaseSecret?: string;
}

/** A grant reply from the reference grantor: a grant carries its `leaseSecret`. */
export type HttpGrantReply =
  | { granted: true; token: number; durationMs?: number; leaseSecret?: string }
  | { granted: false; holder?: string; expiresInMs?: number };

/** What {@link HttpGrantor.status} returns. */
export interface LeaseStatus {
  resource: string;
  /** The current holder, or null when nobody holds it. */
  holder: string | null;
  /** The current grant's token, or null. */
  token: number | null;
  /** Time left on the current grant by the grantor's clock, or null. */
  expiresInMs: number | null;
}

/** One state of a resource's holder, as {@link Observation} yields it. */
export interface HolderChange {
  /** Who holds the resource, or null when nobody does. */
  holder: string | null;
  /** The holder's fencing token, or null. */
  token: number | null;
  /** How long the grant had left by the grantor's account when it answered, or null. */
  expiresInMs: number | null;
  /** The holder the resource was handed to while the grantor keeps it for that holder. */
  handedTo: string | null;
  /** The state's place in the resource's history: every change makes it larger. */
  version: number;
  /** When this observer learned of the state (`Date.now()`). */
  since: number;
}

/**
 * The changes of one resource's holder: an async iterator whose first value is the current state,
 * then each newer one, never an older one nor the same one twice. It ends when its `signal`
 * aborts or on `close()`; network failures and timeouts are retried with backoff (resuming after
 * the last version yielded, then from a fresh snapshot after a second failure), and it rejects
 * only on a failure no retry mends (a refused request: `ERR_GRANTOR` with `kind: "bad_request"`).
 */
export class Observation implements AsyncIterableIterator<HolderChange>, Disposable {
  private constructor();
  /** The latest change yielded or waiting to be, or null before the first. */
  readonly current: HolderChange | null;
  next(): Promise<IteratorResult<HolderChange, undefined>>;
  return(): Promise<IteratorResult<HolderChange, undefined>>;
  /** Stops watching: the request in flight is aborted; a waiting `next()` is done. */
  close(): void;
  [Symbol.asyncIterator](): Observation;
  [Symbol.dispose](): void;
}

/**
 * Watches who holds `resource` on `grantor`: through `grantor.observe` when it has one, else by
 * polling `grantor.status(resource, { signal })` (100 ms apart after a change, up to 2 s apart
 * while nothing changes).
 */
export function observe(
  grantor:
    | { observe(resource: string, options?: { signal?: AbortSignal }): Observation }
    | { status(resource: string, options?: { signal?: AbortSignal }): Promise<LeaseStatus> },
  resource: string,
  options?: { signal?: AbortSignal },
): Observation;

/**
 * The tenure grantor protocol (`/v1`, JSON over HTTP) over `fetch`. Failed calls reject with a
 * {@link LeaseError} of code `ERR_GRANTOR` whose `kind` is `unreachable`, `timed_out` (also a
 * 408), `server_error` (5xx), `rate_limited` (429, with `retryAfterMs`), `bad_request` (other 4xx,
 * such as `grantorCode` `unauthorized`, `forbidden_namespace` or `bad_lease_secret`) or
 * `malformed_reply`; the holder retries these within its budget.
 *
 * Each grant's `leaseSecret` (and each claim's `claimSecret`) is remembered, for the newest 65,536
 * grants and claims (a renewal keeps its grant's among the newest), and sent with the calls about
 * that grant or claim: use one HttpGrantor for a lease's whole life, or pass the secret explicitly.
 *
 * With `batchRenewals`, `renew` calls from all holders wait in a shared queue and go out as one
 * `POST /v1/renew/batch`; see {@link BatchRenewalsOptions}. A batch element's own error rejects
 * that renewal alone (`bad_request` with its `grantorCode`, no `status`); a failed batch rejects
 * every renewal in it.
 */
export class HttpGrantor implements Grantor {
  /**
   * @throws {LeaseError} `ERR_LEASE_CONFIG` for a bad `baseUrl`, `timeoutMs`, `batchRenewals`
   * (field `batchRenewals`, `batchRenewals.maxDelayMs` or `batchRenewals.maxBatch`) or missing `fetch`
   */
  constructor(options: HttpGrantorOptions);
  /**
   * The longest `batchRenewals.maxDelayMs` that puts none of these holders at risk: half of the
   * smallest `min(requestTimeoutMs, leaseMs - renewIntervalMs - marginMs)`, in whole ms. It is at
   * least `renewIntervalMs` (one batch per renew interval, however the leases' renewals are
   * spread) when that budget is at least twice the interval.
   * @throws {LeaseError} `ERR_LEASE_CONFIG` naming a missing or bad setting
   */
  static batchDelayMs(configs: BatchTiming | BatchTiming[]): number;
  /** The base URL without a trailing slash. */
  readonly baseUrl: string;
  /**
   * `POST /v1/grant`. A same-holder re-grant of a live lease sends that grant's secret (the
   * remembered one, or `leaseSecret`); without it the grantor denies it like another holder's.
   */
  grant(args: GrantArgs & LeaseSecretOption): Promise<HttpGrantReply>;
  /**
   * `POST /v1/renew`, with the grant's secret; with `batchRenewals`, one element of the next
   * batch, answered the same way. Its `signal` aborting while it waits takes it out of the batch.
   */
  renew(args: RenewArgs & LeaseSecretOption): Promise<RenewReply>;
  /** `POST /v1/release`: `released` is false when `token` is no longer the current grant. */
  release(args: ReleaseArgs & LeaseSecretOption): Promise<{ released: boolean }>;
  /** Who holds `resource`, by the grantor's clock. */
  status(resource: string, options?: { signal?: AbortSignal }): Promise<LeaseStatus>;
  /**
   * Who holds `resource`, change by change, without holding it: `POST /v1/watch` long polls one
   * after another. The first value is the current state.
   */
  observe(resource: string, options?: { signal?: AbortSignal }): Observation;
  /** Ends the current grant whoever holds it (an admin `apiKey`, or loopback without keys). */
  revoke(resource: string, options?: { signal?: AbortSignal }): Promise<{ revoked: boolean }>;
  /** Writes to the grantor's fenced resource: accepted only if no larger token wrote first. */
  fencedWrite(
    resource: string,
    payload: unknown,
    token: number,
    options?: { signal?: AbortSignal } & LeaseSecretOption,
  ): Promise<{ accepted: boolean; lastToken: number }>;
  /** Reads the grantor's fenced resource. */
  fencedRead(
    resource: string,
    options?: { signal?: AbortSignal },
  ): Promise<{ payload: unknown; lastToken: number | null }>;
  /** Adds items to a queue, in order; a known `dedupeKey` returns the existing item's id. */
  enqueue(
    queue: string,
    items: NewWorkItem[],
    options?: { signal?: AbortSignal },
  ): Promise<{ items: { itemId: number; enqueued: boolean }[] }>;
  /** Claims the oldest claimable item. Prefer {@link WorkClaimer}, which heartbeats and knows the deadline. */
  claim(args: ClaimArgs): Promise<ClaimReply>;
  /** Extends a live claim; rejects with `grantorCode: "stale_claim"` when it is not live. */
  heartbeat(args: HeartbeatArgs): Promise<{ extended: true; token: number; claimMs: number }>;
  /**
   * Completes an item, fenced by its claim token (`grantorCode: "stale_claim"` when stale). With
   * `claimNext`, the reply's `next` is the worker's next claim, made in the same request.
   */
  complete(args: CompleteArgs): Promise<{ completed: true; token: number; next?: ClaimReply }>;
  /**
   * Gives an item back after a failed attempt, fenced by its claim token. With `claimNext`, the
   * reply's `next` is the worker's next claim, made in the same request.
   */
  fail(args: FailArgs): Promise<FailReply & { next?: ClaimReply }>;
  /** How many items of a queue are in each state. */
  queueStats(queue: string, options?: { signal?: AbortSignal }): Promise<QueueStats>;
  /** One item's record, including the claim token that completed it. */
  queueItem(queue: string, itemId: number, options?: { signal?: AbortSignal }): Promise<WorkItemRecord>;
}

/**
 * The part of a Durable Object namespace binding (Cloudflare's `DurableObjectNamespace`, such as
 * `env.GRANTOR`) that {@link DurableObjectGrantor} uses. Any binding fits; no Workers types needed.
 */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: any): { fetch(input: any, init?: any): Promise<any> };
}

/** Options of {@link DurableObjectGrantor}: HttpGrantor's, but the binding instead of `baseUrl` and `fetch`. */
export interface DurableObjectGrantorOptions extends Omit<HttpGrantorOptions, "baseUrl" | "fetch"> {
  /** The Durable Object namespace binding of the `LeaseGrantorObject` class, e.g. `env.GRANTOR`. */
  namespace: DurableObjectNamespaceLike;
  /**
   * Which object: one `LeaseGrantorObject` serves every resource of a name, in one order (a
   * renewal batch goes to one object). Default `"tenure"`; use several names for more throughput.
   */
  name?: string;
}

/**
 * A grantor living in a Cloudflare Durable Object (`LeaseGrantorObject` from
 * "tenure/durable-object"), reached through its namespace binding with no public HTTP hop:
 * `new DurableObjectGrantor({ namespace: env.GRANTOR })`. An {@link HttpGrantor} in every other
 * way. It takes a new stub for each request, so one grantor may be kept across requests and
 * outlives a reset of the object.
 */
export class DurableObjectGrantor extends HttpGrantor {
  /**
   * @throws {LeaseError} `ERR_LEASE_CONFIG` (field `namespace` or `name`) for a value that is not a
   * namespace binding or a non-empty name, or as {@link HttpGrantor}'s constructor for its options
   */
  constructor(options: DurableObjectGrantorOptions);
}

/** The outcome of {@link leasedRead}. */
export type LeasedReadResult<T> =
  | { ok: true; value: T; servedFrom: "lease" | "grantor"; token: number }
  | { ok: false; holder: string | null };

/**
 * The design's read lease: serves `read()` locally while the lease is safely held, otherwise
 * confirms with a grantor round trip first; fails naming the current holder.
 */
export function leasedRead<T>(
  holder: LeaseHolder,
  read: () => T | Promise<T>,
): Promise<LeasedReadResult<T>>;

/** Stable codes of {@link LeaseError}. */
export type LeaseErrorCode =
  | "ERR_GRANTOR"
  | "ERR_LEASE_CONFIG"
  | "ERR_LEASE_EXPIRED"
  | "ERR_LEASE_TOKEN"
  | "ERR_LEASE_TIME"
  | "ERR_LEASE_USAGE"
  | "ERR_LEASE_LOST"
  | "ERR_LEASE_RELEASED"
  | "ERR_LEASE_NOT_HELD"
  /**
   * The WebAssembly core could not be compiled when the first {@link Lease} or {@link LeaseHolder}
   * was made (a Content-Security-Policy without `'wasm-unsafe-eval'`, or no WebAssembly at all).
   */
  | "ERR_CORE_UNAVAILABLE"
  /** {@link TabLease} or {@link FencedStore} in a runtime without IndexedDB; see `missing`. */
  | "ERR_TAB_UNSUPPORTED"
  /** IndexedDB failed under a {@link TabLease} or {@link FencedStore} (quota, storage cleared). */
  | "ERR_TAB_STORAGE"
  /** A {@link TabLease}'s heartbeat worker could not start (blocked by CSP, not bundled). */
  | "ERR_TAB_WORKER"
  /** A {@link TabLease} was used after `close()`. */
  | "ERR_TAB_CLOSED"
  /** {@link TabLease.call}: the active tab changed before it answered (retryable). */
  | "ERR_TAB_LEADER_CHANGED"
  /** {@link TabLease.call}: no active tab answered in time (retryable). */
  | "ERR_TAB_CALL_TIMEOUT"
  /** {@link TabLease.call}: the active tab's handler threw; the message is its. */
  | "ERR_TAB_CALL_FAILED"
  /** {@link TabLease.call}: the active tab has no handler of that name. */
  | "ERR_TAB_NO_HANDLER"
  /** {@link TabLease.handOff}: the named tab is not a candidate of this name (or did not answer). */
  | "ERR_TAB_HANDOFF_TARGET"
  /** A {@link Claim} was not safely held when it was about to be completed; nothing was sent. */
  | "ERR_CLAIM_LOST"
  /** The grantor refused a {@link Claim}'s token: the claim ran out or another worker has the item. */
  | "ERR_CLAIM_STALE"
  /**
   * A grantor on a platform's store (DenoKvGrantor, the Durable Object grantor) found the store
   * answering what it never does; seen as the `cause` of the request's `ERR_GRANTOR`
   * (`unreachable`), which may be retried.
   */
  | "ERR_GRANTOR_STORE";

/** Every error tenure throws (and every `signal.reason` it sets). */
export class LeaseError extends Error {
  /** What {@link isLeaseError} recognises, across copies of the package. */
  readonly name: "LeaseError" | "LeaseExpiredError";
  /** Stable across versions: branch on it, not on the message. */
  readonly code: LeaseErrorCode;
  /** For `ERR_LEASE_CONFIG`: the offending option. */
  readonly field?: string;
  /** For `ERR_LEASE_LOST`: why the lease was lost. */
  readonly reason?: LossReason;
  /** For `ERR_GRANTOR`: the kind of failure. */
  readonly kind?:
    | "unreachable"
    | "timed_out"
    | "server_error"
    | "rate_limited"
    | "bad_request"
    | "malformed_reply";
  /** For `ERR_GRANTOR`: the HTTP status, if a reply arrived. */
  readonly status?: number;
  /** For `ERR_GRANTOR`: the grantor's error `code`, if its reply had one. */
  readonly grantorCode?: string;
  /** For `ERR_GRANTOR` with `rate_limited` or a 503: the grantor's `Retry-After`, in ms. */
  readonly retryAfterMs?: number;
  /** For `ERR_TAB_UNSUPPORTED`: the missing platform features, e.g. `["indexedDB"]`. */
  readonly missing?: string[];
  /** For the errors of {@link TabLease.call}: whether making the same call again may succeed. */
  readonly retryable?: boolean;
}

/** Thrown by {@link Lease.assertHeld}. */
export class LeaseExpiredError extends LeaseError {
  readonly name: "LeaseExpiredError";
  readonly code: "ERR_LEASE_EXPIRED";
  /** What was left of the lease when the check failed. */
  readonly remainingMs: number;
  /** The safety margin that had to remain. */
  readonly requiredMarginMs: number;
}

/** True for any error tenure threw, from any copy of the package or realm. */
export function isLeaseError(value: unknown): value is LeaseError;

/**
 * Why a {@link TabLease} stopped being the active tab.
 *
 * - `released`: `release()` or `close()` was called.
 * - `pagehide`: the page was closed, navigated away or entered the back/forward cache.
 * - `expired`: its heartbeat could not be renewed in time: the tab was frozen, its main thread
 *   hung, or storage failed; judged on this tab's own clocks.
 * - `stolen`: another tab took the Web Lock, having seen this tab's heartbeat go stale.
 * - `superseded`: the shared log holds a newer epoch (another tab took over).
 * - `grantor_lost`: global mode only: the grantor lease was lost while the tab role was kept; the
 *   tab campaigns for it again and becomes active once it is granted.
 */
export type TabInactiveReason =
  | "released"
  | "pagehide"
  | "expired"
  | "stolen"
  | "superseded"
  | "grantor_lost"
  | "handed_off"
  | (string & {});

/** Global mode: the active tab holds this grantor lease for the whole browser. Durations in ms. */
export interface TabLeaseGlobalOptions {
  /**
   * The grantor, usually an {@link HttpGrantor}. It stays on the page; the heartbeat worker only
   * schedules its calls (so any grantor object works).
   */
  grantor: Grantor;
  /** The grantor resource. */
  resource: string;
  /** The grantor holder id; default a random id kept per origin in IndexedDB, shared by its tabs. */
  holderId?: string;
  leaseMs: number;
  marginMs: number;
  renewIntervalMs?: number;
  requestTimeoutMs?: number;
  retryDelayMs?: number;
  retryDelayMaxMs?: number;
}

/** Options of {@link TabLease}. Durations in ms. */
export interface TabLeaseOptions {
  /**
   * How long a heartbeat keeps the role (default 5 000): a frozen or hung active tab is taken
   * over about this long after its last heartbeat. Keep it above your longest main-thread task.
   */
  leaseMs?: number;
  /** Stop believing with this much of the lease left (default 1 000); `0 < marginMs < leaseMs`. */
  marginMs?: number;
  /** Heartbeat interval; default `leaseMs / 3`, less than `leaseMs - marginMs`. */
  renewIntervalMs?: number;
  /**
   * `"worker"` (default in a window): a dedicated worker beats, so hidden-tab timer throttling
   * cannot delay it, and writes a heartbeat only after the page answers, so a frozen or hung page
   * loses the role. `"inline"` (default in workers): this context's own timers beat.
   */
  heartbeat?: "worker" | "inline";
  /** Use Web Locks where available (default true); `false` runs on the lease alone. */
  webLocks?: boolean;
  /** Global mode: also hold a grantor lease while active. */
  global?: TabLeaseGlobalOptions | null;
  /** Same as assigning {@link TabLease.onActive}. */
  onActive?: ((hold: TabLeaseHold) => void) | null;
  /** Same as assigning {@link TabLease.onInactive}. */
  onInactive?: ((reason: TabInactiveReason) => void) | null;
  /** Same as assigning {@link TabLease.onHolderChange}. */
  onHolderChange?: ((change: TabHolderChange) => void) | null;
}

/** Who holds a {@link TabLease} name, as one tab sees it ({@link TabLease.holder}). */
export interface TabHolder {
  /** The active tab's {@link TabLease.tabId}. */
  tabId: string;
  /** Its hold's epoch. */
  epoch: number;
  /** When this tab learned of the hold, in ms since the epoch (`Date.now()`). */
  since: number;
}

/**
 * A change of holder, as one tab sees it ({@link TabLease.observe},
 * {@link TabLease.onHolderChange}). Changes come in epoch order: a new hold (`holder` set, a
 * larger `epoch`), or the end of the hold `epoch` (`holder` null: released, its page left, or
 * its heartbeat ran out, reported by the time another tab may take over). A hold reported ended
 * because its heartbeat ran out is reported held again, same epoch, if its late heartbeat then
 * lands. Never an older holder after a newer one.
 */
export interface TabHolderChange {
  /** The active tab's {@link TabLease.tabId}, or null: nobody holds it now. */
  holder: string | null;
  /** The epoch of the hold that began, or that ended (0: the name was never held). */
  epoch: number;
  /** When this tab learned of the change, in ms since the epoch (`Date.now()`). */
  since: number;
}

/** What {@link TabLease.acquire} resolves. */
export interface TabLeaseGrant {
  /** The fencing token of this hold: larger than every earlier hold's, across tabs. */
  epoch: number;
  /** Global mode: the grantor's token for this hold; otherwise null. */
  grantorToken: number | null;
}

/** What {@link TabLease.onActive} receives. */
export interface TabLeaseHold extends TabLeaseGrant {
  /** Aborts when this hold ends. */
  signal: AbortSignal;
}

/**
 * One active tab per name among the tabs (and workers) of one browser profile and origin.
 *
 * Exclusive through Web Locks, which hand the role over at once when the active tab closes,
 * navigates away or crashes. A heartbeat lease on a shared IndexedDB log (announced over
 * BroadcastChannel) bounds a frozen or hung holder: another tab takes over about `leaseMs` after
 * its last heartbeat, stealing the lock, with a larger epoch. The old tab learns it lost before
 * it can act: `isActive` and `signal` are judged on its own clocks, and on `resume`. Writes
 * through {@link FencedStore} (or `grantor.fencedWrite` with `grantorToken`) reject stale epochs.
 * Without Web Locks it runs on the lease alone, with the same fencing.
 *
 * @example
 * ```ts
 * const tab = new TabLease("editor", { leaseMs: 5000, marginMs: 1000 });
 * tab.onActive = ({ epoch, signal }) => startSync({ epoch, signal });
 * tab.onInactive = (reason) => showBanner(`another tab took over (${reason})`);
 * await tab.acquire();
 * ```
 */
export class TabLease implements AsyncDisposable {
  /**
   * @throws {LeaseError} `ERR_LEASE_CONFIG` naming the bad option; `ERR_TAB_UNSUPPORTED` where
   *   IndexedDB is missing (Node, Deno)
   */
  constructor(name: string, options?: TabLeaseOptions);
  /** The role's name: tabs of one origin with the same name compete. */
  readonly name: string;
  /** The validated options, defaults applied. */
  readonly leaseMs: number;
  readonly marginMs: number;
  readonly renewIntervalMs: number;
  /** Where the heartbeat runs. */
  readonly heartbeat: "worker" | "inline";
  /** `"web-locks"`, or `"lease"` without Web Locks. */
  readonly mode: "web-locks" | "lease";
  /** `"idle"` (not a candidate), `"waiting"`, `"active"` or `"closed"`. */
  readonly state: "idle" | "waiting" | "active" | "closed";
  /** Whether this tab is active now; every read re-checks the clocks. */
  readonly isActive: boolean;
  /** The epoch of the current or most recent hold, or null before the first. */
  readonly epoch: number | null;
  /** Global mode: the grantor token of the current or most recent grant, else null. */
  readonly grantorToken: number | null;
  /**
   * Aborts when this tab stops being active (reason: a {@link LeaseError}, `ERR_LEASE_LOST` or
   * `ERR_LEASE_RELEASED`, with `reason`); already aborted while it is not active.
   */
  readonly signal: AbortSignal;
  /** Called with the hold when this tab becomes active. */
  onActive: ((hold: TabLeaseHold) => void) | null;
  /** Called with the reason when this tab stops being active. */
  onInactive: ((reason: TabInactiveReason) => void) | null;
  /**
   * This instance's id, fixed for its life: what {@link TabLease.holder} and
   * {@link TabHolderChange.holder} name on every tab when this instance is active.
   */
  readonly tabId: string;
  /**
   * Who holds the name, as this tab last saw it (every instance watches, candidate or not, from
   * construction on), or null while nobody does or before this tab first read the log.
   */
  readonly holder: TabHolder | null;
  /** Called with each {@link TabHolderChange} this tab sees. */
  onHolderChange: ((change: TabHolderChange) => void) | null;
  /**
   * The changes of holder as this tab sees them, starting with the current one (as soon as this
   * tab read the log), in epoch order. Ends when `signal` aborts or the TabLease closes. A tab
   * that missed notices (frozen, hidden, a lost message) catches up from the log when it
   * resumes or becomes visible, and when the newest entry it knows outlived its lease.
   */
  observe(options?: { signal?: AbortSignal }): AsyncIterableIterator<TabHolderChange>;
  /**
   * Registers `handler` for calls of `name` ({@link TabLease.call}): it runs, in this tab, for
   * each call sent to this tab's hold while the hold lasts, and its result (or what it throws)
   * answers the call. An answer ready after the hold ended is not sent: the caller fails over.
   * Register before (or whether or not) this tab is active. Returns a function that
   * unregisters it.
   * @throws {LeaseError} `ERR_LEASE_USAGE` unless `name` is a non-empty string and `handler` a
   *   function
   */
  handle<A = unknown, R = unknown>(name: string, handler: (args: A) => R | Promise<R>): () => void;
  /**
   * Calls the active tab's handler for `name` with `args`, from any tab (this one included),
   * over BroadcastChannel: the request names the epoch of the hold it was sent to, and only that
   * hold runs it, once. `args` and the answer are structured-cloned. Made while no tab is
   * active, the call waits for the next one.
   * @throws {LeaseError} (as rejections) `ERR_TAB_LEADER_CHANGED` (`retryable: true`): the hold
   *   it was sent to ended before it answered, and the handler may or may not have run there;
   *   `ERR_TAB_CALL_TIMEOUT` (`retryable: true`): no active tab answered within `timeoutMs`
   *   (default 10 000); `ERR_TAB_CALL_FAILED` (the handler threw: its message) and
   *   `ERR_TAB_NO_HANDLER` (`retryable: false`); `ERR_TAB_CLOSED`; `ERR_LEASE_CONFIG` for a bad
   *   `timeoutMs`; or `signal`'s reason
   */
  call<R = unknown, A = unknown>(
    name: string,
    args?: A,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<R>;
  /**
   * Becomes a candidate (staying one, also after losing, until `release()`), and resolves once
   * this tab is active. Aborting `signal` rejects with its reason and, unless the tab is active,
   * withdraws the candidacy.
   * @throws {LeaseError} `ERR_TAB_CLOSED`, `ERR_TAB_WORKER` (as rejections)
   */
  acquire(options?: { signal?: AbortSignal }): Promise<TabLeaseGrant>;
  /** Steps down and withdraws; resolves once the next tab may take over at once. */
  release(): Promise<void>;
  /** Releases, stops the worker and removes listeners. */
  close(): Promise<void>;
  /** @throws {LeaseError} `ERR_LEASE_NOT_HELD` unless this tab is active right now */
  assertActive(): void;
  /** `new FencedStore(name).write(key, value, epoch)` with this tab's current or last epoch. */
  fencedWrite<T>(key: FencedKey, value: T): Promise<FencedWriteResult>;
  /** `new FencedStore(name).read(key)`. */
  fencedRead<T = unknown>(key: FencedKey): Promise<FencedEntry<T> | null>;
  /**
   * Hands the role over: this tab steps down at once (`onInactive("handed_off")`; its `signal`
   * aborts with `ERR_LEASE_RELEASED`, `reason: "handed_off"`) and stays a candidate; the tab
   * `toTabId` ({@link TabLease.tabId}) is active next, with a new epoch, or without a name the
   * candidate that has waited longest. The release names the tab, and for its `leaseMs` no other
   * tab takes the role: if the named tab vanishes meanwhile, the role is free again after that.
   * The named tab must confirm within a second that it is a candidate of this name, before this
   * tab steps down.
   * @throws {LeaseError} (as rejections) `ERR_LEASE_NOT_HELD` unless this tab is active;
   *   `ERR_TAB_HANDOFF_TARGET` (nothing handed over) when the named tab is not a candidate or
   *   did not answer; `ERR_LEASE_USAGE` for a name that is not a string or is this tab's own
   */
  handOff(toTabId?: string): Promise<void>;
  /** Closes: enables `await using tab = new TabLease(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A key of a {@link FencedStore}: what IndexedDB accepts as a key (`IDBValidKey`), spelled out so
 * the declarations need no DOM library (Deno, Workers).
 */
export type FencedKey = number | string | Date | ArrayBuffer | ArrayBufferView | FencedKey[];

/** The outcome of {@link FencedStore.write}. */
export interface FencedWriteResult {
  accepted: boolean;
  /** The name's newest epoch (the writer's when accepted), or null if it was never held. */
  epoch: number | null;
}

/** A value read from a {@link FencedStore}, with the epoch that wrote it. */
export interface FencedEntry<T> {
  value: T;
  epoch: number;
}

/**
 * Values in IndexedDB fenced by a {@link TabLease} name's epochs: a write is accepted only with
 * the newest epoch granted for the name (checked just before) and never after a write with a
 * newer one (checked in the write's own transaction), so a tab that lost the role, even one
 * frozen through the takeover, can no longer write. That transaction reads before it writes: a
 * tab frozen inside it holds up other fenced writes (never the election) until it resumes.
 */
export class FencedStore<T = unknown> {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` for a bad name; `ERR_TAB_UNSUPPORTED` without IndexedDB */
  constructor(name: string);
  readonly name: string;
  /**
   * Writes `value` (structured-cloneable) under `key` if `epoch` is the name's newest.
   * @throws {LeaseError} `ERR_LEASE_TOKEN` for a non-positive or fractional epoch,
   *   `ERR_LEASE_USAGE` for an invalid key, `ERR_TAB_STORAGE` (as rejections)
   */
  write(key: FencedKey, value: T, epoch: number): Promise<FencedWriteResult>;
  /** The value under `key` and the epoch that wrote it, or null. */
  read(key: FencedKey): Promise<FencedEntry<T> | null>;
}

/** One item for {@link HttpGrantor.enqueue}. */
export interface NewWorkItem {
  /** Any JSON value; what the claiming worker receives. */
  payload: unknown;
  /** While an item with this key exists in the queue, another with it is not added. */
  dedupeKey?: string;
  /** Claims allowed before the item is dead-lettered; default the grantor's `--max-attempts`. */
  maxAttempts?: number;
}

/** A work item as a claim hands it out. */
export interface WorkItem<P = unknown> {
  /** The item's id, in creation order. */
  id: number;
  payload: P;
  /** Claims so far, this one included. */
  attempts: number;
  /** Claims allowed before it is dead-lettered. */
  maxAttempts: number;
}

/** Arguments of {@link HttpGrantor.claim}. */
export interface ClaimArgs {
  queue: string;
  worker: string;
  claimMs: number;
  /** A retry with the same id gets the same item while that claim lives. */
  requestId?: string;
  signal?: AbortSignal;
}

/** A claim reply: an item with its claim token and granted duration, or nothing claimable. */
export type ClaimReply =
  | { claimed: true; item: WorkItem; token: number; claimMs: number; claimSecret?: string }
  | { claimed: false };

/** The fields that identify one claim of one item. */
export interface ClaimIdentity {
  queue: string;
  itemId: number;
  worker: string;
  token: number;
  /** The claim reply's `claimSecret`; by default the one this HttpGrantor remembers. */
  claimSecret?: string;
  signal?: AbortSignal;
}

/** Arguments of {@link HttpGrantor.heartbeat}. */
export interface HeartbeatArgs extends ClaimIdentity {
  claimMs: number;
}

/**
 * `claimNext` of {@link HttpGrantor.complete} and {@link HttpGrantor.fail}: once the completion or
 * failure took effect, the grantor claims this worker's next item on the same queue, and the
 * reply's `next` is exactly what {@link HttpGrantor.claim} would have answered (its
 * `claimSecret` remembered like a claim's). A grantor that predates claimNext refuses the field
 * (`400 unknown_field`); the HttpGrantor then settles and claims in two requests, that time and
 * from then on, with the same reply. `next` is unchecked, as a claim reply is: {@link WorkClaimer}
 * checks both the same way.
 */
export interface NextClaimArgs {
  claimMs: number;
  /** As {@link ClaimArgs.requestId}: a retry of the whole request gets the same next item. */
  requestId?: string;
}

/** Arguments of {@link HttpGrantor.complete}. */
export interface CompleteArgs extends ClaimIdentity {
  result?: unknown;
  claimNext?: NextClaimArgs;
}

/** Arguments of {@link HttpGrantor.fail}. */
export interface FailArgs extends ClaimIdentity {
  error?: unknown;
  claimNext?: NextClaimArgs;
}

/** Where a work item is: `dead` is the dead-letter state after its last allowed attempt. */
export type WorkItemState = "pending" | "claimed" | "done" | "dead";

/** The reply to a failed attempt: the item is pending again, or dead. */
export interface FailReply {
  state: "pending" | "dead";
  attempts: number;
  maxAttempts: number;
}

/** How many items of a queue are in each state, by the grantor's clock. */
export interface QueueStats {
  queue: string;
  pending: number;
  claimed: number;
  done: number;
  dead: number;
}

/** One item's record, as {@link HttpGrantor.queueItem} returns it. */
export interface WorkItemRecord {
  id: number;
  state: WorkItemState;
  payload: unknown;
  dedupeKey: string | null;
  attempts: number;
  maxAttempts: number;
  /** The latest claim's token; 0 when never claimed. */
  claimToken: number;
  claimedBy: string | null;
  /** Time left on a live claim; null unless `claimed`. */
  claimExpiresInMs: number | null;
  /** The claim token that completed it: exactly one claim completes an item. Null unless `done`. */
  completedToken: number | null;
  completedBy: string | null;
  result: unknown;
  lastError: unknown;
}

/** Options of {@link WorkClaimer}. Durations in ms. */
export interface WorkClaimerOptions {
  queue: string;
  /** This worker's identity, sent with every claim. */
  workerId: string;
  /** How long a claim lasts without a heartbeat; heartbeats go out every `claimMs / 3`. */
  claimMs: number;
  /** A claim's `signal` aborts with this much left; `0 < marginMs < claimMs * 2/3`. */
  marginMs: number;
  /** One claim or heartbeat attempt's timeout; default `claimMs / 3`. */
  requestTimeoutMs?: number;
}

/** What {@link WorkClaimer.process} passes to its handler besides the item. */
export interface ClaimContext {
  /** Aborts no later than the claim stops being safely held. Pass it to the work. */
  signal: AbortSignal;
  /** The claim token: pass it to fenced writes made on the item's behalf. */
  token: number;
  claim: Claim;
}

/** How one item ended in {@link WorkClaimer.process}. */
export interface ClaimOutcome<P = unknown> {
  /** `lost`: the claim ended before the item could be settled (see `error`). */
  status: "completed" | "failed" | "lost";
  item: WorkItem<P>;
  token: number;
  result?: unknown;
  error?: unknown;
  /** For `failed`: whether the item is `pending` again or `dead`. */
  state?: "pending" | "dead";
}

/** Options of {@link WorkClaimer.process}. */
export interface ProcessOptions {
  /** Items in hand at once (default 1). */
  concurrency?: number;
  /** Aborting stops claiming (a claim arriving after it is given back unprocessed); `process` resolves once the items in hand are settled. */
  signal?: AbortSignal;
  /** First back-off when nothing is claimable or the grantor is unreachable (default 50). */
  idleDelayMs?: number;
  /** Longest back-off (default 2000). */
  idleDelayMaxMs?: number;
  /** Called each time a claim finds nothing, before backing off. */
  onIdle?: () => void | Promise<void>;
  /** Called once per claimed item with how it ended. */
  onSettled?: (outcome: ClaimOutcome) => void;
}

/** Counts of what {@link WorkClaimer.process} did. */
export interface ProcessCounts {
  claimed: number;
  completed: number;
  failed: number;
  lost: number;
}

/**
 * One claimed item: a processing lease that heartbeats by itself. Act on it while `signal` is not
 * aborted, then `complete` or `fail` it.
 */
export class Claim {
  readonly item: WorkItem;
  /** Larger than every earlier claim's token on this item. */
  readonly token: number;
  /** Aborts no later than the claim stops being safely held, and once it is settled. */
  readonly signal: AbortSignal;
  /** Milliseconds left before the grantor may hand the item to another worker. */
  remainingMs(): number;
  /** Whether more than the margin remains now. On workerd, ask after I/O: clocks move only then. */
  isSafelyHeld(): boolean;
  /** @throws {LeaseError} `ERR_CLAIM_LOST` unless safely held now */
  assertHeld(): void;
  /**
   * Completes the item, fenced by the token. Checks the deadline right before sending.
   * @throws {LeaseError} `ERR_CLAIM_LOST` (not sent), `ERR_CLAIM_STALE` (refused by the grantor),
   *   `ERR_GRANTOR`, `ERR_LEASE_USAGE` when already settled (as rejections)
   */
  complete(result?: unknown, options?: { claimNext?: false }): Promise<{ completed: true; token: number }>;
  /**
   * With `claimNext: true`, the same request also claims this worker's next item once the
   * completion took effect: one round trip instead of two. `next` is that claim, checked and held
   * like one from {@link WorkClaimer.claim}, or null.
   */
  complete(result: unknown, options: { claimNext: true }): Promise<{ completed: true; token: number } & NextClaimResult>;
  /**
   * Gives the item back after a failed attempt; Errors are stored as `{name, message, code?}`.
   * `claimNext` as for `complete`.
   * @throws {LeaseError} `ERR_CLAIM_STALE`, `ERR_GRANTOR`, `ERR_LEASE_USAGE` (as rejections)
   */
  fail(error?: unknown, options?: { claimNext?: false }): Promise<FailReply>;
  fail(error: unknown, options: { claimNext: true }): Promise<FailReply & NextClaimResult>;
}

/** What a settlement with `claimNext` adds to its reply ({@link Claim.complete}, {@link Claim.fail}). */
export interface NextClaimResult {
  /**
   * The next claim; null when nothing was claimable, or when the next claim failed (`nextError`
   * says why: a malformed reply is never a claim). The settlement stands either way.
   */
  next: Claim | null;
  nextError?: unknown;
}

/**
 * Claims work items from a grantor queue (the design's work claims), each under its own
 * processing lease driven by the core: heartbeats every `claimMs / 3`, the deadline judged on both
 * clocks from when the claim was sent, and a `signal` that aborts at the margin.
 *
 * @example
 * ```ts
 * const claimer = new WorkClaimer(grantor, { queue: "thumbnails", workerId: "edge-1", claimMs: 15000, marginMs: 3000 });
 * await claimer.process(async (item, { signal }) => render(item.payload, { signal }), { concurrency: 4, signal });
 * ```
 */
export class WorkClaimer {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` naming the bad option */
  constructor(grantor: HttpGrantor, options: WorkClaimerOptions);
  /** The grantor given to the constructor; its queue methods are used. */
  readonly grantor: HttpGrantor;
  readonly queue: string;
  readonly workerId: string;
  readonly claimMs: number;
  readonly marginMs: number;
  /** `claimMs / 3`. */
  readonly heartbeatIntervalMs: number;
  /** Claims the oldest claimable item, or resolves null when there is none. */
  claim(options?: { signal?: AbortSignal }): Promise<Claim | null>;
  /**
   * Runs a worker loop until `signal` aborts; resolves with counts once in-hand items settle.
   * Each settlement asks for the slot's next claim in the same request (`claimNext`) unless the
   * loop is stopping.
   */
  process<P = unknown>(
    handler: (item: WorkItem<P>, context: ClaimContext) => unknown,
    options?: ProcessOptions,
  ): Promise<ProcessCounts>;
}

/** Options of {@link EtcdGrantor}. */
export interface EtcdGrantorOptions {
  /** etcd's client URL, e.g. `"http://127.0.0.1:2379"`; paths `/v3/...` are appended. Give this or `endpoints`. */
  baseUrl?: string;
  /**
   * A cluster's members' client URLs (1 to 16), instead of `baseUrl`: requests stay on a member
   * that answers; one that cannot be reached, times out or answers a server error is tried after
   * the others for 5 s. A request goes on to the next member only when sending it twice cannot
   * change the answer; a grant's or release's write that went unanswered fails retryably instead,
   * and the holder's retry goes to the next member.
   */
  endpoints?: string[];
  /** An etcd auth token (from `/v3/auth/authenticate`), sent raw in `Authorization`, as etcd expects. */
  token?: string;
  /** Extra request headers; an `authorization` header here excludes `token`. */
  headers?: Record<string, string>;
  /** Each request's own timeout (default 10 000 ms); the caller's signal may end it sooner. */
  timeoutMs?: number;
  /** Prefix of the keys holding grants (default `"tenure/leases/"`): the key is prefix + resource. */
  keyPrefix?: string;
  /** `fetch`'s `credentials`, only passed when given (some runtimes reject the option). */
  credentials?: "omit" | "same-origin" | "include";
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/**
 * A grantor keeping leases in etcd v3 through its JSON gateway. A grant is an etcd lease plus a
 * key created under it only if absent; the fencing token is that key's `create_revision`, which
 * grows across holders and restarts. Durations are whole seconds (requests round up; etcd may
 * raise them to its minimum TTL, 2 s by default), and replies report what etcd granted. A grant
 * asked for by the holder that already holds the resource returns that grant (same token) with
 * the time its lease has left. Failures reject with `ERR_GRANTOR` and a `kind`, as
 * {@link HttpGrantor}'s do.
 *
 * @example
 * ```ts
 * const grantor = new EtcdGrantor({ baseUrl: "http://127.0.0.1:2379" });
 * const holder = new LeaseHolder(grantor, { resource: "reports", holderId: "w1", leaseMs: 10000, marginMs: 2000 });
 * ```
 */
export class EtcdGrantor implements Grantor {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` for a bad `baseUrl` or `endpoints` (or both given), `token`, `headers`, `timeoutMs`, `keyPrefix` or missing `fetch` */
  constructor(options: EtcdGrantorOptions);
  /** The etcd client URL (the first member's, given `endpoints`). */
  readonly baseUrl: string;
  /** Every member's client URL, in the order given. */
  readonly endpoints: string[];
  /** The etcd key holding `resource`'s grant. */
  keyOf(resource: string): string;
  grant(args: GrantArgs): Promise<GrantReply>;
  /** Keeps the lease alive, then checks the key is still this grant's (`not_holder` if not). */
  renew(args: RenewArgs): Promise<RenewReply>;
  /** Deletes the key only if it is still this grant's, then revokes the lease; idempotent. */
  release(args: ReleaseArgs): Promise<{ released: boolean }>;
  /**
   * Who holds `resource`, change by change, without holding it: a `/v3/kv/range` of its key (the
   * current state, at the header's revision), then `/v3/watch` streams through the JSON gateway,
   * 30 s each, each starting at the revision after the last one yielded. `version` is etcd's
   * revision of the change (a grant's put, a release's or an expiry's delete), `token` the key's
   * `create_revision`; `expiresInMs` is null. A compacted start revision, a cancelled watch or a
   * cut stream starts again from a range.
   * @throws {LeaseError} `ERR_GRANTOR` (`bad_request`) for a bad resource or signal
   */
  observe(resource: string, options?: { signal?: AbortSignal }): Observation;
}

/** Options of {@link RedisHttpGrantor}. */
export interface RedisHttpGrantorOptions {
  /** The REST endpoint's URL (Upstash: the database's REST URL); commands are POSTed to it. */
  baseUrl: string;
  /** The REST token, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra request headers; an `authorization` header here excludes `token`. */
  headers?: Record<string, string>;
  /** Each request's own timeout (default 10 000 ms); the caller's signal may end it sooner. */
  timeoutMs?: number;
  /** Prefix of the keys (default `"tenure:"`): grants live at `prefix{resource}`, tokens at `prefix{resource}:fence`. */
  keyPrefix?: string;
  /** `fetch`'s `credentials`, only passed when given (some runtimes reject the option). */
  credentials?: "omit" | "same-origin" | "include";
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/**
 * A grantor keeping leases in Redis behind an Upstash-style REST endpoint, one Lua script per
 * operation. The fencing token comes from `INCR` of a per-resource counter: it only grows while
 * Redis keeps that counter (persistence on, no eviction; an asynchronous failover can lose it). A
 * grant asked for by the holder that already holds the resource returns that grant (same token)
 * with the time its key has left. Failures reject with `ERR_GRANTOR` and a `kind`; a Redis error
 * (HTTP 400) is `bad_request`.
 *
 * @example
 * ```ts
 * const grantor = new RedisHttpGrantor({ baseUrl: process.env.UPSTASH_REDIS_REST_URL!, token: process.env.UPSTASH_REDIS_REST_TOKEN });
 * ```
 */
export class RedisHttpGrantor implements Grantor {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` for a bad `baseUrl`, `token`, `headers`, `timeoutMs`, `keyPrefix` or missing `fetch` */
  constructor(options: RedisHttpGrantorOptions);
  readonly baseUrl: string;
  /** The Redis key holding `resource`'s grant. */
  keyOf(resource: string): string;
  grant(args: GrantArgs): Promise<GrantReply>;
  /** Resets the key's expiry to the full duration if it still holds this grant. */
  renew(args: RenewArgs): Promise<RenewReply>;
  /** Deletes the key only if it still holds this grant; idempotent. */
  release(args: ReleaseArgs): Promise<{ released: boolean }>;
  /**
   * Who holds `resource`, change by change, without holding it. Redis has no change feed over
   * REST, so this **polls**: the key and its fence counter, read in one script, 100 ms after a
   * change and backing off to 2 s apart while nothing changes (a grant and its end between two
   * reads go unseen). The first value is the current state; `version` comes from the fence
   * counter (`2 × counter`, `+ 1` once the key is gone), `expiresInMs` from the key's `PTTL`.
   * @throws {LeaseError} `ERR_GRANTOR` (`bad_request`) for a bad resource or signal
   */
  observe(resource: string, options?: { signal?: AbortSignal }): Observation;
}

/** Options of {@link ConsulGrantor}. */
export interface ConsulGrantorOptions {
  /** The Consul agent's HTTP address, e.g. `"http://127.0.0.1:8500"`; paths `/v1/...` are appended. */
  baseUrl: string;
  /** An ACL token, sent as `X-Consul-Token`. */
  token?: string;
  /** Prefix of the lock keys (default `"tenure/"`): the key is prefix + resource. Never delete these keys. */
  keyPrefix?: string;
  /**
   * Consul's lock-delay, 0 to 60 000 ms (default 0): how long a key whose session was invalidated
   * stays unlockable. Fencing tokens make it unnecessary; raise it for resources that cannot check them.
   */
  lockDelayMs?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Each request's own timeout (default 10 000 ms); the caller's signal may end it sooner. */
  timeoutMs?: number;
  /** `fetch`'s `credentials`, only passed when given (some runtimes reject the option). */
  credentials?: "omit" | "same-origin" | "include";
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/**
 * A grantor on Consul: a grant is a TTL session (`Behavior: "release"`) plus a lock on the key
 * prefix + resource; the fencing token is the key's `LockIndex`, which Consul increments on every
 * acquisition. TTLs are whole seconds from 10 s to 24 h (requests round up and are clamped; replies
 * report what was granted). Consul may invalidate an unrenewed session only at twice its TTL, so a
 * takeover can take up to 2 × TTL. A renewal also checks the key is still locked by the session.
 * A retried grant (same holder and `requestId`) returns the original token; a new grant by the
 * holder that holds the resource replaces its own with a larger token. Failures reject with
 * `ERR_GRANTOR` and a `kind`, as {@link HttpGrantor}'s do.
 *
 * @example
 * ```ts
 * const grantor = new ConsulGrantor({ baseUrl: "http://127.0.0.1:8500", token: process.env.CONSUL_HTTP_TOKEN });
 * const holder = new LeaseHolder(grantor, { resource: "reports", holderId: "w1", leaseMs: 10000, marginMs: 2000 });
 * ```
 */
export class ConsulGrantor implements Grantor {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` for a bad `baseUrl`, `token`, `headers`, `timeoutMs`, `keyPrefix`, `lockDelayMs` or missing `fetch` */
  constructor(options: ConsulGrantorOptions);
  readonly baseUrl: string;
  /** The KV key that locks `resource`. */
  keyOf(resource: string): string;
  grant(args: GrantArgs): Promise<GrantReply>;
  /** Renews the session, then checks the key is still locked by it with the same token. */
  renew(args: RenewArgs): Promise<RenewReply>;
  /** Unlocks the key only if this grant still holds it, then destroys its session; idempotent. */
  release(args: ReleaseArgs): Promise<{ released: boolean }>;
  /**
   * Who holds `resource`, change by change, without holding it: blocking queries on its lock key
   * (`?index=<X-Consul-Index>&wait=30s`). The first value is the current state. `token` is the
   * key's `LockIndex` and `version` grows with it (`2 × LockIndex`, `+ 1` once unlocked);
   * `expiresInMs` is null, Consul does not say what a session has left. An `X-Consul-Index` that
   * goes backwards is not trusted: the watch reads the key afresh. In browsers, Consul must
   * expose the `X-Consul-Index` header to CORS requests.
   * @throws {LeaseError} `ERR_GRANTOR` (`bad_request`) for a bad resource or signal
   */
  observe(resource: string, options?: { signal?: AbortSignal }): Observation;
}

/** Options of {@link KubernetesLeaseGrantor}. */
export interface KubernetesLeaseGrantorOptions {
  /** The API server, e.g. `"https://10.0.0.1:6443"`, or a `kubectl proxy` such as `"http://127.0.0.1:8001"`. */
  baseUrl: string;
  /** The namespace of the Lease objects (default `"default"`). */
  namespace?: string;
  /** A bearer token (e.g. a service account's), sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Each request's own timeout (default 10 000 ms); the caller's signal may end it sooner. */
  timeoutMs?: number;
  /** `fetch`'s `credentials`, only passed when given (some runtimes reject the option). */
  credentials?: "omit" | "same-origin" | "include";
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

/**
 * A grantor on Kubernetes `coordination.k8s.io/v1` Lease objects, one per resource (so resources
 * must be object names: lowercase DNS-1123 subdomains). Every write is a compare-and-swap on
 * `resourceVersion`. As in client-go's leader election, another holder's lease counts as expired
 * only once `leaseDurationSeconds` has passed on this process's monotonic clock since it first saw
 * the Lease unchanged; `renewTime` is never compared with the local clock. The fencing token is
 * `leaseTransitions + 1`, bumped on every grant; never delete these Leases. Release clears
 * `holderIdentity` and sets `leaseDurationSeconds: 1`, as client-go's `ReleaseOnCancel`.
 * Durations are whole seconds (requests round up). Failures reject with `ERR_GRANTOR` and a
 * `kind`, with the `Status` reason as `grantorCode`.
 *
 * @example
 * ```ts
 * const grantor = new KubernetesLeaseGrantor({ baseUrl: "https://10.0.0.1:6443", namespace: "jobs", token: serviceAccountToken });
 * const holder = new LeaseHolder(grantor, { resource: "nightly-report", holderId: podName, leaseMs: 15000, marginMs: 5000 });
 * ```
 */
export class KubernetesLeaseGrantor implements Grantor {
  /** @throws {LeaseError} `ERR_LEASE_CONFIG` for a bad `baseUrl`, `namespace`, `token`, `headers`, `timeoutMs` or missing `fetch` */
  constructor(options: KubernetesLeaseGrantorOptions);
  readonly baseUrl: string;
  readonly namespace: string;
  grant(args: GrantArgs): Promise<GrantReply>;
  /** Updates `renewTime` by compare-and-swap while this grant holds the Lease. */
  renew(args: RenewArgs): Promise<RenewReply>;
  /** Clears `holderIdentity` by compare-and-swap only if this grant still holds it; idempotent. */
  release(args: ReleaseArgs): Promise<{ released: boolean }>;
  /**
   * Who holds the Lease named `resource`, change by change, without holding it: a list
   * (`?fieldSelector=metadata.name=NAME`), then a watch (`?watch=1`) from its `resourceVersion`,
   * renewed every 30 s; 410 Gone or a cut stream starts again from a fresh list. The first value
   * is the current state. A Lease never expires by itself: its holder is reported gone once
   * `leaseDurationSeconds` has passed on this process's clock since it last saw the Lease change
   * (the rule `grant` uses). `token` is `leaseTransitions + 1` and `version` grows with it
   * (`2 × token`, `+ 1` once released, expired or deleted), so holders come in token order; a
   * holder that renews after this process judged it expired is not reported live again (a tenure
   * holder never does: it stops at its own, earlier, expiry).
   * @throws {LeaseError} `ERR_GRANTOR` (`bad_request`) for a bad name or signal
   */
  observe(resource: string, options?: { signal?: AbortSignal }): Observation;
}
