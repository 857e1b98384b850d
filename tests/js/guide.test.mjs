// Runs the code of docs/guide.md and of the README's quickstarts. A fenced block whose info string
// is `js test` is a complete program, run in Node (with "tenure" resolved through node_modules to
// pkg/); `js test-browser` runs as a module in a Chromium page (with an import map for "tenure").
// Each gets a fresh reference grantor, which replaces the documents' http://127.0.0.1:8040.
// `js test-deno` runs in Deno with Deno KV, its database file ("data/leases.sqlite3" in the
// document) in a fresh directory, the only one it may write. `js test-workerd` is a Worker's main
// module, run in workerd (Miniflare) with the package as Wrangler bundles it and the binding
// GRANTOR to the Durable Object class it exports as LeaseGrantorObject; it fails the test unless
// it answers a request with a 2xx status. A block fails the test if it throws or exits non-zero.
// In the guide every JavaScript block must be runnable and every section must have one; in the
// README every quickstart must have one.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startGrantor } from "./support/grantor-process.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "./support/browser.mjs";
import { startWorkers } from "./support/workerd.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Debian's Chromium with a fresh profile, removed again by `close()`. */
async function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "tenure-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const DOC_GRANTOR = "http://127.0.0.1:8040";
const DOC_KV_FILE = '"data/leases.sqlite3"';
const DENO = join(repo, "node_modules", ".bin", "deno");
const SNIPPET_TIMEOUT_MS = 30_000;
const SCRIPT_LANGS = new Set(["js", "javascript", "mjs", "ts", "typescript"]);

/** The fenced blocks of a markdown file, with the `##` and `###` headings they fall under. */
function blocks(file) {
  const lines = readFileSync(join(repo, file), "utf8").split("\n");
  const found = [];
  let section = null;
  let subsection = null;
  for (let i = 0; i < lines.length; i += 1) {
    const heading = /^(#{2,3}) (.+)$/.exec(lines[i]);
    if (heading) {
      if (heading[1] === "##") [section, subsection] = [heading[2].trim(), null];
      else subsection = heading[2].trim();
      continue;
    }
    const fence = /^```(\S*)(.*)$/.exec(lines[i]);
    if (!fence) continue;
    const start = i;
    const body = [];
    for (i += 1; i < lines.length && !/^```\s*$/.test(lines[i]); i += 1) body.push(lines[i]);
    const tags = fence[2].trim().split(/\s+/).filter(Boolean);
    found.push({
      file,
      line: start + 1,
      lang: fence[1],
      runIn: tags.includes("test")
        ? "node"
        : tags.includes("test-browser")
          ? "browser"
          : tags.includes("test-deno")
            ? "deno"
            : tags.includes("test-workerd")
              ? "workerd"
            : null,
      section,
      subsection,
      code: body.join("\n") + "\n",
    });
  }
  return found;
}

function sections(file) {
  return readFileSync(join(repo, file), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("## "))
    .map((line) => line.slice(3).trim());
}

const guide = blocks("docs/guide.md");
const readme = blocks("README.md");
const runnable = [...guide, ...readme].filter((block) => block.runIn !== null);

const GUIDE_TOPICS = [
  "Choosing the duration",
  "Renewal strategy",
  "Leases alone are not sufficient",
  "Revocation",
  "Read leases",
  "Work claims",
  "Where the grantor lives",
  "Failure modes",
  "Monitoring",
  "Common design mistakes",
  "Design checklist",
];
const README_QUICKSTARTS = [/web app/i, /active tab/i, /job claims/i];

describe("the documents have runnable code where they should", () => {
  it("the guide covers every topic of the design, each section with a runnable snippet", () => {
    const titles = sections("docs/guide.md");
    for (const topic of GUIDE_TOPICS) {
      assert.ok(titles.some((title) => title.startsWith(topic)), `guide section "${topic}"`);
    }
    for (const title of titles) {
      const count = guide.filter((block) => block.section === title && block.runIn !== null).length;
      assert.ok(count > 0, `guide section "${title}" has no \`js test\` snippet`);
    }
  });

  it("every JavaScript block of the guide is run", () => {
    const unmarked = guide.filter((block) => SCRIPT_LANGS.has(block.lang) && block.runIn === null);
    assert.deepEqual(
      unmarked.map((block) => `docs/guide.md:${block.line}`),
      [],
      "mark them `js test` (Node), `js test-browser` (Chromium) or `js test-workerd` (a Worker)",
    );
  });

  it("every README quickstart has a runnable snippet", () => {
    for (const pattern of README_QUICKSTARTS) {
      const quickstart = readme.filter(
        (block) => block.section?.startsWith("Quickstart") && pattern.test(block.subsection ?? ""),
      );
      assert.ok(quickstart.length > 0, `a quickstart matching ${pattern}`);
      assert.ok(quickstart.some((block) => block.runIn !== null), `a runnable snippet under ${pattern}`);
    }
  });
});

const SNIPPET_PAGE = `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "tenure": "/pkg/index.js" } }</script>
<script type="module">
import("/snippet.js").then(
  () => (window.snippetResult = { ok: true }),
  (error) => (window.snippetResult = { ok: false, error: String(error?.stack ?? error) }),
);
</script>`;

/**
 * Serves the snippet page, the current snippet and the package on 127.0.0.1. A real server, not
 * a Playwright route: Chromium's Local Network Access lets only a page that came from a loopback
 * address call the loopback grantor.
 */
async function serveSnippets() {
  const served = { code: "" };
  const types = { ".js": "text/javascript", ".wasm": "application/wasm" };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    const send = (type, body) => response.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
    if (path === "/") return send("text/html", SNIPPET_PAGE);
    if (path === "/snippet.js") return send("text/javascript", served.code);
    const file = /^\/pkg\/[\w/.-]+$/.test(path) && !path.includes("..") ? join(repo, path) : null;
    try {
      if (file === null) throw new Error("not served");
      send(types[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream", await readFile(file));
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return {
    served,
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => server.close(done)),
  };
}

/**
 * Runs `code` as an ES module in Node from the repository root (or with `deno`, Deno's arguments,
 * in Deno); resolves {code, stdout, stderr}.
 */
function runProgram(code, deno) {
  return new Promise((resolve, reject) => {
    const [command, args] = deno ? [DENO, ["run", ...deno, "-"]] : [process.execPath, ["--input-type=module", "-"]];
    const child = spawn(command, args, {
      cwd: repo,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      stderr += `\nkilled after ${SNIPPET_TIMEOUT_MS} ms (did it leave a lease renewing?)`;
    }, SNIPPET_TIMEOUT_MS);
    child.once("error", reject);
    child.once("close", (exitCode, signal) => {
      clearTimeout(timer);
      resolve({ code: exitCode ?? signal, stdout, stderr });
    });
    child.stdin.end(code);
  });
}

/**
 * Runs `code` as a Worker's main module in workerd, with GRANTOR bound to its LeaseGrantorObject
 * export, and sends it one request; resolves {status, body}.
 */
async function runInWorkerd(code) {
  const mf = await startWorkers({
    workers: [{ name: "snippet", entry: "snippet.js", contents: code, durableObjects: { GRANTOR: "LeaseGrantorObject" } }],
  });
  try {
    const reply = await mf.dispatchFetch("http://snippet.test/", { signal: AbortSignal.timeout(SNIPPET_TIMEOUT_MS) });
    return { status: reply.status, body: await reply.text() };
  } finally {
    await mf.dispose();
  }
}

describe("the snippets run", () => {
  let browser;
  let server;

  before(async () => {
    if (runnable.some((block) => block.runIn === "browser")) {
      server = await serveSnippets();
      browser = await launchChromium();
    }
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Runs `code` as a module of a page with an import map for "tenure"; resolves an error or null. */
  async function runInBrowser(code) {
    server.served.code = code;
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    try {
      await page.goto(`${server.url}/`);
      const handle = await page.waitForFunction(() => window.snippetResult, null, {
        timeout: SNIPPET_TIMEOUT_MS,
      });
      const result = await handle.jsonValue();
      if (!result.ok) return result.error;
      return errors.length > 0 ? errors.join("\n") : null;
    } finally {
      await page.close();
    }
  }

  for (const block of runnable) {
    const where = [block.section, block.subsection].filter(Boolean).join(" / ");
    it(`${block.file}:${block.line} (${where}) in ${block.runIn}`, { timeout: SNIPPET_TIMEOUT_MS + 10_000 }, async () => {
      if (block.runIn === "deno") {
        // Deno KV is the grantor: no reference grantor, a database file of its own.
        const dir = mkdtempSync(join(tmpdir(), "tenure-guide-deno-"));
        try {
          const code = block.code.replaceAll(DOC_KV_FILE, JSON.stringify(join(dir, "leases.sqlite3")));
          const permissions = ["--no-lock", "--unstable-kv", `--allow-read=${repo},${dir}`, `--allow-write=${dir}`];
          const result = await runProgram(code, permissions);
          assert.equal(result.code, 0, `exit ${result.code}\n${result.stderr}${result.stdout}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        return;
      }
      if (block.runIn === "workerd") {
        const reply = await runInWorkerd(block.code);
        assert.ok(reply.status >= 200 && reply.status < 300, `status ${reply.status}: ${reply.body}`);
        return;
      }
      const grantor = await startGrantor();
      try {
        const code = block.code.replaceAll(DOC_GRANTOR, grantor.url);
        if (block.runIn === "node") {
          const result = await runProgram(code);
          assert.equal(result.code, 0, `exit ${result.code}\n${result.stderr}${result.stdout}`);
        } else {
          assert.equal(await runInBrowser(code), null);
        }
      } finally {
        await grantor.stop();
        rmSync(dirname(grantor.db), { recursive: true, force: true });
      }
    });
  }
});
