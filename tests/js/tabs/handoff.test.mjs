// Handing the active role over on purpose (`handOff`), in Debian's Chromium over CDP with four
// tabs of one profile: to a chosen tab (not the one first in the Web Lock's queue), to whoever
// is next, refused for a tab that is not a candidate, and only from the active tab.

import { describe, it, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../support/static-server.mjs";
import { launchPlaywrightOverCdp } from "../support/playwright-cdp.mjs";
import { tabUrl, openTabs, snapshots, until, oneActive, assertExclusive } from "../support/tabs.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const LEASE_MS = 1_500;
const MARGIN_MS = 300;

describe("TabLease handOff in Chromium", () => {
  let chrome;
  let server;
  let pages = [];
  let errors = [];
  let run = 0;

  const lease = (extra = {}) => ({ name: `handoff-${++run}`, leaseMs: LEASE_MS, marginMs: MARGIN_MS, ...extra });
  const open = async (params, count) => {
    const opened = await openTabs((url) => chrome.newPage(url), tabUrl(server, params), count, errors);
    pages.push(...opened);
    return opened;
  };
  const handOff = (page, to) =>
    page.evaluate(
      (target) =>
        window.tab.handOff(target ?? undefined).then(
          () => ({ ok: true, at: Date.now() }),
          (error) => ({ ok: false, code: error.code, message: error.message }),
        ),
      to ?? null,
    );

  before(async () => {
    chrome = await launchPlaywrightOverCdp();
    server = await serveStatic(repo);
  });

  after(async () => {
    await chrome?.close();
    await server?.close();
  });

  afterEach(async () => {
    for (const page of pages) await page.close().catch(() => {});
    pages = [];
    assert.deepEqual(errors, []);
    errors = [];
  });

  it("hands the role to a chosen tab, each time, with a new epoch; every tab sees it", async () => {
    const params = lease();
    const tabs = await open(params, 4);
    const [bystander] = await open({ ...params, join: "false" }, 1);
    let { index, states } = await oneActive(tabs);
    for (let round = 0; round < 3; round += 1) {
      // The tab opened last of the waiting ones: never the first in the lock's queue.
      const target = [...tabs.keys()].filter((i) => i !== index).at(-1 - (round % 2));
      const targetId = states[target].tabId;
      const handed = await handOff(tabs[index], targetId);
      assert.equal(handed.ok, true, JSON.stringify(handed));
      const next = await oneActive(tabs, 3_000);
      assert.equal(next.index, target, `round ${round}: the named tab is active`);
      const event = next.states[target].events.at(-1);
      assert.equal(event.type, "active");
      assert.ok(event.epoch > states[index].epoch);
      // Handed over through Web Locks as soon as the release was written: no lease waited.
      assert.ok(event.at - handed.at < LEASE_MS, `active ${event.at - handed.at} ms after the handover`);
      const old = next.states[index];
      assert.deepEqual(old.events.at(-1), { ...old.events.at(-1), type: "inactive", reason: "handed_off" });
      assert.equal(old.state, "waiting", "the old holder stays a candidate");
      const reason = await tabs[index].evaluate(() => ({ code: window.tab.signal.reason.code, reason: window.tab.signal.reason.reason }));
      assert.deepEqual(reason, { code: "ERR_LEASE_RELEASED", reason: "handed_off" });
      await until(
        async () => (await snapshots([...tabs, bystander])).every((s) => s.holder?.tabId === targetId),
        3_000,
        "every tab sees the new holder",
      );
      await assertExclusive(tabs, { samples: 5, everyMs: 50 });
      ({ index, states } = next);
    }
  });

  it("without a name, hands over to the next candidate; refuses a non-candidate and a tab that is not active", async () => {
    const params = lease();
    const tabs = await open(params, 4);
    const [bystander] = await open({ ...params, join: "false" }, 1);
    const { index, states } = await oneActive(tabs);
    const bystanderId = (await snapshots([bystander]))[0].tabId;
    const refused = await handOff(tabs[index], bystanderId);
    assert.deepEqual([refused.ok, refused.code], [false, "ERR_TAB_HANDOFF_TARGET"]);
    const nobody = await handOff(tabs[index], "tab-000000000000000000000000");
    assert.deepEqual([nobody.ok, nobody.code], [false, "ERR_TAB_HANDOFF_TARGET"]);
    assert.equal((await snapshots([tabs[index]]))[0].active, true, "nothing was handed over");
    const notActive = await handOff(tabs[(index + 1) % 4], states[index].tabId);
    assert.deepEqual([notActive.ok, notActive.code], [false, "ERR_LEASE_NOT_HELD"]);
    const handed = await handOff(tabs[index]);
    assert.equal(handed.ok, true);
    const next = await oneActive(tabs, 3_000);
    assert.notEqual(next.index, index);
    assert.ok(next.states[next.index].epoch > states[index].epoch);
  });
});
