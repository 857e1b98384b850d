// Helpers for tests of observe(): take an observation's values within a time limit and check
// their order.

import assert from "node:assert/strict";

/** The next value of `observation`, failing after `ms`. */
export async function nextWithin(observation, ms = 5_000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no change within ${ms} ms`)), ms);
  });
  try {
    const { value, done } = await Promise.race([observation.next(), timeout]);
    assert.equal(done, false, "the observation ended");
    return value;
  } finally {
    clearTimeout(timer);
  }
}

/** Values of `observation` until one satisfies `done`, failing after `ms`. */
export async function until(observation, done, ms = 5_000) {
  const seen = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await nextWithin(observation, Math.max(1, deadline - Date.now()));
    seen.push(value);
    if (done(value)) return seen;
  }
}

/** Asserts that every value's version is larger than the one before. */
export function assertIncreasing(changes) {
  for (let i = 1; i < changes.length; i++) {
    assert.ok(
      changes[i].version > changes[i - 1].version,
      `versions out of order: ${JSON.stringify(changes.map((c) => [c.version, c.holder]))}`,
    );
  }
}

/** Asserts that nothing more is yielded for `ms`. */
export async function assertQuiet(observation, ms) {
  const next = observation.next();
  const quiet = Symbol("quiet");
  const result = await Promise.race([next, new Promise((resolve) => setTimeout(() => resolve(quiet), ms))]);
  assert.equal(result, quiet, `unexpected change: ${JSON.stringify(result)}`);
  return next;
}
