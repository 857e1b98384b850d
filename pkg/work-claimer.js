// WorkClaimer: the design's work claims. Each claim is a processing lease on one queue item,
// driven by a LeaseHolder whose "grantor" is a small adapter (grant = claim the next item, renew
// = heartbeat, release = give the item back). So a claim gets everything a lease gets from the
// core: the clock starts when the claim request was sent, expiry is judged on both clocks, each
// heartbeat has its own timeout, and `signal` aborts at the margin, before the grantor can hand
// the item to another worker. What the claim adds to the lease (the configuration's rules, the
// gate before a completion, the settle retries and the idle backoff) is decided by the core; this
// file does the IO.

import { LeaseHolder } from "./api.js";
import { coreModule } from "./core.js";
import { LeaseError, fromCore } from "./errors.js";
import {
  IdleCore,
  SettleCore,
  checkClaimerNames,
  claimFailureKind,
  claimHeartbeatMs,
  claimSettleTimeoutMs,
  heartbeatRefusal,
  isItemId,
  processConcurrency,
} from "./glue/tenure.js";

// Failure reports are stored with the item; the grantor refuses bodies over 64 KiB.
const MAX_ERROR_TEXT = 4096;

function configError(field, message) {
  return new LeaseError("ERR_LEASE_CONFIG", `${field} ${message}`, { field });
}

/** Calls into the core, loading it first; its errors become the package's `LeaseError`s. */
function fromTheCore(call) {
  coreModule();
  try {
    return call();
  } catch (error) {
    throw fromCore(error);
  }
}

/** What `fail(error)` stores: Errors as `{name, message, code?}`, other values as JSON allows. */
function describeError(error) {
  if (error instanceof Error || (typeof error === "object" && error !== null && "message" in error)) {
    const described = {
      name: String(error.name ?? "Error"),
      message: String(error.message).slice(0, MAX_ERROR_TEXT),
    };
    if (typeof error.code === "string") described.code = error.code;
    return described;
  }
  try {
    const text = JSON.stringify(error);
    if (text !== undefined && text.length <= MAX_ERROR_TEXT) return error;
  } catch {
    // Not JSON (cycles, BigInt): fall through to its string form.
  }
  return String(error).slice(0, MAX_ERROR_TEXT);
}

function staleError(what, cause) {
  return new LeaseError("ERR_CLAIM_STALE", `${what}: the grantor no longer holds this claim`, { cause });
}

/**
 * One attempt of a settlement sent alone, with the core's settle timeout as its deadline: it is
 * abandoned then even if the grantor object ignores `signal`, and counts as timed out, so the
 * settlement retries it (or gives up) as the core decides.
 */
async function settleAlone(grantor, operation, request, timeoutMs) {
  const controller = new AbortController();
  const { signal } = controller;
  const timedOut = () => {
    const error = new LeaseError("ERR_GRANTOR", `${operation} timed out after ${timeoutMs} ms`);
    error.kind = "timed_out";
    return error;
  };
  let timer;
  // A timer of its own rather than AbortSignal.timeout, whose timer does not keep Node running:
  // the attempt must end even when nothing else is pending.
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timedOut());
      reject(signal.reason);
    }, timeoutMs);
  });
  try {
    return await Promise.race([grantor[operation]({ ...request, signal }), deadline]);
  } catch (error) {
    // Whatever the grantor object rejects with once aborted, the attempt ran out of time.
    throw signal.aborted ? signal.reason : error;
  } finally {
    clearTimeout(timer);
  }
}

/** A Claim's way to give its item back unused; not part of the package's API. */
const giveBack = Symbol("giveBack");

function delay(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The grantor a claim's LeaseHolder talks to: one claim of one item of one queue. With a
 * `settlement` (`{operation, request}`, a `complete` or `fail` of the worker's previous claim), its
 * grant is that settlement sent with `claimNext`: the next item arrives in the settlement's reply,
 * and the claim's clock starts when the settlement was sent.
 */
class ClaimAdapter {
  item = null;
  lastError;
  // Set once the claim has an outcome at the grantor, so giving it back is a no-op.
  ended = false;
  /** The settlement's reply, once it took effect. */
  settled;

  constructor(grantor, queue, settlement = null) {
    this.grantor = grantor;
    this.queue = queue;
    this.settlement = settlement;
  }

  async grant({ holder, durationMs, requestId, signal }) {
    let reply;
    try {
      reply =
        this.settlement === null
          ? await this.grantor.claim({ queue: this.queue, worker: holder, claimMs: durationMs, requestId, signal })
          : await this.#settleAndClaim({ holder, durationMs, requestId, signal });
    } catch (error) {
      this.lastError = error;
      throw error;
    }
    // A claim that came with a settlement is checked here and by the core like any other.
    if (reply?.claimed === false) return { granted: false };
    if (reply?.claimed !== true || typeof reply.item !== "object" || !isItemId(reply.item?.id)) {
      // Not a claim the core may accept: report it as such (a malformed reply, never a grant).
      return { granted: "malformed" };
    }
    this.item = reply.item;
    return { granted: true, token: reply.token, durationMs: reply.claimMs };
  }

  /** Sends the settlement with `claimNext`; resolves the reply about the next claim. */
  async #settleAndClaim({ holder, durationMs, requestId, signal }) {
    const settlement = this.settlement;
    // Every attempt of one settlement asks with its first attempt's id: when an earlier attempt
    // took effect and only its reply was lost, the grantor answers with the item it claimed then,
    // instead of claiming another that nobody would work on until its claim ran out.
    settlement.requestId ??= requestId;
    const claimNext = { claimMs: durationMs, requestId: settlement.requestId };
    const reply = await this.grantor[settlement.operation]({ ...settlement.request, claimNext, signal });
    this.settled = reply;
    // A grantor object that does not know claimNext settled alone: claim the next item apart.
    if (reply?.next === undefined) {
      return this.grantor.claim({ queue: this.queue, worker: holder, ...claimNext, signal });
    }
    return reply.next;
  }

  async renew({ holder, token, durationMs, signal }) {
    try {
      const reply = await this.grantor.heartbeat({
        queue: this.queue,
        itemId: this.item.id,
        worker: holder,
        token,
        claimMs: durationMs,
        signal,
      });
      return { renewed: reply?.extended, token: reply?.token, durationMs: reply?.claimMs };
    } catch (error) {
      // A definitive answer that the claim is gone, unlike a network failure, which is retried.
      const reason = heartbeatRefusal(error);
      if (reason !== undefined) return { renewed: false, reason };
      throw error;
    }
  }

  // The core calls it for a claim given back without an outcome: one that arrived with no safe
  // time left, or a `release()`. Reported as a failed attempt, so the item is claimable at once.
  async release({ holder, token, signal }) {
    if (this.ended || this.item === null) return;
    this.ended = true;
    const error = { name: "ClaimReleased", message: "the claim was given back unused" };
    await this.grantor
      .fail({ queue: this.queue, itemId: this.item.id, worker: holder, token, error, signal })
      .catch(() => {});
  }
}

/**
 * One claimed item. Act on it only while `signal` is not aborted, and finish it with
 * `complete(result)` or `fail(error)`; without either, the claim keeps heartbeating until it is
 * lost.
 */
export class Claim {
  #claimer;
  #holder;
  #adapter;
  #signal;
  #settled = false;

  constructor(claimer, holder, adapter, token) {
    this.#claimer = claimer;
    this.#holder = holder;
    this.#adapter = adapter;
    // This hold's own signal, so its abort reason (lost or settled) stays readable afterwards.
    this.#signal = holder.signal;
    /** `{id, payload, attempts, maxAttempts}` as the grantor handed it out. */
    this.item = adapter.item;
    /** The claim token: larger than every earlier claim's on this item. */
    this.token = token;
  }

  /** Aborts no later than the claim stops being safely held (and once it is settled). */
  get signal() {
    // Asking the holder first delivers a loss whose timer has not fired yet.
    void this.#holder.signal;
    return this.#signal;
  }

  /** Milliseconds left before the grantor may hand the item to another worker. */
  remainingMs() {
    return this.#holder.lease.remainingMs();
  }

  /**
   * Whether more than the margin remains, judged on the clocks now. On workerd the clocks move
   * only at I/O, so ask after the I/O that ended a stretch of work, not during it.
   */
  isSafelyHeld() {
    return !this.#settled && this.#holder.lease.isSafelyHeld();
  }

  /** Throws `ERR_CLAIM_LOST` unless the claim is safely held now. */
  assertHeld() {
    if (!this.isSafelyHeld()) {
      throw new LeaseError("ERR_CLAIM_LOST", `claim ${this.token} on item ${this.item.id} is not safely held`);
    }
  }

  /**
   * Completes the item, fenced by the claim token. Refuses (`ERR_CLAIM_LOST`, nothing sent) unless
   * the claim is safely held right before each send; retries network failures while it is.
   * Rejects with `ERR_CLAIM_STALE` when the grantor refuses the token.
   *
   * With `claimNext: true` the same request also claims this worker's next item once the
   * completion took effect (one round trip instead of two), and the reply's `next` is that
   * `Claim`, or null: nothing was claimable, or the next claim failed (then `nextError` says
   * why; the completion stands either way).
   */
  complete(result = null, { claimNext = false } = {}) {
    return this.#settle("complete", { result }, claimNext);
  }

  /**
   * Gives the item back after a failed attempt: it is pending again, or dead-lettered after its
   * last allowed attempt. Resolves `{state, attempts, maxAttempts}`. Sent even when the claim is
   * no longer safely held, since the grantor's token check decides; rejects with
   * `ERR_CLAIM_STALE` when it refuses. `claimNext` as for `complete`.
   */
  fail(error, { claimNext = false } = {}) {
    return this.#settle("fail", { error: describeError(error) }, claimNext);
  }

  /**
   * Gives the item back unused, reported as a failed attempt so that it is claimable again at
   * once: for a claim that arrived after the worker loop was told to stop.
   */
  async [giveBack]() {
    this.#settled = true;
    await this.#holder.release();
  }

  async #settle(operation, body, claimNext) {
    if (this.#settled) throw new LeaseError("ERR_LEASE_USAGE", `claim ${this.token} is already settled`);
    this.#settled = true;
    const claimer = this.#claimer;
    const request = {
      queue: claimer.queue,
      itemId: this.item.id,
      worker: claimer.workerId,
      token: this.token,
      ...body,
    };
    // The next claim's holder: each attempt of this settlement is an attempt of its grant.
    const next = claimNext ? new ClaimAdapter(claimer.grantor, claimer.queue, { operation, request }) : null;
    const nextHolder = next === null ? null : claimHolder(claimer, next);
    // The core decides each step, told whether the claim is safely held right then: the last
    // I/O may have been long ago on this clock.
    const settlement = fromTheCore(() => new SettleCore(operation));
    // A claimNext attempt is its next claim's grant attempt, so the holder's request timeout
    // bounds it; one sent alone gets the same deadline here.
    const timeoutMs = fromTheCore(() =>
      claimSettleTimeoutMs(claimer.claimMs, claimer.marginMs, claimer.requestTimeoutMs),
    );
    const held = () => this.#holder.lease.isSafelyHeld();
    try {
      let step = settlement.attempt(held());
      for (;;) {
        if (step === "not_held") {
          throw new LeaseError(
            "ERR_CLAIM_LOST",
            `claim ${this.token} on item ${this.item.id} is not safely held; not sent`,
          );
        }
        if (step > 0) {
          await delay(step);
          step = settlement.attempt(held());
          continue;
        }
        try {
          if (next === null) return await settleAlone(claimer.grantor, operation, request, timeoutMs);
          return await settleAndClaimNext(claimer, next, nextHolder);
        } catch (error) {
          step = settlement.outcome(error, held());
          if (step === "stale") throw staleError(operation, error);
          if (typeof step !== "number") throw error;
        }
      }
    } finally {
      this.#adapter.ended = true;
      await this.#holder.release();
    }
  }
}

/** The LeaseHolder of one claim: its lease is the claim, its grantor the claim's adapter. */
function claimHolder(claimer, adapter) {
  const config = {
    resource: claimer.queue,
    holderId: claimer.workerId,
    leaseMs: claimer.claimMs,
    marginMs: claimer.marginMs,
  };
  if (claimer.requestTimeoutMs !== undefined) config.requestTimeoutMs = claimer.requestTimeoutMs;
  return new LeaseHolder(adapter, config);
}

/**
 * One attempt to take the claim `adapter` asks for: resolves a `Claim`, or null when nothing was
 * claimable; rejects with why the attempt failed.
 */
async function acquireClaim(claimer, adapter, holder, signal) {
  adapter.lastError = undefined;
  const outcome = await holder.acquire({ signal });
  if (outcome.acquired) return new Claim(claimer, holder, adapter, outcome.token);
  if (outcome.reason === "denied") return null;
  if (adapter.lastError !== undefined) throw adapter.lastError;
  const error = new LeaseError("ERR_GRANTOR", `claim failed: ${outcome.reason}`);
  error.kind = claimFailureKind(outcome.reason);
  throw error;
}

/**
 * One attempt of a settlement sent with `claimNext`: resolves its reply with `next` (a `Claim` or
 * null) once the settlement took effect, or rejects with why it did not, to be retried as any
 * settlement is.
 */
async function settleAndClaimNext(claimer, adapter, holder) {
  try {
    const next = await acquireClaim(claimer, adapter, holder);
    return { ...adapter.settled, next };
  } catch (error) {
    if (adapter.settled === undefined) throw error;
    // Settled, but the next claim is not one (malformed, too late, or claimed apart and failed):
    // never a claim, and the settlement stands.
    return { ...adapter.settled, next: null, nextError: error };
  }
}

/**
 * Claims work items from a queue of a grantor with the queue protocol (`HttpGrantor`), one
 * processing lease per item. See `process` for a ready-made worker loop.
 */
export class WorkClaimer {
  constructor(grantor, { queue, workerId, claimMs, marginMs, requestTimeoutMs } = {}) {
    for (const method of ["claim", "heartbeat", "complete", "fail"]) {
      if (typeof grantor?.[method] !== "function") {
        throw configError(`grantor.${method}`, "must be a function on the grantor");
      }
    }
    fromTheCore(() => checkClaimerNames(queue, workerId));
    const heartbeatMs = fromTheCore(() => claimHeartbeatMs(claimMs, marginMs, requestTimeoutMs));
    this.grantor = grantor;
    this.queue = queue;
    this.workerId = workerId;
    this.claimMs = claimMs;
    this.marginMs = marginMs;
    /** Heartbeats go out every `claimMs / 3`. */
    this.heartbeatIntervalMs = heartbeatMs;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /**
   * Claims the oldest claimable item: resolves a `Claim`, or null when nothing is claimable.
   * Rejects with an `ERR_GRANTOR` error when the grantor cannot be asked.
   */
  async claim({ signal } = {}) {
    const adapter = new ClaimAdapter(this.grantor, this.queue);
    return acquireClaim(this, adapter, claimHolder(this, adapter), signal);
  }

  /**
   * Runs a worker loop until `signal` aborts: up to `concurrency` items at a time, each claimed,
   * heartbeated every `claimMs / 3`, passed to `handler(item, {signal, token, claim})`, and then
   * completed with the handler's result or failed with its error. When nothing is claimable (or
   * the grantor cannot be reached) it backs off, from `idleDelayMs` doubling to
   * `idleDelayMaxMs`, calling `onIdle()` first. Each completion or failure also asks for the
   * slot's next item (`claimNext`), so an item costs one round trip, not two. On abort it claims
   * nothing more, gives back unprocessed a claim that arrives after the abort, and resolves, with
   * counts, once the items in hand are settled.
   */
  async process(
    handler,
    { concurrency, signal, idleDelayMs, idleDelayMaxMs, onIdle, onSettled } = {},
  ) {
    if (typeof handler !== "function") throw configError("handler", "must be a function");
    const slots = fromTheCore(() => processConcurrency(concurrency));
    const counts = { claimed: 0, completed: 0, failed: 0, lost: 0 };
    const report = (outcome) => {
      counts[outcome.status === "completed" ? "completed" : outcome.status === "failed" ? "failed" : "lost"]++;
      try {
        onSettled?.(outcome);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    };
    const slot = async () => {
      const idle = fromTheCore(() => new IdleCore(idleDelayMs, idleDelayMaxMs));
      // What the previous item's settlement brought: the next claim, null when it asked and got
      // none (nothing claimable, or the claim failed), undefined when it did not ask.
      let next;
      while (!signal?.aborted || next) {
        let claim = next ?? null;
        if (next === undefined) {
          try {
            // Not aborted by `signal`: a claim the grantor already made would be stranded until
            // it ran out. One that arrives after the abort is given back below.
            claim = await this.claim();
          } catch {
            // Unreachable or refused: back off as when idle; the next claim asks again.
          }
        }
        next = undefined;
        if (claim !== null && signal?.aborted) {
          // Stopping: a claim that arrived meanwhile (on its own or with the last settlement) is
          // given back unprocessed rather than worked on by a worker that is shutting down, so
          // the item is claimable again at once.
          await claim[giveBack]();
          break;
        }
        if (claim === null) {
          await onIdle?.();
          if (signal?.aborted) break;
          await delay(idle.nextWaitMs(), signal);
          continue;
        }
        idle.reset();
        counts.claimed++;
        // The next claim rides on this item's settlement unless the loop is stopping, when it
        // would be a claim to give back unused.
        const settled = await this.#run(handler, claim, () => !signal?.aborted);
        report(settled.outcome);
        next = settled.next;
      }
    };
    await Promise.all(Array.from({ length: slots }, slot));
    return counts;
  }

  /**
   * Handles and settles `claim`; resolves `{outcome, next}`: the next `Claim` or null when the
   * settlement asked for one (`wantsNext()` right before it is sent), else undefined.
   */
  async #run(handler, claim, wantsNext) {
    const { item, token } = claim;
    let result;
    try {
      result = await handler(item, { signal: claim.signal, token, claim });
    } catch (error) {
      const claimNext = wantsNext();
      try {
        const failed = await claim.fail(error, { claimNext });
        const outcome = { status: "failed", item, token, error, state: failed?.state };
        return { outcome, next: claimNext ? failed.next : undefined };
      } catch (failError) {
        return { outcome: { status: "lost", item, token, error: failError } };
      }
    }
    const claimNext = wantsNext();
    try {
      const completed = await claim.complete(result ?? null, { claimNext });
      return { outcome: { status: "completed", item, token, result }, next: claimNext ? completed.next : undefined };
    } catch (error) {
      return { outcome: { status: "lost", item, token, error } };
    }
  }
}
