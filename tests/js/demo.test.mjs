// The main job's page, served by the real grantor, in Chromium: two tabs, one holder; blocking
// the holder's grantor makes it surrender and the other tab take over with a larger token.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startGrantor } from "./support/grantor-process.mjs";
import { launchChromium } from "./support/browser.mjs";

const www = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "www");

describe("demo page", () => {
  let grantor;
  let browser;

  before(async () => {
    grantor = await startGrantor({ args: ["--static-dir", www] });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await grantor?.stop();
  });

  it("one tab holds; blocking it hands the lease to the other", async () => {
    const url = `${grantor.url}/?leaseMs=1500&marginMs=300`;
    const errors = [];
    const first = await browser.newPage();
    first.on("pageerror", (e) => errors.push(String(e)));
    await first.goto(url);
    await first.waitForFunction(() => document.body.dataset.role === "holder", null, { timeout: 10_000 });
    const firstToken = Number(await first.textContent("#token"));

    const second = await browser.newPage();
    second.on("pageerror", (e) => errors.push(String(e)));
    await second.goto(url);
    await second.waitForTimeout(500);
    assert.equal(await second.textContent("#role"), "not holding");

    await first.click("#block");
    await second.waitForFunction(() => document.body.dataset.role === "holder", null, { timeout: 10_000 });
    assert.notEqual(await first.textContent("#role"), "holder");
    assert.match(await first.textContent("#event"), /margin_exhausted/);
    assert.ok(Number(await second.textContent("#token")) > firstToken);
    assert.deepEqual(errors, []);
  });
});
