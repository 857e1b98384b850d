// The tab election behind TabLease: Web Locks for exclusivity and instant handoff, a heartbeat
// lease on a shared IndexedDB log for frozen or hung holders, and an epoch that fences.
//
// It runs where timers keep running: in a dedicated worker for a window (a hidden tab's main
// thread gets one timer wake-up a minute under Chrome's intensive throttling, worker timers do
// not), or in the context itself when that is a worker. The page talks to it by messages.

import { LeaseHolder } from "./api.js";
import { LeaseError } from "./errors.js";

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

/**
 * After a holder's page announced it is leaving, how long candidates let the Web Lock pass on
 * by itself (it does within milliseconds when the document goes) before taking it: a page
 * entering the back/forward cache may freeze its worker, lock held, before the worker hears.
 */
const LEAVING_GRACE_MS = 200;

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
// `{holder, epoch, kind, leaseMs, locks}`, kind being "grant", "beat" or "release". The newest
// entry says who holds the role, with which epoch, and whether it is alive. Every write is an
// `add` at the slot after the newest entry its writer knows, which fails if anyone wrote since:
// a compare-and-set that needs no read-then-write transaction.

/** Entries older than this many slots behind a heartbeat are deleted by it. */
const KEEP = 64;

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
 * `after` (the slot is taken, or, for a writer far behind, later slots exist). `prune` deletes
 * entries far behind in the same transaction.
 */
async function append(name, after, value, prune) {
  let conflict = false;
  let newest = null;
  try {
    await transact([LEASES], "readwrite", (tx) => {
      const store = tx.objectStore(LEASES);
      if (prune && after > KEEP) store.delete(IDBKeyRange.bound([name, 0], [name, after - KEEP]));
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
 * The heartbeat lease's grantor, on the name's election log.
 *
 * It grants when this context holds the Web Lock, when the log is free (released, or empty)
 * without Web Locks, or when the newest entry has not changed for a full lease *as this context
 * observed it*: expiry is judged by the observer's own monotonic clock from the moment it saw the
 * entry, as Kubernetes' client-go does, never by comparing timestamps written by another tab
 * (whose `performance.now()` has another origin). Every grant takes epoch + 1. Durability is
 * relaxed (no disk flush on the handoff's path): after a power cut no tab from before it is
 * alive, and FencedStore's flushed writes persist everything committed before them.
 */
class StorageGrantor {
  #name;
  #leaseMs;
  #gate;
  #useLocks;
  /** This context's newest entry while it holds the role. */
  #mine = null;
  /** The last `leaving` notice: that holder stepped down, even if its release never committed. */
  #leaving = null;

  /** What this context last saw of the log, and when by its own clock. */
  observation = { seq: null, holder: null, epoch: 0, kind: null, leaseMs: null, seenAt: 0 };
  /** Set before each acquire: `{kind: "lock", since}` or `{kind: "takeover", entry}`. */
  intent = { kind: "takeover", entry: null };
  /** Called after this context committed a heartbeat. */
  onWrite = null;
  /** Where writes are announced, while this context takes part. */
  channel = null;

  constructor(name, { leaseMs, gate, useLocks }) {
    this.#name = name;
    this.#leaseMs = leaseMs;
    this.#gate = gate;
    this.#useLocks = useLocks;
  }

  /**
   * A page announces `leaving` from `pagehide`, after it stopped acting, because its worker may
   * be gone or frozen before the release commits.
   */
  noteLeaving({ holder, epoch }) {
    this.#leaving = { holder, epoch, at: perf.now() };
  }

  /** Records a sighting; a different entry (or a first sighting) restarts the clock. */
  observe(entry) {
    const seq = entry?.seq ?? 0;
    if (seq === this.observation.seq) return false;
    this.observation = {
      seq,
      holder: entry?.holder ?? null,
      epoch: entry?.epoch ?? 0,
      kind: entry?.kind ?? null,
      leaseMs: entry?.leaseMs ?? null,
      seenAt: perf.now(),
    };
    return true;
  }

  /**
   * Milliseconds until the observed holder may be taken over (0 or less: now). A free log is
   * taken at once without Web Locks; with them the lock decides, and only a lock holder that never
   * wrote (hung right after locking) is waited out.
   */
  msUntilOpen() {
    const seen = this.observation;
    if (seen.seq === null) return Infinity;
    const leaving = this.#leaving;
    const left = leaving !== null && seen.holder === leaving.holder && seen.epoch === leaving.epoch;
    const expiry = seen.seenAt + (seen.leaseMs ?? this.#leaseMs);
    if (!this.#useLocks) {
      if (seen.seq === 0 || seen.kind === "release" || left) return 0;
    } else if (left) {
      return Math.min(leaving.at + LEAVING_GRACE_MS, expiry) - perf.now();
    }
    return expiry - perf.now();
  }

  #publish(type, entry) {
    try {
      this.channel?.postMessage({ type, ...entry });
    } catch {
      // A closed channel: observers fall back to reading the log.
    }
  }

  /** Reads the newest entry (and observes it). */
  async read() {
    const entry = await latestEntry(this.#name);
    this.observe(entry);
    return entry;
  }

  async #append(after, value, prune = false) {
    const entry = await append(this.#name, after, { ...value, locks: this.#useLocks }, prune);
    if (entry !== null) this.observe(entry);
    return entry;
  }

  #denial(entry) {
    const reply = { granted: false, expiresInMs: Math.max(1, Math.ceil(this.msUntilOpen())) };
    if (typeof entry?.holder === "string") reply.holder = entry.holder;
    return reply;
  }

  async grant({ holder, durationMs, signal }) {
    const intent = this.intent;
    // A takeover waits for the page to answer, so a hung page cannot take the role. With the
    // lock, the handoff does not wait: the page becomes active only when it hears of the grant,
    // and if it is hung, its first heartbeat fails the same test.
    if (intent.kind !== "lock") await this.#gate?.(signal);
    // With the lock, build on the newest entry seen (announced over BroadcastChannel, so usually
    // current), and on a conflict read and retry behind the old holder's last writes. Without
    // it, the observed entry must still be the newest.
    for (let attempt = 0; attempt < 8; attempt += 1) {
      let base = intent.entry;
      if (intent.kind === "lock") {
        const seen = this.observation;
        base = attempt === 0 && seen.seq !== null ? { ...seen } : await this.read();
      }
      if (intent.kind === "lock" && base?.kind === "grant" && base.holder !== holder && base.seq > intent.since) {
        // Another candidate took over while this one was getting the lock: it will steal the
        // lock, and holds the role.
        return this.#denial(base);
      }
      const entry = await this.#append(base?.seq ?? 0, {
        holder,
        epoch: (base?.epoch ?? 0) + 1,
        kind: "grant",
        leaseMs: durationMs,
      });
      if (entry !== null) {
        this.#mine = entry;
        this.#publish("granted", entry);
        return { granted: true, token: entry.epoch, durationMs };
      }
      if (intent.kind !== "lock") break;
    }
    return this.#denial(await this.read().catch(() => null));
  }

  async renew({ holder, token, durationMs, signal }) {
    // The core stamped the attempt just before this call; the page's view of the hold runs from
    // here, a few microseconds later, and still ends before any observer's (see `observe`).
    const sentAt = stamp();
    await this.#gate?.(signal);
    const mine = this.#mine;
    if (mine?.holder !== holder || mine.epoch !== token) return { renewed: false, reason: "not_holder" };
    const entry = await this.#append(mine.seq, { holder, epoch: token, kind: "beat", leaseMs: durationMs }, true);
    // The slot after this holder's last entry is taken: someone took over.
    if (entry === null) return { renewed: false, reason: "not_holder" };
    if (this.#mine === mine) this.#mine = entry;
    this.#publish("beat", entry);
    this.onWrite?.("beat", entry, sentAt, durationMs);
    return { renewed: true, token, durationMs };
  }

  async release({ holder, token }) {
    let base = this.#mine;
    for (let attempt = 0; attempt < 2 && base?.holder === holder && base.epoch === token; attempt += 1) {
      const entry = await this.#append(base.seq, { holder, epoch: token, kind: "release", leaseMs: base.leaseMs });
      if (entry !== null) {
        this.#mine = null;
        this.#publish("released", entry);
        return { released: true };
      }
      // Overtaken by this holder's own heartbeat in flight? Then release after it.
      base = await this.read();
    }
    this.#mine = null;
    return { released: false };
  }
}

function lossReason(reason) {
  switch (reason) {
    case "not_holder":
    case "unknown":
    case "token_regressed":
      return "superseded";
    case "margin_exhausted":
    case "expired":
      return "expired";
    default:
      return reason;
  }
}

const VOLUNTARY = new Set(["released", "closed", "yielded"]);

/**
 * One candidate for a named role. `emit(message)` reports to the page; `gate(signal)` resolves
 * once the page proved it is responsive (a frozen or hung page must stop the heartbeat), or is
 * null when the engine runs in the context it serves.
 */
export class TabEngine {
  #config;
  #emit;
  #lockName;
  #channel = null;
  #grantor;
  #holder;
  #useLocks;
  #globalGrantor;
  #globalHolder = null;

  #candidate = false;
  #closed = false;
  #running = false;
  #waiter = null;
  #acquiring = null;
  #lock = null;
  #held = null;
  #globalRun = Promise.resolve();

  constructor(config, { emit, gate = null, globalGrantor = null }) {
    this.#config = config;
    this.#emit = emit;
    this.#lockName = NAME_PREFIX + config.name;
    this.#useLocks = config.webLocks && typeof globalThis.navigator?.locks?.request === "function";
    this.#grantor = new StorageGrantor(config.name, {
      leaseMs: config.leaseMs,
      gate,
      useLocks: this.#useLocks,
    });
    this.#grantor.onWrite = (type, entry, sentAt, durationMs) => {
      const held = this.#held;
      if (held !== null && held.reason === null && entry.epoch === held.epoch) {
        this.#emitHold("renewed", { epoch: held.epoch }, remainingSince(sentAt, durationMs));
      }
    };
    this.#holder = new LeaseHolder(this.#grantor, {
      resource: config.name,
      holderId: config.instanceId,
      leaseMs: config.leaseMs,
      marginMs: config.marginMs,
      renewIntervalMs: config.renewIntervalMs,
    });
    this.#holder.onLeaseLost = (reason) => this.#end(lossReason(reason));
    this.#globalGrantor = globalGrantor;
    emit({ type: "mode", mode: this.#useLocks ? "web-locks" : "lease" });
  }

  /** Messages from the page. */
  handle(message) {
    switch (message.type) {
      case "join":
        this.#join();
        break;
      case "leave":
        this.#leave("released", message.now === true);
        break;
      case "yield":
        // The page stopped believing (its own clocks said the hold ran out): step down, stay a
        // candidate.
        this.#end("yielded");
        break;
      case "check":
        this.#check();
        break;
      case "close":
        this.#close();
        break;
      default:
        break;
    }
  }

  // Open only while taking part: a page in the back/forward cache is evicted when a message
  // reaches one of its channels, so it must not listen after leaving.
  #openChannel() {
    if (this.#channel !== null || typeof globalThis.BroadcastChannel !== "function") return;
    const channel = new BroadcastChannel(NAME_PREFIX + this.#config.name);
    channel.onmessage = (event) => {
      const message = event.data;
      if (message?.type === "leaving") {
        this.#grantor.noteLeaving(message);
        this.#waiter?.();
      } else if (this.#grantor.observe(message)) {
        this.#waiter?.();
      }
    };
    this.#channel = channel;
    this.#grantor.channel = channel;
  }

  #closeChannel() {
    this.#channel?.close();
    this.#channel = null;
    this.#grantor.channel = null;
  }

  #join() {
    if (this.#closed) return;
    this.#openChannel();
    this.#candidate = true;
    if (!this.#running) {
      this.#running = true;
      this.#loop().finally(() => {
        this.#running = false;
        if (this.#candidate && !this.#closed) this.#join();
      });
    }
  }

  async #leave(reason, now = false) {
    this.#candidate = false;
    this.#acquiring?.abort();
    this.#waiter?.();
    // Leaving the page: lock and channel go before anything is awaited, for the page may be
    // frozen in the back/forward cache right after, and a cached page holding either is evicted.
    // Otherwise the channel stays to announce the release.
    if (now) this.#closeChannel();
    if (this.#held !== null) {
      await this.#end(reason, now);
    } else {
      this.#releaseLock();
    }
    if (!this.#candidate) this.#closeChannel();
    this.#emit({ type: "left" });
  }

  async #close() {
    if (this.#closed) return;
    await this.#leave("closed");
    this.#closed = true;
    this.#closeChannel();
    this.#emit({ type: "closed" });
  }

  async #loop() {
    while (this.#candidate && !this.#closed) {
      const opening = await this.#waitForOpening();
      if (opening === null) break;
      const won = opening === "lock" ? await this.#acquireWithLock() : await this.#takeOver();
      if (!won) continue;
      let ended;
      const held = {
        ended: new Promise((resolve) => {
          ended = resolve;
        }),
        end: () => ended(),
        reason: null,
        epoch: this.#holder.lease.token,
      };
      this.#held = held;
      if (!this.#candidate || this.#closed) {
        // Left while the grant was in flight.
        await this.#end("released");
        break;
      }
      if (this.#useLocks && !this.#lock?.held) {
        // Stolen between the grant and now.
        await this.#end("stolen");
        continue;
      }
      this.#report("role");
      this.#startGlobal(held);
      await held.ended;
    }
  }

  /**
   * Waits until this candidate may take the role: the Web Lock was granted (free, or its holder
   * closed, crashed, navigated or released), or the log went unchanged for a full lease.
   */
  #waitForOpening() {
    if (this.#useLocks && this.#lock === null) this.#requestLock(false);
    return new Promise((resolve) => {
      let settled = false;
      let timer = null;
      const finish = (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#waiter = null;
        resolve(value);
      };
      const evaluate = () => {
        if (settled) return;
        if (!this.#candidate || this.#closed) return finish(null);
        if (this.#lock?.held) return finish("lock");
        const left = this.#grantor.msUntilOpen();
        if (left <= 0) return finish("takeover");
        clearTimeout(timer);
        // Poll too: a missed broadcast, or no BroadcastChannel at all, only delays a takeover.
        timer = setTimeout(poll, Math.min(left + 1, this.#config.renewIntervalMs));
      };
      const poll = () => {
        this.#grantor.read().then(evaluate, evaluate);
      };
      this.#waiter = evaluate;
      poll();
    });
  }

  async #acquireWithLock() {
    this.#grantor.intent = { kind: "lock", since: this.#grantor.observation.seq ?? 0 };
    const result = await this.#acquire({ wait: true });
    if (result && this.#lock?.held) return true;
    // Aborted, or the lock was stolen meanwhile: release the grant for whoever holds the lock.
    if (result) await this.#holder.release().catch(() => {});
    this.#releaseLock();
    return false;
  }

  async #takeOver() {
    const seen = this.#grantor.observation;
    this.#grantor.intent = { kind: "takeover", entry: { seq: seen.seq, epoch: seen.epoch } };
    const result = await this.#acquire({ wait: false });
    if (!result) return false;
    // Left meanwhile (the loop releases the grant), or the lock came on its own.
    if (!this.#candidate || this.#closed || !this.#useLocks || this.#lock?.held) return true;
    // The role is ours in the log: now take the lock from the frozen or hung holder. Its request
    // rejects with AbortError when it runs again, and its next heartbeat finds its slot taken.
    this.#releaseLock();
    const lock = this.#requestLock(true);
    await lock.granted;
    if (!this.#candidate || this.#closed) return true;
    if (this.#lock === lock && lock.held) {
      // A tab that got the lock the ordinary way just before the steal may have written the
      // log since: then it is the holder, and this one gives the lock back.
      const entry = await this.#grantor.read().catch(() => undefined);
      const ours = entry?.holder === this.#config.instanceId && entry.epoch === this.#holder.lease.token;
      if (ours && this.#lock === lock && lock.held) return true;
      this.#holder.surrender("superseded");
      this.#releaseLock();
      return false;
    }
    this.#holder.surrender("stolen");
    return false;
  }

  async #acquire({ wait }) {
    const abort = new AbortController();
    this.#acquiring = abort;
    try {
      const result = await this.#holder.acquire({ wait, signal: abort.signal });
      return result.acquired;
    } catch {
      return false;
    } finally {
      if (this.#acquiring === abort) this.#acquiring = null;
    }
  }

  #requestLock(steal) {
    let granted;
    const lock = {
      held: false,
      release: null,
      abort: steal ? null : new AbortController(),
      granted: new Promise((resolve) => {
        granted = resolve;
      }),
    };
    this.#lock = lock;
    const options = steal ? { steal: true } : { signal: lock.abort.signal };
    globalThis.navigator.locks
      .request(this.#lockName, options, () => {
        if (this.#lock !== lock) {
          granted();
          return undefined;
        }
        lock.held = true;
        return new Promise((resolve) => {
          lock.release = resolve;
          granted();
          this.#waiter?.();
        });
      })
      .then(
        () => {
          lock.held = false;
        },
        () => {
          // Rejected: our own abort of a waiting request, or another context stole the lock.
          const wasHeld = lock.held;
          lock.held = false;
          granted();
          if (this.#lock === lock) this.#lock = null;
          if (wasHeld) {
            this.#acquiring?.abort();
            this.#end("stolen");
          }
        },
      );
    return lock;
  }

  #releaseLock() {
    const lock = this.#lock;
    this.#lock = null;
    if (lock === null) return;
    lock.abort?.abort();
    lock.release?.();
  }

  /**
   * Ends the current hold (no-op without one), then reports and cleans up; `now` skips the
   * storage write, whose completion event would reach a page already in the back/forward cache.
   */
  async #end(reason, now = false) {
    const held = this.#held;
    if (held === null || held.reason !== null) return;
    held.reason = reason;
    this.#emit({ type: "role-lost", reason, epoch: held.epoch });
    const voluntary = VOLUNTARY.has(reason) && !now;
    if (!voluntary) this.#holder.surrender(reason);
    // The page no longer acts on this hold, so the lock goes first: the next tab's grant
    // supersedes this one anyway, and the tidying below need not delay the handoff.
    this.#releaseLock();
    await this.#stopGlobal(held, voluntary);
    // Log the release, so that without Web Locks candidates need not wait the lease out.
    if (voluntary) await this.#holder.release().catch(() => {});
    this.#held = null;
    held.end();
  }

  /** Re-validates a hold on the page's request: after a resume, or when it becomes visible. */
  async #check() {
    const held = this.#held;
    if (held === null) {
      this.#waiter?.();
      return;
    }
    if (this.#useLocks && !this.#lock?.held) {
      this.#end("stolen");
      return;
    }
    try {
      const entry = await this.#grantor.read();
      if (this.#held === held && (entry?.epoch !== held.epoch || entry?.holder !== this.#config.instanceId)) {
        this.#end("superseded");
        return;
      }
    } catch {
      // Storage trouble shows up in the next heartbeat.
    }
    if (this.#held === held) this.#report("renewed");
  }

  /** Reports the hold with its remaining time and the clocks it was read at. */
  #report(type) {
    const held = this.#held;
    if (held === null || held.reason !== null) return;
    this.#emitHold(type, { epoch: held.epoch }, this.#holder.lease.remainingMs());
  }

  #emitHold(type, fields, remainingMs) {
    if (!(remainingMs > 0)) return;
    this.#emit({ type, ...fields, remainingMs, ...stamp() });
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
          renew: async (args) => {
            const sentAt = stamp();
            const reply = await grantor.renew(args);
            if (reply?.renewed === true && this.#held === held && held.reason === null) {
              const granted = Number.isFinite(reply.durationMs) ? reply.durationMs : args.durationMs;
              this.#emitHold(
                "global",
                { token: reply.token },
                remainingSince(sentAt, Math.min(granted, args.durationMs)),
              );
            }
            return reply;
          },
          release: (args) => grantor.release?.(args),
        };
        this.#globalHolder = new LeaseHolder(wrapped, { ...config, holderId });
      } catch (error) {
        this.#emit({ type: "global-lost", reason: "error", message: String(error?.message ?? error) });
        return;
      }
    }
    const holder = this.#globalHolder;
    while (this.#held === held && held.reason === null) {
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
      this.#emitHold("global", { token: result.token }, holder.lease.remainingMs());
      const reason = await lost;
      if (this.#held !== held || held.reason !== null) return;
      this.#emit({ type: "global-lost", reason });
    }
  }

  async #stopGlobal(held, voluntary) {
    held.globalAbort?.abort();
    held.globalEnded?.("tab_inactive");
    const holder = this.#globalHolder;
    if (holder === null) return;
    holder.onLeaseLost = null;
    if (voluntary) await holder.release().catch(() => {});
    else holder.surrender("tab_inactive");
  }
}

/** Milliseconds left of `durationMs` since `sentAt`, by whichever clock says more time passed. */
function remainingSince(sentAt, durationMs) {
  const now = stamp();
  return durationMs - Math.max(now.originMs - sentAt.originMs, now.wallMs - sentAt.wallMs, 0);
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
  let ping = null;
  let sequence = 0;
  const calls = new Map();

  const gate = (signal) => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (ping === null) {
      const seq = ++sequence;
      let resolve;
      const promise = new Promise((done) => {
        resolve = done;
      });
      ping = { seq, resolve, promise };
      scope.postMessage({ type: "ping", seq });
    }
    const { promise } = ping;
    if (signal === undefined) return promise;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      promise.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
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
            gate,
            globalGrantor: message.config.global === null ? null : remoteGrantor,
          });
        } catch (error) {
          scope.postMessage({ type: "error", message: String(error?.message ?? error) });
        }
        break;
      case "pong":
        if (ping !== null && message.seq === ping.seq) {
          const { resolve } = ping;
          ping = null;
          resolve();
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
