// The three tests of the design's Verification section against the Durable Object grantor: the
// same scenarios and checks as design.test.mjs, with the reference grantor replaced by a
// LeaseGrantorObject in workerd (through Miniflare), reached over HTTP through the Worker in front
// of it. What runs where:
//
// - the grantor: LeaseGrantorObject in workerd, storage persisted to a directory, its clock
//   workerd's (which moves only with I/O);
// - the holders: the built package in Node (in this process, and for the pause test in a child
//   process SIGSTOPped and SIGCONTed), over HTTP;
// - the fault: the fault proxy (tests/fault-proxy) between the holder and the Worker.
//
// The holders do not run in Chromium here: what these runs add to design.test.mjs is the grantor,
// and the holder's code is the same package in both runtimes (design.test.mjs runs it in Chromium
// against the reference grantor). The holders do not run inside workerd either: a Worker cannot be
// paused on its own, nor have its requests cut by a proxy without leaving workerd.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as tenure from "tenure";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";
import { startFaultProxy } from "../../fault-proxy/proxy.mjs";
import { sleep } from "../support/memory-grantor.mjs";
import { surrendersWhenBlocked, noDoubleGrant, warmUp } from "../fixtures/verification-scenarios.js";
import {
  LATE_MS,
  LEASE_MS,
  MARGIN_MS,
  assertPausable,
  checkSurrender,
  checkNoDoubleGrant,
  checkPausedHolder,
  figureLog,
  reachingTheFault,
} from "../support/verification.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const leaseMs = LEASE_MS;
const marginMs = MARGIN_MS;
// Paused for two lease periods: well past the grantor's expiry of the paused holder's grant.
const pauseMs = 2 * leaseMs;
const figures = figureLog("design-durable-object");
const NAME = "verification";

/** The other node of the third test: takes the lease once the paused holder's grant lapses. */
async function replace(grantorUrl, resource) {
  const grantor = new tenure.HttpGrantor({ baseUrl: grantorUrl });
  const other = new tenure.LeaseHolder(grantor, { resource, holderId: "other-node", leaseMs, marginMs });
  const outcome = await other.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
  const write = await grantor.fencedWrite(resource, { by: "other-node" }, outcome.token);
  assert.equal(write.accepted, true, "the replacement's write was accepted");
  return { ...outcome, release: () => other.release(), grantor };
}

const round = (value) => (typeof value === "number" ? Math.round(value * 10) / 10 : null);

after(() => figures.write());

describe("lease safety (the design's verification) against the Durable Object grantor, holders in Node", () => {
  let objects;
  let proxy;
  let grantorUrl;
  let proxyUrl;
  let child;

  before(async () => {
    objects = await startDurableObjectGrantor();
    grantorUrl = objects.url(NAME);
    // The proxy relays request paths as they come, to the Worker's origin: the holders behind it
    // ask for the object's path on the proxy's origin.
    const { origin, pathname } = new URL(grantorUrl);
    proxy = await startFaultProxy({ target: origin });
    proxyUrl = new URL(pathname, proxy.url).href;
    await warmUp({ tenure, grantorUrl, proxyUrl, tag: "do" });
  });

  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    }
    await proxy?.close();
    await objects?.stop();
  });

  it("surrenders when renewal cannot reach the grantor", async (t) => {
    const run = (attempt) =>
      surrendersWhenBlocked({ tenure, grantorUrl, proxyUrl, control: proxy, tag: `do/surrender/${attempt}`, leaseMs, marginMs });
    const result = await reachingTheFault(run, { note: (text) => t.diagnostic(text) });
    const entry = {
      test: "surrenders when renewal cannot reach the grantor",
      runtime: "node",
      lossLatencyMs: round(result.lossLatencyMs),
      grantorExpiresInMsAtLoss: result.grantorAtLoss?.expiresInMs ?? null,
    };
    await figures.record(entry, () => checkSurrender(result, { lateMs: LATE_MS }));
  });

  it("does not grant twice within one lease period", async () => {
    const result = await noDoubleGrant({ tenure, grantorUrl, tag: "do/twice", leaseMs, marginMs });
    await figures.record({ test: "does not grant twice within one lease period", runtime: "node" }, () =>
      checkNoDoubleGrant(result),
    );
  });

  it("rejects work from a holder that paused past expiry (SIGSTOP, SIGCONT)", async () => {
    child = spawn(
      process.execPath,
      [join(repo, "tests/js/fixtures/pausable-holder-process.mjs"), grantorUrl, "do/paused", leaseMs, marginMs],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const lines = createInterface({ input: child.stdout });
    const nextMessage = () =>
      new Promise((resolve, reject) => {
        lines.once("line", (line) => resolve(JSON.parse(line)));
        child.once("exit", (code) => reject(new Error(`holder process exited with ${code}`)));
      });
    const checked = await nextMessage();
    assert.equal(checked.event, "checked");
    const entry = (acted) => ({
      test: "rejects work from a holder that paused past expiry",
      runtime: "node",
      pause: "SIGSTOP/SIGCONT",
      pauseMs,
      heartbeatGapMs: acted?.longestGap ? Math.round(acted.longestGap.ms) : null,
      staleWriteAccepted: acted?.write?.accepted ?? null,
    });
    try {
      assertPausable(checked);
    } catch (error) {
      figures.entries.push({ ...entry(null), pass: false, failure: String(error?.message ?? error) });
      throw error;
    }

    child.kill("SIGSTOP");
    await sleep(pauseMs);
    const replacement = await replace(grantorUrl, checked.resource);
    child.kill("SIGCONT");
    const acted = nextMessage();
    child.stdin.write("act\n");
    const outcome = await acted;
    const testWrite = await replacement.grantor.fencedWrite(checked.resource, "value", checked.token);
    await replacement.release();
    const run = { checked, acted: outcome, pauseMs, replacement, testWrite };
    await figures.record(entry(outcome), () => checkPausedHolder(run));
  });
});
