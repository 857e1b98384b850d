// The tab election behind TabLease: Web Locks for exclusivity and instant handoff, a heartbeat
// lease on a shared IndexedDB log for frozen or hung holders, and an epoch that fences.
//
// It runs where timers keep running: in a dedicated worker for a window (a hidden tab's main
// thread gets one timer wake-up a minute under Chrome's intensive throttling, worker timers do
// not), or in the context itself when that is a worker. The page talks to it by messages.

import { LeaseHolder } from "./api.js";
import { LeaseError, fromCore } from "./errors.js";
import { coreModule } from "./core.js";
import { TabElectionCore } from "./glue/tenure.js";

const perf = globalThis.performance;

/** IndexedDB database shared by every TabLease and FencedStore of an origin. */
const DB_NAME = "tenure-tabs";
const DB_VERSION = 1;
/** Object stores: election logs by [name, seq], fenced values by [name, key], small facts. */
const LEASES = "leases";
export const FENCED = "fenced";
const META = "meta";

/** Prefix of the Web Lock and BroadcastChannel names, so they never clash with an app's own. */
export const NAME_PREFIX = "tenure-tab:";

/** IndexedDB failures as LeaseErrors (`ERR_TAB_STORAGE`), the original as `cause`. */
export function storageError(error, what) {
  if (error instanceof LeaseError) return error;
  return new LeaseError("ERR_TAB_STORAGE", `IndexedDB ${what} failed: ${error?.message ?? error}`, {
    cause: error,
  });
}

let connection = null;

/** One connection per context, reopened after the browser closes it or a newer schema asks. */
function openTabDatabase() {
  if (connection !== null) return connection;
  const opening = new Promise((resolve, reject) => {
    let request;
    try {
      request = globalThis.indexedDB.open(DB_NAME, DB_VERSION);
    } catch (error) {
      reject(storageError(error, "open"));
      return;
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      for (const store of [LEASES, FENCED, META]) {
        if (!db.objectStoreNames.contains(store)) db.createObjectStore(store);
      }
    };
    request.onsuccess = () => {
      const db = request.result;
      const forget = () => {
        if (connection === opening) connection = null;
      };
      // A later schema must not wait for this tab: close, and open again on next use.
      db.onversionchange = () => {
        forget();
        db.close();
      };
      db.onclose = forget;
      resolve(db);
    };
    request.onerror = () => {
      if (connection === opening) connection = null;
      reject(storageError(request.error, "open"));
    };
  });
  connection = opening;
  return opening;
}

/**
 * Runs `body(tx, setResult)` in one transaction; resolves with the result once it committed.
 *
 * With `oneShot`, the body issues every request at once and the transaction is committed right
 * away, so it completes without this context running again. Election storage uses only such
 * transactions: a tab frozen in the middle of a transaction that waits on its callbacks would
 * block every other tab's transactions on the store for as long as it stays frozen.
 */
export async function transact(stores, mode, body, { durability = "default", oneShot = false } = {}) {
  const db = await openTabDatabase();
  return new Promise((resolve, reject) => {
    let tx;
    try {
      tx = db.transaction(stores, mode, { durability });
    } catch (error) {
      // The connection is closing (schema change, storage cleared): the next call reopens.
      connection = null;
      reject(storageError(error, "transaction"));
      return;
    }
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onabort = () => reject(storageError(tx.error ?? new Error("transaction aborted"), "transaction"));
    try {
      body(tx, (value) => {
        result = value;
      });
      if (oneShot) tx.commit?.();
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // already finished
      }
      reject(storageError(error, "request"));
    }
  });
}

function randomId(prefix) {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The browser's id toward a grantor in global mode: one per origin, kept in IndexedDB. */
async function browserId() {
  // Insert-if-absent, then read: two one-shot transactions, no read-then-write. The insert
  // fails (and its transaction aborts) when another tab got there first.
  await transact([META], "readwrite", (tx) => {
    tx.objectStore(META).add(randomId("browser-"), "browserId");
  }, { oneShot: true }).catch(() => {});
  return transact([META], "readonly", (tx, done) => {
    const get = tx.objectStore(META).get("browserId");
    get.onsuccess = () => done(get.result);
  }, { oneShot: true });
}

// Global mode's lease secret: the grantor binds each grant to a secret that renewals, releases and
// same-holder re-grants must present. The browser's tabs share one holder id, so they share the
// newest grant's secret too, next to that id; a successor tab then re-grants at once instead of
// waiting the old grant out. (Scripts of this origin could read it, as they can the holder id:
// the tabs of one origin are one holder toward the grantor.)
const secretKey = (resource) => `leaseSecret:${resource}`;

async function sharedSecret(resource) {
  return transact([META], "readonly", (tx, done) => {
    const get = tx.objectStore(META).get(secretKey(resource));
    get.onsuccess = () => done(typeof get.result === "string" ? get.result : undefined);
  }, { oneShot: true }).catch(() => undefined);
}

async function shareSecret(resource, secret) {
  await transact([META], "readwrite", (tx) => {
    tx.objectStore(META).put(secret, secretKey(resource));
  }, { oneShot: true }).catch(() => {});
}

// The election log of a name: entries at keys [name, seq], seq = 1, 2, 3, ... with values
// `{holder, epoch, kind, leaseMs, locks, takeover?}`, kind being "grant", "beat" or "release"
// (`takeover: true` on a grant written before its writer steals the lock). The newest
// entry says who holds the role, with which epoch, and whether it is alive. Every write is an
// `add` at the slot after the newest entry its writer knows, which fails if anyone wrote since:
// a compare-and-set that needs no read-then-write transaction.

function logRange(name) {
  return IDBKeyRange.bound([name, 0], [name, Infinity]);
}

/** The newest entry of `name`'s log as `{seq, ...value}`, or null when it has none. */
export async function latestEntry(name) {
  let entry = null;
  await transact([LEASES], "readonly", (tx) => {
    const request = tx.objectStore(LEASES).openCursor(logRange(name), "prev");
    request.onsuccess = () => {
      const cursor = request.result;
      if (cursor !== null) entry = { seq: cursor.key[1], ...cursor.value };
    };
  }, { oneShot: true });
  return entry;
}

/**
 * Appends `value` at slot `after + 1`; resolves the new entry, or null when someone wrote after
 * `after` (the slot is taken, or, for a writer far behind, later slots exist). With
 * `pruneThrough` (the core's choice), the entries at slots up to it are deleted in the same
 * transaction.
 */
async function append(name, after, value, pruneThrough) {
  let conflict = false;
  let newest = null;
  try {
    await transact([LEASES], "readwrite", (tx) => {
      const store = tx.objectStore(LEASES);
      if (pruneThrough !== undefined) store.delete(IDBKeyRange.bound([name, 0], [name, pruneThrough]));
      store.add(value, [name, after + 1]).onerror = () => {
        conflict = true;
      };
      const request = store.openKeyCursor(logRange(name), "prev");
      request.onsuccess = () => {
        newest = request.result?.key[1] ?? null;
      };
    }, { durability: "relaxed", oneShot: true });
  } catch (error) {
    if (conflict) return null;
    throw error;
  }
  // A writer whose slot had been pruned lands behind the newest entry: it was overtaken.
  return newest === after + 1 ? { seq: after + 1, ...value } : null;
}

/**
 * One candidate for a named role. The election itself (when another tab's heartbeat counts as
 * expired, the leaving grace, the epoch compare-and-swap and its retries, the heartbeat's
 * schedule and margin, the steal) is the core's `TabElectionCore`; this class carries out what
 * it asks (IndexedDB reads and appends on the name's log, Web Lock requests, BroadcastChannel
 * notices, pings to the page, one timer) and feeds back the outcomes with the clocks read.
 *
 * `emit(message)` reports to the page; `ping()` asks the page to answer with a `pong` message
 * (a frozen or hung page never does, so its heartbeat stops), or is null when the engine runs in
 * the context it serves. Log writes use relaxed durability (no disk flush on the handoff's path):
 * after a power cut no tab from before it is alive, and FencedStore's flushed writes persist
 * everything committed before them.
 */
export class TabEngine {
  #config;
  #emit;
  #ping;
  #core;
  #lockName;
  #useLocks;
  #channel = null;
  /** The current Web Lock request: `{id, release, abort}`. */
  #lock = null;
  #timer = null;
  #driving = false;
  /** The readings passed with the latest input, which the core's events speak of. */
  #reading = { monoMs: 0, wallMs: 0 };
  /** The hold the core reported active: `{epoch, reason}`, plus the global campaign's handles. */
  #held = null;
  #globalGrantor;
  #globalHolder = null;
  #globalRun = Promise.resolve();

  constructor(config, { emit, ping = null, globalGrantor = null }) {
    this.#config = config;
    this.#emit = emit;
    this.#ping = ping;
    this.#lockName = NAME_PREFIX + config.name;
    this.#useLocks = config.webLocks && typeof globalThis.navigator?.locks?.request === "function";
    const seed = new Uint32Array(2);
    globalThis.crypto.getRandomValues(seed);
    this.#core = makeCore(
      () =>
        new TabElectionCore({
          instance: config.instanceId,
          leaseMs: config.leaseMs,
          marginMs: config.marginMs,
          renewIntervalMs: config.renewIntervalMs,
          webLocks: this.#useLocks,
          gated: ping !== null,
          seed: seed[0] * 2 ** 21 + (seed[1] >>> 11),
        }),
    );
    this.#globalGrantor = globalGrantor;
    emit({ type: "mode", mode: this.#useLocks ? "web-locks" : "lease" });
  }

  /** Messages from the page. */
  handle(message) {
    switch (message.type) {
      case "join":
        this.#input((core, mono, wall) => core.join(mono, wall));
        break;
      case "leave":
        this.#input((core, mono, wall) => core.leave(mono, wall, message.now === true));
        break;
      case "yield":
        // The page stopped believing the hold `epoch` (its own clocks said it ran out): the core
        // steps down if that is still the current hold, and stays a candidate.
        this.#input((core, mono, wall) => core.yieldRole(mono, wall, message.epoch));
        break;
      case "check":
        this.#input((core, mono, wall) => core.check(mono, wall));
        break;
      case "close":
        this.#input((core, mono, wall) => core.close(mono, wall));
        break;
      case "pong":
        this.#input((core, mono, wall) => core.pong(mono, wall));
        break;
      default:
        break;
    }
  }

  /** Feeds one input to the core with the clocks read now, then carries out its outputs. */
  #input(apply) {
    const monoMs = perf.now();
    const wallMs = Date.now();
    this.#reading = { monoMs, wallMs };
    apply(this.#core, monoMs, wallMs);
    this.#drive();
  }

  #drive() {
    // Outputs are carried out without calling the core synchronously, but an input that arrives
    // while they are (none should) only adds outputs to the same queue.
    if (this.#driving) return;
    this.#driving = true;
    try {
      for (let output = this.#core.pollOutput(); output !== undefined; output = this.#core.pollOutput()) {
        this.#carryOut(output);
      }
    } finally {
      this.#driving = false;
    }
    this.#arm();
  }

  #arm() {
    clearTimeout(this.#timer);
    this.#timer = null;
    const at = this.#core.timeoutAt;
    if (at === undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#input((core, mono, wall) => core.timeout(mono, wall));
    }, Math.max(0, Math.ceil(at - perf.now())));
  }

  #carryOut(output) {
    const name = this.#config.name;
    switch (output.type) {
      case "listen":
        this.#openChannel();
        break;
      case "unlisten":
        this.#closeChannel();
        break;
      case "read":
        latestEntry(name).then(
          (entry) => this.#input((core, mono, wall) => core.read(mono, wall, output.id, entry)),
          () => this.#input((core, mono, wall) => core.readFailed(mono, wall, output.id)),
        );
        break;
      case "append":
        append(name, output.after, output.record, output.pruneThrough).then(
          (entry) =>
            this.#input((core, mono, wall) =>
              core.appended(mono, wall, output.id, entry === null ? "conflict" : "appended"),
            ),
          () => this.#input((core, mono, wall) => core.appended(mono, wall, output.id, "failed")),
        );
        break;
      case "lock":
        this.#requestLock(output.id, output.steal);
        break;
      case "unlock":
        this.#releaseLock();
        break;
      case "broadcast":
        this.#publish(output.entry);
        break;
      case "ping":
        this.#ping?.();
        break;
      case "active":
        this.#held = { epoch: output.epoch, reason: null };
        this.#emitRole("role", output);
        this.#startGlobal(this.#held);
        break;
      case "renewed":
        if (this.#held?.epoch === output.epoch && this.#held.reason === null) this.#emitRole("renewed", output);
        break;
      case "lost": {
        const held = this.#held;
        this.#held = null;
        if (held !== null) held.reason = output.reason;
        this.#emit({ type: "role-lost", reason: output.reason, epoch: output.epoch });
        if (held !== null) this.#stopGlobal(held, output.logged);
        break;
      }
      case "left":
        this.#emit({ type: "left" });
        break;
      case "closed":
        clearTimeout(this.#timer);
        this.#emit({ type: "closed" });
        break;
      default:
        break;
    }
  }

  /**
   * Reports the role's hold with what the core said remains of it, stamped with the readings
   * that remaining time is measured at (the latest input's). The page's mirror back-dates it by
   * the transit, and a report with nothing left after it is no hold.
   */
  #emitRole(type, output) {
    const { monoMs, wallMs } = this.#reading;
    this.#emit({ type, epoch: output.epoch, remainingMs: output.remainingMs, wallMs, originMs: perf.timeOrigin + monoMs });
  }

  /** Reports the global lease as the holder validated it: its token, and what remains of it now. */
  #emitGlobal(holder) {
    const at = stamp();
    this.#emit({ type: "global", token: holder.lease.token, remainingMs: holder.lease.remainingMs(), ...at });
  }

  // Open only while taking part: a page in the back/forward cache is evicted when a message
  // reaches one of its channels, so it must not listen after leaving.
  #openChannel() {
    if (this.#channel !== null || typeof globalThis.BroadcastChannel !== "function") return;
    const channel = new BroadcastChannel(NAME_PREFIX + this.#config.name);
    channel.onmessage = (event) => {
      const message = event.data;
      if (typeof message !== "object" || message === null) return;
      this.#input((core, mono, wall) => core.notice(mono, wall, message));
    };
    this.#channel = channel;
  }

  #closeChannel() {
    this.#channel?.close();
    this.#channel = null;
  }

  #publish(entry) {
    const type = entry.kind === "grant" ? "granted" : entry.kind === "release" ? "released" : "beat";
    try {
      this.#channel?.postMessage({ type, ...entry });
    } catch {
      // A closed channel: observers fall back to reading the log.
    }
  }

  #requestLock(id, steal) {
    const lock = { id, release: null, abort: steal ? null : new AbortController() };
    this.#lock = lock;
    const options = steal ? { steal: true } : { signal: lock.abort.signal };
    const report = (granted) => this.#input((core, mono, wall) => core.lock(mono, wall, id, granted));
    globalThis.navigator.locks
      .request(this.#lockName, options, () => {
        if (this.#lock !== lock) return undefined;
        return new Promise((resolve) => {
          lock.release = resolve;
          report(true);
        });
      })
      .then(
        () => {},
        // Rejected: our own abort of a waiting request, or another context stole the lock.
        () => {
          if (this.#lock === lock) this.#lock = null;
          report(false);
        },
      );
  }

  #releaseLock() {
    const lock = this.#lock;
    this.#lock = null;
    if (lock === null) return;
    lock.abort?.abort();
    lock.release?.();
  }

  // Global mode: the active tab alone holds the grantor lease, under one id for the browser, so
  // a successor re-grants at once with a larger token and the old token is fenced.
  #startGlobal(held) {
    if (this.#config.global === null || this.#globalGrantor === null) return;
    // One campaign at a time: a previous hold's acquire must settle before the next begins.
    this.#globalRun = this.#globalRun.then(() => this.#runGlobal(held));
  }

  async #runGlobal(held) {
    const config = this.#config.global;
    if (this.#globalHolder === null) {
      try {
        const holderId = config.holderId ?? (await browserId());
        const grantor = this.#globalGrantor;
        const wrapped = {
          grant: async (args) => {
            const leaseSecret = args.leaseSecret ?? (await sharedSecret(args.resource));
            const reply = await grantor.grant(leaseSecret === undefined ? args : { ...args, leaseSecret });
            if (reply?.granted === true && typeof reply.leaseSecret === "string") {
              await shareSecret(args.resource, reply.leaseSecret);
            }
            return reply;
          },
          renew: (args) => grantor.renew(args),
          release: (args) => grantor.release?.(args),
        };
        this.#globalHolder = new LeaseHolder(wrapped, { ...config, holderId });
      } catch (error) {
        this.#emit({ type: "global-lost", reason: "error", message: String(error?.message ?? error) });
        return;
      }
    }
    const holder = this.#globalHolder;
    while (this.#stillHeld(held)) {
      const abort = new AbortController();
      held.globalAbort = abort;
      let result;
      try {
        result = await holder.acquire({ wait: true, signal: abort.signal });
      } catch {
        return;
      }
      if (!result.acquired || this.#held !== held || held.reason !== null) return;
      const lost = new Promise((resolve) => {
        holder.onLeaseLost = resolve;
        held.globalEnded = resolve;
      });
      // Each renewal is reported once the holder has validated and applied it: its lease then
      // says what the grantor granted, from when the renewal was sent.
      holder.onRenewed = () => {
        if (this.#held === held && held.reason === null) this.#emitGlobal(holder);
      };
      this.#emitGlobal(holder);
      const reason = await lost;
      if (!this.#stillHeld(held)) return;
      this.#emit({ type: "global-lost", reason });
    }
  }

  /**
   * Whether `held` is still the hold, as of now: the core is asked first, for this context may
   * just have woken from a freeze with the global lease's timer firing before the election's,
   * and a hold that ran out meanwhile must not campaign again.
   */
  #stillHeld(held) {
    if (this.#held === held && held.reason === null) {
      this.#input((core, mono, wall) => core.timeout(mono, wall));
    }
    return this.#held === held && held.reason === null;
  }

  async #stopGlobal(held, voluntary) {
    held.globalAbort?.abort();
    held.globalEnded?.("tab_inactive");
    const holder = this.#globalHolder;
    if (holder === null) return;
    holder.onLeaseLost = null;
    holder.onRenewed = null;
    if (voluntary) await holder.release().catch(() => {});
    else holder.surrender("tab_inactive");
  }
}

/** Core objects are made here, so the first one loads the core (see core.js). */
export function makeCore(make) {
  coreModule();
  try {
    return make();
  } catch (error) {
    throw fromCore(error);
  }
}

/** Both clocks now, with the monotonic one on the shared time line of `timeOrigin`. */
export function stamp() {
  return { wallMs: Date.now(), originMs: perf.timeOrigin + perf.now() };
}

/**
 * Serves a TabEngine over a worker's messages. The page must answer each `ping` for a heartbeat
 * to be written, so a frozen or hung page stops renewing even though its worker still runs.
 */
export function serveEngine(scope) {
  let engine = null;
  /** The sequence number of the ping the page has yet to answer. */
  let pinged = null;
  let sequence = 0;
  const calls = new Map();

  const ping = () => {
    pinged = ++sequence;
    scope.postMessage({ type: "ping", seq: pinged });
  };

  // Grantor calls go to the page, which owns the grantor (an HttpGrantor cannot be cloned into a
  // worker); the renew schedule stays here, out of reach of main-thread timer throttling.
  const call = (method) => (args) => {
    const { signal, ...rest } = args;
    const id = ++sequence;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        calls.delete(id);
        scope.postMessage({ type: "rpc-abort", id });
        reject(signal.reason);
      };
      calls.set(id, {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      scope.postMessage({ type: "rpc", id, method, args: rest });
    });
  };
  const remoteGrantor = { grant: call("grant"), renew: call("renew"), release: call("release") };

  scope.onmessage = (event) => {
    const message = event.data;
    switch (message.type) {
      case "init":
        try {
          engine = new TabEngine(message.config, {
            emit: (out) => scope.postMessage(out),
            ping,
            globalGrantor: message.config.global === null ? null : remoteGrantor,
          });
        } catch (error) {
          scope.postMessage({ type: "error", message: String(error?.message ?? error) });
        }
        break;
      case "pong":
        if (pinged !== null && message.seq === pinged) {
          pinged = null;
          engine?.handle({ type: "pong" });
        }
        break;
      case "rpc-result": {
        const pending = calls.get(message.id);
        if (pending === undefined) break;
        calls.delete(message.id);
        if (message.ok) {
          pending.resolve(message.value);
        } else {
          const error = new LeaseError(message.error.code ?? "ERR_GRANTOR", message.error.message);
          for (const field of ["kind", "status", "grantorCode", "retryAfterMs"]) {
            if (message.error[field] !== undefined) error[field] = message.error[field];
          }
          pending.reject(error);
        }
        break;
      }
      default:
        engine?.handle(message);
        break;
    }
  };
  scope.postMessage({ type: "ready" });
}
