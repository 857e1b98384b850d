// TabLease: one active tab (or worker) per name, across the tabs of one browser profile; and
// FencedStore, values fenced by the name's epochs.
//
// The election, its IO (Web Locks, IndexedDB, BroadcastChannel, the heartbeat worker, the page's
// lifecycle) and the mirror of the hold on this context's clocks are the WebAssembly core's
// (TabLeaseCore, FencedStoreCore). These classes add what JavaScript callers need: promises and
// AbortSignals, the callbacks, `await using`, and LeaseError.

import { LeaseError, fromCore } from "./errors.js";
import { coreModule } from "./core.js";
import { FencedStoreCore, TabLeaseCore } from "./glue/tenure.js";
import TAB_WORKER_SOURCE from "./glue/tab-worker-source.js";

/** Core objects are made here, so the first one loads the core (see core.js). */
function construct(make) {
  const module = coreModule();
  try {
    return make(module);
  } catch (error) {
    throw fromCore(error);
  }
}

function rethrow(error) {
  throw fromCore(error);
}

function rethrowLater(error) {
  queueMicrotask(() => {
    throw error;
  });
}

function closedError() {
  return new LeaseError("ERR_TAB_CLOSED", "this TabLease was closed");
}

/**
 * One active tab per `name`: exclusive, handed off at once when the active tab closes, taken
 * over within about `leaseMs` when it freezes or hangs, and fenced by an epoch that increases
 * with every hold.
 */
export class TabLease {
  #core;
  /** Aborted when the hold ends; null while not active. */
  #hold = null;
  #ended = AbortSignal.abort(new LeaseError("ERR_LEASE_NOT_HELD", "this tab is not active"));
  #broken = null;
  #waiters = new Set();
  #store = null;
  /** The iterators of `observe()` still open. */
  #observers = new Set();

  /** Called with `{epoch, grantorToken, signal}` when this tab becomes the active one. */
  onActive = null;
  /** Called with the reason when this tab stops being the active one. */
  onInactive = null;
  /** Called with `{holder, epoch, since}` whenever the holder changes, as this tab sees it. */
  onHolderChange = null;

  constructor(name, options = {}) {
    this.#core = construct(
      (module) => new TabLeaseCore(name, options, TAB_WORKER_SOURCE, module, (kind, a, b) => this.#on(kind, a, b)),
    );
    this.onActive = options?.onActive ?? null;
    this.onInactive = options?.onInactive ?? null;
    this.onHolderChange = options?.onHolderChange ?? null;
  }

  /** This instance's id, as every tab names the holder (`holder.tabId`). */
  get tabId() {
    return this.#core.tabId;
  }

  /**
   * Who holds the role, as this tab last saw it: `{tabId, epoch, since}`, or null while nobody
   * does (or before this tab read the log, just after construction). `since` is when this tab
   * learned of it (ms since the epoch).
   */
  get holder() {
    const change = this.#core.holder;
    return change?.holder == null ? null : { tabId: change.holder, epoch: change.epoch, since: change.since };
  }

  /**
   * The changes of holder as this tab sees them, `{holder, epoch, since}` (`holder`: a tab id,
   * or null when the hold `epoch` ended), starting with the current one; in epoch order, never
   * an older holder after a newer one. Ends when `signal` aborts or the TabLease closes.
   */
  observe({ signal } = {}) {
    const queue = [];
    let ended = this.#core.closed || signal?.aborted === true;
    let wake = null;
    const observer = {
      push(change) {
        queue.push(change);
        wake?.();
      },
      end() {
        ended = true;
        queue.length = 0;
        wake?.();
      },
    };
    const onAbort = () => observer.end();
    const finish = () => {
      this.#observers.delete(observer);
      signal?.removeEventListener("abort", onAbort);
    };
    if (!ended) {
      const current = this.#core.holder;
      if (current !== undefined) queue.push(current);
      this.#observers.add(observer);
      signal?.addEventListener("abort", onAbort, { once: true });
    }
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      async next() {
        while (queue.length === 0 && !ended) await new Promise((resolve) => (wake = resolve));
        wake = null;
        if (queue.length > 0) return { value: queue.shift(), done: false };
        finish();
        return { value: undefined, done: true };
      },
      async return() {
        observer.end();
        finish();
        return { value: undefined, done: true };
      },
    };
  }

  /** The role's name. */
  get name() {
    return this.#core.name;
  }

  /** Heartbeat lease duration, in ms. */
  get leaseMs() {
    return this.#core.leaseMs;
  }

  /** Stop believing with this much of the lease left, in ms. */
  get marginMs() {
    return this.#core.marginMs;
  }

  /** How often the active tab writes its heartbeat, in ms. */
  get renewIntervalMs() {
    return this.#core.renewIntervalMs;
  }

  /** `"worker"` (a dedicated worker beats, immune to main-thread timer throttling) or `"inline"`. */
  get heartbeat() {
    return this.#core.heartbeat;
  }

  /** `"web-locks"`, or `"lease"` where Web Locks are missing or disabled. */
  get mode() {
    return this.#core.mode;
  }

  /** `"idle"`, `"waiting"` (a candidate), `"active"` or `"closed"`. */
  get state() {
    return this.#core.state;
  }

  /** Whether this tab is the active one now, judged on this context's clocks at each read. */
  get isActive() {
    return this.#core.isActive;
  }

  /** The epoch of the current or most recent hold (a fencing token), or null before any. */
  get epoch() {
    return this.#core.epoch ?? null;
  }

  /** In global mode, the grantor's token of the current or most recent grant, else null. */
  get grantorToken() {
    return this.#core.grantorToken ?? null;
  }

  /** Aborts when this tab stops being active; already aborted while it is not. */
  get signal() {
    return this.#core.isActive ? this.#hold.signal : this.#ended;
  }

  /** Throws a LeaseError (`ERR_LEASE_NOT_HELD`) unless this tab is active right now. */
  assertActive() {
    if (!this.isActive) {
      throw new LeaseError("ERR_LEASE_NOT_HELD", `tab lease "${this.name}" is not held by this tab`);
    }
  }

  /**
   * Becomes a candidate and resolves `{epoch, grantorToken}` once this tab is active. Aborting
   * `signal` rejects with its reason and, unless the tab is active, withdraws the candidacy.
   */
  acquire({ signal } = {}) {
    if (this.#core.closed) return Promise.reject(closedError());
    if (this.#broken !== null) return Promise.reject(this.#broken);
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#core.join();
    if (this.isActive) return Promise.resolve(this.#grant());
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, signal, onAbort: null };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          this.#waiters.delete(waiter);
          reject(signal.reason);
          if (this.#waiters.size === 0 && this.#hold === null) this.#core.abandon();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.#waiters.add(waiter);
    });
  }

  /**
   * Steps down (if active) and withdraws the candidacy; resolves once the role is free for the
   * next tab. `acquire()` again to rejoin.
   */
  async release() {
    await this.#core.release();
  }

  /**
   * Releases, stops the heartbeat worker and removes every listener. The instance is `"closed"`
   * from the call on; the promise resolves once the role is free and the worker stopped.
   */
  async close() {
    const closing = this.#core.close();
    if (closing === undefined) return;
    this.#settleWaiters((waiter) => waiter.reject(closedError()));
    for (const observer of this.#observers) observer.end();
    this.#observers.clear();
    await closing;
  }

  /** `await using tab = new TabLease(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose")]() {
    return this.close();
  }

  /**
   * Runs `handler(args)` for every `call(name, args)` any tab of this name makes while this tab
   * is active (its result, or what it throws, is the answer). Returns a function that
   * unregisters it.
   */
  handle(name, handler) {
    if (typeof handler !== "function") {
      throw new LeaseError("ERR_LEASE_USAGE", "handle(name, handler) needs a function", { field: "handler" });
    }
    try {
      this.#core.handle(name, handler);
    } catch (error) {
      rethrow(error);
    }
    return () => this.#core.unhandle(name, handler);
  }

  /**
   * Calls the active tab's handler for `name` with `args` (structured-cloned), from any tab,
   * this one included, and resolves its answer. Rejects with a LeaseError:
   * `ERR_TAB_LEADER_CHANGED` (retryable) when the active tab changed before it answered,
   * `ERR_TAB_CALL_TIMEOUT` when no active tab answered within `timeoutMs` (default 10 000),
   * `ERR_TAB_CALL_FAILED` with the handler's message, `ERR_TAB_NO_HANDLER`; or with `signal`'s
   * reason.
   */
  call(name, args, { signal, timeoutMs } = {}) {
    if (this.#core.closed) return Promise.reject(closedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    let started;
    try {
      started = this.#core.call(name, args, timeoutMs);
    } catch (error) {
      return Promise.reject(fromCore(error));
    }
    const [promise, id] = started;
    const answer = promise.catch(rethrow);
    if (signal === undefined) return answer;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#core.cancelCall(id);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      answer.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  /**
   * Hands the role over: this tab steps down (`onInactive("handed_off")`, its signal aborts with
   * `ERR_LEASE_RELEASED`), stays a candidate, and the tab `toTabId` (or, without one, the
   * candidate that has waited longest) is active next with a new epoch. A named tab must say it
   * is a candidate of this name first, else nothing is handed over and this rejects with
   * `ERR_TAB_HANDOFF_TARGET`; `ERR_LEASE_NOT_HELD` unless this tab is active.
   */
  handOff(toTabId) {
    if (this.#core.closed) return Promise.reject(closedError());
    return this.#core.handOff(toTabId).catch(rethrow);
  }

  /** Writes `value` under `key` in this name's FencedStore with this tab's epoch. */
  fencedWrite(key, value) {
    if (this.epoch === null) {
      return Promise.reject(new LeaseError("ERR_LEASE_NOT_HELD", "this tab has never been active"));
    }
    return this.#fencedStore().write(key, value, this.epoch);
  }

  /** Reads `key` from this name's FencedStore. */
  fencedRead(key) {
    return this.#fencedStore().read(key);
  }

  #fencedStore() {
    this.#store ??= new FencedStore(this.name);
    return this.#store;
  }

  #grant() {
    return { epoch: this.epoch, grantorToken: this.grantorToken };
  }

  #settleWaiters(settle) {
    for (const waiter of this.#waiters) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      settle(waiter);
    }
    this.#waiters.clear();
  }

  /** What the core tells: this tab became active, stopped being active, or cannot take part. */
  #on(kind, a, b) {
    if (kind === "active") {
      this.#hold = new AbortController();
      const grant = { epoch: a, grantorToken: b };
      this.#settleWaiters((waiter) => waiter.resolve(grant));
      try {
        this.onActive?.({ ...grant, signal: this.#hold.signal });
      } catch (error) {
        rethrowLater(error);
      }
    } else if (kind === "inactive") {
      // The core says which reasons are the tab's own choice: the signal says "released", not "lost".
      const error = b
        ? new LeaseError("ERR_LEASE_RELEASED", `tab lease released: ${a}`, { reason: a })
        : new LeaseError("ERR_LEASE_LOST", `tab lease lost: ${a}`, { reason: a });
      const hold = this.#hold;
      this.#hold = null;
      this.#ended = AbortSignal.abort(error);
      hold?.abort(error);
      try {
        this.onInactive?.(a);
      } catch (thrown) {
        rethrowLater(thrown);
      }
    } else if (kind === "holder") {
      for (const observer of this.#observers) observer.push(a);
      try {
        this.onHolderChange?.(a);
      } catch (error) {
        rethrowLater(error);
      }
    } else if (kind === "failed") {
      this.#broken = fromCore(a);
      this.#settleWaiters((waiter) => waiter.reject(this.#broken));
    }
  }
}

/**
 * Values in IndexedDB fenced by a TabLease name's epochs: a write is accepted only with the
 * newest epoch granted for the name (checked just before), and never after a write with a newer
 * one (checked in the same transaction as the write), so a tab that lost the role, even one that
 * was frozen through the takeover, can no longer write.
 */
export class FencedStore {
  #core;

  constructor(name) {
    this.#core = construct(() => new FencedStoreCore(name));
  }

  /** The TabLease name whose epochs fence this store. */
  get name() {
    return this.#core.name;
  }

  /**
   * Writes `value` (anything structured-cloneable) under `key` (any IndexedDB key) if `epoch` is
   * the newest epoch of the name. Resolves `{accepted, epoch}`, `epoch` being the newest one.
   */
  write(key, value, epoch) {
    return this.#core.write(key, value, epoch).catch(rethrow);
  }

  /** Resolves `{value, epoch}` (the epoch that wrote it), or null when `key` was never written. */
  read(key) {
    return this.#core.read(key).catch(rethrow);
  }
}
