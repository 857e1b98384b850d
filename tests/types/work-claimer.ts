// Compile-time check of the work-claim declarations: typical use type-checks.
import { HttpGrantor, WorkClaimer, isLeaseError } from "tenure";
import type { Claim, ClaimOutcome, ProcessCounts, QueueStats, WorkItemRecord } from "tenure";

const grantor = new HttpGrantor({ baseUrl: "http://127.0.0.1:8040" });
const claimer = new WorkClaimer(grantor, { queue: "q", workerId: "w", claimMs: 15_000, marginMs: 3_000 });

export async function once(): Promise<void> {
  await grantor.enqueue("q", [{ payload: { n: 1 }, dedupeKey: "n1" }, { payload: 2, maxAttempts: 3 }]);
  const claim: Claim | null = await claimer.claim();
  if (claim === null) return;
  const id: number = claim.item.id;
  const token: number = claim.token;
  claim.signal.throwIfAborted();
  try {
    await claim.complete({ id, token });
  } catch (error) {
    if (isLeaseError(error) && (error.code === "ERR_CLAIM_LOST" || error.code === "ERR_CLAIM_STALE")) return;
    throw error;
  }
  const stats: QueueStats = await grantor.queueStats("q");
  const record: WorkItemRecord = await grantor.queueItem("q", id);
  const completedBy: number | null = record.completedToken;
  void stats.dead;
  void completedBy;
}

export async function loop(signal: AbortSignal): Promise<ProcessCounts> {
  const outcomes: ClaimOutcome[] = [];
  return claimer.process<{ n: number }>(
    async (item, { signal: claimSignal, token }) => {
      claimSignal.throwIfAborted();
      return item.payload.n + token;
    },
    { concurrency: 4, signal, onSettled: (outcome) => outcomes.push(outcome) },
  );
}
