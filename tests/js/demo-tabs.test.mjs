// The TabLease page (www/tabs.html) as `scripts/demo` serves it, driven in Debian's Chromium with
// three tabs of one profile: one active tab and two candidates, a frozen active tab taken over
// with a larger epoch and its stale fenced write shown refused on waking, a hidden active tab
// (another tab brought to the front) that keeps its role, and a closed one handing over at once,
// with screenshots.
//
// Playwright attaches over CDP without its defaults (tests/js/support/playwright-cdp.mjs): its
// focus emulation would keep every page visible, so a tab behind another would never be hidden.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchPlaywrightOverCdp } from "./support/playwright-cdp.mjs";
import { startDemoStack } from "./support/demo-stack.mjs";

const LEASE_MS = 3_000;
const MARGIN_MS = 1_000;
// A takeover comes within leaseMs + renewIntervalMs of the freeze: wake well after it.
const FREEZE_MS = 4 * LEASE_MS;
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
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Role, epoch, id and the active tab each page shows; null for a closed page. */
function shown(page) {
  if (page.isClosed()) return Promise.resolve(null);
  return page
    .evaluate(() => ({
      id: document.getElementById("tab-id").textContent,
      role: document.body.dataset.role,
      epoch: Number(document.getElementById("epoch").textContent) || null,
      activeTab: document.getElementById("active-tab").dataset.id,
      visibility: document.getElementById("visibility").textContent,
    }))
    .catch(() => null);
}

/** Polls until `check(values)` holds for the pages' `shown` values; resolves them. */
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

/** One active tab, every other open tab a candidate, all naming the active one. */
const oneActive = (tabs) => {
  const open = tabs.filter((t) => t !== null);
  const active = open.filter((t) => t.role === "active");
  return (
    active.length === 1 &&
    open.every((t) => t.role === "active" || t.role === "candidate" || t.role === "lost") &&
    open.every((t) => t.activeTab === active[0].id)
  );
};

describe("TabLease page (scripts/demo's processes, Chromium, three tabs)", { timeout: 300_000 }, () => {
  let stack;
  let chrome;
  let figures;
  let keepFigures;
  const pages = [];
  const pageErrors = [];
  const consoleErrors = [];
  const screenshots = [];

  const activePage = async () => {
    const tabs = await Promise.all(pages.map(shown));
    const index = tabs.findIndex((t) => t?.role === "active");
    assert.notEqual(index, -1, `no active tab among ${JSON.stringify(tabs)}`);
    return { page: pages[index], ...tabs[index] };
  };

  // Playwright clicks only once the element is stable over two animation frames, which a tab
  // behind another does not draw: bring it to the front first, as a person would.
  const click = async (page, selector) => {
    await page.bringToFront();
    await page.click(selector);
  };

  // A tab behind another is hidden and says so; a screenshot shows the tab a person looks at.
  const screenshot = async (page, name) => {
    await page.bringToFront();
    await page.waitForFunction(() => document.getElementById("visibility").textContent === "visible", null, {
      timeout: WAIT_MS,
    });
    const path = join(figures, `${name}.png`);
    await page.screenshot({ path });
    screenshots.push(path);
  };

  before(async () => {
    keepFigures = process.env.TENURE_FIGURES_DIR !== undefined;
    figures = keepFigures ? process.env.TENURE_FIGURES_DIR : mkdtempSync(join(tmpdir(), "tenure-tabs-figures-"));
    mkdirSync(figures, { recursive: true });
    stack = await startOnFreePorts();
    chrome = await launchPlaywrightOverCdp();
    for (let i = 0; i < TABS; i++) {
      const page = await chrome.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      page.on("pageerror", (error) => pageErrors.push(`tab ${i}: ${error}`));
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(`tab ${i}: ${message.text()}`);
      });
      await page.goto(`${stack.pageUrl}tabs.html${QUERY}`);
      pages.push(page);
    }
  });

  after(async () => {
    await chrome?.close();
    await stack?.stop();
    if (figures && !keepFigures) rmSync(figures, { recursive: true, force: true });
  });

  it("links to and from the grantor demo", async () => {
    const href = await pages[0].getAttribute('a[href="./index.html"]', "href");
    assert.equal(href, "./index.html");
    const demo = await (await fetch(`${stack.pageUrl}index.html`)).text();
    assert.match(demo, /href="\.\/tabs\.html"/);
  });

  it("shows one active tab, named by every tab, with an epoch and a timeline", async () => {
    const tabs = await until(pages, "one active tab and two candidates", (t) =>
      oneActive(t) && t.filter((tab) => tab.role === "candidate").length === TABS - 1,
    );
    const active = tabs.find((t) => t.role === "active");
    assert.ok(Number.isInteger(active.epoch) && active.epoch >= 1, JSON.stringify(active));
    const page = pages[tabs.indexOf(active)];
    assert.equal(await page.textContent("#mode"), "web-locks");
    assert.equal(await page.textContent("#heartbeat"), "worker");
    // The active tab writes the fenced counter, and every tab reads it back with its epoch.
    for (const tab of pages) {
      await tab.waitForFunction(
        (epoch) => new RegExp(`written by tab-\\w+ with epoch ${epoch}$`).test(document.getElementById("store-value").textContent),
        active.epoch,
        { timeout: WAIT_MS },
      );
      // Every tab's chart has the active tab's segment in its epoch.
      await tab.waitForFunction(
        ({ id, epoch }) =>
          [...document.querySelectorAll(`#timeline g.seg[data-row="${id}"][data-token="${epoch}"] rect`)].some(
            (rect) => Number(rect.getAttribute("width")) > 0,
          ),
        active,
        { timeout: WAIT_MS },
      );
    }
    await page.waitForFunction(() => /^[1-9]\d* accepted, 0 refused$/.test(document.getElementById("writes").textContent), null, {
      timeout: WAIT_MS,
    });
    await screenshot(page, "tabs-active");
    await screenshot(pages[(tabs.indexOf(active) + 1) % TABS], "tabs-candidate");
  });

  it("hands a frozen active tab's role to another with a larger epoch, and refuses its stale write", async () => {
    const before = await activePage();
    const others = pages.filter((p) => p !== before.page);
    await click(before.page, "#freeze");
    // While it is frozen (its own page cannot even be asked), another tab takes over.
    const taken = await until(others, "another tab to take over", (t) => t.some((tab) => tab.role === "active"));
    const next = taken.find((t) => t.role === "active");
    assert.ok(next.epoch > before.epoch, `${next.epoch} > ${before.epoch}`);

    await before.page.waitForFunction(
      () => document.getElementById("freeze-report").dataset.outcome === "refused",
      null,
      { timeout: FREEZE_MS + WAIT_MS },
    );
    const report = await before.page.textContent("#freeze-report");
    assert.match(report, new RegExp(`the unchecked write with stale epoch ${before.epoch} was refused`));
    assert.match(report, /tab\.isActive is false at once \((expired|stolen|superseded)\)/);
    const newest = Number(/newest epoch is (\d+)/.exec(report)[1]);
    assert.ok(newest >= next.epoch, `the store had epoch ${newest}, at least ${next.epoch}`);
    // The woken tab shows that it lost, and names the new active tab.
    const woken = await until([before.page], "the frozen tab to show it lost", ([t]) => t.role === "lost" && t.activeTab === next.id);
    assert.equal(woken[0].epoch, before.epoch);
    // The store still holds the new tab's writes, not the stale one.
    await before.page.waitForFunction(
      (epoch) => new RegExp(`with epoch ${epoch}$`).test(document.getElementById("store-value").textContent),
      next.epoch,
      { timeout: WAIT_MS },
    );
    // Its hold ends on the chart with the frozen stretch hatched.
    await before.page.waitForFunction(
      ({ id, epoch }) =>
        document.querySelector(`#timeline g.seg[data-row="${id}"][data-token="${epoch}"] .seg-frozen`) !== null,
      { id: before.id, epoch: before.epoch },
      { timeout: WAIT_MS },
    );
    await screenshot(before.page, "tabs-frozen-refused");
  });

  it("keeps the role of an active tab while it is hidden, and says so when it is shown again", async () => {
    const before = await activePage();
    await click(before.page, "#hide");
    assert.equal(await before.page.isVisible("#hide-help"), true);
    assert.match(await before.page.textContent("#hide-help"), /A page cannot hide itself/);
    // Hidden as a person hides it: another tab of the window comes to the front.
    const other = pages.find((p) => p !== before.page);
    await other.bringToFront();
    await until([before.page], "the page to show it is hidden", ([t]) => t.visibility === "hidden");
    assert.equal(await before.page.evaluate(() => document.visibilityState), "hidden");
    // Several leases later, it is still the one active tab, with the same epoch.
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    const tabs = await until(pages, "one active tab", oneActive);
    const active = tabs.find((t) => t?.role === "active");
    assert.equal(active.id, before.id);
    assert.equal(active.epoch, before.epoch);

    await before.page.bringToFront();
    await before.page.waitForFunction(
      () => document.getElementById("hide-report").dataset.outcome === "visible-again",
      null,
      { timeout: WAIT_MS },
    );
    assert.match(
      await before.page.textContent("#hide-report"),
      new RegExp(`^Hidden for \\d+\\.\\d s as the active tab \\(epoch ${before.epoch}\\); still active with epoch ${before.epoch}`),
    );
    await screenshot(before.page, "tabs-hidden-and-back");
  });

  it("hands over at once when the active tab is closed", async () => {
    const before = await activePage();
    const others = pages.filter((p) => p !== before.page);
    const closedAt = Date.now();
    await click(before.page, "#close");
    const tabs = await until(others, "another tab to be active", (t) => t.some((tab) => tab?.role === "active"));
    const handoverMs = Date.now() - closedAt;
    const next = tabs.find((t) => t.role === "active");
    assert.ok(next.epoch > before.epoch, `${next.epoch} > ${before.epoch}`);
    // A release, not a takeover: well under the lease the other tabs would otherwise wait out.
    assert.ok(handoverMs < LEASE_MS, `handed over ${handoverMs} ms after the click`);
    // The page closed itself, or says why it could not and that it released the role.
    if (!before.page.isClosed()) {
      await before.page.waitForFunction(
        () => document.getElementById("close-report").dataset.outcome === "released" || window.closed,
        null,
        { timeout: WAIT_MS },
      ).catch((error) => {
        if (!before.page.isClosed()) throw error;
      });
    }
    const closedItself = before.page.isClosed();
    if (!closedItself) {
      assert.match(await before.page.textContent("#close-report"), /Released the role/);
      assert.equal((await shown(before.page)).role, "released");
    }
    await until(others, "the others to name the new active tab", (t) => t.every((tab) => tab.activeTab === next.id));
    await screenshot(pages.find((p) => p !== before.page && !p.isClosed()), "tabs-after-close");
  });

  it("raised no page or console errors", () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });

  it("saved non-empty screenshots of the page's size", () => {
    assert.equal(screenshots.length, 5);
    for (const path of screenshots) assert.deepEqual(pngSize(path), { width: 1280, height: 900 }, path);
  });
});
