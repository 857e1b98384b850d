// Next.js from the packed tarball: `next build` (Turbopack, Next 16's default) of an app/ with a
// layout and a client page, no next.config, served by `next start`. The size counts all of
// .next/static, React and Next's runtime included.

import { bin, bundlerSuite, fixture, nextStart, PAGE_JS, runTool } from "./harness.mjs";

bundlerSuite("Next.js", [
  {
    label: "next build (Turbopack)",
    type: "module",
    files: {
      "app/layout.jsx": fixture("next/app/layout.jsx"),
      "app/page.jsx": fixture("next/app/page.jsx"),
      "page.js": PAGE_JS,
    },
    build: async (dir) => {
      await runTool(bin("next"), ["build"], { cwd: dir, timeoutMs: 300_000 });
      return { sizeDir: ".next/static", serve: () => nextStart(dir) };
    },
  },
]);
