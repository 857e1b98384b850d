// The conformance suite checks itself: it passes against a conforming in-memory grantor and,
// against each variant that breaks one rule, fails the test for that rule. Also runs the
// point-it-at-a-URL entry against a real reference grantor process.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { VARIANTS } from "./memory-grantor.mjs";
import { startGrantor } from "../support/grantor-process.mjs";

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** Runs one suite file under node:test in a child process; resolves its exit code and failures. */
function runSuite(file, env) {
  return new Promise((resolve, reject) => {
    // Without NODE_TEST_CONTEXT, which the parent runner sets to make children report to it.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    const child = spawn(process.execPath, ["--test", "--test-reporter=tap", here(file)], {
      env: { ...inherited, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("error", reject);
    child.once("exit", (code) => {
      const failed = [...out.matchAll(/^ {4}not ok \d+ - (.*)$/gm)].map((m) => m[1]);
      const passed = [...out.matchAll(/^ {4}ok \d+ - (.*)$/gm)].map((m) => m[1]);
      resolve({ code, failed, passed, out });
    });
  });
}

/** The test that must fail for each broken variant (a prefix of its name). */
const CAUGHT_BY = {
  "grants-everyone": "denies a held resource to another holder",
  "renews-any-holder": "refuses renewals by another holder",
  "reuses-tokens": "issues strictly increasing tokens",
  "expires-early": "lets an unrenewed lease expire, never early",
  "replays-full-duration": "answers a retried grant or renewal",
  "releases-newer-grants": "releases: the next grant has a larger token",
};

describe("the conformance suite", { timeout: 240_000 }, () => {
  it("passes against a conforming grantor", async () => {
    const { code, failed, passed, out } = await runSuite("memory-variant.mjs", {
      TENURE_CONFORMANCE_VARIANT: "conforming",
    });
    assert.deepEqual(failed, [], out);
    assert.equal(code, 0, out);
    assert.equal(passed.length, 10, out);
  });

  for (const [variant, rule] of Object.entries(VARIANTS)) {
    if (variant === "conforming") continue;
    it(`catches a grantor where ${rule}`, async () => {
      const { code, failed, out } = await runSuite("memory-variant.mjs", {
        TENURE_CONFORMANCE_VARIANT: variant,
      });
      assert.notEqual(code, 0, `the suite passed a broken grantor:\n${out}`);
      assert.ok(
        failed.some((name) => name.startsWith(CAUGHT_BY[variant])),
        `expected "${CAUGHT_BY[variant]}" among the failures ${JSON.stringify(failed)}`,
      );
    });
  }

  describe("pointed at a grantor's URL", () => {
    let grantorProcess;
    before(async () => {
      grantorProcess = await startGrantor();
    });
    after(async () => {
      await grantorProcess?.stop();
    });

    it("runs against the reference grantor", async () => {
      const { code, failed, passed, out } = await runSuite("against-url.mjs", {
        TENURE_GRANTOR_URL: grantorProcess.url,
        TENURE_CONFORMANCE_GRACE_MS: "250",
      });
      assert.deepEqual(failed, [], out);
      assert.equal(code, 0, out);
      assert.equal(passed.length, 10, out);
    });
  });
});
