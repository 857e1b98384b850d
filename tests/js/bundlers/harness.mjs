// Shared by the per-bundler tests: each builds the app in tests/js/fixtures/bundler-app/ in a fresh
// project that installed the packed tarball, with the configuration a user would write and no more,
// serves the output, and runs it in Chromium: a `Lease`, a `LeaseHolder` against the reference
// grantor, and a `TabLease` handed from one tab to another. Every feature is a test of its own,
// so a bundler × feature table can be printed, and the bundle's gzip size is recorded.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, get } from "node:http";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { freshProject, REPO } from "../support/packed-app.mjs";
import { serveStatic } from "../support/static-server.mjs";
import { launchChromium } from "../support/browser.mjs";
import { startGrantor } from "../support/grantor-process.mjs";
import { until } from "../support/tabs.mjs";

const FIXTURE = join(REPO, "tests", "js", "fixtures", "bundler-app");
const FEATURES = ["Lease", "LeaseHolder", "TabLease"];

/** A bundler's command-line tool, as `npx <tool>` in the project would find it. */
export const bin = (tool) => join(REPO, "node_modules", ".bin", tool);

/** The fixture file at `path` (relative to tests/js/fixtures/bundler-app/). */
export const fixture = (path) => readFileSync(join(FIXTURE, path), "utf8");

/** The page that loads a bundle emitted as `script`: a module script or a classic one. */
export function pageHtml(script, { module }) {
  return fixture("index.html").replace(
    '<script type="module" src="./main.js"></script>',
    module ? `<script type="module" src="./${script}"></script>` : `<script src="./${script}"></script>`,
  );
}

/** Runs `command args` in `cwd`; rejects with its output when it fails or outlives `timeoutMs`. */
export function runTool(command, args, { cwd, timeoutMs = 180_000, env = {} }) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NO_COLOR: "1", FORCE_COLOR: "0", ...env },
      },
      (error, stdout, stderr) => {
        if (error) {
          const output = `${stdout}\n${stderr}`.trim().split("\n").slice(-40).join("\n");
          const status = error.code ?? error.signal;
          reject(new Error(`${relative(REPO, command)} ${args.join(" ")} failed (${status}):\n${output}`));
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
  });
}

/** A port free on 127.0.0.1 right now, for servers that must be told one. */
async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/**
 * Starts `next start` in `dir` on a free port; resolves `{ url, close }` once it answers.
 * `close` ends that process (and only it).
 */
export async function nextStart(dir) {
  const port = await freePort();
  const child = spawn(bin("next"), ["start", "--hostname", "127.0.0.1", "--port", String(port)], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NO_COLOR: "1" },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = `http://127.0.0.1:${port}`;
  const answers = () =>
    new Promise((resolve) => {
      get(url, (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      }).once("error", () => resolve(false));
    });
  try {
    await until(async () => child.exitCode === null && (await answers()), 60_000, "next start answering");
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw new Error(`${error.message}; its output:\n${output}`);
  }
  return {
    url,
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** gzip -9 sizes of the `.js`/`.mjs`/`.cjs` and `.wasm` files under `dir`, in bytes. */
export function bundleSize(dir) {
  const size = { jsBytes: 0, wasmBytes: 0, jsGzip: 0, wasmGzip: 0, wasmFiles: 0 };
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const file = join(path, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(m|c)?js$/.test(entry.name) || entry.name.endsWith(".wasm")) {
        const body = readFileSync(file);
        const gzip = gzipSync(body, { level: 9 }).length;
        if (entry.name.endsWith(".wasm")) {
          size.wasmBytes += body.length;
          size.wasmGzip += gzip;
          size.wasmFiles += 1;
        } else {
          size.jsBytes += body.length;
          size.jsGzip += gzip;
        }
      }
    }
  };
  walk(dir);
  return { ...size, totalGzip: size.jsGzip + size.wasmGzip };
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * One suite per bundler. Each variant is `{ label, type, files, build(dir) → { sizeDir, serve } }`:
 * `files` are written into the fresh project (of package `type`), `build` runs the bundler there
 * and says where its output is (`sizeDir`) and how to serve it (`serve()` → `{ url, close }`, the
 * app's page at `url`).
 */
export function bundlerSuite(bundler, variants) {
  describe(`the packed package bundled by ${bundler}`, () => {
    let browser;
    let grantor;
    const rows = [];
    // Closed after the browser: a server waits for the browser's kept-alive connections to end.
    const servers = [];
    const projects = [];

    before(async () => {
      grantor = await startGrantor();
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      for (const server of servers) await server.close();
      for (const project of projects) project.remove();
      await grantor?.stop();
      for (const row of rows) {
        const cells = FEATURES.map((feature) => `${feature} ${row.features[feature] ?? "not run"}`);
        const size = row.size
          ? `${kB(row.size.totalGzip)} gzip (js ${kB(row.size.jsGzip)}, ` +
            `wasm ${kB(row.size.wasmGzip)} in ${row.size.wasmFiles} file(s))`
          : "no bundle";
        const build = `build ${row.buildMs ?? "–"} ms`;
        console.log(`bundler × feature: ${row.name} | ${cells.join(" | ")} | ${size} | ${build}`);
      }
      if (process.env.TENURE_FIGURES_DIR) {
        const slug = bundler.toLowerCase().replace(/[^a-z0-9]+/g, "-");
        const file = join(process.env.TENURE_FIGURES_DIR, `bundler-${slug}.json`);
        writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
      }
    });

    for (const variant of variants) {
      describe(`${variant.label}, in a "type": "${variant.type}" project`, () => {
        const { label, type } = variant;
        const row = { name: `${bundler} (${label}, ${type})`, bundler, label, type, features: {} };
        rows.push(row);
        let server;
        let setupError;
        const pages = [];
        const errors = [];
        const random = Math.random().toString(36).slice(2);
        const tabName = `${bundler}-${label}-${type}-${random}`.replace(/[^\w-]/g, "-");

        const openPage = async () => {
          const page = await browser.newPage();
          const failures = [];
          page.on("pageerror", (error) => errors.push(String(error)));
          page.on("console", (message) => {
            if (message.type() === "error") failures.push(message.text());
          });
          page.on("response", (response) => {
            if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
          });
          pages.push(page);
          const query = new URLSearchParams({ grantor: grantor.url, tab: tabName });
          await page.goto(`${server.url}/?${query}`);
          // An uncaught error means the app will not get ready: stop waiting at the first one.
          const failed = new Promise((_, reject) => page.once("pageerror", reject));
          failed.catch(() => {});
          try {
            const options = { timeout: 30_000, polling: 50 };
            const ready = page.waitForFunction(() => window.ready === true, null, options);
            await Promise.race([ready, failed]);
          } catch {
            throw new Error(
              `the app never ran; page errors: ${JSON.stringify(errors)}; ` +
                `console and HTTP errors: ${JSON.stringify(failures)}`,
            );
          }
          return page;
        };

        before(async () => {
          try {
            const name = bundler.toLowerCase().replace(/[^a-z0-9]+/g, "-");
            const project = await freshProject({ name, type, files: variant.files });
            projects.push(project);
            const started = performance.now();
            const built = await variant.build(project.dir);
            row.buildMs = Math.round(performance.now() - started);
            row.size = bundleSize(join(project.dir, built.sizeDir));
            server = await built.serve();
            servers.push(server);
            await openPage();
          } catch (error) {
            setupError = error;
          }
        });

        after(async () => {
          for (const page of pages) if (!page.isClosed()) await page.close();
        });

        const feature = (name, check) =>
          it(name, { timeout: 60_000 }, async () => {
            row.features[name] = "FAIL";
            if (setupError) throw setupError;
            await check();
            assert.deepEqual(errors, [], "page errors");
            row.features[name] = "pass";
          });

        const appState = (key) => pages[0].evaluate((key) => window.bundlerApp[key], key);

        feature("Lease", async () => {
          assert.deepEqual(await appState("lease"), { ok: true, safelyHeld: true, token: 3 });
        });

        feature("LeaseHolder", async () => {
          const holder = await appState("holder");
          assert.equal(holder.ok, true, holder.error);
          assert.equal(holder.acquired, true);
          assert.ok(Number.isSafeInteger(holder.token) && holder.token > 0, `token ${holder.token}`);
          assert.equal(holder.safelyHeld, true);
          assert.equal(holder.releasedSignalAborted, true);
        });

        feature("TabLease", async () => {
          const tab = await appState("tab");
          assert.equal(tab.ok, true, tab.error);
          const snapshot = (page) => page.evaluate(() => window.snapshot());
          const [first] = pages;
          const before = await until(async () => {
            const state = await snapshot(first);
            return state.active && state;
          }, 10_000, "the first tab active");
          // The heartbeat runs in the package's worker, which the bundle must be able to start.
          assert.equal(before.heartbeat, "worker");
          const second = await openPage();
          // The second tab stays a candidate while the first holds the role.
          for (let i = 0; i < 5; i += 1) {
            const [a, b] = [await snapshot(first), await snapshot(second)];
            assert.equal(a.active, true, `sample ${i}: first tab still active`);
            assert.equal(b.active, false, `sample ${i}: second tab not active`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          await first.close();
          const after = await until(async () => {
            const state = await snapshot(second);
            return state.active && state;
          }, 10_000, "the second tab active once the first closed");
          assert.ok(after.epoch > before.epoch, `epoch ${after.epoch} after ${before.epoch}`);
          const events = await second.evaluate(() => window.bundlerApp.events);
          assert.deepEqual(events.filter((event) => event.type === "error"), []);
        });
      });
    }
  });
}

/** Serves a static build output directory; the app's page is its index.html. */
export const serveDir = (dir) => () => serveStatic(dir);

// The fixture's shared page code, written into every project beside its entry.
export const PAGE_JS = fixture("page.js");

