// webpack 5 from the packed tarball with no webpack.config.js: `webpack` bundles ./src/index.js
// into ./dist/main.js, in a "type": "module" project with an `import` entry and in npm's default
// ("type": "commonjs", where webpack parses .js files as CommonJS) with a `require` entry.

import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { bin, bundlerSuite, fixture, pageHtml, PAGE_JS, runTool, serveDir } from "./harness.mjs";

const webpack = async (dir) => {
  await runTool(bin("webpack"), ["--mode", "production"], { cwd: dir });
  writeFileSync(join(dir, "dist", "index.html"), pageHtml("main.js", { module: false }));
  return { sizeDir: "dist", serve: serveDir(join(dir, "dist")) };
};

bundlerSuite("webpack", [
  {
    label: "import",
    type: "module",
    files: { "src/index.js": fixture("main.js"), "src/page.js": PAGE_JS },
    build: webpack,
  },
  {
    label: "require",
    type: "commonjs",
    files: { "src/index.js": fixture("require-main.js"), "src/page.mjs": PAGE_JS },
    build: webpack,
  },
]);
