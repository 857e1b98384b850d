// What the guide promises TypeScript users and error handlers: every runtime export is declared
// (with a doc comment) in index.d.ts, every error code the package throws is in LeaseErrorCode,
// `await using` releases at scope exit, and isLeaseError() recognises errors from another copy of
// the package, where `instanceof` cannot.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as tenure from "tenure";
import { startGrantor } from "./support/grantor-process.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = join(repo, "pkg");
const dts = readFileSync(join(pkg, "index.d.ts"), "utf8");
const run = promisify(execFile);

/** Names exported by `export { a, b as c } from "..."` lines of an entry file. */
function entryExports(file) {
  const source = readFileSync(join(pkg, file), "utf8");
  const names = [];
  for (const match of source.matchAll(/^export\s*\{([^}]*)\}\s*from/gm)) {
    for (const part of match[1].split(",")) {
      const name = part.trim().split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  return names.sort();
}

/** Top-level declarations of index.d.ts: name → {kind, documented}. */
function declarations() {
  const lines = dts.split("\n");
  const found = new Map();
  lines.forEach((line, index) => {
    const match = /^export (?:declare )?(?:abstract )?(class|interface|type|function|const|enum) (\w+)/.exec(line);
    if (match === null) return;
    let previous = index - 1;
    while (previous >= 0 && lines[previous].trim() === "") previous -= 1;
    const documented = previous >= 0 && lines[previous].trim().endsWith("*/");
    const seen = found.get(match[2]);
    found.set(match[2], { kind: match[1], documented: documented || (seen?.documented ?? false) });
  });
  return found;
}

describe("TypeScript declarations", () => {
  const declared = declarations();

  it("declare every runtime export of the Node entry", () => {
    const missing = Object.keys(tenure).filter((name) => !declared.has(name));
    assert.deepEqual(missing, [], `exported but not declared in index.d.ts: ${missing}`);
  });

  it("the ES module, CommonJS and workerd entries export the same names", () => {
    const node = Object.keys(tenure).sort();
    assert.deepEqual(entryExports("index.js"), node);
    assert.deepEqual(Object.keys(createRequire(import.meta.url)("tenure")).sort(), node);
    assert.deepEqual(entryExports("workerd.js"), node);
  });

  it("declare no value the package does not export", () => {
    const values = [...declared].filter(([, d]) => ["class", "function", "const", "enum"].includes(d.kind));
    const stale = values.map(([name]) => name).filter((name) => !(name in tenure));
    assert.deepEqual(stale, [], `declared but not exported: ${stale}`);
  });

  it("document every exported declaration", () => {
    const bare = [...declared].filter(([, d]) => !d.documented).map(([name]) => name);
    assert.deepEqual(bare, [], `declarations without a doc comment: ${bare}`);
  });

  it("list every error code the package throws in LeaseErrorCode", () => {
    const uncommented = dts.replace(/\/\*[\s\S]*?\*\//g, "");
    const union = /export type LeaseErrorCode =([^;]*);/.exec(uncommented);
    assert.ok(union, "LeaseErrorCode is declared");
    const declaredCodes = new Set(union[1].match(/ERR_[A-Z_]+/g));
    const thrown = new Set();
    const sources = [
      ...readdirSync(pkg).filter((f) => f.endsWith(".js")).map((f) => join(pkg, f)),
      ...readdirSync(join(repo, "src", "wasm"), { recursive: true })
        .filter((f) => f.endsWith(".rs"))
        .map((f) => join(repo, "src", "wasm", f)),
    ];
    for (const file of sources) {
      for (const code of readFileSync(file, "utf8").match(/"ERR_[A-Z_]+"/g) ?? []) {
        thrown.add(code.slice(1, -1));
      }
    }
    assert.ok(thrown.size >= 10, `found ${thrown.size} codes`);
    const undeclared = [...thrown].filter((code) => !declaredCodes.has(code));
    assert.deepEqual(undeclared, [], `thrown but not in LeaseErrorCode: ${undeclared}`);
  });
});

describe("await using", () => {
  let grantor;
  let dir;

  before(async () => {
    grantor = await startGrantor();
    dir = mkdtempSync(join(tmpdir(), "tenure-await-using-"));
  });

  after(async () => {
    if (grantor !== undefined) {
      await grantor.stop();
      rmSync(dirname(grantor.db), { recursive: true, force: true });
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("releases at scope exit, also when the scope throws (compiled by tsc to ES2022, run in Node)", async () => {
    const source = `
import { HttpGrantor, LeaseHolder } from "tenure";

const grantor = new HttpGrantor({ baseUrl: "${grantor.url}" });
const config = { holderId: "scoped", leaseMs: 60_000, marginMs: 5_000 };
const report: Record<string, unknown> = {};

async function normalExit(): Promise<void> {
  {
    await using holder = new LeaseHolder(grantor, { ...config, resource: "using-normal" });
    report.acquired = (await holder.acquire()).acquired;
    report.inside = (await grantor.status("using-normal")).holder;
  }
  report.after = (await grantor.status("using-normal")).holder;
}

async function throwingExit(): Promise<void> {
  try {
    await using holder = new LeaseHolder(grantor, { ...config, resource: "using-throw" });
    await holder.acquire();
    report.insideThrow = (await grantor.status("using-throw")).holder;
    throw new Error("work failed");
  } catch (error) {
    report.caught = (error as Error).message;
  }
  report.afterThrow = (await grantor.status("using-throw")).holder;
}

await normalExit();
await throwingExit();
console.log(JSON.stringify(report));
`;
    writeFileSync(join(dir, "scoped.ts"), source);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2022",
          module: "es2022",
          moduleResolution: "bundler",
          lib: ["es2022", "dom", "esnext.disposable"],
          strict: true,
          types: [],
          outDir: join(dir, "out"),
          paths: { tenure: [join(pkg, "index.d.ts")] },
        },
        files: ["scoped.ts"],
      }),
    );
    await run(join(repo, "node_modules", ".bin", "tsc"), ["-p", dir]);
    const compiled = readFileSync(join(dir, "out", "scoped.js"), "utf8");
    assert.doesNotMatch(compiled, /await using/, "downlevelled for ES2022");

    // Evaluated from the repository, so "tenure" resolves through node_modules to pkg/.
    const child = spawn(process.execPath, ["--input-type=module", "-"], { cwd: repo });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdin.end(compiled);
    const code = await new Promise((resolve) => child.once("close", resolve));
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), {
      acquired: true,
      inside: "scoped",
      after: null,
      insideThrow: "scoped",
      caught: "work failed",
      afterThrow: null,
    });
  });
});

describe("isLeaseError across copies of the package", () => {
  let copy;

  before(() => {
    copy = mkdtempSync(join(tmpdir(), "tenure-copy-"));
    cpSync(pkg, join(copy, "pkg"), { recursive: true });
  });

  after(() => {
    if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
  });

  it("recognises an error thrown by a separately loaded copy, where instanceof fails", async () => {
    const other = await import(pathToFileURL(join(copy, "pkg", "index.js")).href);
    assert.notEqual(other.LeaseError, tenure.LeaseError, "two copies were loaded");

    let thrown;
    try {
      new other.LeaseHolder({}, { resource: "r", holderId: "h", leaseMs: 1_000, marginMs: 100 });
    } catch (error) {
      thrown = error;
    }
    assert.equal(thrown instanceof tenure.LeaseError, false);
    assert.equal(tenure.isLeaseError(thrown), true);
    assert.equal(thrown.code, "ERR_LEASE_CONFIG");
    assert.equal(thrown.field, "grantor.grant");

    const expired = new other.Lease(1_000, 100);
    assert.throws(() => expired.assertHeld(), (error) => tenure.isLeaseError(error) && error.code === "ERR_LEASE_EXPIRED");
    // And the other way round.
    assert.equal(other.isLeaseError(new tenure.LeaseError("ERR_LEASE_USAGE", "x")), true);
  });

  it("rejects lookalikes", () => {
    for (const value of [
      new Error("plain"),
      Object.assign(new Error("coded"), { code: "ERR_LEASE_USAGE" }),
      { name: "LeaseError", code: 5 },
      { name: "LeaseError", code: "E_OTHER" },
      { name: "TypeError", code: "ERR_LEASE_USAGE" },
      null,
      "LeaseError",
    ]) {
      assert.equal(tenure.isLeaseError(value), false, JSON.stringify(value));
    }
  });
});
