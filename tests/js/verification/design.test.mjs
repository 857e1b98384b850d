// The three tests of the design's Verification section, against the built package and a real
// grantor process, in Node and in Chromium: the fault injector is the fault proxy, and the pause
// is a real one (SIGSTOP/SIGCONT of a Node process; a DevTools freeze of a Chromium page).

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as tenure from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { startFaultProxy } from "../../fault-proxy/proxy.mjs";
import { startFaultProxyProcess } from "../support/fault-proxy-process.mjs";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import { startCdpChromium } from "../support/cdp-chromium.mjs";
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
const figures = figureLog("design");

/** The other node of the third test: takes the lease once the paused holder's grant lapses. */
async function replace(grantorUrl, resource) {
  const grantor = new tenure.HttpGrantor({ baseUrl: grantorUrl });
  const other = new tenure.LeaseHolder(grantor, {
    resource,
    holderId: "other-node",
    leaseMs,
    marginMs,
  });
  const outcome = await other.acquire({ wait: true, signal: AbortSignal.timeout(5 * leaseMs) });
  const write = await grantor.fencedWrite(resource, { by: "other-node" }, outcome.token);
  assert.equal(write.accepted, true, "the replacement's write was accepted");
  return { ...outcome, release: () => other.release(), grantor };
}

const round = (value) => (typeof value === "number" ? Math.round(value * 10) / 10 : null);

function surrenderFigures(runtime, result) {
  return {
    test: "surrenders when renewal cannot reach the grantor",
    runtime,
    lossLatencyMs: round(result.lossLatencyMs),
    grantorExpiresInMsAtLoss: result.grantorAtLoss?.expiresInMs ?? null,
  };
}

function pauseFigures(runtime, how, { acted, pauseMs }) {
  return {
    test: "rejects work from a holder that paused past expiry",
    runtime,
    pause: how,
    pauseMs,
    heartbeatGapMs: acted?.longestGap ? Math.round(acted.longestGap.ms) : null,
    staleWriteAccepted: acted?.write?.accepted ?? null,
  };
}

/** Checks what the paused holder reported before pausing it; a failure is recorded as the test's. */
function pausable(runtime, how, checked) {
  try {
    assertPausable(checked);
  } catch (error) {
    const entry = pauseFigures(runtime, how, { acted: null, pauseMs });
    figures.entries.push({ ...entry, pass: false, failure: String(error?.message ?? error) });
    throw error;
  }
}

after(() => figures.write());

describe("lease safety (the design's verification), in Node", () => {
  let grantor;
  let proxy;
  let child;

  before(async () => {
    grantor = await startGrantor();
    proxy = await startFaultProxy({ target: grantor.url });
    await warmUp({ tenure, grantorUrl: grantor.url, proxyUrl: proxy.url, tag: "node" });
  });

  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    }
    await proxy?.close();
    await grantor?.stop();
  });

  it("surrenders when renewal cannot reach the grantor", async (t) => {
    const run = (attempt) =>
      surrendersWhenBlocked({
        tenure,
        grantorUrl: grantor.url,
        proxyUrl: proxy.url,
        control: proxy,
        tag: `node/surrender/${attempt}`,
        leaseMs,
        marginMs,
      });
    const result = await reachingTheFault(run, { note: (text) => t.diagnostic(text) });
    await figures.record(surrenderFigures("node", result), () =>
      checkSurrender(result, { lateMs: LATE_MS }),
    );
  });

  it("does not grant twice within one lease period", async () => {
    const result = await noDoubleGrant({ tenure, grantorUrl: grantor.url, tag: "node/twice", leaseMs, marginMs });
    await figures.record({ test: "does not grant twice within one lease period", runtime: "node" }, () =>
      checkNoDoubleGrant(result),
    );
  });

  it("rejects work from a holder that paused past expiry (SIGSTOP, SIGCONT)", async () => {
    child = spawn(
      process.execPath,
      [join(repo, "tests/js/fixtures/pausable-holder-process.mjs"), grantor.url, "node/paused", leaseMs, marginMs],
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
    pausable("node", "SIGSTOP/SIGCONT", checked);

    child.kill("SIGSTOP");
    await sleep(pauseMs);
    const replacement = await replace(grantor.url, checked.resource);
    child.kill("SIGCONT");
    const acted = nextMessage();
    child.stdin.write("act\n");
    const outcome = await acted;
    const testWrite = await replacement.grantor.fencedWrite(checked.resource, "value", checked.token);
    await replacement.release();
    const run = { checked, acted: outcome, pauseMs, replacement, testWrite };
    await figures.record(pauseFigures("node", "SIGSTOP/SIGCONT", run), () => checkPausedHolder(run));
  });
});

describe("lease safety (the design's verification), in Chromium", () => {
  let grantor;
  let proxy;
  let server;
  let browser;
  let cdpBrowser;

  before(async () => {
    grantor = await startGrantor();
    proxy = await startFaultProxyProcess({ target: grantor.url });
    server = await serveStatic(repo);
  });

  after(async () => {
    await browser?.close();
    await cdpBrowser?.close();
    await proxy?.stop();
    await server?.close();
    await grantor?.stop();
  });

  const pageUrl = () => `${server.url}/tests/js/fixtures/verification-page.html`;

  async function playwrightPage() {
    browser ??= await launchChromium();
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(pageUrl());
    await page.waitForFunction(() => window.verificationReady === true, null, { timeout: 20_000 });
    const warm = { grantorUrl: grantor.url, proxyUrl: proxy.url, tag: "chromium" };
    await page.evaluate((a) => window.verification.run("warmUp", a), warm);
    return { page, errors };
  }

  it("surrenders when renewal cannot reach the grantor", async (t) => {
    const { page, errors } = await playwrightPage();
    const run = (attempt) =>
      page.evaluate((args) => window.verification.run("surrendersWhenBlocked", args), {
        grantorUrl: grantor.url,
        proxyUrl: proxy.url,
        controlUrl: proxy.controlUrl,
        tag: `chromium/surrender/${attempt}`,
        leaseMs,
        marginMs,
      });
    const result = await reachingTheFault(run, { note: (text) => t.diagnostic(text) });
    await figures.record(surrenderFigures("chromium", result), () => {
      checkSurrender(result, { lateMs: LATE_MS });
      assert.deepEqual(errors, []);
    });
  });

  it("does not grant twice within one lease period", async () => {
    const { page, errors } = await playwrightPage();
    const result = await page.evaluate((args) => window.verification.run("noDoubleGrant", args), {
      grantorUrl: grantor.url,
      tag: "chromium/twice",
      leaseMs,
      marginMs,
    });
    await figures.record({ test: "does not grant twice within one lease period", runtime: "chromium" }, () => {
      checkNoDoubleGrant(result);
      assert.deepEqual(errors, []);
    });
  });

  it("rejects work from a holder that paused past expiry (page frozen over DevTools)", async () => {
    cdpBrowser = await startCdpChromium();
    const page = await cdpBrowser.newPage(pageUrl());
    await page.waitFor(() => window.verificationReady === true);
    await page.evaluate((a) => window.verification.run("warmUp", a), {
      grantorUrl: grantor.url,
      tag: "chromium/paused",
    });
    const checked = await page.evaluate(
      (args) => window.verification.run("pausableHolder", args),
      { grantorUrl: grantor.url, tag: "chromium/paused", leaseMs, marginMs },
    );
    pausable("chromium", "DevTools freeze", checked);

    await page.send("Page.setWebLifecycleState", { state: "frozen" });
    await sleep(pauseMs);
    const replacement = await replace(grantor.url, checked.resource);
    await page.send("Page.setWebLifecycleState", { state: "active" });
    const acted = await page.evaluate(() => window.verification.call("act"));
    const testWrite = await replacement.grantor.fencedWrite(checked.resource, "value", checked.token);
    await replacement.release();

    const run = { checked, acted, pauseMs, replacement, testWrite };
    await figures.record(pauseFigures("chromium", "DevTools freeze", run), () => {
      // The freeze really happened: the page saw `freeze`, then `resume`, around the gap.
      const types = acted.lifecycle.map((event) => event.type);
      assert.ok(types.includes("freeze") && types.includes("resume"), `lifecycle: ${types}`);
      const freeze = acted.lifecycle.find((event) => event.type === "freeze");
      const resume = acted.lifecycle.find((event) => event.type === "resume");
      assert.ok(
        resume.at - freeze.at >= pauseMs - 150,
        `frozen for the whole pause: ${(resume.at - freeze.at).toFixed(0)} ms of ${pauseMs}`,
      );
      checkPausedHolder(run);
      assert.deepEqual(page.errors, []);
    });
  });
});
