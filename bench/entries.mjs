// What the package's entry design costs a page, measured against the alternatives it replaced:
// - "separate .wasm, top-level await": the entry fetched glue/tenure_bg.wasm next to itself and
//   awaited instantiateStreaming at import (the package's previous entry, rebuilt here);
// - "inline, async ready": the core inline as base64, compiled by WebAssembly.compile behind a
//   promise the app awaits before its first Lease;
// - "inline, lazy sync" (the package's entry): inline, compiled synchronously by the first Lease.
// Sizes: the app bundled and minified by esbuild, plus the .wasm where one is fetched, each file
// gzip -9. Start-up: Chromium (headless, files from a local no-store server), navigation start to
// the first `new Lease()` returning, median of RUNS fresh pages. Also the size each import adds.
//
//   node bench/entries.mjs
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { launchChromium } from "../tests/js/support/browser.mjs";
import { entrySizes } from "./entry-sizes.mjs";
import { serveStatic } from "../tests/js/support/static-server.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "pkg");
const RUNS = 15;
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const work = mkdtempSync(join(tmpdir(), "tenure-entries-"));

// The previous entry, verbatim, beside the current sources.
writeFileSync(
  join(pkg, "glue", "bench-previous-entry.js"),
  `import init from "./tenure.js";\nimport { provideCore } from "../core.js";\n` +
    `await init({ module_or_path: new URL("./tenure_bg.wasm", import.meta.url) });\n` +
    // Already instantiated: the core's initSync returns at once for any argument.
    `provideCore(() => null);\nexport { Lease } from "../api.js";\n`,
);
writeFileSync(
  join(pkg, "glue", "bench-ready-entry.js"),
  `import { provideCore } from "../core.js";\nimport { CORE_BASE64 } from "./core-base64.js";\n` +
    `export const ready = WebAssembly.compile(Uint8Array.from(atob(CORE_BASE64), (c) => c.charCodeAt(0))).then((m) => provideCore(() => m));\n` +
    `export { Lease } from "../api.js";\n`,
);

const APP = (from, awaitReady) =>
  `import { Lease${awaitReady ? ", ready" : ""} } from ${JSON.stringify(from)};\n` +
  (awaitReady ? "await ready;\n" : "") +
  `new Lease(10000, 1000);\nwindow.firstLeaseMs = performance.now();\n`;

const variants = [
  { name: "separate .wasm, top-level await", entry: join(pkg, "glue", "bench-previous-entry.js"), wasm: true },
  { name: "inline, async ready", entry: join(pkg, "glue", "bench-ready-entry.js"), ready: true },
  { name: "inline, lazy sync (the package's)", entry: join(pkg, "index.js") },
];

// The previous entry fetched the .wasm: the inline copy is left out of its bundle.
const withoutInlineCore = {
  name: "without-inline-core",
  setup(plugin) {
    plugin.onResolve({ filter: /\/inline-core\.js$/ }, () => ({ path: "inline-core", namespace: "stub" }));
    plugin.onLoad({ filter: /.*/, namespace: "stub" }, () => ({ contents: "export function inlineCoreModule() {}", loader: "js" }));
  },
};

async function bundle(source, outdir, plugins = []) {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    plugins,
    stdin: { contents: source, resolveDir: pkg, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    write: false,
    legalComments: "none",
    logLevel: "error",
  });
  const [file] = result.outputFiles;
  writeFileSync(join(outdir, "app.js"), file.contents);
  return file;
}

const rows = [];
const browser = await launchChromium();
try {
  for (const variant of variants) {
    const dir = join(work, variant.name.replace(/\W+/g, "-"));
    const { contents: code } = await bundle(APP(variant.entry, variant.ready), dir, variant.wasm ? [withoutInlineCore] : []);
    writeFileSync(join(dir, "index.html"), `<!doctype html><script type="module" src="./app.js"></script>`);
    let bytes = gz(code);
    if (variant.wasm) {
      // esbuild leaves the URL as is, relative to the bundle; the file is served where it points.
      copyFileSync(join(pkg, "glue", "tenure_bg.wasm"), join(dir, "tenure_bg.wasm"));
      bytes += gz(readFileSync(join(pkg, "glue", "tenure_bg.wasm")));
    }
    const server = await serveStatic(dir);
    const times = [];
    try {
      for (let i = 0; i < RUNS + 1; i += 1) {
        const page = await browser.newPage();
        await page.goto(`${server.url}/index.html`);
        const ms = await (await page.waitForFunction(() => window.firstLeaseMs, null, { timeout: 20_000 })).jsonValue();
        await page.close();
        if (i > 0) times.push(ms); // the first run warms the server and the code cache
      }
    } finally {
      await server.close();
    }
    times.sort((a, b) => a - b);
    rows.push({ variant: variant.name, gzipBytes: bytes, firstLeaseMedianMs: times[RUNS >> 1], firstLeaseMaxMs: times.at(-1) });
  }
} finally {
  await browser.close();
  rmSync(join(pkg, "glue", "bench-previous-entry.js"), { force: true });
  rmSync(join(pkg, "glue", "bench-ready-entry.js"), { force: true });
}
console.table(rows);

// What each import adds to an app.
console.table(await entrySizes(pkg));
rmSync(work, { recursive: true, force: true });
