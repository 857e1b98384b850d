// Parcel from the packed tarball: `parcel build index.html`, no .parcelrc.

import { join } from "node:path";
import { bin, bundlerSuite, fixture, PAGE_JS, runTool, serveDir } from "./harness.mjs";

bundlerSuite("Parcel", [
  {
    label: "parcel build index.html",
    type: "module",
    files: { "index.html": fixture("index.html"), "main.js": fixture("main.js"), "page.js": PAGE_JS },
    build: async (dir) => {
      await runTool(bin("parcel"), ["build", "index.html"], { cwd: dir, timeoutMs: 240_000 });
      return { sizeDir: "dist", serve: serveDir(join(dir, "dist")) };
    },
  },
]);
