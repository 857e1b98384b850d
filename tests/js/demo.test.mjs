// The demo page as `scripts/demo` runs it (the same launcher: the real grantor serving www/ on
// PORT, the fault proxy on PORT + 1 and its control API on PORT + 2), driven in Debian's Chromium
// with three tabs of one profile: one holder and two standbys, release, a blocked grantor, an
// admin revoke, a frozen holder fenced out, and the job-claims panel, with screenshots.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "./support/browser.mjs";
import { startDemoStack } from "./support/demo-stack.mjs";

// A renewal every 2 s that may take up to 4 s: room for a machine loaded far beyond its cores.
const LEASE_MS = 6_000;
const MARGIN_MS = 2_000;
// Long enough for another tab to take over (at most a lease after the freeze began) and write.
const FREEZE_MS = 2 * LEASE_MS;
const QUERY = `?leaseMs=${LEASE_MS}&marginMs=${MARGIN_MS}&freezeMs=${FREEZE_MS}`;
const TABS = 3;
// Every wait is several times what it takes on an idle machine: these tabs share two busy cores.
const WAIT_MS = 30_000;

/** The stack on three consecutive free ports, as `PORT=… scripts/demo` would run it. */
async function startOnFreePorts() {
  let lastError;
  for (let attempt = 0; attempt < 10; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    try {
      return await startDemoStack({ port });
    } catch (error) {
      lastError = error; // a port was taken: try another block of three
    }
  }
  throw lastError;
}

/** Width and height of a PNG file, after checking its signature. */
function pngSize(path) {
  const bytes = readFileSync(path);
  assert.ok(bytes.length > 10_000, `${path} is only ${bytes.length} bytes`);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${path} is a PNG`);
  assert.equal(bytes.toString("latin1", 12, 16), "IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function status(stack) {
  const response = await fetch(`${stack.grantorUrl}/v1/status?resource=demo`);
  assert.equal(response.status, 200);
  return response.json();
}

async function metrics(stack) {
  const text = await (await fetch(`${stack.grantorUrl}/metrics`)).text();
  const values = new Map();
  for (const line of text.split("\n")) {
    const match = /^(tenure_grantor_\S+) (\S+)$/.exec(line);
    if (match) values.set(match[1], Number(match[2]));
  }
  return values;
}

/** Role, token and id each tab shows. */
function shown(page) {
  return page.evaluate(() => ({
    id: document.getElementById("tab-id").textContent,
    role: document.body.dataset.role,
    token: Number(document.getElementById("token").textContent) || null,
  }));
}

/** Polls until `check(values)` holds for every tab's `shown` values; resolves them. */
async function until(pages, what, check, timeoutMs = WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await Promise.all(pages.map(shown));
    if (check(last)) return last;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; tabs show ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const oneHolder = (tabs) =>
  tabs.filter((t) => t.role === "holder").length === 1 &&
  tabs.filter((t) => t.role === "standby").length === tabs.length - 1;

describe("demo page (scripts/demo's processes, Chromium, three tabs)", { timeout: 300_000 }, () => {
  let stack;
  let context;
  let profile;
  let figures;
  let keepFigures;
  const pages = [];
  const pageErrors = [];
  const consoleErrors = [];
  // When the grantor was blocked, as `{from, to}` wall-clock times.
  const blockedSpans = [];
  const screenshots = [];

  const holderPage = async () => {
    const tabs = await Promise.all(pages.map(shown));
    const index = tabs.findIndex((t) => t.role === "holder");
    assert.notEqual(index, -1, `no holder among ${JSON.stringify(tabs)}`);
    return { page: pages[index], ...tabs[index] };
  };

  const screenshot = async (page, name) => {
    const path = join(figures, `${name}.png`);
    await page.screenshot({ path });
    screenshots.push(path);
  };

  before(async () => {
    keepFigures = process.env.TENURE_FIGURES_DIR !== undefined;
    figures = keepFigures ? process.env.TENURE_FIGURES_DIR : mkdtempSync(join(tmpdir(), "tenure-demo-figures-"));
    mkdirSync(figures, { recursive: true });
    stack = await startOnFreePorts();
    profile = mkdtempSync(join(tmpdir(), "tenure-demo-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    for (let i = 0; i < TABS; i++) {
      const page = i === 0 ? context.pages()[0] ?? (await context.newPage()) : await context.newPage();
      page.on("pageerror", (error) => pageErrors.push(`tab ${i}: ${error}`));
      page.on("console", (message) => {
        if (message.type() === "error") {
          consoleErrors.push({ tab: i, text: message.text(), url: message.location().url, at: Date.now() });
        }
      });
      // The URL a user opens (the query only sets timings): the page finds the fault proxy by
      // its port layout.
      await page.goto(`${stack.pageUrl}${QUERY}`);
      pages.push(page);
    }
  });

  after(async () => {
    await context?.close();
    await stack?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    if (figures && !keepFigures) rmSync(figures, { recursive: true, force: true });
  });

  it("shows exactly one holder, whose token is the grantor's, with a moving bar, an RTT and a timeline", async () => {
    const tabs = await until(pages, "one holder and two standbys", oneHolder);
    const holder = tabs.find((t) => t.role === "holder");
    const page = pages[tabs.indexOf(holder)];
    const grantor = await status(stack);
    assert.equal(grantor.holder, holder.id);
    assert.equal(grantor.token, holder.token);
    for (const standby of tabs.filter((t) => t !== holder)) assert.equal(standby.token, null);

    // The renew RTT shows a measured number once the first renewal came back.
    await page.waitForFunction(() => /^\d+(\.\d+)? ms$/.test(document.getElementById("rtt").textContent), null, {
      timeout: WAIT_MS,
    });

    // The bar moves, and it is green while the lease is safely held.
    const first = await page.evaluate(() => document.getElementById("bar-fill").style.width);
    assert.match(first, /^\d+(\.\d+)?%$/);
    await page.waitForFunction((width) => document.getElementById("bar-fill").style.width !== width, first, {
      timeout: WAIT_MS,
    });
    await page.waitForFunction(
      () => {
        const fill = document.getElementById("bar-fill");
        return fill.dataset.zone === "safe" && getComputedStyle(fill).backgroundColor === "rgb(47, 158, 106)";
      },
      null,
      { timeout: WAIT_MS },
    );

    // Every tab's chart has the grantor's segment and the holder's, in the token's colour.
    for (const tab of pages) {
      await tab.waitForFunction(
        ({ id, token }) => {
          const drawn = (row) =>
            [...document.querySelectorAll(`#timeline g.seg[data-row="${row}"][data-token="${token}"] rect`)].some(
              (rect) => Number(rect.getAttribute("width")) > 0,
            );
          return drawn("grantor") && drawn(id);
        },
        holder,
        { timeout: WAIT_MS },
      );
    }
    await screenshot(page, "demo-holder");
    await screenshot(pages[(tabs.indexOf(holder) + 1) % TABS], "demo-standby");
  });

  it("hands the lease to another tab with a larger token on Release", async () => {
    const before = await holderPage();
    await before.page.click("#release");
    const tabs = await until(pages, "another tab to hold", (t) =>
      t.some((tab) => tab.role === "holder" && tab.id !== before.id),
    );
    const next = tabs.find((t) => t.role === "holder" && t.id !== before.id);
    assert.ok(next.token > before.token, `${next.token} > ${before.token}`);
    assert.equal((await status(stack)).token, next.token);
    assert.ok(["released", "standby"].includes(tabs.find((t) => t.id === before.id).role));
  });

  it("turns the bar amber inside the margin when the grantor is blocked, then surrenders", async () => {
    await until(pages, "one holder and two standbys", oneHolder);
    const before = await holderPage();
    const { page } = before;
    const blocked = { from: Date.now(), to: Infinity };
    blockedSpans.push(blocked);
    const fault = async () => (await (await fetch(`${stack.controlUrl}/fault`)).json()).fault;
    const pressed = (value) =>
      page.waitForFunction((v) => document.getElementById("block").getAttribute("aria-pressed") === v, value, {
        timeout: WAIT_MS,
      });
    try {
      await page.click("#block");
      // The button shows the proxy's answer, so once it is pressed the proxy is blocking.
      await pressed("true");
      assert.equal((await fault())?.kind, "block");

      // Inside the margin the bar is amber and still shrinking; poll every frame to catch it.
      await page.waitForFunction(
        () => {
          const fill = document.getElementById("bar-fill");
          return (
            fill.dataset.zone === "margin" &&
            parseFloat(fill.style.width) > 0 &&
            getComputedStyle(fill).backgroundColor === "rgb(224, 160, 48)"
          );
        },
        null,
        { timeout: WAIT_MS, polling: "raf" },
      );
      await screenshot(page, "demo-blocked-margin");
      await page.waitForFunction(() => document.body.dataset.role === "lost", null, { timeout: WAIT_MS });
      assert.match(await page.textContent("#events"), new RegExp(`lost token ${before.token}: margin_exhausted`));
      // Every tab is cut off, so nobody holds it now.
      assert.equal((await Promise.all(pages.map(shown))).filter((t) => t.role === "holder").length, 0);

      await page.click("#block");
      await pressed("false");
      assert.equal(await fault(), null);
    } finally {
      // Leave the grantor reachable for the tests after this one, whatever happened here.
      if ((await fault()) !== null) await fetch(`${stack.controlUrl}/fault`, { method: "DELETE" });
      blocked.to = Date.now();
    }
    const tabs = await until(pages, "a holder after unblocking", (t) => t.some((tab) => tab.role === "holder"));
    assert.ok(tabs.find((t) => t.role === "holder").token > before.token);
  });

  it("makes the holder learn of an admin revoke, and another grant gets a larger token", async () => {
    await until(pages, "one holder and two standbys", oneHolder);
    const before = await holderPage();
    const admin = pages.find((p) => p !== before.page);
    const revocations = (await metrics(stack)).get("tenure_grantor_revocations_total");
    await admin.click("#revoke");
    await before.page.waitForFunction(() => document.body.dataset.role === "lost", null, { timeout: WAIT_MS });
    assert.match(await before.page.textContent("#events"), new RegExp(`lost token ${before.token}: revoked`));
    assert.equal((await metrics(stack)).get("tenure_grantor_revocations_total"), revocations + 1);
    const tabs = await until(pages, "a new holder", (t) => t.some((tab) => tab.role === "holder"));
    assert.ok(tabs.find((t) => t.role === "holder").token > before.token);
  });

  it("fences out a frozen holder's stale write after another tab took over", async () => {
    await until(pages, "one holder and two standbys", oneHolder);
    const before = await holderPage();
    const others = pages.filter((p) => p !== before.page);
    const rejected = (await metrics(stack)).get('tenure_grantor_fenced_writes_total{outcome="rejected"}');
    await before.page.click("#freeze");
    // While it is frozen (its own page cannot even be asked), another tab takes over.
    const taken = await until(others, "another tab to take over", (t) => t.some((tab) => tab.role === "holder"));
    const next = taken.find((t) => t.role === "holder");
    assert.ok(next.token > before.token);

    await before.page.waitForFunction(
      () => document.getElementById("freeze-report").dataset.outcome === "rejected",
      null,
      { timeout: FREEZE_MS + WAIT_MS },
    );
    const report = await before.page.textContent("#freeze-report");
    assert.match(report, new RegExp(`stale token ${before.token} was rejected`));
    assert.match(report, /isSafelyHeld\(\) is false at once \(lost: margin_exhausted\)/);
    const lastToken = Number(/accepted token (\d+)/.exec(report)[1]);
    assert.ok(lastToken >= next.token, `the grantor had seen ${lastToken}, at least ${next.token}`);
    assert.equal(
      (await metrics(stack)).get('tenure_grantor_fenced_writes_total{outcome="rejected"}'),
      rejected + 1,
    );
    // Its hold ends on the chart where it stopped being safe, with the frozen stretch hatched.
    assert.ok(
      await before.page.evaluate(
        ({ id, token }) =>
          document.querySelector(`#timeline g.seg[data-row="${id}"][data-token="${token}"] .seg-frozen`) !== null,
        { id: before.id, token: before.token },
      ),
    );
    await screenshot(before.page, "demo-frozen");
  });

  it("completes every enqueued job, each by a tab under its claim token", async () => {
    const page = pages[0];
    const done = async () => Number(await page.textContent("#q-done"));
    await page.waitForFunction(() => document.getElementById("q-done").textContent !== "–", null, {
      timeout: WAIT_MS,
    });
    const doneBefore = await done();
    await page.click("#enqueue");
    await page.waitForFunction(
      (target) => Number(document.getElementById("q-done").textContent) >= target,
      doneBefore + 10,
      { timeout: 60_000 },
    );
    assert.equal(await done(), doneBefore + 10);
    const rows = await page.$$eval("#claims-list tr[data-status=completed]", (trs) =>
      trs.map((tr) => ({ itemId: Number(tr.dataset.item), by: tr.dataset.by, token: Number(tr.dataset.token) })),
    );
    assert.equal(new Set(rows.map((r) => r.itemId)).size, 10, JSON.stringify(rows));
    const ids = new Set(await Promise.all(pages.map((p) => p.textContent("#tab-id"))));
    for (const row of rows) {
      assert.ok(ids.has(row.by), `item ${row.itemId} by ${row.by}`);
      const response = await fetch(`${stack.grantorUrl}/v1/queues/item`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: "demo-jobs", itemId: row.itemId }),
      });
      const item = await response.json();
      assert.equal(item.state, "done");
      assert.equal(item.completedBy, row.by);
      assert.equal(item.completedToken, row.token);
    }
    await screenshot(page, "demo-claims");
  });

  it("raised no page errors; the only console errors are the blocked grantor's connections", () => {
    assert.deepEqual(pageErrors, []);
    // Chromium logs each failed request. Blocking closes the proxy's socket: new connections are
    // refused, and requests in flight on kept-alive ones are reset. Nothing else may fail.
    const blockedAt = (at) => blockedSpans.some(({ from, to }) => at >= from && at <= to + 5_000);
    const unexpected = consoleErrors.filter(
      (e) =>
        !(
          /net::ERR_CONNECTION_(REFUSED|RESET)/.test(e.text) &&
          e.url.startsWith(stack.proxyUrl) &&
          blockedAt(e.at)
        ),
    );
    assert.deepEqual(unexpected, []);
  });

  it("saved non-empty screenshots of the page's size", () => {
    assert.equal(screenshots.length, 5);
    for (const path of screenshots) assert.deepEqual(pngSize(path), { width: 1280, height: 900 }, path);
  });
});
