// What tenure/react promises TypeScript users: every export of pkg/react.js is declared, with a
// doc comment, in pkg/react.d.ts; the package exports it as "./react" with those types; and an
// app's usage type-checks through that export (tests/js/react/types/usage.ts, with tsc).

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");
const pkg = join(repo, "pkg");
const run = promisify(execFile);

/** Names of `export function` and `export class` declarations in `source`, with their doc flag. */
function exported(source, pattern) {
  const lines = source.split("\n");
  const found = new Map();
  lines.forEach((line, index) => {
    const match = pattern.exec(line);
    if (match === null) return;
    let previous = index - 1;
    while (previous >= 0 && lines[previous].trim() === "") previous -= 1;
    found.set(match[1], previous >= 0 && lines[previous].trim().endsWith("*/"));
  });
  return found;
}

describe("tenure/react declarations", () => {
  const js = exported(readFileSync(join(pkg, "react.js"), "utf8"), /^export (?:async )?(?:function|class|const) (\w+)/);
  const dts = exported(
    readFileSync(join(pkg, "react.d.ts"), "utf8"),
    /^export (?:declare )?(?:function|class|const|interface|type) (\w+)/,
  );

  it("declare and document every runtime export, and no other value", () => {
    assert.deepEqual([...js.keys()].sort(), ["useLease", "useTabLease"]);
    for (const name of js.keys()) {
      assert.ok(dts.has(name), `${name} is declared`);
      assert.ok(js.get(name), `${name} is documented in react.js`);
    }
    const undocumented = [...dts].filter(([, documented]) => !documented).map(([name]) => name);
    assert.deepEqual(undocumented, [], `declarations without a doc comment: ${undocumented}`);
  });

  it("are what the package exports as ./react, shipped in files, with React an optional peer", () => {
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    // The ESM condition, flat ({types, default}) or nested beside a `require` one.
    const entry = manifest.exports["./react"];
    const esm = typeof entry.default === "string" ? entry : (entry.import ?? entry.default);
    assert.equal(esm.types, "./react.d.ts");
    assert.equal(esm.default, "./react.js");
    assert.ok(manifest.files.includes("react.js") && manifest.files.includes("react.d.ts"));
    assert.ok(manifest.peerDependencies.react);
    assert.equal(manifest.peerDependenciesMeta.react.optional, true);
  });

  it("type-check an app's usage through the ./react export (tsc)", async () => {
    await run(join(repo, "node_modules", ".bin", "tsc"), ["-p", join(here, "types")], { cwd: repo });
  });
});
