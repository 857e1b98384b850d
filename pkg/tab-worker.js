// The dedicated worker that runs a window's TabLease heartbeat. Chrome throttles a hidden tab's
// main-thread timers to one wake-up a minute after five minutes; a dedicated worker's timers keep
// their schedule. It imports the core directly, not the entry, so bundlers see no cycle, and has
// no top-level await, so bundlers may emit it in any worker format. The page waits for `ready`.
import init from "./glue/tenure.js";
import { serveEngine } from "./tab-engine.js";

init({ module_or_path: new URL("./glue/tenure_bg.wasm", import.meta.url) }).then(
  () => serveEngine(globalThis),
  (error) => globalThis.postMessage({ type: "error", message: `loading the core: ${error?.message ?? error}` }),
);
