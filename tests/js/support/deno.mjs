// Deno for the Deno KV suites: the repository's Deno binary, a scratch directory for databases,
// Deno processes run with only the permissions they need, and a node:test file run under
// `deno test` with each of its tests reported to node:test.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

/** The repository root: Deno resolves "tenure" from its node_modules, as Node does. */
export const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const DENO = join(repo, "node_modules", ".bin", "deno");

/** A scratch directory, removed with everything in it when this process exits. */
export function scratchDir(label) {
  const dir = mkdtempSync(join(tmpdir(), `tenure-${label}-`));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Deno's permissions for a process using Deno KV in `dir`: reading the package and the database,
 * writing only the database. `--no-lock`: the repository has no deno.lock to keep.
 */
export function kvPermissions(dir) {
  return ["--no-lock", "--unstable-kv", `--allow-read=${repo},${dir}`, `--allow-write=${dir}`];
}

/**
 * Starts `deno run <permissions> <script> ...args`, reading JSON lines from its stdout:
 * `{ child, events, lines(predicate), done }`. `next(predicate, ms)` resolves the first event
 * (from now on, or already seen) matching `predicate`; `done` resolves `{ code, signal, stderr }`.
 */
export function denoProcess(script, args, { dir, env = {} } = {}) {
  const child = spawn(DENO, ["run", ...kvPermissions(dir), script, ...args], {
    cwd: repo,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  const events = [];
  const waiting = new Set();
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on("line", (line) => {
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      event = { event: "unparsed", line };
    }
    events.push(event);
    for (const wait of waiting) wait(event);
  });
  const done = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stderr })));
  const next = (predicate, ms) =>
    new Promise((resolve, reject) => {
      const seen = events.find(predicate);
      if (seen) return resolve(seen);
      const timer = setTimeout(() => {
        waiting.delete(wait);
        reject(new Error(`no matching event from ${script} within ${ms} ms; stderr: ${stderr}`));
      }, ms);
      const wait = (event) => {
        if (!predicate(event)) return;
        clearTimeout(timer);
        waiting.delete(wait);
        resolve(event);
      };
      waiting.add(wait);
      done.then(() => {
        if (!waiting.has(wait)) return;
        clearTimeout(timer);
        waiting.delete(wait);
        reject(new Error(`${script} ended before a matching event; stderr: ${stderr}`));
      });
    });
  return { child, events, next, done, send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`) };
}

const unescape = (text) =>
  text.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-f]+));/gi, (_, name, dec, hex) =>
    dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" }[name],
  );

/**
 * Runs `file` (node:test's describe/it, which Deno runs as tests and steps) under `deno test`
 * with `permissions` and `args` (after `--`), and reports each of its tests as a subtest of `t`,
 * failed with Deno's message when it failed. Fails `t` when Deno exits with an error, when it
 * reports a test skipped, or when it ran fewer than `atLeast` tests: a file that registered
 * nothing must not pass. Deno ignores node:test's per-test timeouts, so the whole run is
 * killed after `timeoutMs`.
 */
export async function runDenoTests(t, file, { permissions, args = [], atLeast, timeoutMs }) {
  const dir = scratchDir("deno-test");
  const junit = join(dir, "report.xml");
  // --no-check: the files are JavaScript; the package's declarations have their own tests.
  const child = spawn(
    DENO,
    ["test", "--no-check", "--reporter=dot", `--junit-path=${junit}`, ...permissions, file, "--", ...args],
    { cwd: repo, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code, signal] = await new Promise((resolve) => child.once("close", (...exit) => resolve(exit)));
  clearTimeout(timer);
  let report = "";
  try {
    report = readFileSync(junit, "utf8");
  } catch {
    // No report: Deno failed before running anything, which the exit code shows.
  }
  const cases = [...report.matchAll(/<testcase name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)].map((match) => ({
    name: unescape(match[1]),
    body: match[3] ?? "",
  }));
  // Deno reports the describe block itself as a test as well as each of its steps.
  const steps = cases.filter((c) => c.name.includes(" > "));
  for (const { name, body } of steps) {
    await t.test(name, () => {
      const failure = body.match(/<failure message="([^"]*)"/);
      if (failure) throw new Error(`${unescape(failure[1])}\n${unescape(body)}`);
      if (/<skipped/.test(body)) throw new Error("skipped: every test must run");
    });
  }
  if (signal) throw new Error(`deno test was killed (${signal}) after ${timeoutMs} ms:\n${output}`);
  if (code !== 0) throw new Error(`deno test exited with ${code}:\n${output}`);
  if (steps.length < atLeast) throw new Error(`deno test ran ${steps.length} tests, expected at least ${atLeast}:\n${output}`);
}
