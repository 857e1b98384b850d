// Shared by the verification suites: the fault kinds, the checks every fault case must pass (the
// same for Node and Chromium, applied to the JSON a scenario resolves), and the figures file that
// `tests/js/verification/report.mjs` prints.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEASE_MS, MARGIN_MS } from "../fixtures/verification-scenarios.js";

export const FIGURES_DIR = process.env.TENURE_FIGURES_DIR ?? join(tmpdir(), "tenure-figures");

export { LEASE_MS, MARGIN_MS };

/**
 * How late after its margin deadline a holder may deliver its loss: its own timer, or the query
 * that notices, may run late on a loaded machine (3 busy loops on 2 cores delay timers by a few
 * hundred ms). Well under `MARGIN_MS`, which is what separates the margin deadline from the
 * grantor's expiry; that the loss still comes before the grantor's expiry is checked on its own,
 * against the grantor's view.
 */
export const LATE_MS = 500;

/**
 * How soon after the heal a holder that lost the lease must have it back: an attempt in flight
 * at the heal runs out its timeout (`LEASE_MS / 3`), then the next retry waits up to as long
 * again, or for `Retry-After`; a page on a loaded machine gets more room.
 */
export const RECOVERY_MS = { node: 2 * LEASE_MS, chromium: 2.5 * LEASE_MS };

/**
 * Every fault the proxy injects, as the fault cases use them. `outcomes`: how the holder's
 * grantor calls end under the fault (as logged by the scenario's recorder; `abandoned` is an
 * attempt the holder aborted itself at its timeout or margin deadline), which shows the fault was
 * really injected. `mustLose`: the fault leaves the holder no successful
 * renewal, so it must surrender; with jittered delays some renewals still get through in time,
 * and the case only checks that whatever happens is safe. Delays are against the holder's
 * request timeout of `LEASE_MS / 3` (833 ms): 2000 ms is well past it, so even a late abort timer
 * abandons the attempt before the reply comes; the jittered one straddles it.
 */
export const FAULT_CASES = [
  { name: "block", fault: { kind: "block" }, outcomes: ["unreachable"] },
  { name: "hang", fault: { kind: "hang" }, outcomes: ["abandoned"] },
  { name: "delay 2000 ms", fault: { kind: "delay", ms: 2_000 }, outcomes: ["abandoned"] },
  {
    name: "delay 200-2000 ms",
    fault: { kind: "delay", ms: 200, jitterMs: 1_800 },
    outcomes: ["ok", "abandoned"],
    mustLose: false,
  },
  { name: "drop-reply", fault: { kind: "drop-reply" }, outcomes: ["unreachable"] },
  { name: "503", fault: { kind: "status", status: 503 }, outcomes: ["server_error"] },
  {
    name: "429 Retry-After: 1",
    fault: { kind: "rate-limit", retryAfter: 1 },
    outcomes: ["rate_limited"],
    retryAfterMs: 1_000,
  },
  { name: "malformed-json", fault: { kind: "malformed-json" }, outcomes: ["malformed_reply"] },
  { name: "wrong-types", fault: { kind: "wrong-types" }, outcomes: ["malformed"] },
  {
    name: "lower-token",
    fault: { kind: "lower-token" },
    outcomes: ["lower_token"],
    reasons: ["token_regressed"],
  },
  { name: "drip 1 B/100 ms", fault: { kind: "drip", byteIntervalMs: 100 }, outcomes: ["abandoned"] },
].map((entry) => ({ mustLose: true, reasons: ["margin_exhausted"], ...entry }));

/**
 * Runs a fault scenario (`run(attempt)`, each attempt on resources of its own) until one reaches
 * its fault, at most `attempts` times. A run stops before the fault when a holder surrendered
 * during the healthy spell: on a starved machine a renewal can come back after the margin began,
 * and surrendering is then right, but such a run says nothing about the fault. Every run that
 * reached the fault is returned as it is, to be checked; `note` hears about the others.
 */
export async function reachingTheFault(run, { attempts = 3, note = () => {} } = {}) {
  let result;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    result = await run(attempt);
    if (!result.lostBeforeFault) return result;
    note(`run ${attempt} stopped before the fault: ${JSON.stringify(result.lostBeforeFault)}`);
  }
  return result;
}

/** Fails with what went wrong unless the scenario got to its end. */
export function assertCompleted(result) {
  assert.ok(
    result.stage === "done" && result.errors.length === 0,
    `the scenario stopped at "${result.stage}": ${result.errors.join("; ") || "no error"}`,
  );
}

/**
 * The checks of one fault case. `lateMs` bounds how long after its margin deadline the holder's
 * own timer may deliver the loss (timer lateness on a loaded machine); it must stay well under the
 * margin, which is what separates that deadline from the grantor's expiry.
 */
export function checkFaultCase(result, expected, { lateMs, recoveryMs }) {
  assert.ok(lateMs < result.marginMs, `the lateness bound ${lateMs} is under the margin`);
  assertCompleted(result);
  const { a, b, solo, samples, timeline } = result;
  assert.ok(samples.count >= 100, `sampled throughout (${samples.count} samples)`);

  // No two holders safely hold at once, and nobody believes past its own margin deadline.
  assert.deepEqual(samples.overlaps, [], "a and b never both safely held");
  assert.deepEqual(samples.lateBeliefs, [], "no belief past the margin deadline");

  // The fault was really injected: a's renewals under it ended as this fault makes them end.
  const underFault = result.calls.filter(
    (c) => c.who === "a" && c.sentAt >= timeline.faultSetAt && (!a.lost || c.sentAt < a.lost.at),
  );
  const aCalls = result.calls
    .filter((c) => c.who === "a")
    .map((c) => `${c.op}@${c.sentAt.toFixed(0)}:${c.outcome}`);
  assert.ok(
    underFault.length >= 1,
    `a asked the grantor while the fault was on (fault set ${timeline.faultSetAt.toFixed(0)}, ` +
      `a lost ${a.lost ? a.lost.at.toFixed(0) : "never"}; a's calls: ${aCalls.join(", ")})`,
  );
  for (const call of underFault) {
    // Any attempt may be abandoned at the deadline; anything else must be this fault's doing.
    const allowed = [...expected.outcomes, "abandoned"];
    assert.ok(allowed.includes(call.outcome), `a's ${call.op} ended in ${call.outcome}`);
  }
  assert.ok(
    underFault.some((c) => expected.outcomes.includes(c.outcome)),
    `the fault showed: ${underFault.map((c) => c.outcome)}`,
  );
  if (expected.retryAfterMs !== undefined) {
    for (const call of underFault.filter((c) => c.outcome === "rate_limited")) {
      const early = underFault.find(
        (c) => c.sentAt > call.settledAt && c.sentAt < call.settledAt + expected.retryAfterMs,
      );
      assert.equal(early, undefined, "no retry before Retry-After");
    }
  }

  if (expected.mustLose) {
    assert.ok(a.lost, "a surrendered");
    assert.ok(solo.lost, "solo surrendered");
  }
  for (const [who, facts] of [["a", a], ["solo", solo]]) {
    if (!facts.lost) continue;
    assert.ok(Number.isFinite(facts.deadline), `${who}: a margin deadline before the loss`);
    assert.ok(expected.reasons.includes(facts.lost.reason), `${who} lost: ${facts.lost.reason}`);
    assert.ok(facts.lost.at >= timeline.faultOnAt, `${who} lost only after the fault began`);
    // The holder surrenders no later than its margin allows...
    assert.ok(
      facts.lossLatencyMs <= lateMs,
      `${who} surrendered ${facts.lossLatencyMs.toFixed(1)} ms after its margin deadline (bound ${lateMs})`,
    );
    // ...and so before the grantor's expiry, by the grantor's own account.
    assert.ok(facts.expiryLowerBound !== null, `${who}: the grantor's expiry was observed`);
    assert.ok(
      facts.lost.at < facts.expiryLowerBound,
      `${who} surrendered at ${facts.lost.at.toFixed(1)}, the grantor held it until at least ${facts.expiryLowerBound.toFixed(1)}`,
    );
  }
  if (a.lost) {
    assert.ok(a.lastSafeAt < a.expiryLowerBound, "a's last belief came before the grantor's expiry");
  }

  // The replacement: granted only after a's grant ended at the grantor, with a larger token, and
  // a's old token is fenced out once it has written.
  if (expected.mustLose) assert.ok(b.granted, "b took over while the fault lasted");
  if (b.granted) {
    assert.ok(a.lost && a.lost.at < b.granted.at, "a had surrendered before b was granted");
    assert.ok(
      b.granted.at >= a.expiryLowerBound,
      `b granted at ${b.granted.at.toFixed(1)}, not before a's grant ended (${a.expiryLowerBound.toFixed(1)})`,
    );
    assert.ok(b.granted.token > a.token, `replacement token ${b.granted.token} > ${a.token}`);
    assert.ok(result.replacementWrite && result.staleWrite, "the replacement and a stale write were sent");
    assert.equal(result.replacementWrite.accepted, true, "the replacement's write was accepted");
    assert.equal(result.staleWrite.accepted, false, "the stale write was rejected");
    assert.ok(result.staleWrite.lastToken >= b.granted.token);
  }

  // No stale write accepted: an accepted write never carries a token lower than one whose
  // acceptance was already acknowledged when it was sent.
  const accepted = result.writes.filter((w) => w.accepted === true);
  for (const write of accepted) {
    const newer = accepted.find((w) => w.token > write.token && w.repliedAt < write.sentAt);
    assert.equal(newer, undefined, `stale write accepted: ${JSON.stringify(write)}`);
  }
  assert.ok(accepted.some((w) => w.who === "a"), "a wrote while it held the lease");

  // Recovery: `solo` gets `alone` back once the fault heals (nobody else wants it).
  if (solo.lost) {
    assert.ok(solo.recovered, "solo re-acquired after the fault healed");
    assert.ok(solo.recovered.token > solo.token, "with a new, larger token");
    const afterHeal = solo.recovered.at - timeline.healAt;
    assert.ok(afterHeal <= recoveryMs, `solo re-acquired ${afterHeal.toFixed(0)} ms after the heal`);
  }
  // After the heal the grantor still refuses `a` while `b` holds.
  if (b.safeAfterHeal) {
    assert.equal(a.afterHeal?.acquired, false, `a is denied while b holds: ${JSON.stringify(a.afterHeal)}`);
    assert.equal(a.afterHeal.holder, "b");
  }
}

const round = (value) => (value === null || value === undefined ? null : Math.round(value * 10) / 10);

/** The figures of one fault case, for the report. */
export function faultFigures(result, expected) {
  // Whatever stage the case reached: the checks say what is missing, the figures never throw.
  const { a = {}, b = {}, solo = {}, timeline = {} } = result;
  const since = (at, from) => (at == null || from == null ? null : round(at - from));
  return {
    fault: expected.name,
    kind: expected.fault.kind,
    stage: result.stage ?? null,
    reason: solo.lost?.reason ?? a.lost?.reason ?? null,
    // The holder's own timer (solo is never queried), and a queried holder (a).
    timerLatencyMs: round(solo.lossLatencyMs),
    queriedLatencyMs: round(a.lossLatencyMs),
    grantorSlackMs: a.lost ? since(a.expiryLowerBound, a.lost.at) : null,
    replacementAfterFaultMs: since(b.granted?.at, timeline.faultOnAt),
    recoveredAfterHealMs: since(solo.recovered?.at, timeline.healAt),
    samples: result.samples?.count ?? null,
    writes: result.writes?.length ?? null,
  };
}

/**
 * Collects the figures of one suite and writes them to `FIGURES_DIR/<suite>.json` when the
 * suite ends. `record(entry, run)` runs `run()` (the checks), records pass or fail, and rethrows.
 */
export function figureLog(suite) {
  const entries = [];
  return {
    entries,
    async record(entry, run) {
      try {
        await run();
        entries.push({ ...entry, pass: true });
      } catch (error) {
        entries.push({ ...entry, pass: false, failure: String(error?.message ?? error) });
        throw error;
      }
    },
    write() {
      mkdirSync(FIGURES_DIR, { recursive: true });
      const file = join(FIGURES_DIR, `${suite}.json`);
      writeFileSync(file, JSON.stringify({ suite, writtenAt: new Date().toISOString(), entries }, null, 2));
      return file;
    },
  };
}

/** The design's "surrenders when renewal cannot reach the grantor", as `surrendersWhenBlocked` saw it. */
export function checkSurrender(result, { lateMs }) {
  assert.equal(result.acquired.acquired, true, `acquired: ${JSON.stringify(result.acquired)}`);
  assertCompleted(result);
  // As the design writes it: a lease period after the block, neither believing nor holding.
  assert.equal(result.safelyHeld, false, "lease.isSafelyHeld() is false");
  assert.equal(result.surrendered, true, "holder.surrendered is true");
  assert.ok(result.consecutiveFailures >= 1, "renewals failed");
  const blocked = result.calls.filter((c) => c.sentAt >= result.blockedAt).map((c) => c.outcome);
  assert.ok(blocked.includes("unreachable"), `renewals refused: ${blocked}`);
  assert.ok(blocked.every((o) => o === "unreachable" || o === "abandoned"), `${blocked}`);
  // Both happened at the surrender, before the grantor's expiry: when the holder gave up, the
  // grantor, asked at that moment, still held the grant for it.
  assert.ok(result.lost, "onLeaseLost was called");
  assert.equal(result.lost.reason, "margin_exhausted");
  assert.ok(result.lost.at < result.checkedAt, "surrendered within the lease period");
  assert.equal(result.safelyHeldAtLoss, false, "not safely held from the surrender on");
  const atLoss = result.grantorAtLoss;
  assert.equal(atLoss?.holder, "node-a", `grantor at the surrender: ${JSON.stringify(atLoss)}`);
  assert.equal(atLoss.token, result.acquired.token);
  assert.ok(atLoss.expiresInMs > 0, "the grantor's expiry was still ahead");
  assert.ok(
    result.lossLatencyMs <= lateMs,
    `surrendered ${result.lossLatencyMs.toFixed(1)} ms after the margin deadline (bound ${lateMs})`,
  );
}

/** The design's "does not grant twice within one lease period", as `noDoubleGrant` saw it. */
export function checkNoDoubleGrant(result) {
  assert.equal(result.firstAcquired.acquired, true, `first: ${JSON.stringify(result.firstAcquired)}`);
  assert.ok(result.attempts.length >= 10, `${result.attempts.length} attempts`);
  const span = result.attempts.at(-1).at - result.attempts[0].at;
  assert.ok(span >= 2 * result.leaseMs, `asked over ${span.toFixed(0)} ms, two lease periods`);
  for (const { outcome } of result.attempts) {
    assert.equal(outcome.acquired, false, "the second node is denied");
    assert.equal(outcome.reason, "denied", `the grantor answered: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.holder, "node-a");
    assert.ok(outcome.expiresInMs > 0 && outcome.expiresInMs <= result.leaseMs);
  }
  assert.equal(result.firstUnsafe, 0, "the first node believed at every attempt");
  assert.equal(result.firstStillSafe, true);
}

/**
 * What the paused holder must have done before it is paused: acquired, written once, renewed, and
 * found its lease safely held when it checked. Checked before pausing it, so a holder that never
 * got there fails with what it reported.
 */
export function assertPausable(checked) {
  assert.equal(checked?.acquired, true, `the holder acquired: ${checked?.acquireFailure ?? "no report"}`);
  assert.equal(checked.firstWrite?.accepted, true, "its first write was accepted");
  assert.equal(
    checked.safeWhenChecked,
    true,
    `the holder checked its lease right before the pause (renewals before the check: ` +
      `${checked.renewalsBeforeCheck}, losses: ${JSON.stringify(checked.lostBeforeCheck)})`,
  );
}

/**
 * The design's "rejects work from a holder that paused past expiry": `checked` is what the holder
 * reported before the pause, `acted` what happened when it resumed and acted.
 */
export function checkPausedHolder({ checked, acted, pauseMs, replacement, testWrite }) {
  assertPausable(checked);
  assert.ok(acted, "the holder acted after the pause");
  // The pause was real: its heartbeat timer did not run for about as long as it lasted.
  assert.ok(
    acted.longestGap.ms >= pauseMs - 150,
    `heartbeat gap ${acted.longestGap.ms.toFixed(0)} ms for a ${pauseMs} ms pause`,
  );
  assert.ok(
    acted.longestGap.from + acted.longestGap.ms > checked.checkedAt,
    "the pause fell between the check and the act",
  );
  // Another node acquired meanwhile with a larger token, and wrote.
  assert.equal(replacement.acquired, true);
  assert.ok(replacement.token > checked.token, `${replacement.token} > ${checked.token}`);
  // The paused holder's work, with its old token, is rejected by the fenced resource...
  assert.equal(acted.write.accepted, false, "the paused holder's write is rejected");
  assert.equal(acted.write.lastToken, replacement.token);
  assert.deepEqual(testWrite, { accepted: false, lastToken: replacement.token });
  // ...and the holder knows it lost the lease as soon as it runs again.
  assert.equal(acted.safelyHeld, false);
  assert.equal(acted.surrendered, true);
  assert.deepEqual(
    acted.lost.map((l) => l.reason),
    ["margin_exhausted"],
  );
}
