// TabLease: one active tab (or worker) per name, across the tabs of one browser profile.
//
// Web Locks give exclusivity and an instant handoff when the holder closes, navigates or
// crashes; a heartbeat lease on a shared IndexedDB log bounds how long a frozen or hung holder
// can keep the role; every hold gets a larger epoch, and FencedStore rejects writes from any
// older one. The heartbeat runs in a dedicated worker (see tab-engine.js); this side mirrors the
// hold on its own clocks, so `isActive` and `signal` never trust a late message or timer.

import { LeaseHolder } from "./api.js";
import { LeaseError } from "./errors.js";
import { FENCED, NAME_PREFIX, TabEngine, latestEntry, makeCore, storageError, transact } from "./tab-engine.js";
import { coreModule } from "./core.js";
import { PageHoldCore, checkTabName, tabDefaults } from "./glue/tenure.js";
import TAB_WORKER_SOURCE from "./glue/tab-worker-source.js";

let workerUrl = null;

/**
 * One Blob URL per page for the heartbeat worker's script (tab-worker.js bundled whole by
 * scripts/build), kept for the page's life: every TabLease of the page starts its worker from it.
 */
function heartbeatWorkerUrl() {
  workerUrl ??= URL.createObjectURL(new Blob([TAB_WORKER_SOURCE], { type: "text/javascript" }));
  return workerUrl;
}

const perf = globalThis.performance;



function missingFeatures() {
  const missing = [];
  if (typeof globalThis.indexedDB?.open !== "function") missing.push("indexedDB");
  if (typeof globalThis.crypto?.getRandomValues !== "function") missing.push("crypto.getRandomValues");
  return missing;
}

function assertSupported(what) {
  const missing = missingFeatures();
  if (missing.length > 0) {
    const error = new LeaseError(
      "ERR_TAB_UNSUPPORTED",
      `${what} needs ${missing.join(" and ")}, which this runtime lacks`,
    );
    error.missing = missing;
    throw error;
  }
}

/** A role name the core accepts (non-empty, bounded: it is part of every key). */
function checkedName(name) {
  makeCore(() => checkTabName(name));
  return name;
}

function randomId(prefix) {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const NO_GRANTOR = { grant: () => ({ granted: false }), renew: () => ({ renewed: false }) };

/** Validates lease timings by the core's own rules; returns the resolved renew interval. */
function checkedTimings(config, prefix) {
  try {
    return new LeaseHolder(NO_GRANTOR, { resource: "check", holderId: "check", ...config })
      .renewIntervalMs;
  } catch (error) {
    if (error?.code === "ERR_LEASE_CONFIG" && prefix !== "") {
      throw new LeaseError("ERR_LEASE_CONFIG", `${prefix}: ${error.message}`, {
        field: `${prefix}.${error.field}`,
      });
    }
    throw error;
  }
}

function rethrowLater(error) {
  queueMicrotask(() => {
    throw error;
  });
}

function closedError() {
  return new LeaseError("ERR_TAB_CLOSED", "this TabLease was closed");
}

function endReason(reason) {
  // The core says which reasons are the tab's own choice: the signal says "released", not "lost".
  if (PageHoldCore.endedVoluntarily(reason)) {
    return new LeaseError("ERR_LEASE_RELEASED", `tab lease released: ${reason}`, { reason });
  }
  return new LeaseError("ERR_LEASE_LOST", `tab lease lost: ${reason}`, { reason });
}

/** Serializes an error for the worker: it arrives as a LeaseError with the same fields. */
function plainError(error) {
  const plain = { message: String(error?.message ?? error) };
  for (const field of ["code", "kind", "status", "grantorCode", "retryAfterMs"]) {
    if (error?.[field] !== undefined) plain[field] = error[field];
  }
  return plain;
}

/**
 * One active tab per `name`: exclusive, handed off at once when the active tab closes, taken
 * over within about `leaseMs` when it freezes or hangs, and fenced by an epoch that increases
 * with every hold.
 */
export class TabLease {
  #name;
  #config;
  #heartbeat;
  #mode;
  #grantor = null;
  #transport = null;
  #ready = false;
  #queue = [];
  #closed = false;
  #broken = null;
  #candidate = false;
  #rejoin = false;
  #epoch = null;
  #grantorToken = null;
  /** The role and (global mode) grantor lease reported, mirrored on this side's clocks. */
  #page;
  #mirrorTimer = null;
  #hold = null;
  #ended;
  #waiters = new Set();
  #leaving = [];
  #closing = [];
  #calls = new Map();
  #unlisten = [];
  #store = null;

  /** Called with `{epoch, grantorToken, signal}` when this tab becomes the active one. */
  onActive = null;
  /** Called with the reason when this tab stops being the active one. */
  onInactive = null;

  constructor(name, options = {}) {
    this.#name = checkedName(name);
    const defaults = makeCore(() => tabDefaults());
    const {
      leaseMs = defaults.leaseMs,
      marginMs = defaults.marginMs,
      renewIntervalMs,
      heartbeat,
      webLocks = true,
      global = null,
      onActive = null,
      onInactive = null,
    } = options;
    const renewEvery = checkedTimings({ leaseMs, marginMs, renewIntervalMs }, "");

    const inWindow = typeof globalThis.document !== "undefined";
    this.#heartbeat = heartbeat ?? (inWindow && typeof globalThis.Worker === "function" ? "worker" : "inline");
    if (this.#heartbeat !== "worker" && this.#heartbeat !== "inline") {
      throw new LeaseError("ERR_LEASE_CONFIG", 'heartbeat must be "worker" or "inline"', {
        field: "heartbeat",
      });
    }
    if (this.#heartbeat === "worker" && typeof globalThis.Worker !== "function") {
      throw new LeaseError("ERR_LEASE_CONFIG", "heartbeat: Worker is not available here", {
        field: "heartbeat",
      });
    }

    let globalConfig = null;
    if (global !== null && global !== undefined) {
      const { grantor, resource, holderId, ...timings } = global;
      if (typeof grantor?.grant !== "function" || typeof grantor?.renew !== "function") {
        throw new LeaseError("ERR_LEASE_CONFIG", "global.grantor must be a grantor such as HttpGrantor", {
          field: "global.grantor",
        });
      }
      if (typeof resource !== "string" || resource.length === 0) {
        throw new LeaseError("ERR_LEASE_CONFIG", "global.resource must be a non-empty string", {
          field: "global.resource",
        });
      }
      if (holderId !== undefined && (typeof holderId !== "string" || holderId.length === 0)) {
        throw new LeaseError("ERR_LEASE_CONFIG", "global.holderId must be a non-empty string", {
          field: "global.holderId",
        });
      }
      const globalRenew = checkedTimings(timings, "global");
      this.#grantor = grantor;
      globalConfig = { ...timings, renewIntervalMs: globalRenew, resource };
      if (holderId !== undefined) globalConfig.holderId = holderId;
    }

    assertSupported("TabLease");
    this.#config = {
      name: this.#name,
      instanceId: randomId("tab-"),
      leaseMs,
      marginMs,
      renewIntervalMs: renewEvery,
      webLocks: webLocks !== false,
      global: globalConfig,
    };
    this.#mode =
      webLocks !== false && typeof globalThis.navigator?.locks?.request === "function" ? "web-locks" : "lease";
    this.#page = makeCore(() => new PageHoldCore(leaseMs, marginMs, globalConfig));
    this.#ended = AbortSignal.abort(new LeaseError("ERR_LEASE_NOT_HELD", "this tab is not active"));
    this.onActive = onActive;
    this.onInactive = onInactive;
    if (inWindow) this.#listenToLifecycle();
  }

  /** The role's name. */
  get name() {
    return this.#name;
  }

  /** Heartbeat lease duration, in ms. */
  get leaseMs() {
    return this.#config.leaseMs;
  }

  /** Stop believing with this much of the lease left, in ms. */
  get marginMs() {
    return this.#config.marginMs;
  }

  /** How often the active tab writes its heartbeat, in ms. */
  get renewIntervalMs() {
    return this.#config.renewIntervalMs;
  }

  /** `"worker"` (a dedicated worker beats, immune to main-thread timer throttling) or `"inline"`. */
  get heartbeat() {
    return this.#heartbeat;
  }

  /** `"web-locks"`, or `"lease"` where Web Locks are missing or disabled. */
  get mode() {
    return this.#mode;
  }

  /** `"idle"`, `"waiting"` (a candidate), `"active"` or `"closed"`. */
  get state() {
    if (this.#closed) return "closed";
    this.#update("expired");
    if (this.#hold !== null) return "active";
    return this.#candidate ? "waiting" : "idle";
  }

  /** Whether this tab is the active one now, judged on this context's clocks at each read. */
  get isActive() {
    this.#update("expired");
    return this.#hold !== null;
  }

  /** The epoch of the current or most recent hold (a fencing token), or null before any. */
  get epoch() {
    return this.#epoch;
  }

  /** In global mode, the grantor's token of the current or most recent grant, else null. */
  get grantorToken() {
    return this.#grantorToken;
  }

  /** Aborts when this tab stops being active; already aborted while it is not. */
  get signal() {
    this.#update("expired");
    return this.#hold?.signal ?? this.#ended;
  }

  /** Throws a LeaseError (`ERR_LEASE_NOT_HELD`) unless this tab is active right now. */
  assertActive() {
    if (!this.isActive) {
      throw new LeaseError("ERR_LEASE_NOT_HELD", `tab lease "${this.#name}" is not held by this tab`);
    }
  }

  /**
   * Becomes a candidate and resolves `{epoch, grantorToken}` once this tab is active. Aborting
   * `signal` rejects with its reason and, unless the tab is active, withdraws the candidacy.
   */
  acquire({ signal } = {}) {
    if (this.#closed) return Promise.reject(closedError());
    if (this.#broken !== null) return Promise.reject(this.#broken);
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#join();
    if (this.isActive) return Promise.resolve(this.#grant());
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, signal, onAbort: null };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          this.#waiters.delete(waiter);
          reject(signal.reason);
          if (this.#waiters.size === 0 && this.#hold === null) {
            this.#candidate = false;
            this.#leave();
          }
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
    if (this.#closed) return;
    this.#withdraw();
    await this.#leave();
  }

  /**
   * Releases, stops the heartbeat worker and removes every listener. The instance is `"closed"`
   * from the call on; the promise resolves once the role is free and the worker stopped.
   */
  async close() {
    if (this.#closed) return;
    this.#withdraw();
    // Closed before the release is confirmed: the next tab may take the role while the worker's
    // answer is still on its way, and this instance must not read as a mere "idle" one then.
    this.#closed = true;
    for (const waiter of this.#waiters) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(closedError());
    }
    this.#waiters.clear();
    await this.#leave();
    for (const unlisten of this.#unlisten) unlisten();
    this.#unlisten = [];
    clearTimeout(this.#mirrorTimer);
    const transport = this.#transport;
    if (transport !== null) {
      await new Promise((resolve) => {
        this.#closing.push(resolve);
        this.#post({ type: "close" });
        // A worker that cannot answer (still loading, or broken) is simply stopped.
        setTimeout(resolve, 1_000);
      });
      transport.close();
    }
  }

  /** `await using tab = new TabLease(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose")]() {
    return this.close();
  }

  /** Writes `value` under `key` in this name's FencedStore with this tab's epoch. */
  fencedWrite(key, value) {
    if (this.#epoch === null) {
      return Promise.reject(new LeaseError("ERR_LEASE_NOT_HELD", "this tab has never been active"));
    }
    return this.#fencedStore().write(key, value, this.#epoch);
  }

  /** Reads `key` from this name's FencedStore. */
  fencedRead(key) {
    return this.#fencedStore().read(key);
  }

  #fencedStore() {
    this.#store ??= new FencedStore(this.#name);
    return this.#store;
  }

  /** Steps down (if active) and stops being a candidate. */
  #withdraw() {
    this.#candidate = false;
    this.#rejoin = false;
    this.#stepDown("released");
  }

  #grant() {
    return { epoch: this.#epoch, grantorToken: this.#grantorToken };
  }

  #join() {
    if (this.#closed) return;
    this.#candidate = true;
    this.#ensureTransport();
    this.#post({ type: "join" });
  }

  #leave() {
    if (this.#transport === null || this.#broken !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.#leaving.push(resolve);
      this.#post({ type: "leave" });
    });
  }

  #ensureTransport() {
    if (this.#transport !== null) return;
    // A fresh identity per engine: a page back from the cache is a new candidate.
    this.#config = { ...this.#config, instanceId: randomId("tab-") };
    if (this.#heartbeat === "worker") {
      let worker;
      try {
        // The compiled core goes first: the worker shares it instead of loading its own copy.
        const module = coreModule();
        worker = new Worker(heartbeatWorkerUrl());
        worker.postMessage({ type: "core", module });
      } catch (error) {
        this.#fail(`the heartbeat worker could not start: ${error?.message ?? error}`);
        return;
      }
      worker.onmessage = (event) => this.#onMessage(event.data);
      worker.onerror = (event) => {
        event.preventDefault?.();
        // A Content-Security-Policy without `worker-src blob:` blocks the worker this way.
        this.#fail(`the heartbeat worker failed: ${event.message ?? "could not start it (worker-src blob: allowed?)"}`);
      };
      this.#transport = {
        post: (message) => worker.postMessage(message),
        close: () => worker.terminate(),
        // Stopping the worker frees its Web Lock and channel at once: nothing is left running
        // that could keep the page out of the back/forward cache, or hold the role from it.
        // What it posted and the page has not heard yet is dropped with it: it speaks of a
        // candidate that no longer exists, whose hold the page must not take up on rejoining.
        detach: () => {
          worker.onmessage = null;
          worker.onerror = null;
          worker.terminate();
          return true;
        },
      };
      this.#queue.push({ type: "init", config: this.#config });
    } else {
      const engine = new TabEngine(this.#config, {
        emit: (message) => queueMicrotask(() => this.#onMessage(message)),
        globalGrantor: this.#grantor,
      });
      this.#ready = true;
      this.#transport = {
        post: (message) => queueMicrotask(() => engine.handle(message)),
        close() {},
        // Synchronously: the lock and channel are let go before the page may be frozen.
        detach: () => {
          engine.handle({ type: "leave", now: true });
          return false;
        },
      };
    }
  }

  /** Lets go of everything the engine holds, now; the next `#join` starts afresh if needed. */
  #detach() {
    const transport = this.#transport;
    if (transport === null || this.#broken !== null) return;
    if (!transport.detach()) return;
    this.#transport = null;
    this.#ready = false;
    this.#queue = [];
    for (const controller of this.#calls.values()) controller.abort();
    this.#calls.clear();
    for (const resolve of this.#leaving.splice(0)) resolve();
  }

  #post(message) {
    if (this.#transport === null) return;
    if (this.#ready) this.#transport.post(message);
    else this.#queue.push(message);
  }

  #fail(message) {
    const error = new LeaseError("ERR_TAB_WORKER", message);
    this.#broken = error;
    this.#candidate = false;
    this.#stepDown("closed");
    for (const waiter of this.#waiters) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(error);
    }
    this.#waiters.clear();
    for (const resolve of this.#leaving.splice(0)) resolve();
  }

  #onMessage(message) {
    switch (message.type) {
      case "ready":
        this.#ready = true;
        for (const queued of this.#queue.splice(0)) this.#transport.post(queued);
        break;
      case "ping":
        // The worker writes a heartbeat only after this answer: a frozen or hung page cannot give
        // it, so its role lapses. Messages, unlike timers, are not throttled in hidden tabs.
        this.#transport?.post({ type: "pong", seq: message.seq });
        break;
      case "mode":
        this.#mode = message.mode;
        break;
      case "role":
        if (this.#closed || !this.#candidate) break;
        this.#epoch = message.epoch;
        this.#report("roleGranted", message.epoch, message);
        this.#update("expired");
        break;
      case "renewed":
        this.#report("roleRenewed", message.epoch, message);
        this.#update("expired");
        break;
      case "role-lost":
        if (this.#page.roleLost(message.epoch)) this.#update(message.reason);
        break;
      case "global":
        if (this.#report("grantorGranted", message.token, message)) this.#grantorToken = message.token;
        this.#update("grantor_lost");
        break;
      case "global-lost":
        this.#page.grantorLost();
        this.#update("grantor_lost");
        break;
      case "left":
        for (const resolve of this.#leaving.splice(0)) resolve();
        break;
      case "closed":
        for (const resolve of this.#closing.splice(0)) resolve();
        break;
      case "rpc":
        this.#call(message);
        break;
      case "rpc-abort":
        this.#calls.get(message.id)?.abort();
        break;
      case "error":
        this.#fail(`the heartbeat worker failed: ${message.message}`);
        break;
      default:
        break;
    }
  }

  /**
   * Feeds a reported hold to the page's mirror (`method` of PageHoldCore) with this side's
   * clocks; the core back-dates it by the message's transit, so a late message can only shorten
   * this side's belief. Returns what the core answers.
   */
  #report(method, token, message) {
    const monoMs = perf.now();
    const wallMs = Date.now();
    const origin = perf.timeOrigin + monoMs;
    return this.#page[method](monoMs, wallMs, origin, token, message.remainingMs, message.wallMs, message.originMs);
  }

  #stepDown(reason) {
    this.#page.stepDown();
    this.#update(reason);
  }

  /** Moves between active and not, firing callbacks; `reason` explains a step down. */
  #update(reason) {
    if (this.#closed) return;
    // The core says where the hold stands by this side's clocks, and which lapse ended it.
    const epoch = this.#page.epoch;
    const standing = this.#page.standing(perf.now(), Date.now());
    if (standing === "expired") {
      // The hold ran out here (a freeze, a hang, messages that never came): the core dropped it;
      // have the engine step down so the role is freed. The yield names the hold: it may arrive
      // after the engine moved on to a newer one, which it must not end.
      this.#post({ type: "yield", epoch });
    }
    if (standing === "expired" || standing === "grantor_lost") reason = standing;
    const active = standing === "holds";
    if (active && this.#hold === null) {
      const hold = new AbortController();
      this.#hold = hold;
      this.#armMirrorTimer();
      const grant = this.#grant();
      for (const waiter of this.#waiters) {
        waiter.signal?.removeEventListener("abort", waiter.onAbort);
        waiter.resolve(grant);
      }
      this.#waiters.clear();
      try {
        this.onActive?.({ ...grant, signal: hold.signal });
      } catch (error) {
        rethrowLater(error);
      }
    } else if (!active && this.#hold !== null) {
      const hold = this.#hold;
      this.#hold = null;
      clearTimeout(this.#mirrorTimer);
      const error = endReason(reason);
      this.#ended = AbortSignal.abort(error);
      hold.abort(error);
      try {
        this.onInactive?.(reason);
      } catch (thrown) {
        rethrowLater(thrown);
      }
    } else if (active) {
      this.#armMirrorTimer();
    }
  }

  #armMirrorTimer() {
    clearTimeout(this.#mirrorTimer);
    const left = (this.#page.safeUntil ?? 0) - perf.now();
    // A backstop only: in a hidden tab this timer may fire a minute late, but every read of
    // `isActive` or `signal`, and every wake-up event, checks the clocks directly.
    this.#mirrorTimer = setTimeout(() => this.#update("expired"), Math.max(0, left) + 1);
  }

  #call({ id, method, args }) {
    const controller = new AbortController();
    this.#calls.set(id, controller);
    const grantor = this.#grantor;
    Promise.resolve()
      .then(() => (typeof grantor?.[method] === "function" ? grantor[method]({ ...args, signal: controller.signal }) : undefined))
      .then(
        (value) => this.#transport?.post({ type: "rpc-result", id, ok: true, value }),
        (error) => this.#transport?.post({ type: "rpc-result", id, ok: false, error: plainError(error) }),
      )
      .finally(() => this.#calls.delete(id));
  }

  #revalidate() {
    this.#update("expired");
    this.#post({ type: "check" });
  }

  #listenToLifecycle() {
    const on = (target, type, handler) => {
      target.addEventListener(type, handler);
      this.#unlisten.push(() => target.removeEventListener(type, handler));
    };
    // Leaving the page (closing, navigating, entering the back/forward cache): hand off now
    // rather than make the next tab wait, and rejoin if the page comes back from the cache.
    on(globalThis, "pagehide", () => {
      if (!this.#candidate) return;
      this.#candidate = false;
      this.#rejoin = true;
      const epoch = this.#page.epoch;
      this.#stepDown("pagehide");
      if (epoch !== undefined && typeof globalThis.BroadcastChannel === "function") {
        // The logged release may never commit before the page is gone; this message leaves
        // now, so candidates need not wait out the lease.
        const channel = new BroadcastChannel(NAME_PREFIX + this.#name);
        channel.postMessage({ type: "leaving", holder: this.#config.instanceId, epoch });
        channel.close();
      }
      this.#detach();
    });
    on(globalThis, "pageshow", (event) => {
      if (event.persisted && this.#rejoin) {
        this.#rejoin = false;
        this.#join();
      }
      this.#revalidate();
    });
    // No hand-off on `freeze`: nothing started there is sure to finish before the page stops,
    // and a short freeze should not cost the role. A frozen page cannot answer its worker, so its
    // heartbeat stops and another tab takes over after `leaseMs`; on `resume` it re-checks first.
    on(globalThis.document, "resume", () => this.#revalidate());
    on(globalThis.document, "visibilitychange", () => {
      if (globalThis.document.visibilityState === "visible") this.#revalidate();
    });
    on(globalThis, "online", () => this.#revalidate());
  }
}

/**
 * Values in IndexedDB fenced by a TabLease name's epochs: a write is accepted only with the
 * newest epoch granted for the name (checked just before), and never after a write with a newer
 * one (checked in the same transaction as the write), so a tab that lost the role, even one that
 * was frozen through the takeover, can no longer write.
 */
export class FencedStore {
  #name;

  constructor(name) {
    this.#name = checkedName(name);
    assertSupported("FencedStore");
  }

  /** The TabLease name whose epochs fence this store. */
  get name() {
    return this.#name;
  }

  /**
   * Writes `value` (anything structured-cloneable) under `key` (any IndexedDB key) if `epoch` is
   * the newest epoch of the name. Resolves `{accepted, epoch}`, `epoch` being the newest one.
   */
  async write(key, value, epoch) {
    if (!Number.isSafeInteger(epoch) || epoch < 1) {
      throw new LeaseError("ERR_LEASE_TOKEN", "epoch must be a positive integer");
    }
    checkedKey(key);
    const granted = (await latestEntry(this.#name))?.epoch ?? null;
    if (granted !== epoch) return { accepted: false, epoch: granted };
    // The fence itself, at key [name], beside the values at [name, key]. This transaction reads
    // before it writes; the election never waits for it (it touches only this store).
    let failure = null;
    try {
      return await transact([FENCED], "readwrite", (tx, done) => {
        const store = tx.objectStore(FENCED);
        const get = store.get([this.#name]);
        get.onsuccess = () => {
          const fence = get.result?.epoch ?? 0;
          if (fence > epoch) {
            done({ accepted: false, epoch: fence });
            return;
          }
          try {
            store.put({ value, epoch }, [this.#name, key]);
            store.put({ epoch }, [this.#name]);
          } catch (error) {
            failure = error;
            tx.abort();
            return;
          }
          done({ accepted: true, epoch });
        };
      });
    } catch (error) {
      throw failure === null ? error : storageError(failure, "write");
    }
  }

  /** Resolves `{value, epoch}` (the epoch that wrote it), or null when `key` was never written. */
  async read(key) {
    checkedKey(key);
    const entry = await transact([FENCED], "readonly", (tx, done) => {
      const get = tx.objectStore(FENCED).get([this.#name, key]);
      get.onsuccess = () => done(get.result);
    }, { oneShot: true });
    return entry === undefined ? null : { value: entry.value, epoch: entry.epoch };
  }
}

function checkedKey(key) {
  try {
    globalThis.indexedDB.cmp(key, key);
  } catch {
    throw new LeaseError("ERR_LEASE_USAGE", "key must be a valid IndexedDB key (string, number, date, array)");
  }
}
