// Vite from the packed tarball: `vite build` of an index.html and its entry, no vite.config.

import { join } from "node:path";
import { bin, bundlerSuite, fixture, PAGE_JS, runTool, serveDir } from "./harness.mjs";

bundlerSuite("Vite", [
  {
    label: "vite build",
    type: "module",
    files: { "index.html": fixture("index.html"), "main.js": fixture("main.js"), "page.js": PAGE_JS },
    build: async (dir) => {
      await runTool(bin("vite"), ["build"], { cwd: dir });
      return { sizeDir: "dist", serve: serveDir(join(dir, "dist")) };
    },
  },
]);
