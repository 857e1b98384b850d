// Benchmark: what the package weighs, gzip -9, against broadcast-channel's browser build.
// Figures, not pass/fail.
//
// Every figure is the sum of each file gzipped on its own (level 9), as a server sends the files
// unbundled; "min" figures first minify the JavaScript with the minifier vite uses (oxc, through
// rolldown), as an app's production build would.
// - wasm + JS glue: pkg/glue/tenure_bg.wasm and pkg/glue/tenure.js, the code wasm-bindgen
//   generates to load the module and call it. This is the figure with the 20 KB target.
// - inline core + glue + Lease/LeaseHolder API: what `import { Lease, LeaseHolder } from
//   "tenure"` loads: the wasm as base64 inside glue/core-base64.js (the entries carry it inline,
//   so no bundler has to copy a .wasm file), the glue, pkg/index.js, core.js, inline-core.js,
//   api.js and errors.js; a bundler drops the other modules (the ES entries have no side effects).
// - everything: every ES module file in package.json's "files", with the core inline (the
//   separate .wasm, which only workerd's entry imports, and the CommonJS build, a second copy
//   for `require`, are left out so nothing is counted twice).
// - baseline: broadcast-channel's own minified browser bundle, dist/lib/browser.min.js (its
//   BroadcastChannel and createLeaderElection with every transport), as installed.
//
// `measureSizes()` is used by bench/table.mjs; run alone it prints its own lines.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = (path) => readFileSync(join(repo, "pkg", path));
const gz = (buffer) => gzipSync(buffer, { level: 9 }).length;

/** The minifier, if installed (it comes with vite); `null` otherwise. */
async function loadMinifier() {
  try {
    const { minifySync } = await import("rolldown/utils");
    return (name, source) => Buffer.from(minifySync(name, source.toString("utf8")).code);
  } catch {
    return null;
  }
}

/** `{raw, gz, minGz}` of `files` (paths in pkg/), each gzipped on its own, summed. */
function weigh(files, minify) {
  const total = { raw: 0, gz: 0, minGz: minify ? 0 : null };
  for (const file of files) {
    const bytes = pkg(file);
    total.raw += bytes.length;
    total.gz += gz(bytes);
    if (minify) total.minGz += file.endsWith(".js") ? gz(minify(file, bytes)) : gz(bytes);
  }
  return total;
}

/** The package's sizes and the baseline's, in bytes. */
export async function measureSizes() {
  const minify = await loadMinifier();
  const shipped = JSON.parse(pkg("package.json")).files;
  const core = ["glue/tenure_bg.wasm", "glue/tenure.js"];
  const api = ["glue/core-base64.js", "glue/tenure.js", "index.js", "core.js", "inline-core.js", "api.js", "errors.js"];
  const everything = shipped.filter((file) => file.endsWith(".js"));
  const require = createRequire(import.meta.url);
  const baselineFile = join(dirname(require.resolve("broadcast-channel/package.json")), "dist/lib/browser.min.js");
  const baseline = readFileSync(baselineFile);
  const { version } = JSON.parse(readFileSync(require.resolve("broadcast-channel/package.json")));
  return {
    wasm: weigh(["glue/tenure_bg.wasm"], minify),
    glue: weigh(["glue/tenure.js"], minify),
    core: weigh(core, minify),
    api: weigh(api, minify),
    everything: { ...weigh(everything, minify), files: everything.length },
    baseline: { name: `broadcast-channel ${version} dist/lib/browser.min.js`, raw: baseline.length, gz: gz(baseline) },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = await measureSizes();
  const kb = (bytes) => (bytes === null ? "n/a" : `${(bytes / 1000).toFixed(1)} KB`);
  for (const [name, size] of Object.entries(sizes)) {
    console.log(`${name.padEnd(11)} raw ${kb(size.raw).padStart(9)}  gzip -9 ${kb(size.gz).padStart(8)}  min+gzip ${kb(size.minGz ?? null).padStart(8)}  ${size.name ?? ""}`);
  }
}
