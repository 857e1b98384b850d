// The JavaScript `Lease` answers readings inside the core's published safe window without calling
// into WebAssembly. These tests hold it to the core: for every reading, whatever the clocks do,
// its answer must be the one the core gives when asked directly. Clocks are injected by replacing
// `performance.now` / `Date.now`, which the package reads on every call.

import { describe, it, afterEach } from "node:test";
import assert from "node:assert/strict";
import { Lease, LeaseHolder } from "tenure";
// The same module instance the package initialised: the core itself, for the reference answers.
import { LeaseCore } from "../../pkg/glue/tenure.js";

const realPerfNow = performance.now.bind(performance);
const realDateNow = Date.now;

afterEach(() => {
  performance.now = realPerfNow;
  Date.now = realDateNow;
});

/** A seeded generator (mulberry32), so a failure names a sequence that can be replayed. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Readings from a host whose clocks misbehave: mostly close together, with Date.now()'s whole
 * milliseconds; sometimes a sleep, a wall step either way, a monotonic reading gone back, or
 * no reading at all (NaN, negative, infinite).
 */
function readings(seed) {
  const next = random(seed);
  let mono = 1_000 + next() * 1_000;
  let wall = 1_700_000_000_000;
  return () => {
    const step = next() < 0.6 ? next() * 0.3 : next() < 0.7 ? next() * 40 : next() * 900;
    mono += step;
    wall += step;
    const fault = next();
    if (fault < 0.03) wall += next() * 60_000;
    else if (fault < 0.06) wall -= next() * 60_000;
    else if (fault < 0.07) mono -= next() * 50;
    if (fault > 0.995) return [NaN, wall];
    if (fault > 0.99) return [mono, -1];
    if (fault > 0.985) return [Infinity, wall];
    return [mono, Math.floor(wall)];
  };
}

/** Makes the package read `mono` and `wall` on its next clock reads. */
function setClocks(mono, wall) {
  performance.now = () => mono;
  Date.now = () => wall;
}

describe("Lease answers from the core's window as the core would", () => {
  it("agrees with the core on every reading, and calls in only outside the window", () => {
    let calls = 0;
    const original = LeaseCore.prototype.isSafelyHeldAt;
    LeaseCore.prototype.isSafelyHeldAt = function (mono, wall) {
      calls += 1;
      return original.call(this, mono, wall);
    };
    try {
      let total = 0;
      for (let seed = 1; seed <= 40; seed += 1) {
        const next = readings(seed);
        const lease = new Lease(10_000, 1_000);
        // The reference: a core asked directly for every reading, never from a window.
        const reference = new LeaseCore(10_000, 1_000);
        let [mono, wall] = next();
        setClocks(mono, wall);
        lease.grant(1);
        reference.grantAt(1, mono, wall, mono, wall);
        for (let i = 0; i < 300; i += 1) {
          [mono, wall] = next();
          setClocks(mono, wall);
          if (i % 4 === 3) {
            const expected = reference.remainingMsAt(mono, wall);
            assert.equal(lease.remainingMs(), expected, `seed ${seed}, reading ${i}: ${mono}, ${wall}`);
          } else {
            const before = calls;
            const expected = reference.isSafelyHeldAt(mono, wall);
            calls = before;
            assert.equal(lease.isSafelyHeld(), expected, `seed ${seed}, reading ${i}: ${mono}, ${wall}`);
            total += 1;
          }
          if (i % 97 === 96 && Number.isFinite(mono) && mono > 5 && wall > 5) {
            // A new grant, sent a moment ago.
            const sent = { monoMs: mono - 5, wallMs: wall - 5 };
            lease.grant(i, sent);
            reference.grantAt(i, sent.monoMs, sent.wallMs, mono, wall);
          }
        }
      }
      // Both paths ran: the window answered many readings, and the core the rest.
      assert.ok(calls > total * 0.05, `${calls} calls into the core for ${total} checks`);
      assert.ok(calls < total * 0.75, `${calls} calls into the core for ${total} checks`);
    } finally {
      LeaseCore.prototype.isSafelyHeldAt = original;
    }
  });

  it("sees a sleep, a wall step back and a stalled monotonic clock at once", () => {
    const lease = new Lease(10_000, 1_000);
    setClocks(5_000, 1_700_000_000_000);
    lease.grant(1);
    setClocks(6_000, 1_700_000_001_000);
    assert.equal(lease.isSafelyHeld(), true);
    // Asleep 20 s: performance.now() stood still, Date.now() moved on.
    setClocks(6_000.5, 1_700_000_021_000);
    assert.equal(lease.isSafelyHeld(), false);
    assert.equal(lease.remainingMs(), 0);

    const stepped = new Lease(10_000, 1_000);
    setClocks(5_000, 1_700_000_000_000);
    stepped.grant(1);
    // The wall clock steps back an hour: no validity is added, the monotonic clock still counts.
    setClocks(13_999, 1_699_996_409_000);
    assert.equal(stepped.isSafelyHeld(), true);
    setClocks(14_001, 1_699_996_409_002);
    assert.equal(stepped.isSafelyHeld(), false);
  });

  it("keeps answering after the module's memory grows", () => {
    let mono = 5_000;
    let wall = 1_700_000_000_000;
    setClocks(mono, wall);
    const lease = new Lease(60_000, 1_000);
    lease.grant(1);
    // Enough holders to make the module grow its memory, which empties every view of it.
    const grantor = { grant: () => new Promise(() => {}), renew: () => new Promise(() => {}) };
    const holders = Array.from(
      { length: 3_000 },
      (_, n) => new LeaseHolder(grantor, { resource: `r${n}`, holderId: `h${n}`, leaseMs: 9_000, marginMs: 1_000 }),
    );
    assert.equal(holders.length, 3_000);
    let calls = 0;
    const original = LeaseCore.prototype.isSafelyHeldAt;
    LeaseCore.prototype.isSafelyHeldAt = function (...readings) {
      calls += 1;
      return original.apply(this, readings);
    };
    try {
      for (let i = 0; i < 100; i += 1) {
        mono += 1;
        wall += 1;
        setClocks(mono, wall);
        assert.equal(lease.isSafelyHeld(), true);
      }
    } finally {
      LeaseCore.prototype.isSafelyHeldAt = original;
    }
    // One call finds the view empty and takes a new one; the window answers the rest.
    assert.equal(calls, 1);
    assert.equal(lease.remainingMs(), 59_900);
  });
});

describe("a holder's lease answers from the window too", () => {
  it("is safely held while the window says so, and loses the lease when a sleep ends it", async () => {
    const grantor = {
      grant: async () => ({ granted: true, token: 3, durationMs: 10_000 }),
      renew: () => new Promise(() => {}),
    };
    const holder = new LeaseHolder(grantor, { resource: "r", holderId: "h", leaseMs: 10_000, marginMs: 1_000 });
    const lost = [];
    holder.onLeaseLost = (reason) => lost.push(reason);
    setClocks(1_000, 1_700_000_000_000);
    await holder.acquire();
    setClocks(2_000, 1_700_000_001_000);
    assert.equal(holder.lease.isSafelyHeld(), true);
    assert.equal(holder.lease.remainingMs(), 9_000);
    // Asleep 30 s: outside the window, so the core answers, and the hold ends at once.
    setClocks(2_001, 1_700_000_031_000);
    assert.equal(holder.lease.isSafelyHeld(), false);
    assert.deepEqual(lost, ["margin_exhausted"]);
    assert.equal(holder.signal.aborted, true);
  });
});
