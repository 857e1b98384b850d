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
 */
export function fetchFrom(core) {
  return async (url, init = {}) => {
    const { pathname } = new URL(String(url));
    const body = typeof init.body === "string" ? init.body : "";
    const reply = await core.serve(init.method ?? "GET", pathname, body);
    return new Response(reply.body, { status: reply.status, headers: { "content-type": "application/json" } });
  };
}
