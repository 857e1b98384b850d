// The package as the registry would publish it: `npm pack` of pkg/, installed into a fresh project.
// The tarball carries its README, both licenses and its repository; publint and attw find nothing;
// and both `require("tenure")` and `import("tenure")` give a working Lease in Node, the CommonJS
// entry using nothing newer than Node 20.0 has.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO, freshProject, packTarball } from "./support/packed-app.mjs";

const run = promisify(execFile);
const bin = (name) => join(REPO, "node_modules", ".bin", name);

// A grant, the hot check, and a config error with its stable code: the core really ran.
const SCENARIO = `
  const lease = new tenure.Lease(10000, 1000);
  const before = lease.isSafelyHeld();
  lease.grant(7, tenure.Lease.stamp());
  let code = null;
  try { new tenure.Lease(100, 200); } catch (error) { code = tenure.isLeaseError(error) ? error.code : String(error); }
  console.log(JSON.stringify({ before, held: lease.isSafelyHeld(), token: lease.token, code, exports: Object.keys(tenure).sort() }));
`;
const EXPECTED = { before: false, held: true, token: 7, code: "ERR_LEASE_CONFIG" };

// `tenure/tabs` in Node: its own module loads, and a TabLease fails only for want of IndexedDB.
const TABS_SCENARIO = `
  let code = null;
  let missing = null;
  try { new tabs.TabLease("editor"); } catch (error) { code = tabs.isLeaseError(error) ? error.code : String(error); missing = error.missing; }
  console.log(JSON.stringify({ code, missing, exports: Object.keys(tabs).sort() }));
`;

async function runNode(dir, file, args = []) {
  const { stdout } = await run(process.execPath, [...args, file], { cwd: dir, timeout: 60_000 });
  return JSON.parse(stdout.trim().split("\n").pop());
}

describe("the packed tarball", () => {
  let tgz;
  let project;
  let listed;

  before(async () => {
    tgz = await packTarball();
    const { stdout } = await run("tar", ["-tzf", tgz]);
    listed = stdout.split("\n").filter(Boolean);
    project = await freshProject({
      name: "tarball",
      type: "commonjs",
      files: {
        "required.cjs": `const tenure = require("tenure");\n${SCENARIO}`,
        "imported.mjs": `const tenure = await import("tenure");\n${SCENARIO}`,
        "required-tabs.cjs": `const tabs = require("tenure/tabs");\n${TABS_SCENARIO}`,
        "imported-tabs.mjs": `const tabs = await import("tenure/tabs");\n${TABS_SCENARIO}`,
        // React itself resolves from the repository's node_modules, above the project.
        "required-react.cjs": `const hooks = require("tenure/react");\nconsole.log(JSON.stringify(Object.fromEntries(Object.entries(hooks).map(([name, value]) => [name, typeof value]))));\n`,
      },
    });
  });

  after(() => project?.remove());

  it("carries the README, both licenses, the entries' files and a repository", () => {
    for (const file of [
      "README.md",
      "LICENSE-MIT",
      "LICENSE-APACHE",
      "package.json",
      "index.js",
      "workerd.js",
      "index.d.ts",
      "glue/tenure.cjs",
      "glue/tenure.d.cts",
      "glue/tenure_bg.wasm",
    ]) {
      assert.ok(listed.includes(`package/${file}`), `${file} in the tarball: ${listed}`);
    }
    const manifest = JSON.parse(readFileSync(join(project.tenureDir, "package.json"), "utf8"));
    assert.deepEqual(manifest.repository, {
      type: "git",
      url: "git+https://github.com/tenure-dev/tenure.git",
      directory: "pkg",
    });
    assert.equal(manifest.license, "MIT OR Apache-2.0");
    assert.ok(manifest.keywords.includes("lease"));
    assert.ok(manifest.homepage.startsWith("https://"));
    assert.match(readFileSync(join(project.tenureDir, "LICENSE-MIT"), "utf8"), /the tenure authors/);
    assert.match(readFileSync(join(project.tenureDir, "LICENSE-APACHE"), "utf8"), /Apache License\s+Version 2\.0/);
    assert.match(readFileSync(join(project.tenureDir, "README.md"), "utf8"), /npm install tenure/);
    // What the package's own sources and build do not need at run time stays out.
    assert.deepEqual(listed.filter((path) => /tab-worker\.js$|node\.js$|\.map$/.test(path)), []);
    // And everything package.json names is there.
    for (const file of manifest.files) {
      assert.ok(listed.includes(`package/${file}`), `${file} (from "files") in the tarball`);
    }
  });

  it("publint finds nothing", async () => {
    const { stdout } = await run(bin("publint"), ["--strict", project.tenureDir], { timeout: 120_000 });
    assert.match(stdout, /All good!/, stdout);
  });

  it("attw finds nothing for node10, node16 from CJS and ESM, and bundlers", async () => {
    // attw exits 1 when it finds problems; its report says which, and the known ones are allowed.
    const { stdout } = await run(bin("attw"), [tgz, "--format", "json"], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }).catch(
      (error) => (error.stdout ? { stdout: error.stdout } : Promise.reject(error)),
    );
    const report = JSON.parse(stdout);
    // tenure/deno-kv and tenure/durable-object are ES modules only: Deno and workerd, the runtimes
    // they are for, never require.
    const esmOnly = new Set(["./deno-kv", "./durable-object"]);
    // tenure/durable-object is for workerd alone (its `workerd` condition; it imports the
    // grantor's module compiled at deploy time), so Node and other bundlers resolve nothing.
    const workerdOnly = new Set(["./durable-object"]);
    const problems = (report.analysis.problems ?? []).filter(
      (problem) =>
        !(problem.kind === "CJSResolvesToESM" && esmOnly.has(problem.entrypoint)) &&
        !(["NoResolution", "UntypedResolution"].includes(problem.kind) && workerdOnly.has(problem.entrypoint)),
    );
    assert.deepEqual(problems, [], JSON.stringify(problems, null, 2));
    const entrypoints = Object.keys(report.analysis.entrypoints);
    assert.ok(entrypoints.includes("."), `analysed ${entrypoints}`);
    const manifest = JSON.parse(readFileSync(join(REPO, "pkg", "package.json"), "utf8"));
    for (const name of workerdOnly) {
      assert.ok(manifest.files.includes(manifest.exports[name].workerd.default.slice(2)), `${name} ships its workerd entry`);
    }
    for (const [name, entry] of Object.entries(report.analysis.entrypoints)) {
      if (workerdOnly.has(name)) continue;
      for (const mode of ["node10", "node16-cjs", "node16-esm", "bundler"]) {
        assert.ok(entry.resolutions[mode]?.resolution?.fileName, `${name} resolves under ${mode}`);
      }
    }
  });

  it("require('tenure') gives a working Lease from the CommonJS entry", async () => {
    const result = await runNode(project.dir, "required.cjs");
    const { exports, ...rest } = result;
    assert.deepEqual(rest, EXPECTED);
    assert.ok(exports.length > 10, `exports ${exports}`);
    // The CommonJS entry is self-contained: it requires nothing, so it cannot reach an ES module.
    const cjs = readFileSync(join(project.tenureDir, "glue", "tenure.cjs"), "utf8");
    assert.doesNotMatch(cjs, /\brequire\(/);
    assert.doesNotMatch(cjs, /\bimport\.meta\b|^\s*import\s|\bawait import\(/m);
  });

  it("require('tenure') works where Node cannot require ES modules, as before Node 20.19", async () => {
    // Node 20.19 made `require` of ES modules work; turning that off gives the older behaviour, so
    // this run fails with ERR_REQUIRE_ESM if anything on the `require` path were an ES module.
    const result = await runNode(project.dir, "required.cjs", ["--no-experimental-require-module"]);
    const { exports, ...rest } = result;
    assert.deepEqual(rest, EXPECTED);
  });

  it("import('tenure') gives a working Lease from the ES module entry, with the same exports", async () => {
    const imported = await runNode(project.dir, "imported.mjs");
    const required = await runNode(project.dir, "required.cjs");
    const { exports, ...rest } = imported;
    assert.deepEqual(rest, EXPECTED);
    assert.deepEqual(exports, required.exports);
  });

  it("require('tenure/tabs') and import('tenure/tabs') give the same TabLease, also before Node 20.19", async () => {
    const imported = await runNode(project.dir, "imported-tabs.mjs");
    assert.deepEqual(imported.exports, ["FencedStore", "LeaseError", "LeaseExpiredError", "TabLease", "isLeaseError"]);
    assert.deepEqual([imported.code, imported.missing], ["ERR_TAB_UNSUPPORTED", ["indexedDB"]]);
    for (const args of [[], ["--no-experimental-require-module"]]) {
      assert.deepEqual(await runNode(project.dir, "required-tabs.cjs", args), imported, `node ${args}`);
    }
  });

  it("require('tenure/react') gives the hooks from the CommonJS build, also before Node 20.19", async () => {
    for (const args of [[], ["--no-experimental-require-module"]]) {
      const hooks = await runNode(project.dir, "required-react.cjs", args);
      assert.deepEqual(hooks, { useLease: "function", useTabLease: "function" }, `node ${args}`);
    }
  });
});
