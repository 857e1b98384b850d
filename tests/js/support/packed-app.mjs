// The package as a user gets it: `npm pack` of pkg/ (built by scripts/build), installed into a
// fresh project. Projects live under target/bundler-apps/ inside the repository, so Node's module
// resolution finds the bundlers in the repository's node_modules while `tenure` resolves to the
// project's own copy unpacked from the tarball, never to pkg/ through the root's `file:pkg` link.

import { execFile } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const PKG = join(REPO, "pkg");
const APPS = join(REPO, "target", "bundler-apps");

// Everything this module created is removed when the process ends, whether or not tests cleaned up.
const created = new Set();
process.once("exit", () => {
  for (const path of created) rmSync(path, { recursive: true, force: true });
});

let tarball;

/**
 * The absolute path of a `.tgz` made by `npm pack` of pkg/, packed once per process into a temp
 * directory. Fails when pkg/glue is missing (run scripts/build first) rather than packing a
 * package without its WebAssembly.
 */
export function packTarball() {
  tarball ??= (async () => {
    if (!existsSync(join(PKG, "glue", "tenure_bg.wasm"))) {
      throw new Error("pkg/glue is missing: run scripts/build before packing the package");
    }
    const destination = mkdtempSync(join(tmpdir(), "tenure-pack-"));
    created.add(destination);
    const { stdout } = await run(
      "npm",
      ["pack", PKG, "--pack-destination", destination, "--json", "--silent"],
      { cwd: destination, maxBuffer: 16 * 1024 * 1024 },
    );
    const [{ filename }] = JSON.parse(stdout);
    return join(destination, filename);
  })();
  return tarball;
}

/**
 * A new directory `target/bundler-apps/<name>-<random>/` with a `package.json` of `type`, the
 * packed tarball installed into its node_modules, and `files` (relative path → contents) written.
 * Resolves `{ dir, tenureDir, remove }`; `tenureDir` is where `tenure` resolves from the project,
 * checked to be the project's own unpacked copy.
 */
export async function freshProject({ name, type = "module", files = {} }) {
  const tgz = await packTarball();
  mkdirSync(APPS, { recursive: true });
  const dir = mkdtempSync(join(APPS, `${name}-`));
  created.add(dir);
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `tenure-${name}-app`, version: "1.0.0", private: true, type }, null, 2)}\n`,
  );
  // tenure has no dependencies, so the install needs no registry.
  await run("npm", ["install", tgz, "--no-audit", "--no-fund", "--offline", "--silent"], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  const tenureDir = resolvedTenure(dir);
  return {
    dir,
    tenureDir,
    remove() {
      rmSync(dir, { recursive: true, force: true });
      created.delete(dir);
    },
  };
}

/**
 * Where `tenure` resolves from `dir`, as a bundler's resolver would find it; throws unless that is
 * a real directory (not a link to pkg/) inside `dir`'s own node_modules.
 */
export function resolvedTenure(dir) {
  const manifest = createRequire(join(dir, "package.json")).resolve("tenure/package.json");
  const tenureDir = dirname(manifest);
  const expected = join(dir, "node_modules", "tenure");
  if (tenureDir !== expected || lstatSync(expected).isSymbolicLink()) {
    throw new Error(`tenure resolves to ${tenureDir}, not the project's unpacked copy ${expected}`);
  }
  const real = realpathSync(tenureDir);
  if (real === realpathSync(PKG) || real.startsWith(realpathSync(PKG) + sep)) {
    throw new Error(`tenure resolves into pkg/ (${real})`);
  }
  return tenureDir;
}
