// A LeaseGrantorObject in workerd through Miniflare, behind the grantor Worker of
// tests/js/fixtures/durable-object, listening on 127.0.0.1 and keeping its storage in a directory
// of its own, so a test can restart workerd on the same storage or evict the object.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startWorkers } from "./workerd.mjs";

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "durable-object");

/**
 * Starts the grantor Worker (and any `workers` beside it, given the GRANTOR binding too).
 * Resolves `{url(name), namespace(), worker(name), mf, restart(), evict(name), stop()}`:
 * `url(name)` is the base URL of the object `name` over HTTP, `namespace()` the binding as Node
 * sees it, `worker(name)` the fetcher of one of `workers`. With `useSQLite` the object's storage
 * is SQLite-backed (a class declared with `new_sqlite_classes`), else the key-value backend.
 */
export async function startDurableObjectGrantor({ workers = [], fixtures = fixtureDir, useSQLite = false } = {}) {
  const storage = mkdtempSync(join(tmpdir(), "tenure-do-"));
  const start = (port = 0) =>
    startWorkers({
      fixtureDir: fixtures,
      port,
      host: "127.0.0.1",
      durableObjectsPersist: storage,
      workers: [
        { name: "grantor", entry: "grantor-worker.js", durableObjects: { GRANTOR: { className: "TestGrantorObject", useSQLite } } },
        ...workers.map((worker) => ({ ...worker, durableObjects: { GRANTOR: { className: "TestGrantorObject", scriptName: "grantor" } } })),
      ],
    });
  let mf = await start();
  let base = String(await mf.ready);
  const handle = {
    get mf() {
      return mf;
    },
    url: (name = "tenure") => new URL(`/grantor/${name}/`, base).href,
    namespace: () => mf.getDurableObjectNamespace("GRANTOR", "grantor"),
    worker: (name) => mf.getWorker(name),
    /**
     * Stops workerd and starts it again on the same storage and the same port, so that clients
     * holding the old URL (a LeaseHolder renewing, a watch polling) carry on across the restart.
     */
    async restart() {
      const { port } = new URL(base);
      await mf.dispose();
      mf = await start(Number(port));
      base = String(await mf.ready);
    },
    /** Drops the object's instance; the next request makes a new one from storage. */
    async evict(name = "tenure") {
      const reply = await fetch(new URL("test/evict", handle.url(name)), { method: "POST" });
      await reply.arrayBuffer();
    },
    async stop() {
      await mf.dispose();
      rmSync(storage, { recursive: true, force: true });
    },
  };
  return handle;
}
