// The dedicated worker that runs a window's TabLease heartbeat. Chrome throttles a hidden tab's
// main-thread timers to one wake-up a minute after five minutes; a dedicated worker's timers keep
// their schedule. scripts/build bundles this file into one self-contained script that the page
// starts from a Blob, so no bundler has to find, copy or serve a worker file. The page posts its
// compiled core first (a WebAssembly.Module is shared, not copied); the core then serves the
// election's engine over the worker's messages.
import { coreModule, provideCore } from "./core.js";
import { serveTabEngine } from "./glue/tenure.js";

globalThis.onmessage = (event) => {
  if (event.data?.type !== "core") return;
  // Only the first message carries the core; the engine takes the messages after it.
  globalThis.onmessage = null;
  const { module } = event.data;
  provideCore(() => module);
  try {
    coreModule();
  } catch (error) {
    globalThis.postMessage({ t: "failed", why: `loading the core: ${error?.message ?? error}` });
    return;
  }
  serveTabEngine();
};
