// The closed loops of grants and renewals that the Deno and Durable Object benchmarks run inside
// their runtimes (bench/deno-kv-worker.mjs in Deno processes, the bench Worker of
// tests/js/fixtures/durable-object in workerd). One module for every runtime and every grantor, so
// a ratio between two grantors compares grantors, not two load generators. Web globals only.

const DURATION_OF_LEASE = 600_000; // long enough that nothing expires during a run

/**
 * Runs `concurrency` closed loops (each waits for its answer before asking again) of `kind`
 * ("grant": a fresh resource each time, a grant on a free resource; "renew": one of `leases`
 * leases granted first, not counted) on `grantor`, from `startAtMs` (epoch ms; at once when
 * absent): `warmupMs` not counted (the JIT, the store's pages, the connections warm up), then
 * `durationMs` counted, an operation counting when it completes inside that window. Resolves
 * `{done, failed, failures, lateMs}`: `lateMs` is how long after `startAtMs` the setup ended, so a
 * caller can see a process that overlapped the others less.
 */
export async function grantLoops({ grantor, id, kind, leases = 100, concurrency = 1, warmupMs = 0, durationMs, startAtMs }) {
  let done = 0;
  let failed = 0;
  const failures = {};
  let countFrom = Infinity;
  let endAt = Infinity;
  const attempt = async (call) => {
    try {
      await call();
      const now = performance.now();
      if (now >= countFrom && now <= endAt) done += 1;
    } catch (error) {
      // Every failure is reported, warm-up or not, never hidden among the operations done.
      failed += 1;
      const key = `${error.code}/${error.kind}: ${error.message}`.slice(0, 120);
      failures[key] = (failures[key] ?? 0) + 1;
    }
  };

  const held = [];
  if (kind === "renew") {
    for (let i = 0; i < leases; i += 1) {
      const resource = `${id}-held-${i}`;
      const reply = await grantor.grant({ resource, holder: id, durationMs: DURATION_OF_LEASE, requestId: crypto.randomUUID() });
      if (!reply.granted) throw new Error(`${resource} not granted: ${JSON.stringify(reply)}`);
      held.push({ resource, token: reply.token });
    }
  }
  // The grantor's first request (its server key read, its module compiled, a connection open) is
  // not counted.
  await grantor.status(`${id}-warm`);

  const start = startAtMs ?? Date.now();
  const lateMs = Math.max(0, Date.now() - start);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, start - Date.now())));
  countFrom = performance.now() + warmupMs;
  endAt = countFrom + durationMs;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      while (performance.now() < endAt) {
        if (kind === "grant") {
          const resource = `${id}-${loop}-${(next += 1)}`;
          await attempt(() => grantor.grant({ resource, holder: id, durationMs: DURATION_OF_LEASE, requestId: crypto.randomUUID() }));
        } else {
          // The lease's secret goes with it: the grantor client remembers it from the grant.
          const { resource, token } = held[(next += 1) % held.length];
          await attempt(async () => {
            const reply = await grantor.renew({ resource, holder: id, token, durationMs: DURATION_OF_LEASE, requestId: crypto.randomUUID() });
            if (!reply.renewed) throw new Error(`refused: ${reply.reason}`);
          });
        }
      }
    }),
  );
  return { done, failed, failures, lateMs };
}
