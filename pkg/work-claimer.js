// WorkClaimer: the design's work claims. Each claim is a processing lease on one queue item, and
// every decision about it (when to claim, heartbeat, settle, retry, give back, wait while idle,
// whether the claim is safely held) is made by the core's claim machine, the same one the
// simulation drives, and the binding's `ClaimerCore` does the IO (grantor calls, their
// AbortControllers, one timer). This file turns its events into promises, `Claim` objects and
// the application's callbacks.

import { coreModule } from "./core.js";
import { LeaseError, fromCore } from "./errors.js";
import { ClaimerCore, checkClaimer, describeFailure, processConcurrency } from "./glue/tenure.js";

/** Calls into the core, loading it first; its errors become the package's `LeaseError`s. */
function fromTheCore(call) {
  coreModule();
  try {
    return call();
  } catch (error) {
    throw fromCore(error);
  }
}

function rethrowLater(error) {
  queueMicrotask(() => {
    throw error;
  });
}

/**
 * One call's slots on one `ClaimerCore`: each slot's `Claim` in hand and the settlement under
 * way. `onEvent(slot, event)` hears the events the claim and settlement handling leaves over.
 */
class Slots {
  #onEvent;
  slots = [];

  constructor(claimer, onEvent) {
    this.#onEvent = onEvent;
    this.core = fromTheCore(
      () => new ClaimerCore(claimer.grantor, claimer[OPTIONS], (index, event) => this.#event(index, event)),
    );
  }

  /** A new slot: `{index, oneShot, claim, settling}`. */
  add(oneShot, { idleDelayMs, idleDelayMaxMs } = {}) {
    const index = fromTheCore(() => this.core.addSlot(oneShot, idleDelayMs, idleDelayMaxMs));
    const slot = { index, oneShot, claim: null, settling: null };
    this.slots.push(slot);
    return slot;
  }

  #event(index, event) {
    try {
      const slot = this.slots[index];
      if (!claimEvent(this, slot, event)) this.#onEvent(slot, event);
    } catch (error) {
      rethrowLater(error);
    }
  }
}

/**
 * The events every call acts on the same way: a claim's loss and its settlement's end, and a next
 * claim a settlement waits for. Returns true when the event was that; else the caller's.
 */
function claimEvent(slots, slot, event) {
  const settling = slot.settling;
  switch (event.event) {
    case "claimed":
      slot.claim = new Claim(slots, slot, event.item, event.token);
      if (settling?.waitingNext) {
        slot.settling = null;
        settling.resolve({ ...settling.reply, next: slot.claim });
        return true;
      }
      return false;
    case "empty":
    case "claimFailed":
      if (!settling?.waitingNext) return false;
      slot.settling = null;
      settling.resolve(
        event.event === "empty"
          ? { ...settling.reply, next: null }
          : { ...settling.reply, next: null, nextError: fromCore(event.error) },
      );
      return true;
    case "lost":
      slot.claim?.[END](fromCore(event.error));
      return true;
    case "settled":
      settled(slot, event);
      return true;
    case "finished":
      return false;
    default:
      return true;
  }
}

/** A settlement ended: its claim's signal aborts, and its promise settles. */
function settled(slot, event) {
  const settling = slot.settling;
  if (settling === null) return;
  const claim = settling.claim;
  claim[END](new LeaseError("ERR_LEASE_RELEASED", "lease released"));
  if (slot.claim === claim) slot.claim = null;
  if (event.end !== "settled") {
    slot.settling = null;
    settling.reject(fromCore(event.error));
    return;
  }
  // The next claim's outcome follows when the settlement asked for one; the worker loop's slots
  // hand it to the loop instead.
  if (settling.claimNext && slot.oneShot) {
    settling.waitingNext = true;
    settling.reply = event.reply;
    return;
  }
  slot.settling = null;
  settling.resolve(event.reply);
}

/** A Claim's way to end its signal; not part of the package's API. */
const END = Symbol("end");
/** Where a WorkClaimer keeps its options for its cores; not part of the package's API. */
const OPTIONS = Symbol("options");

/**
 * One claimed item. Act on it only while `signal` is not aborted, and finish it with
 * `complete(result)` or `fail(error)`; without either, the claim keeps heartbeating until it is
 * lost.
 */
export class Claim {
  #slots;
  #slot;
  #controller = new AbortController();
  #settled = false;

  constructor(slots, slot, item, token) {
    this.#slots = slots;
    this.#slot = slot;
    /** `{id, payload, attempts, maxAttempts}` as the grantor handed it out. */
    this.item = item;
    /** The claim token: larger than every earlier claim's on this item. */
    this.token = token;
  }

  /** Aborts no later than the claim stops being safely held (and once it is settled). */
  get signal() {
    // Asking the core first delivers a loss whose timer has not fired yet.
    if (this.#inHand()) this.#slots.core.check(this.#slot.index);
    return this.#controller.signal;
  }

  /** Milliseconds left before the grantor may hand the item to another worker. */
  remainingMs() {
    return this.#slots.core.remainingMs(this.#slot.index, this.item.id, this.token);
  }

  /**
   * Whether more than the margin remains, judged on the clocks now. On workerd the clocks move
   * only at I/O, so ask after the I/O that ended a stretch of work, not during it.
   */
  isSafelyHeld() {
    return !this.#settled && this.#slots.core.safelyHeld(this.#slot.index, this.item.id, this.token);
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
    return this.#settle("fail", { error: fromTheCore(() => describeFailure(error)) }, claimNext);
  }

  [END](reason) {
    this.#controller.abort(reason);
  }

  #inHand() {
    return this.#slots.core.inHand(this.#slot.index, this.item.id, this.token);
  }

  #settle(operation, body, claimNext) {
    if (this.#settled || !this.#inHand()) {
      return Promise.reject(new LeaseError("ERR_LEASE_USAGE", `claim ${this.token} is already settled`));
    }
    this.#settled = true;
    return new Promise((resolve, reject) => {
      this.#slot.settling = { claim: this, claimNext, resolve, reject, waitingNext: false, reply: undefined };
      try {
        fromTheCore(() => this.#slots.core.settle(this.#slot.index, operation, body, claimNext));
      } catch (error) {
        this.#slot.settling = null;
        reject(error);
      }
    });
  }
}

/**
 * Claims work items from a queue of a grantor with the queue protocol (`HttpGrantor`), one
 * processing lease per item. See `process` for a ready-made worker loop.
 */
export class WorkClaimer {
  constructor(grantor, { queue, workerId, claimMs, marginMs, requestTimeoutMs } = {}) {
    const options = { queue, workerId, claimMs, marginMs, requestTimeoutMs };
    const heartbeatIntervalMs = fromTheCore(() => checkClaimer(grantor, options));
    this[OPTIONS] = options;
    this.grantor = grantor;
    this.queue = queue;
    this.workerId = workerId;
    this.claimMs = claimMs;
    this.marginMs = marginMs;
    /** Heartbeats go out every `claimMs / 3`. */
    this.heartbeatIntervalMs = heartbeatIntervalMs;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  /**
   * Claims the oldest claimable item: resolves a `Claim`, or null when nothing is claimable.
   * Rejects with an `ERR_GRANTOR` error when the grantor cannot be asked.
   */
  claim({ signal } = {}) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      let pending = true;
      const done = (settle, value) => {
        if (!pending) return;
        pending = false;
        signal?.removeEventListener("abort", onAbort);
        settle(value);
      };
      const slots = new Slots(this, (slot, event) => {
        if (event.event === "claimed") done(resolve, slot.claim);
        else if (event.event === "empty") done(resolve, null);
        else if (event.event === "claimFailed") done(reject, fromCore(event.error));
      });
      const slot = slots.add(true);
      // A claim the grantor makes after the abort is given back by the core.
      const onAbort = () => {
        slots.core.stop(slot.index);
        done(reject, signal.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      slots.core.start(slot.index);
    });
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
    if (typeof handler !== "function") {
      throw new LeaseError("ERR_LEASE_CONFIG", "handler must be a function", { field: "handler" });
    }
    const count = fromTheCore(() => processConcurrency(concurrency));
    const counts = { claimed: 0, completed: 0, failed: 0, lost: 0 };
    if (signal?.aborted) return counts;
    const report = (outcome) => {
      counts[outcome.status === "completed" ? "completed" : outcome.status === "failed" ? "failed" : "lost"]++;
      try {
        onSettled?.(outcome);
      } catch (error) {
        rethrowLater(error);
      }
    };
    let handling = 0;
    let finish;
    let fail;
    const finished = new Promise((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    const checkDone = () => {
      if (handling === 0 && slots.core.finished) finish(counts);
    };
    const stopAll = () => {
      for (const slot of slots.slots) slots.core.stop(slot.index);
      checkDone();
    };
    const idle = async (slot) => {
      // The core's idle wait starts once onIdle is done, and no claim goes out meanwhile.
      slots.core.pause(slot.index, true);
      try {
        await onIdle?.();
      } catch (error) {
        stopAll();
        fail(error);
        return;
      } finally {
        slots.core.pause(slot.index, false);
      }
      slots.core.idleBegins(slot.index);
    };
    const slots = new Slots(this, (slot, event) => {
      if (event.event === "claimed") {
        counts.claimed++;
        handling++;
        run(handler, slot.claim).then((outcome) => {
          handling--;
          report(outcome);
          checkDone();
        });
      } else if (event.event === "empty" || event.event === "claimFailed") {
        void idle(slot);
      }
      checkDone();
    });
    for (let n = 0; n < count; n++) slots.add(false, { idleDelayMs, idleDelayMaxMs });
    signal?.addEventListener("abort", stopAll, { once: true });
    for (const slot of slots.slots) slots.core.start(slot.index);
    try {
      return await finished;
    } finally {
      signal?.removeEventListener("abort", stopAll);
    }
  }
}

/**
 * Handles and settles `claim`, asking for the slot's next item with the settlement (the core asks
 * for none once the loop is stopping); resolves how the item ended.
 */
async function run(handler, claim) {
  const { item, token } = claim;
  let result;
  try {
    result = await handler(item, { signal: claim.signal, token, claim });
  } catch (error) {
    try {
      const failed = await claim.fail(error, { claimNext: true });
      return { status: "failed", item, token, error, state: failed?.state };
    } catch (failError) {
      return { status: "lost", item, token, error: failError };
    }
  }
  try {
    await claim.complete(result ?? null, { claimNext: true });
    return { status: "completed", item, token, result };
  } catch (error) {
    return { status: "lost", item, token, error };
  }
}
