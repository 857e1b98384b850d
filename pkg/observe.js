// observe(): who holds a resource, change by change, as an async iterator. The WebAssembly core
// (src/wasm/watch.rs over the core's Watcher) fetches, orders and retries; this class only gives
// it the iterator's shape and turns its errors into LeaseErrors.

import { observeByStatus } from "./glue/tenure.js";
import { construct, settled } from "./http-grantor.js";

/**
 * The changes of one resource's holder: an async iterator (`for await`) whose first value is the
 * current state, then each newer one. It never yields a state older than one it yielded. It ends
 * when its `signal` aborts or on `close()` / `return()`, and rejects only on a failure no retry
 * mends (a refused request); network failures and timeouts are retried with backoff, resuming
 * after the last version yielded, and from a fresh snapshot after a second failure in a row.
 */
export class Observation {
  #core;

  /** @internal */
  constructor(core) {
    this.#core = core;
  }

  /** The latest change yielded or waiting to be, or null before the first. */
  get current() {
    return this.#core.current;
  }

  next() {
    return settled(this.#core.next());
  }

  async return() {
    this.#core.close();
    return { value: undefined, done: true };
  }

  /** Stops watching: the request in flight is aborted; a waiting `next()` is done. */
  close() {
    this.#core.close();
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  [Symbol.dispose]() {
    this.#core.close();
  }
}

/**
 * Watches who holds `resource` on `grantor`: through its own change feed when it has one
 * (`grantor.observe`), else by polling its `status(resource, { signal })`, 100 ms apart after a
 * change and up to 2 s apart while nothing changes.
 */
export function observe(grantor, resource, { signal } = {}) {
  if (typeof grantor?.observe === "function") return grantor.observe(resource, { signal });
  return new Observation(construct(() => observeByStatus(grantor, resource, signal)));
}
