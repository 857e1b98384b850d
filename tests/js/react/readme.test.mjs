// The README's "In React" snippet, as written, bundled by esbuild and rendered under <StrictMode>
// in Chromium against the reference grantor (which replaces the README's http://127.0.0.1:8040;
// it allows the page's loopback origin by default): the tab is active, the lease is held, and
// its fenced write is accepted.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startGrantor } from "../support/grantor-process.mjs";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import { buildReactApp, watchConsole, until } from "./react-app.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const DOC_GRANTOR = "http://127.0.0.1:8040";

/** The `jsx` block under the README's "### In React". */
function snippet() {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("\n### In React\n"));
  const block = /\n```jsx\n([\s\S]*?)\n```\n/.exec(section);
  assert.ok(block, "the README has a jsx block under ### In React");
  return block[1];
}

describe("the README's React snippet", () => {
  let app;
  let grantor;
  let browser;
  let server;

  before(async () => {
    grantor = await startGrantor();
    const source = snippet().replaceAll(DOC_GRANTOR, grantor.url);
    assert.ok(source.includes(grantor.url), "the snippet names the documented grantor");
    // The snippet's components, mounted as an app would, under StrictMode.
    app = await buildReactApp({
      source: `${source}
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
createRoot(document.getElementById("root")).render(<StrictMode><Editor /><Refresher /></StrictMode>);
window.ready = true;
`,
    });
    server = await serveStatic(app.dir);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (grantor !== undefined) {
      await grantor.stop();
      rmSync(dirname(grantor.db), { recursive: true, force: true });
    }
    app?.remove();
  });

  it("renders an active editor and a held lease whose fenced write is accepted", async () => {
    const problems = [];
    const page = await browser.newPage();
    watchConsole(page, problems);
    await page.goto(`${server.url}/index.html`);
    await until(async () => /editing \(epoch \d+\)/.test(await page.textContent("#root")), 15_000, "the editor is active");
    await until(async () => /refreshing with token \d+/.test(await page.textContent("#root")), 15_000, "the lease is held");
    const accepted = await until(async () => {
      const response = await fetch(`${grantor.url}/metrics`);
      const line = (await response.text()).split("\n").find((l) => l.startsWith('tenure_grantor_fenced_writes_total{outcome="accepted"}'));
      return Number(line?.split(" ").pop()) >= 1;
    }, 10_000, "the fenced write was accepted");
    assert.ok(accepted);
    await page.close();
    assert.deepEqual(problems, []);
  });
});
