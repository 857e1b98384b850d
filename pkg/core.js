// The WebAssembly core, compiled and instantiated once, on first use. Importing the package does
// no work, so a bundler may drop what an app does not use and no entry needs a top-level await.
// The first Lease or LeaseHolder asks for it.

import { initSync } from "./glue/tenure.js";
import { LeaseError } from "./errors.js";
import { inlineCoreModule } from "./inline-core.js";

// The inline core, unless an entry says otherwise: every entry but workerd's uses it, so they need
// no statement of their own and a bundler may treat them as free of side effects.
let source = inlineCoreModule;
let compiled = null;

/**
 * Replaces where the core comes from, before the first Lease: `load()` returns a
 * `WebAssembly.Module` (workerd's deploy-time import; the page's module, in the tab worker).
 */
export function provideCore(load) {
  source = load;
}

/** The compiled core, instantiated: compiles and instantiates it on the first call. */
export function coreModule() {
  if (compiled === null) {
    let module;
    try {
      module = source();
      initSync({ module });
    } catch (error) {
      throw new LeaseError("ERR_CORE_UNAVAILABLE", `the WebAssembly core could not be loaded: ${error?.message ?? error}`, {
        cause: error,
      });
    }
    compiled = module;
  }
  return compiled;
}
