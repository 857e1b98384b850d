// Global mode against the real reference grantor: only the active tab holds the grantor lease,
// under one holder id for the browser, so four tabs cost one renew stream, and the next active
// tab re-grants at once with a larger token that fences the last one.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { HttpGrantor } from "tenure";
import { serveStatic } from "../support/static-server.mjs";
import { startGrantor } from "../support/grantor-process.mjs";
import { launchPlaywrightOverCdp } from "../support/playwright-cdp.mjs";
import {
  tabUrl,
  openTabs,
  snapshots,
  until,
  oneActive,
  assertExclusive,
  recordingProxy,
  sleep,
} from "../support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const RESOURCE = "editor/global";
const GLOBAL_LEASE_MS = 1_500;
const GLOBAL_RENEW_MS = GLOBAL_LEASE_MS / 3;

describe("TabLease global mode with the reference grantor", () => {
  let chrome;
  let server;
  let grantor;
  let proxy;
  const errors = [];

  before(async () => {
    grantor = await startGrantor();
    proxy = await recordingProxy(grantor.url);
    chrome = await launchPlaywrightOverCdp();
    server = await serveStatic(repo);
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
    await proxy?.close();
    await grantor?.stop();
  });

  it("four tabs hold one grantor lease with one renew stream, handed over with a larger token", async (t) => {
    const params = {
      name: "global",
      leaseMs: 1_000,
      marginMs: 200,
      grantor: proxy.url,
      resource: RESOURCE,
      globalLeaseMs: GLOBAL_LEASE_MS,
      globalMarginMs: 300,
    };
    const tabs = await openTabs((url) => chrome.newPage(url), tabUrl(server, params), 4, errors);
    const first = await oneActive(tabs);
    const firstToken = first.states[first.index].grantorToken;
    assert.ok(Number.isSafeInteger(firstToken));
    for (const [i, state] of first.states.entries()) {
      if (i !== first.index) assert.equal(state.grantorToken, null, "only the active tab asked the grantor");
    }

    const admin = new HttpGrantor({ baseUrl: grantor.url });
    const status = await admin.status(RESOURCE);
    assert.equal(status.token, firstToken);
    const browserHolder = status.holder;
    assert.match(browserHolder, /^browser-/);

    // One renew stream: renewals every GLOBAL_RENEW_MS from one holder, not one per tab.
    const from = Date.now();
    await assertExclusive(tabs, { samples: 15, everyMs: 200 });
    const to = Date.now();
    const seen = proxy.requests.filter((r) => r.at >= from && r.at <= to && r.method === "POST");
    const renewals = seen.filter((r) => r.path === "/v1/renew");
    const expected = (to - from) / GLOBAL_RENEW_MS;
    t.diagnostic(`${renewals.length} renewals in ${to - from} ms from 4 tabs (one stream: ~${expected.toFixed(1)})`);
    assert.ok(renewals.length >= expected - 2 && renewals.length <= expected + 2, `${renewals.length} renewals`);
    assert.deepEqual(new Set(renewals.map((r) => r.body.holder)), new Set([browserHolder]));
    assert.equal(seen.filter((r) => r.path === "/v1/grant").length, 0, "nobody else campaigns");

    // Handover on close: same browser holder, next token at once: one grant request, carrying
    // the shared lease secret, is granted (no denial, no waiting the old grant out).
    const closedAt = Date.now();
    await tabs[first.index].close();
    const rest = tabs.filter((_, i) => i !== first.index);
    const second = await oneActive(rest, 5_000);
    const secondToken = second.states[second.index].grantorToken;
    assert.ok(secondToken > firstToken, `token ${secondToken} after ${firstToken}`);
    const handoverGrants = proxy.requests.filter((r) => r.at >= closedAt && r.path === "/v1/grant");
    assert.equal(handoverGrants.length, 1, `grant requests in the handover: ${handoverGrants.length}`);
    assert.equal(typeof handoverGrants[0].body.leaseSecret, "string", "the successor presents the secret");
    const after = await admin.status(RESOURCE);
    assert.deepEqual([after.holder, after.token], [browserHolder, secondToken]);

    // Freezing the active tab: the next one takes the tab role and re-grants; the frozen one's
    // token is fenced at the grantor's resource once the successor wrote.
    const frozen = rest[second.index];
    assert.deepEqual(await frozen.evaluate(() => window.grantorWrite({ by: "second" })), {
      accepted: true,
      lastToken: secondToken,
    });
    await chrome.freeze(frozen);
    const survivors = rest.filter((_, i) => i !== second.index);
    const third = await oneActive(survivors, 5_000);
    const thirdToken = third.states[third.index].grantorToken;
    assert.ok(thirdToken > secondToken);
    assert.deepEqual(await survivors[third.index].evaluate(() => window.grantorWrite({ by: "third" })), {
      accepted: true,
      lastToken: thirdToken,
    });
    await chrome.resume(frozen);
    assert.equal(await frozen.evaluate(() => window.tab.isActive), false);
    assert.deepEqual(await frozen.evaluate(() => window.grantorWrite({ by: "stale" })), {
      accepted: false,
      lastToken: thirdToken,
    });
    await until(
      async () => (await snapshots([frozen]))[0].events.some((e) => e.type === "inactive"),
      5_000,
      "the resumed tab reports the loss",
    );
    await sleep(GLOBAL_RENEW_MS);
    await assertExclusive(rest, { samples: 5, everyMs: 100 });
    assert.equal((await admin.status(RESOURCE)).token, thirdToken);
    for (const page of tabs) await page.close().catch(() => {});
    assert.deepEqual(errors, []);
  });

  it("a tab active a second time keeps its grantor lease renewed and stays active", async () => {
    const params = {
      name: "global-again",
      leaseMs: 1_000,
      marginMs: 200,
      grantor: proxy.url,
      resource: `${RESOURCE}-again`,
      globalLeaseMs: GLOBAL_LEASE_MS,
      globalMarginMs: 300,
    };
    const [page] = await openTabs((url) => chrome.newPage(url), tabUrl(server, params), 1, errors);
    await oneActive([page]);
    await page.evaluate(() => window.tab.release());
    await page.evaluate(() => window.tab.acquire().then(() => undefined));
    await oneActive([page]);
    // Several grantor leases long: only the renewals reported to the page keep it active.
    const from = Date.now();
    await assertExclusive([page], { samples: 10, everyMs: GLOBAL_LEASE_MS / 2 });
    const [state] = await snapshots([page]);
    const later = state.events.filter((e) => e.at >= from);
    assert.deepEqual(later, [], "no step down while renewals succeed");
    assert.equal(state.events.filter((e) => e.type === "active").length, 2);
    await page.close();
    assert.deepEqual(errors, []);
  });
});
