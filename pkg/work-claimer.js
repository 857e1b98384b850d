// WorkClaimer: the design's work claims. Each claim is a processing lease on one queue item, and
// every decision about it (when to claim, heartbeat, settle, retry, give back, wait while idle,
// whether the claim is safely held) is made by the core's claim machine, the same one the
// simulation drives: one `ClaimCore` per worker slot. This file does the IO: the grantor calls
// (each with its own AbortController), one timer, and the promises and signals of the API.

import { coreModule } from "./core.js";
import { LeaseError, fromCore } from "./errors.js";
import { MAX_ERROR_BYTES } from "./protocol.js";
import { ClaimCore, checkClaimerNames, claimHeartbeatMs, processConcurrency } from "./glue/tenure.js";

// Failure reports are stored with the item: each text of one is cut to this many characters.
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
  let described;
  if (error instanceof Error || (typeof error === "object" && error !== null && "message" in error)) {
    described = {
      name: cut(String(error.name ?? "Error"), MAX_ERROR_TEXT),
      message: cut(String(error.message), MAX_ERROR_TEXT),
    };
    if (typeof error.code === "string") described.code = cut(error.code, MAX_ERROR_TEXT);
  } else {
    try {
      const text = JSON.stringify(error);
      if (text !== undefined && text.length <= MAX_ERROR_TEXT) described = error;
    } catch {
      // Not JSON (cycles, BigInt): fall through to its string form.
    }
    described ??= cut(String(error), MAX_ERROR_TEXT);
  }
  // The grantor refuses an error over MAX_ERROR_BYTES as stored, and escaping can make a text up
  // to six times longer (control characters): halve the texts until it fits, so that a failure
  // is never refused for its description.
  while (storedBytes(described) > MAX_ERROR_BYTES) {
    if (typeof described === "string") described = halve(described);
    else if (typeof described === "object" && described !== null && "message" in described) {
      described = { ...described, name: halve(described.name), message: halve(described.message) };
      if (described.code !== undefined) described.code = halve(described.code);
    } else described = halve(String(JSON.stringify(described)));
  }
  return described;
}

const utf8 = new TextEncoder();

/** The bytes `value` takes as JSON text, as the grantor stores it (no whitespace). */
function storedBytes(value) {
  return utf8.encode(JSON.stringify(value)).length;
}

function halve(text) {
  return cut(text, Math.floor(text.length / 2));
}

/**
 * The first `length` UTF-16 units of `text`, never ending inside a character, and with any lone
 * surrogate replaced: the grantor's JSON parser refuses an escaped lone surrogate.
 */
function cut(text, length) {
  let kept = text.slice(0, length);
  const last = kept.charCodeAt(kept.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept = kept.slice(0, -1);
  return kept.toWellFormed?.() ?? kept;
}

/** Errors from the core's glue become the package's, with their `kind`; others pass unchanged. */
function asError(error) {
  const converted = fromCore(error);
  if (converted !== error && error.kind !== undefined) converted.kind = error.kind;
  return converted;
}

function rethrowLater(error) {
  queueMicrotask(() => {
    throw error;
  });
}

/** The `fail` a claim given back unused is reported as, so its item is claimable at once. */
const RELEASED = { name: "ClaimReleased", message: "the claim was given back unused" };

/**
 * Runs claim cores: sends what they ask with one AbortController per request, feeds the
 * outcomes back, and keeps one timer armed for the earliest core deadline. `onEvent(slot, event)`
 * hears each slot's events, and `afterwards()` runs once a slot's outputs are acted on; a slot
 * whose `paused` is set gets no timeouts.
 */
class Driver {
  #claimer;
  #onEvent;
  #afterwards;
  #timer = null;
  #due = Infinity;
  slots = [];

  constructor(claimer, onEvent, afterwards = () => {}) {
    this.#claimer = claimer;
    this.#onEvent = onEvent;
    this.#afterwards = afterwards;
  }

  /** A slot on a new core: `{core, oneShot, inFlight, claim, settling, paused}`. */
  add(oneShot, { idleDelayMs, idleDelayMaxMs } = {}) {
    const c = this.#claimer;
    const core = fromTheCore(
      () => new ClaimCore(c.workerId, c.claimMs, c.marginMs, c.requestTimeoutMs, idleDelayMs, idleDelayMaxMs, oneShot),
    );
    const slot = { core, oneShot, inFlight: new Map(), claim: null, settling: null, paused: false };
    this.slots.push(slot);
    return slot;
  }

  /** Runs `command` on the slot's core, then acts on what it asks. */
  run(slot, command) {
    try {
      return fromTheCore(() => command(slot.core));
    } finally {
      this.pump(slot);
    }
  }

  /** Acts on every output of the slot's core, then re-arms the timer. */
  pump(slot) {
    for (;;) {
      const output = slot.core.pollOutput();
      if (output === undefined) break;
      if (output.send !== undefined) this.#send(slot, output.send);
      else if (output.abandon !== undefined) {
        const request = slot.inFlight.get(output.abandon);
        slot.inFlight.delete(output.abandon);
        request?.controller.abort();
      } else {
        try {
          this.#onEvent(slot, output);
        } catch (error) {
          rethrowLater(error);
        }
      }
    }
    this.#arm();
    this.#afterwards();
  }

  #send(slot, send) {
    const c = this.#claimer;
    const controller = new AbortController();
    const { signal } = controller;
    const claim = { queue: c.queue, itemId: send.itemId, worker: c.workerId, token: send.token };
    let method;
    let args;
    switch (send.kind) {
      case "claim":
        method = "claim";
        args = { queue: c.queue, worker: c.workerId, claimMs: send.claimMs, requestId: send.requestId, signal };
        break;
      case "heartbeat":
        method = "heartbeat";
        args = { ...claim, claimMs: send.claimMs, signal };
        break;
      case "settle":
        method = send.operation;
        args = { ...claim, ...send.body, signal };
        if (send.claimNext !== undefined) args.claimNext = send.claimNext;
        break;
      default:
        method = "fail";
        args = { ...claim, error: RELEASED, signal };
    }
    // In flight before the call: the grantor object may stop the loop from inside it.
    slot.inFlight.set(send.id, { controller, kind: send.kind });
    let promise;
    try {
      promise = Promise.resolve(c.grantor[method](args));
    } catch (error) {
      promise = Promise.reject(error);
    }
    const answer = (ok, value) => {
      // An abandoned request's outcome is nobody's business any more.
      if (!slot.inFlight.delete(send.id)) return;
      if (send.kind === "claim") slot.core.claimReply(send.id, ok, value);
      else if (send.kind === "heartbeat") slot.core.heartbeatReply(send.id, ok, value);
      else if (send.kind === "settle") slot.core.settleReply(send.id, ok, value);
      this.pump(slot);
    };
    promise.then(
      (value) => answer(true, value),
      (error) => answer(false, error),
    );
  }

  /** Delivers whatever is due now on the slot's core: a loss whose timer has not fired yet. */
  check(slot) {
    slot.core.timeout();
    this.pump(slot);
  }

  #arm() {
    let wait = Infinity;
    for (const slot of this.slots) {
      const ms = slot.paused ? undefined : slot.core.pollTimeoutMs();
      if (ms !== undefined) wait = Math.min(wait, ms);
    }
    const due = performance.now() + wait;
    if (this.#timer !== null && Math.abs(due - this.#due) < 1) return;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#due = due;
    if (wait === Infinity) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      for (const slot of this.slots) {
        if (!slot.paused) slot.core.timeout();
      }
      for (const slot of this.slots) this.pump(slot);
      this.#arm();
    }, Math.max(0, Math.ceil(wait)));
  }

  /** Whether every slot is stopped with nothing in flight. */
  get finished() {
    return this.slots.every((slot) => slot.core.stopped && slot.inFlight.size === 0);
  }
}

/**
 * The events every driver acts on the same way: a claim's loss and its settlement's end, and a
 * next claim a settlement waits for. Returns true when the event was that; else the caller's.
 */
function claimEvent(driver, slot, event) {
  const settling = slot.settling;
  switch (event.event) {
    case "claimed":
      slot.claim = new Claim(driver, slot, event.item, event.token);
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
          : { ...settling.reply, next: null, nextError: asError(event.error) },
      );
      return true;
    case "lost":
      slot.claim?.[END](new LeaseError("ERR_LEASE_LOST", `lease lost: ${event.reason}`, { reason: event.reason }));
      return true;
    case "settled":
      settled(slot, event);
      return true;
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
  // The core ignores any reply to the settled claim's heartbeats: stop waiting for them.
  for (const [id, request] of slot.inFlight) {
    if (request.kind !== "heartbeat") continue;
    slot.inFlight.delete(id);
    request.controller.abort();
  }
  if (slot.claim === claim) slot.claim = null;
  if (event.end === "settled") {
    const reply = event.reply;
    // The next claim's outcome follows when the settlement asked for one; the worker loop's
    // slots hand it to the loop instead.
    if (settling.claimNext && slot.oneShot) {
      settling.waitingNext = true;
      settling.reply = reply;
      return;
    }
    slot.settling = null;
    settling.resolve(reply);
    return;
  }
  slot.settling = null;
  if (event.end === "not_held") {
    settling.reject(
      new LeaseError("ERR_CLAIM_LOST", `claim ${claim.token} on item ${claim.item.id} is not safely held; not sent`),
    );
  } else if (event.end === "stale") {
    settling.reject(
      new LeaseError("ERR_CLAIM_STALE", `${event.operation}: the grantor no longer holds this claim`, { cause: event.error }),
    );
  } else {
    settling.reject(asError(event.error));
  }
}

/** A Claim's way to end its signal; not part of the package's API. */
const END = Symbol("end");

/**
 * One claimed item. Act on it only while `signal` is not aborted, and finish it with
 * `complete(result)` or `fail(error)`; without either, the claim keeps heartbeating until it is
 * lost.
 */
export class Claim {
  #driver;
  #slot;
  #controller = new AbortController();
  #settled = false;

  constructor(driver, slot, item, token) {
    this.#driver = driver;
    this.#slot = slot;
    /** `{id, payload, attempts, maxAttempts}` as the grantor handed it out. */
    this.item = item;
    /** The claim token: larger than every earlier claim's on this item. */
    this.token = token;
  }

  /** Aborts no later than the claim stops being safely held (and once it is settled). */
  get signal() {
    // Asking the core first delivers a loss whose timer has not fired yet.
    if (this.#current()) this.#driver.check(this.#slot);
    return this.#controller.signal;
  }

  /** Milliseconds left before the grantor may hand the item to another worker. */
  remainingMs() {
    return this.#current() ? this.#slot.core.remainingMs() : 0;
  }

  /**
   * Whether more than the margin remains, judged on the clocks now. On workerd the clocks move
   * only at I/O, so ask after the I/O that ended a stretch of work, not during it.
   */
  isSafelyHeld() {
    return !this.#settled && this.#current() && this.#slot.core.safelyHeld();
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

  [END](reason) {
    this.#controller.abort(reason);
  }

  #current() {
    const core = this.#slot.core;
    return core.itemId === this.item.id && core.token === this.token;
  }

  #settle(operation, body, claimNext) {
    if (this.#settled || !this.#current()) {
      return Promise.reject(new LeaseError("ERR_LEASE_USAGE", `claim ${this.token} is already settled`));
    }
    this.#settled = true;
    return new Promise((resolve, reject) => {
      this.#slot.settling = { claim: this, claimNext, resolve, reject, waitingNext: false, reply: undefined };
      try {
        this.#driver.run(this.#slot, (core) => core[operation](body, claimNext));
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
      const driver = new Driver(this, (slot, event) => {
        if (claimEvent(driver, slot, event)) return;
        if (event.event === "claimed") done(resolve, slot.claim);
        else if (event.event === "empty") done(resolve, null);
        else done(reject, asError(event.error));
      });
      const slot = driver.add(true);
      // A claim the grantor makes after the abort is given back by the core.
      const onAbort = () => {
        driver.run(slot, (core) => core.stop());
        done(reject, signal.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      driver.run(slot, (core) => core.start());
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
    if (typeof handler !== "function") throw configError("handler", "must be a function");
    const slots = fromTheCore(() => processConcurrency(concurrency));
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
    const stopAll = () => {
      for (const slot of driver.slots) driver.run(slot, (core) => core.stop());
    };
    const checkDone = () => {
      if (handling === 0 && driver.finished) finish(counts);
    };
    const idle = async (slot) => {
      // The core's idle wait starts once onIdle is done, and no claim goes out meanwhile.
      slot.paused = true;
      try {
        await onIdle?.();
      } catch (error) {
        stopAll();
        fail(error);
        return;
      } finally {
        slot.paused = false;
      }
      driver.run(slot, (core) => core.idleBegins());
    };
    const driver = new Driver(
      this,
      (slot, event) => {
        if (claimEvent(driver, slot, event)) return;
        if (event.event !== "claimed") return void idle(slot);
        counts.claimed++;
        handling++;
        run(handler, slot.claim).then((outcome) => {
          handling--;
          report(outcome);
          checkDone();
        });
      },
      () => checkDone(),
    );
    for (let n = 0; n < slots; n++) driver.add(false, { idleDelayMs, idleDelayMaxMs });
    signal?.addEventListener("abort", stopAll, { once: true });
    for (const slot of driver.slots) driver.run(slot, (core) => core.start());
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
