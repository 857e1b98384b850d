// Runs Worker modules in workerd through Miniflare, with the package loaded the way a Workers
// bundler loads it: the entry named by the `workerd` export condition of pkg/package.json, its
// JavaScript as ES modules and the WebAssembly as a CompiledWasm module (Workers may not compile
// WebAssembly from bytes at run time).

import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const pkgDir = join(repo, "pkg");

/** The package entry workerd gets, by the `workerd` condition of the `.` export. */
export function workerdEntry() {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  // The condition maps to its types and its module.
  return manifest.exports["."].workerd.default;
}

function packageModules() {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const modules = [];
  for (const file of manifest.files) {
    const path = `tenure/${file}`;
    if (file.endsWith(".js")) {
      modules.push({ type: "ESModule", path, contents: readFileSync(join(pkgDir, file), "utf8") });
    } else if (file.endsWith(".wasm")) {
      modules.push({ type: "CompiledWasm", path, contents: readFileSync(join(pkgDir, file)) });
    }
  }
  // `import ... from "tenure"` resolves to a module of that name: let it be the workerd entry,
  // and likewise each subpath the package exports for workerd.
  const entry = workerdEntry().replace(/^\.\//, "");
  modules.push({ type: "ESModule", path: "tenure", contents: `export * from "./tenure/${entry}";\n` });
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const file = target?.workerd?.default;
    if (subpath === "." || file === undefined) continue;
    const path = `tenure/${subpath.slice(2)}`;
    modules.push({ type: "ESModule", path, contents: `export * from "./${file.slice(2)}";\n` });
  }
  return modules;
}

/**
 * Starts workerd with `workers` (Miniflare's worker options, each without `modules`), each
 * given `fixtureDir`'s file named by its `entry` as its main module (or `contents`, the module's
 * source, when given), the files named by its `imports` (`[path, file]`: the module path it
 * imports, the file relative to `fixtureDir`), and the package, plus `options` for the whole
 * instance. Resolves the Miniflare instance, ready.
 */
export async function startWorkers({ fixtureDir, workers, ...options }) {
  const modules = packageModules();
  const module = (path, file) => ({ type: "ESModule", path, contents: readFileSync(join(fixtureDir, file), "utf8") });
  const mf = new Miniflare({
    ...options,
    workers: workers.map(({ entry, contents, imports = [], ...worker }) => ({
      ...worker,
      modules: [
        contents === undefined ? module(entry, entry) : { type: "ESModule", path: entry, contents },
        ...imports.map(([path, file]) => module(path, file)),
        ...modules,
      ],
      modulesRoot: "/",
      compatibilityDate: "2025-07-01",
    })),
  });
  await mf.ready;
  return mf;
}

/**
 * Starts workerd with `entry` (a file of `fixtureDir`) as the Worker's main module and every
 * other `.js` file of `fixtureDir` beside it. Resolves `{ fetch(path, init), dispose() }`.
 */
export async function startWorkerd({ fixtureDir, entry }) {
  const fixtures = [entry, ...readdirJs(fixtureDir).filter((f) => f !== entry)].map((file) => ({
    type: "ESModule",
    path: file,
    contents: readFileSync(join(fixtureDir, file), "utf8"),
  }));
  const mf = new Miniflare({
    modules: [...fixtures, ...packageModules()],
    modulesRoot: "/",
    compatibilityDate: "2025-07-01",
  });
  await mf.ready;
  return {
    fetch: (path, init) => mf.dispatchFetch(new URL(path, "http://worker.test/"), init),
    dispose: () => mf.dispose(),
  };
}

function readdirJs(dir) {
  return readdirSync(dir).filter((f) => f.endsWith(".js"));
}
