// Builds tests/js/fixtures/react-app with esbuild's JS API: React 19 from node_modules in its
// development build (StrictMode double-mounts only there), JSX by the automatic runtime, and
// "tenure" / "tenure/react" resolved through the package's exports as an app would.

import { build } from "esbuild";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, "..", "fixtures", "react-app");

/**
 * Bundles the fixture (or `source`, JSX resolved from the fixture's directory) into a fresh
 * directory with the fixture's index.html; resolves `{dir, remove}`.
 */
export async function buildReactApp({ source } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tenure-react-app-"));
  const entry =
    source === undefined
      ? { entryPoints: [join(fixture, "app.jsx")] }
      : { stdin: { contents: source, resolveDir: fixture, loader: "jsx", sourcefile: "snippet.jsx" } };
  await build({
    ...entry,
    outfile: join(dir, "app.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "error",
  });
  cpSync(join(fixture, "index.html"), join(dir, "index.html"));
  // The entries carry the core inline and start the heartbeat worker from a Blob: nothing
  // but the bundle is served, as an esbuild user would deploy it.
  assert.ok(!readFileSync(join(dir, "app.js"), "utf8").includes("import.meta.url"), "no file URL");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Console errors and warnings, page errors and failed requests of `page`, collected into
 * `problems`: React reports misuse there, and the tests require none.
 */
export function watchConsole(page, problems) {
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error}`));
  page.on("requestfailed", (request) => {
    // A campaign cancelled on unmount aborts its request on purpose.
    if (request.failure()?.errorText !== "net::ERR_ABORTED") {
      problems.push(`requestfailed: ${request.url()} ${request.failure()?.errorText}`);
    }
  });
  page.on("response", (response) => {
    if (response.status() === 404) problems.push(`404: ${response.url()}`);
  });
}

/** Opens the fixture at `query` in a new page of `browser`, waiting until React has mounted. */
export async function openApp(browser, baseUrl, query, problems) {
  const page = await browser.newPage();
  watchConsole(page, problems);
  await page.goto(`${baseUrl}/index.html?${new URLSearchParams(query)}`);
  await page.waitForFunction(() => window.ready === true && window.view !== null, null, {
    timeout: 20_000,
    polling: 50,
  });
  return page;
}

/** The page's committed hook state, and its counters. */
export function probe(page) {
  return page.evaluate(() => ({
    view: window.view,
    effectMounts: window.effectMounts,
    commits: window.commits,
    workersCreated: window.workersCreated,
    grantCalls: window.grantCalls,
    signals: window.signalLog.map(({ signal, ...entry }) => entry),
  }));
}

/** Polls `check()` every 50 ms until it returns a truthy value; returns it, or fails after `maxMs`. */
export async function until(check, maxMs, what) {
  const start = performance.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() - start > maxMs) assert.fail(`timed out after ${maxMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

