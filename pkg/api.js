// The public API: the design's Lease and LeaseHolder, backed by the WebAssembly core.
//
// This layer reads the clocks (so the hot path is at most one call into WebAssembly with two
// numbers, and none while the core's published safe window covers the reading), turns core events into promises, AbortSignals and callbacks, and re-checks deadlines
// when the page or process may have slept. The decisions are all made in the core.

import { HolderCore, LeaseCore, wakeHoldEnded, wakeHoldStarted } from "./glue/tenure.js";
import { LeaseError, LeaseExpiredError, fromCore } from "./errors.js";
import { coreModule } from "./core.js";

const perf = globalThis.performance;

// Every core object is made here, so the first one loads the core (see core.js).
function construct(make) {
  coreModule();
  try {
    return make();
  } catch (error) {
    throw fromCore(error);
  }
}

const VIEW = Symbol("tenure.view");

// A reading in integer microseconds, rounded exactly as the core rounds it (`Now::from_ms`), so
// both sides compare the same numbers.
const micros = (ms) => Math.floor(ms * 1000 + 0.5);

/**
 * A time-bounded grant as the holder sees it (the design's `Lease`).
 *
 * Elapsed time is judged on both `performance.now()` and `Date.now()`, counting each step between
 * readings as the larger of their forward movements, so OS sleep and wall-clock steps never add
 * validity. The clock starts when the request was sent.
 */
export class Lease {
  #core;
  // The core's safe window, five numbers in its memory: [monoFrom, safeUntil, offsetMin,
  // offsetMax, expiresAt], µs. The core publishes it after every step; for a reading inside it the
  // core's answer is already known, so the hot path needs no call into WebAssembly. Writing the
  // reading into the first slot is exactly what the core would record for it. Any other reading
  // (NaN, negative, a clock that went back or ran ahead, the margin reached, nothing held) goes
  // to the core. Empty (detached) after the memory grows: every comparison then fails.
  #window;
  #durationMs;
  #safetyMarginMs;

  constructor(durationMs, safetyMarginMs, view) {
    if (view !== undefined && view.key === VIEW) {
      this.#core = view.core;
    } else {
      this.#core = construct(() => new LeaseCore(durationMs, safetyMarginMs));
    }
    this.#window = this.#core.window;
    this.#durationMs = durationMs;
    this.#safetyMarginMs = safetyMarginMs;
  }

  /** Both clocks now, for `grant(token, sentAt)`: take it just before sending the request. */
  static stamp() {
    return { monoMs: perf.now(), wallMs: Date.now() };
  }

  /** The lease duration in ms. */
  get durationMs() {
    return this.#durationMs;
  }

  /** Stop believing the lease is held once this little remains, in ms. */
  get safetyMarginMs() {
    return this.#safetyMarginMs;
  }

  /** The `performance.now()` stamp of when the grant's request was sent, or null. */
  get acquiredAt() {
    return this.#core.acquiredAt ?? null;
  }

  /** The fencing token of the current grant, or null. */
  get token() {
    return this.#core.token ?? null;
  }

  /**
   * Records a grant. `sentAt` is when the grant request was sent: a `Lease.stamp()` (best) or a
   * `performance.now()` reading. Without it the lease starts now, which is only right if the
   * grant was obtained with no delay.
   */
  grant(token, sentAt) {
    const monoNow = perf.now();
    const wallNow = Date.now();
    let sentMono = monoNow;
    let sentWall = wallNow;
    if (typeof sentAt === "number") {
      sentMono = sentAt;
      sentWall = wallNow - (monoNow - sentAt);
    } else if (sentAt !== undefined && sentAt !== null) {
      sentMono = sentAt.monoMs;
      sentWall = sentAt.wallMs;
    }
    if (typeof token !== "number") {
      throw new LeaseError("ERR_LEASE_TOKEN", "token must be a number");
    }
    construct(() => this.#core.grantAt(token, sentMono, sentWall, monoNow, wallNow));
  }

  /** Milliseconds left before the grantor may reclaim; 0 when not granted. */
  remainingMs() {
    const monoMs = perf.now();
    const wallMs = Date.now();
    const window = this.#window;
    const mono = micros(monoMs);
    const offset = micros(wallMs) - mono;
    if (mono >= window[0] && mono < window[1] && offset >= window[2] && offset <= window[3]) {
      window[0] = mono;
      return (window[4] - mono) / 1000;
    }
    const remainingMs = this.#core.remainingMsAt(monoMs, wallMs);
    if (window.length === 0) this.#window = this.#core.window;
    return remainingMs;
  }

  /** Whether more than the safety margin remains. Check it before acting on the lease. */
  isSafelyHeld() {
    const monoMs = perf.now();
    const wallMs = Date.now();
    const window = this.#window;
    const mono = micros(monoMs);
    const offset = micros(wallMs) - mono;
    if (mono >= window[0] && mono < window[1] && offset >= window[2] && offset <= window[3]) {
      window[0] = mono;
      return true;
    }
    const safe = this.#core.isSafelyHeldAt(monoMs, wallMs);
    if (window.length === 0) this.#window = this.#core.window;
    return safe;
  }

  /** Throws `LeaseExpiredError` unless the lease is safely held. */
  assertHeld() {
    if (!this.isSafelyHeld()) {
      throw new LeaseExpiredError({
        remainingMs: this.remainingMs(),
        requiredMarginMs: this.#safetyMarginMs,
      });
    }
  }
}

/** The lease a LeaseHolder manages: read-only, and asking it notices a missed deadline at once. */
class HeldLease extends Lease {
  #holder;

  constructor(holder, core, durationMs, safetyMarginMs) {
    super(durationMs, safetyMarginMs, { key: VIEW, core });
    this.#holder = holder;
  }

  grant() {
    throw new LeaseError("ERR_LEASE_USAGE", "a LeaseHolder's lease is granted by its holder");
  }

  isSafelyHeld() {
    const safe = super.isSafelyHeld();
    if (!safe) this.#holder[VIEW]();
    return safe;
  }
}

// Events after which a sleeping or throttled context should re-check its deadlines.
const WAKE_EVENTS = ["visibilitychange", "resume", "pageshow", "online", "focus"];
const awake = new Set();
let listening = false;

function listenForWakeUps() {
  if (listening || typeof globalThis.addEventListener !== "function") return;
  listening = true;
  const recheck = () => {
    for (const holder of awake) holder[VIEW](true);
  };
  // Capture: `freeze`/`resume` are fired at the document and do not bubble to the window.
  for (const type of WAKE_EVENTS) {
    try {
      globalThis.addEventListener(type, recheck, { capture: true, passive: true });
    } catch {
      // workerd refuses capturing listeners; its global never receives these page events.
    }
  }
}

function rethrowLater(error) {
  queueMicrotask(() => {
    throw error;
  });
}

/** How many recent renewals the percentiles cover: enough for a p99, bounded in memory. */
const STATS_WINDOW = 256;

/** A fixed-size window of the most recent samples. */
class SampleWindow {
  #values = [];
  #next = 0;

  add(value) {
    if (this.#values.length < STATS_WINDOW) this.#values.push(value);
    else this.#values[this.#next] = value;
    this.#next = (this.#next + 1) % STATS_WINDOW;
  }

  get size() {
    return this.#values.length;
  }

  /** Nearest-rank percentiles and the maximum, or nulls when empty. */
  summary() {
    if (this.#values.length === 0) return { p50: null, p99: null, max: null };
    const sorted = [...this.#values].sort((a, b) => a - b);
    const rank = (p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
    return { p50: rank(50), p99: rank(99), max: sorted[sorted.length - 1] };
  }
}

function countInto(counts, key) {
  counts[key] = (counts[key] ?? 0) + 1;
}

/**
 * Acquires and renews a lease from a grantor (the design's `LeaseHolder`).
 *
 * The grantor is any object with async `grant({resource, holder, durationMs})` →
 * `{granted, token}` and `renew({resource, holder, token, durationMs})` →
 * `{renewed, token, reason?}`, and optionally `release(...)`. Each call also receives a
 * `requestId` (retries of one attempt never reuse it) and a `signal` that aborts when the
 * holder stops waiting.
 */
export class LeaseHolder {
  #core;
  #hold = null;
  #notHeld;
  #pending = null;
  #surrendered = false;
  // Monitoring, kept here where the grantor calls and events pass (see `stats()`).
  #counts = {
    acquisitions: 0,
    acquireFailures: 0,
    renewals: 0,
    renewFailures: 0,
    releases: 0,
    losses: 0,
  };
  #lossReasons = {};
  #failureKinds = {};
  #renewRtts = new SampleWindow();
  #timerLateness = new SampleWindow();
  #marginLowWaterMs = null;
  // When the next renewal is due (performance.now() ms), and what remained of the lease when the
  // latest renewal reply arrived, before the core applied it.
  #renewDueAt = null;
  #remainingAtReply = null;
  /** The wake ticker's id for the current hold, or null. */
  #wakeId = null;
  /** Aborts the change feed a waiting campaign follows, or null. */
  #following = null;

  /** Called with the reason when the lease is lost (not when released). Assign a function. */
  onLeaseLost = null;
  /**
   * Called with the token each time the lease is acquired, including by a campaign that
   * `recontend` started after a loss. Assign a function.
   */
  onAcquired = null;
  /**
   * Called with the token after each successful renewal, once `lease` reflects it: the grantor's
   * reply validated, the duration it granted counted from when the renewal was sent. Assign a
   * function.
   */
  onRenewed = null;

  constructor(grantor, config) {
    const observed = this.#observed(grantor);
    this.#core = construct(
      () => new HolderCore(observed, config, (type, detail) => this.#onEvent(type, detail)),
    );
    this.grantor = grantor;
    this.resource = config.resource;
    this.holderId = config.holderId;
    this.renewIntervalMs = this.#core.renewIntervalMs;
    this.lease = new HeldLease(this, this.#core, this.#core.leaseMs, this.#core.marginMs);
    this.#notHeld = AbortSignal.abort(new LeaseError("ERR_LEASE_NOT_HELD", "no lease is held"));
    listenForWakeUps();
  }

  /** Renewal failures in a row; reset by a successful renewal. */
  get consecutiveFailures() {
    return this.#core.consecutiveFailures;
  }

  /** True once the current (or last) hold ended without `release()`. */
  get surrendered() {
    this[VIEW]();
    return this.#surrendered;
  }

  /**
   * Aborts no later than the moment the lease stops being safely held (and is already aborted
   * when nothing is held). Pass it to the work the lease protects.
   */
  get signal() {
    this[VIEW]();
    return this.#hold?.signal ?? this.#notHeld;
  }

  /**
   * Asks for the lease. Resolves `{acquired: true, token}`, or `{acquired: false, reason,
   * holder?, expiresInMs?}`. With `wait: true` it campaigns until granted, honouring the
   * grantor's `expiresInMs` hint, else with jittered backoff; abort it with `signal`.
   */
  acquire({ wait = false, recontend = false, signal } = {}) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#core.phase === "held") {
      return Promise.resolve({ acquired: true, token: this.#core.token });
    }
    if (this.#pending !== null) {
      return Promise.reject(new LeaseError("ERR_LEASE_USAGE", "an acquire is already in progress"));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => this.#core.cancelAcquire();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending = {
        signal,
        settle: (outcome, error) => {
          signal?.removeEventListener("abort", onAbort);
          this.#pending = null;
          if (error === undefined) resolve(outcome);
          else reject(error);
        },
      };
      awake.add(this);
      try {
        this.#core.recontend(wait && recontend === true);
        this.#core.acquire(wait);
        if (wait) this.#followWhileCampaigning();
      } catch (error) {
        this.#pending.settle(undefined, fromCore(error));
      }
    });
  }

  /**
   * Hands the lease over: a release that asks the grantor to keep the resource for
   * `toHolderId` for a while (the reference grantor does, up to 10 s), so that holder is granted
   * it next; without one, whoever asks next. The hold ends as lost, with reason `handed_off`.
   * Grantors that keep nothing for anyone (the etcd, Consul, Kubernetes and Redis adapters)
   * release plainly.
   */
  async handOff(toHolderId) {
    await this.#core.handOff(toHolderId);
  }

  /**
   * While a campaign waits, follows the grantor's change feed (when it has `observe`), so a
   * lease released or handed to this holder is asked for at once, not at the end of the wait.
   */
  #followWhileCampaigning() {
    if (this.#following !== null || typeof this.grantor?.observe !== "function") return;
    const following = new AbortController();
    this.#following = following;
    (async () => {
      try {
        const changes = this.grantor.observe(this.resource, { signal: following.signal });
        for await (const change of changes) {
          this.#core.holderChanged(change.holder ?? undefined, change.handedTo ?? undefined);
        }
      } catch {
        // Without its change feed a campaign still retries on its own schedule.
      } finally {
        if (this.#following === following) this.#following = null;
      }
    })();
  }

  #stopFollowing() {
    const following = this.#following;
    this.#following = null;
    following?.abort();
  }

  /** Ends the hold locally and calls `onLeaseLost(reason)`, as the design's `surrender`. */
  surrender(reason = "surrendered") {
    this.#core.surrender(String(reason));
  }

  /** Ends the hold and tells the grantor, so others need not wait for the expiry. */
  async release() {
    await this.#core.release();
  }

  /**
   * What this holder has seen so far, for dashboards and for `adviseDuration`: counts since it
   * was created, and percentiles over the last 256 renewals. Durations in ms; a percentile is
   * null until there is a sample.
   */
  stats() {
    const rtt = this.#renewRtts.summary();
    const lateness = this.#timerLateness.summary();
    return {
      ...this.#counts,
      consecutiveFailures: this.#core.consecutiveFailures,
      lossReasons: { ...this.#lossReasons },
      failureKinds: { ...this.#failureKinds },
      samples: this.#renewRtts.size,
      renewRttP50Ms: rtt.p50,
      renewRttP99Ms: rtt.p99,
      renewRttMaxMs: rtt.max,
      timerSamples: this.#timerLateness.size,
      timerLatenessP50Ms: lateness.p50,
      timerLatenessP99Ms: lateness.p99,
      timerLatenessMaxMs: lateness.max,
      marginLowWaterMs: this.#marginLowWaterMs,
    };
  }

  /** `await using holder = ...` releases at the end of the scope. */
  [Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose")]() {
    return this.release();
  }

  // Called by the lease view, the getters and wake-up events: deliver what a late timer has not
  // yet delivered (a loss at the margin, a due renewal), so no caller sees a stale state.
  [VIEW](wokeUp = false) {
    const core = this.#core;
    if (wokeUp || (core.phase === "held" && !core.isSafelyHeldAt(perf.now(), Date.now()))) {
      core.check();
    }
  }

  // The core gets a grantor that calls the caller's methods unchanged (same `this`, arguments
  // and replies) and notes, for `stats()`, when each renewal went out and what remained of the
  // lease when its reply came back. Methods are read once, as the core does.
  #observed(grantor) {
    const method = (name) => {
      const fn = grantor === null || grantor === undefined ? undefined : grantor[name];
      return typeof fn === "function" ? fn : undefined;
    };
    const grant = method("grant");
    const renew = method("renew");
    const release = method("release");
    const observed = {};
    if (grant !== undefined) observed.grant = (args) => grant.call(grantor, args);
    if (renew !== undefined) {
      observed.renew = (args) => {
        this.#renewSent();
        const reply = renew.call(grantor, args);
        return typeof reply?.then === "function"
          ? Promise.resolve(reply).then((value) => this.#renewReplied(value))
          : this.#renewReplied(reply);
      };
    }
    if (release !== undefined) observed.release = (args) => release.call(grantor, args);
    return observed;
  }

  #renewSent() {
    // Only the first attempt after a grant or renewal has a schedule to be late against; retries
    // follow a jittered backoff.
    if (this.#renewDueAt === null) return;
    this.#timerLateness.add(Math.max(0, perf.now() - this.#renewDueAt));
    this.#renewDueAt = null;
  }

  // Passes the reply through, noting what remained of the lease when it arrived.
  #renewReplied(reply) {
    // Still the old grant: the core applies this reply after this returns.
    this.#remainingAtReply =
      this.#core.phase === "held" ? this.#core.remainingMsAt(perf.now(), Date.now()) : null;
    return reply;
  }

  // The core's own schedule for the next renewal, read right after it set it.
  #scheduleNextRenewal() {
    this.#renewDueAt = this.#core.renewDueAtMs ?? null;
  }

  #onEvent(type, detail) {
    switch (type) {
      case "acquired":
        this.#stopFollowing();
        this.#counts.acquisitions += 1;
        this.#scheduleNextRenewal();
        this.#surrendered = false;
        this.#hold = new AbortController();
        // Node has no wake event: while a lease is held, the realm's one wake ticker (the core's)
        // reads the clocks and has this holder re-check its deadlines after a sleep.
        this.#wakeId = wakeHoldStarted(() => this[VIEW](true), this.#core.marginMs);
        this.#pending?.settle({ acquired: true, token: detail.token });
        try {
          this.onAcquired?.(detail.token);
        } catch (error) {
          rethrowLater(error);
        }
        break;
      case "renewed":
        this.#counts.renewals += 1;
        this.#renewRtts.add(detail.rttMs);
        if (this.#remainingAtReply !== null) {
          this.#marginLowWaterMs = Math.min(
            this.#marginLowWaterMs ?? Infinity,
            this.#remainingAtReply,
          );
        }
        this.#remainingAtReply = null;
        this.#scheduleNextRenewal();
        try {
          this.onRenewed?.(detail.token);
        } catch (error) {
          rethrowLater(error);
        }
        break;
      case "renewFailed":
        this.#counts.renewFailures += 1;
        countInto(this.#failureKinds, detail.reason);
        break;
      case "acquireFailed": {
        this.#stopFollowing();
        if (detail.reason !== "cancelled") this.#counts.acquireFailures += 1;
        awake.delete(this);
        const pending = this.#pending;
        if (pending === null) break;
        if (detail.reason === "cancelled" && pending.signal?.aborted) {
          pending.settle(undefined, pending.signal.reason);
        } else {
          pending.settle({ acquired: false, ...detail });
        }
        break;
      }
      case "lost":
        awake.delete(this);
        this.#holdEnded();
        this.#counts.losses += 1;
        countInto(this.#lossReasons, detail.reason);
        this.#renewDueAt = null;
        this.#remainingAtReply = null;
        this.#surrendered = true;
        this.#endHold(new LeaseError("ERR_LEASE_LOST", `lease lost: ${detail.reason}`, {
          reason: detail.reason,
        }));
        try {
          this.onLeaseLost?.(detail.reason);
        } catch (error) {
          rethrowLater(error);
        }
        // With `recontend`, the core campaigns again after a loss.
        if (this.#core.phase === "acquiring") {
          awake.add(this);
          this.#followWhileCampaigning();
        }
        break;
      case "released":
        this.#stopFollowing();
        awake.delete(this);
        this.#holdEnded();
        this.#counts.releases += 1;
        this.#renewDueAt = null;
        this.#remainingAtReply = null;
        this.#endHold(new LeaseError("ERR_LEASE_RELEASED", "lease released"));
        break;
      default:
        break;
    }
  }

  #holdEnded() {
    if (this.#wakeId === null) return;
    wakeHoldEnded(this.#wakeId, this.#core.marginMs);
    this.#wakeId = null;
  }

  #endHold(reason) {
    const hold = this.#hold;
    this.#hold = null;
    hold?.abort(reason);
  }
}

/**
 * The design's read lease: serve a read locally while the lease is safely held (no other node can
 * have become holder within it), otherwise confirm with a grantor round trip first.
 *
 * Resolves `{ok: true, value, servedFrom: "lease" | "grantor", token}`, or `{ok: false, holder}`
 * naming the current holder when confirmation fails.
 */
export async function leasedRead(holder, read) {
  if (holder.lease.isSafelyHeld()) {
    return { ok: true, value: await read(), servedFrom: "lease", token: holder.lease.token };
  }
  // Not safely held: asking has already ended any hold inside its margin, so this is a real
  // round trip that either re-grants (same holder, or nobody else holds it) or names the holder.
  const confirmed = await holder.acquire();
  if (!confirmed.acquired) return { ok: false, holder: confirmed.holder ?? null };
  return { ok: true, value: await read(), servedFrom: "grantor", token: confirmed.token };
}
