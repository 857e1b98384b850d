// The grantor's WebAssembly module (pkg/glue-edge: the grantor on a key-value store alone), for
// the Durable Object and Deno KV grantors. Compiled and instantiated once, on first use, from
// where the entry says: workerd imports the module compiled at deploy time, Deno gets it inline.

import { checkKvGrantorOptions, initSync, KvGrantorCore } from "./glue-edge/tenure.js";
import { LeaseError, fromCore } from "./errors.js";

let source = null;
let loaded = false;

/** Sets where the module comes from, before first use: `load()` returns a `WebAssembly.Module`. */
export function provideEdgeCore(load) {
  source = load;
}

/**
 * A grantor serving the protocol from `store` (read, commit, changed: src/wasm/kv_grantor.rs
 * says what each does) with `options`; its `serve(method, path, body)` resolves to
 * `{status, body}`.
 */
export function kvGrantorCore(store, options) {
  load();
  try {
    return new KvGrantorCore(store, options);
  } catch (error) {
    throw fromCore(error);
  }
}

/** Throws the LeaseError a grantor made with `options` (all but `serverKey`) would throw. */
export function checkOptions(options) {
  load();
  try {
    checkKvGrantorOptions(options);
  } catch (error) {
    throw fromCore(error);
  }
}

function load() {
  if (!loaded) {
    try {
      initSync({ module: source() });
    } catch (error) {
      throw new LeaseError("ERR_CORE_UNAVAILABLE", `the grantor's WebAssembly module could not be loaded: ${error?.message ?? error}`, {
        cause: error,
      });
    }
    loaded = true;
  }
}

/**
 * A `fetch` that serves the protocol in this process from `core`, for an HttpGrantor: the
 * client's whole protocol (secrets, retries, batching, watches) over the grantor with no network.
 * `serve(method, path, body)` is `core.serve` unless given (to split a request the store cannot
 * take in one commit, say).
 *
 * Like a real fetch, it rejects with the signal's reason once `init.signal` aborts: HttpGrantor
 * enforces `timeoutMs` and its callers' signals that way. The request being served is not
 * stopped (nothing can stop the grantor mid-request); it finishes or fails on its own, unseen,
 * as a request whose reply the network lost, which the protocol's request ids make safe to retry.
 */
export function fetchFrom(core, serve = (method, path, body) => core.serve(method, path, body)) {
  return async (url, init = {}) => {
    const { pathname } = new URL(String(url));
    const body = typeof init.body === "string" ? init.body : "";
    const { signal } = init;
    signal?.throwIfAborted();
    const served = serve(init.method ?? "GET", pathname, body);
    const reply = signal ? await untilAborted(served, signal) : await served;
    return new Response(reply.body, { status: reply.status, headers: { "content-type": "application/json" } });
  };
}

/** `promise`, or a rejection with `signal`'s reason once it aborts, whichever comes first. */
function untilAborted(promise, signal) {
  let onAbort;
  const aborted = new Promise((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  // Settled unseen once the signal won: its failure must not surface as an unhandled rejection.
  promise.catch(() => {});
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
