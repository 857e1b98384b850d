// useLease in Chromium, in a React 19 app under <StrictMode>, against the real reference grantor
// (which serves the app, so the page's requests are same-origin): one campaign per mounted hook,
// counted by the grantor itself; `isHeld` and `token` rendered; no restart for an equal config;
// a release when the resource changes and on unmount, so the next holder is granted at once with
// a larger token; nothing in the console.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { rmSync } from "node:fs";
import { HttpGrantor } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { launchChromium } from "../support/browser.mjs";
import { buildReactApp, openApp, probe, until } from "./react-app.mjs";

// Long enough that nothing in these tests can be an expiry: every handoff is a release.
const LEASE = { leaseMs: 30_000, marginMs: 5_000 };
const PROMPT_MS = 5_000;

describe("useLease under StrictMode against the grantor", () => {
  let app;
  let grantor;
  let client;
  let browser;
  let pages = [];
  let problems = [];
  let run = 0;

  /** A counter from the grantor's /metrics, e.g. every grant request it answered. */
  const metric = async (name) => {
    const text = await (await fetch(`${grantor.url}/metrics`)).text();
    // A labelled series appears with its first sample.
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return line === undefined ? 0 : Number(line.slice(name.length + 1));
  };
  const grantRequests = () => metric('tenure_grantor_http_request_duration_seconds_count{route="/v1/grant"}');
  const releases = () => metric("tenure_grantor_releases_total");
  const open = async (query) => {
    const page = await openApp(browser, grantor.url, { mode: "lease", ...LEASE, ...query }, problems);
    pages.push(page);
    return page;
  };
  const held = (page, resource) =>
    until(
      async () => {
        const state = await probe(page);
        return state.view.resource === resource && state.view.isHeld ? state : null;
      },
      PROMPT_MS * 3,
      `the page holds ${resource}`,
    );

  before(async () => {
    app = await buildReactApp();
    grantor = await startGrantor({ args: ["--static-dir", app.dir] });
    client = new HttpGrantor({ baseUrl: grantor.url });
    browser = await launchChromium();
  });

  afterEach(async () => {
    for (const page of pages) await page.close().catch(() => {});
    pages = [];
    problems = [];
  });

  after(async () => {
    await browser?.close();
    if (grantor !== undefined) {
      await grantor.stop();
      rmSync(dirname(grantor.db), { recursive: true, force: true });
    }
    app?.remove();
  });

  it("campaigns once, keeps the hold across re-renders, and releases on a new resource and on unmount", async () => {
    const resource = `report-${++run}`;
    const grantsBefore = await grantRequests();
    const page = await open({ name: resource });
    const first = await held(page, resource);
    assert.equal(first.effectMounts, 2, "StrictMode mounted the panel twice");
    assert.equal(first.grantCalls, 1, "one grant call from the page");
    assert.equal((await grantRequests()) - grantsBefore, 1, "one grant request reached the grantor");
    assert.equal(await page.textContent("#held"), "held");
    assert.equal(await page.textContent("#token"), String(first.view.token));
    assert.match(first.view.holderId, /^react-[0-9a-f]{24}$/, "a holder id made for the component");
    const status = await client.status(resource);
    assert.equal(status.holder, first.view.holderId);
    assert.equal(status.token, first.view.token);

    // Re-renders with a new, equal config object keep the same holder and hold.
    for (let i = 0; i < 3; i += 1) await page.click("#rerender");
    await until(async () => (await page.textContent("#rerender")).includes("(3)"), 5_000, "re-rendered");
    const rerendered = await probe(page);
    assert.ok(rerendered.commits > first.commits, "the panel re-rendered");
    assert.equal(rerendered.grantCalls, 1, "no new campaign on re-render");
    assert.equal(rerendered.view.token, first.view.token);
    assert.equal(await page.evaluate(() => window.instances.length), 1);

    // A new resource releases the old one at once and campaigns for the new one.
    const releasesBefore = await releases();
    await page.click("#rename");
    const renamedResource = `${resource}-renamed`;
    const renamed = await held(page, renamedResource);
    assert.equal(renamed.grantCalls, 2, "one campaign for the new resource");
    assert.equal((await client.status(resource)).holder, null, "the old resource was released");
    const firstSignal = renamed.signals.find((entry) => entry.held && entry.mark === first.view.token);
    assert.equal(firstSignal?.aborted, true, "the old hold's signal aborted");
    assert.equal(firstSignal.code, "ERR_LEASE_RELEASED");

    // Unmounting releases: the grantor frees the lease, and a new holder is granted at once.
    await page.click("#unmount");
    await until(async () => (await client.status(renamedResource)).holder === null, PROMPT_MS, "released on unmount");
    assert.equal((await releases()) - releasesBefore, 2, "both holds ended by a release, not an expiry");
    const grantsBeforeNext = await grantRequests();
    const nextPage = await open({ name: renamedResource });
    const next = await held(nextPage, renamedResource);
    assert.ok(next.view.token > renamed.view.token, `token ${next.view.token} after ${renamed.view.token}`);
    assert.notEqual(next.view.holderId, renamed.view.holderId);
    assert.equal((await grantRequests()) - grantsBeforeNext, 1, "granted on its first request");
    assert.equal((await client.status(renamedResource)).holder, next.view.holderId);
    assert.deepEqual(problems, []);
  });

  it("shows a loss (a revocation), with the signal aborted, and campaigns again", async () => {
    const resource = `revoked-${++run}`;
    // Renewed every second, so the revocation is seen within about a second.
    const page = await open({ name: resource, leaseMs: 3_000, marginMs: 1_000 });
    const first = await held(page, resource);
    await client.revoke(resource);
    const again = await until(
      async () => {
        const state = await probe(page);
        return state.view.isHeld && state.view.token > first.view.token ? state : null;
      },
      PROMPT_MS * 3,
      "held again with a larger token",
    );
    const lost = again.signals.find((entry) => entry.held && entry.mark === first.view.token);
    assert.equal(lost?.aborted, true, "the revoked hold's signal aborted");
    assert.equal(lost.code, "ERR_LEASE_LOST");
    assert.equal(lost.reason, "revoked");
    assert.equal(again.grantCalls, 2, "one new campaign after the loss");
    assert.equal(await page.evaluate(() => window.instances.length), 1, "the same holder");
    assert.equal((await client.status(resource)).holder, again.view.holderId);
    assert.deepEqual(problems, []);
  });

  it("the grant count catches a hook that starts its campaign in the effect body", async () => {
    // The control: naive-hooks.js, mounted twice by StrictMode, starts two campaigns from one
    // component. The first is cancelled with its request in flight; when that request has already
    // left, the grantor grants it, the reply is dropped, and the live campaign (same holder id) is
    // denied until that grant expires: a stuck lock. Whether it left is a race, so only the
    // page's count, which is certain, is asserted here: more than the one call the first test
    // requires. It can be more than two, because a waiting campaign follows the grantor's feed
    // and asks again when the torn-down candidate's release frees the lease.
    const resource = `naive-${++run}`;
    const page = await open({ name: resource, holderId: `naive-holder-${run}`, hooks: "naive" });
    const state = await until(async () => {
      const seen = await probe(page);
      return seen.grantCalls >= 2 ? seen : null;
    }, PROMPT_MS, "two campaigns");
    assert.equal(state.effectMounts, 2);
    assert.ok(state.grantCalls >= 2, `the naive hook campaigned twice (${state.grantCalls} grant calls)`);
  });
});
