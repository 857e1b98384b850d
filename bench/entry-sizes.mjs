// Benchmark: what each import of the package costs an app, gzip -9. Figures, not pass/fail.
//
// Each row bundles a one-line app importing some names, minified by esbuild, and weighs the
// bundle gzipped (the core travels inline, so the bundle is everything the page loads). Also the
// bare modules and their wasm-bindgen glue as built. The grantor adapters are Rust in the main
// module, so an import leaves out only their thin JavaScript classes.
//
//   node bench/entry-sizes.mjs [pkg-dir]
//
// `entrySizes()` is used by bench/entries.mjs; run alone it prints the table.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

/** The imports measured: a label, the entry file (in pkg/), and the names (null: all). */
export const IMPORTS = [
  ["{ Lease }", "index.js", "Lease"],
  ["{ LeaseHolder, HttpGrantor }", "index.js", "LeaseHolder, HttpGrantor"],
  ["{ WorkClaimer, HttpGrantor }", "index.js", "WorkClaimer, HttpGrantor"],
  ["{ EtcdGrantor }", "index.js", "EtcdGrantor"],
  ["{ TabLease }", "index.js", "TabLease"],
  ["{ TabLease } from tenure/tabs", "glue-tabs/tabs.js", "TabLease"],
  ["* (everything)", "index.js", null],
];

/** Bundles `source` (resolved in `pkg`) minified; returns the output file. */
async function bundle(source, pkg) {
  const result = await build({
    stdin: { contents: source, resolveDir: pkg, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    write: false,
    legalComments: "none",
    logLevel: "error",
  });
  return result.outputFiles[0];
}

/** Rows of `{import, minifiedBytes, gzipBytes}` for the package in `pkg`. */
export async function entrySizes(pkg) {
  const rows = [];
  for (const [label, entry, names] of IMPORTS) {
    if (!existsSync(join(pkg, entry))) continue;
    const from = JSON.stringify(`./${entry}`);
    const source = names === null ? `import * as t from ${from}; console.log(t);` : `import { ${names} } from ${from}; console.log(${names});`;
    const { contents } = await bundle(source, pkg);
    rows.push({ import: label, minifiedBytes: contents.length, gzipBytes: gz(contents) });
  }
  return rows;
}

/** The module and its glue as built, each gzipped on its own. */
export function moduleSizes(pkg) {
  const rows = [];
  for (const glue of ["glue", "glue-tabs"]) {
    const wasm = join(pkg, glue, "tenure_bg.wasm");
    if (!existsSync(wasm)) continue;
    const module = readFileSync(wasm);
    const js = readFileSync(join(pkg, glue, "tenure.js"));
    rows.push({ module: `${glue}/`, wasmBytes: module.length, wasmGzip: gz(module), glueGzip: gz(js), totalGzip: gz(module) + gz(js) });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pkg = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "pkg"));
  console.table(moduleSizes(pkg));
  console.table(await entrySizes(pkg));
}
