// Rollup from the packed tarball with @rollup/plugin-node-resolve, the plugin any Rollup app that
// imports a package needs, and no rollup.config.js.

import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { bin, bundlerSuite, fixture, pageHtml, PAGE_JS, runTool, serveDir } from "./harness.mjs";

bundlerSuite("Rollup", [
  {
    label: "rollup --plugin node-resolve",
    type: "module",
    files: { "main.js": fixture("main.js"), "page.js": PAGE_JS },
    build: async (dir) => {
      await runTool(bin("rollup"), ["main.js", "--dir", "dist", "--plugin", "node-resolve"], { cwd: dir });
      writeFileSync(join(dir, "dist", "index.html"), pageHtml("main.js", { module: true }));
      return { sizeDir: "dist", serve: serveDir(join(dir, "dist")) };
    },
  },
]);
