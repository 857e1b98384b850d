// esbuild from the packed tarball, as `esbuild main.js --bundle --outdir=dist` with nothing else:
// an ES-module build in a "type": "module" project, and in a project npm creates by default
// ("type": "commonjs") its default browser format (an IIFE) from an `import` entry and from a
// `require` entry.

import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { bin, bundlerSuite, fixture, pageHtml, PAGE_JS, runTool, serveDir } from "./harness.mjs";

const esbuild = (entry, extra, { module }) => async (dir) => {
  await runTool(bin("esbuild"), [entry, "--bundle", "--outdir=dist", ...extra], { cwd: dir });
  writeFileSync(join(dir, "dist", "index.html"), pageHtml(entry, { module }));
  return { sizeDir: "dist", serve: serveDir(join(dir, "dist")) };
};

bundlerSuite("esbuild", [
  {
    label: "--format=esm",
    type: "module",
    files: { "main.js": fixture("main.js"), "page.js": PAGE_JS },
    build: esbuild("main.js", ["--format=esm"], { module: true }),
  },
  {
    label: "import, default format",
    type: "commonjs",
    files: { "main.js": fixture("main.js"), "page.js": PAGE_JS },
    build: esbuild("main.js", [], { module: false }),
  },
  {
    label: "require, default format",
    type: "commonjs",
    files: { "require-main.js": fixture("require-main.js"), "page.mjs": PAGE_JS },
    build: esbuild("require-main.js", [], { module: false }),
  },
]);
