// Debian's Chromium started by us, with playwright-core attached over CDP: for tests that freeze,
// crash or background tabs while driving them with Playwright. (cdp-chromium.mjs drives a
// self-started Chromium over the raw protocol instead.)
//
// Playwright turns on focus emulation for every page it manages, and a focus-emulated page is
// never frozen or hidden: `Page.setWebLifecycleState` succeeds and nothing happens. Attaching
// with `noDefaults: true` leaves the default context's pages without it, so they freeze (the
// page gets `freeze` and `resume`) and can be hidden.

import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM, CHROMIUM_ARGS } from "./browser.mjs";

/**
 * Starts Chromium with a fresh profile and remote debugging on an ephemeral 127.0.0.1 port, and
 * connects Playwright to it; `args` are added to the usual flags. Resolves `{ browser, context,
 * newPage, cdp, freeze, resume, crash, close }`; the pages of `context` are tabs of one profile.
 * A page hidden with `freeze` then `resume` is hidden as a background tab is, and, unlike a tab
 * opened in the background (never visible, so never "hidden for" any time), gets Chrome's
 * intensive throttling once its grace period has passed.
 */
export async function launchPlaywrightOverCdp({ args = [] } = {}) {
  const profile = mkdtempSync(join(tmpdir(), "tenure-pw-cdp-"));
  const child = spawn(
    CHROMIUM,
    [
      ...CHROMIUM_ARGS,
      "--remote-debugging-port=0",
      "--remote-debugging-address=127.0.0.1",
      `--user-data-dir=${profile}`,
      ...args,
      "about:blank",
    ],
    // Its own process group, so that stopping it reaches the processes it started too.
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is gone
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup("SIGTERM");
      const late = setTimeout(() => signalGroup("SIGKILL"), 5_000);
      await exited;
      clearTimeout(late);
    }
    // Its child processes may outlive it for a moment and write to the profile.
    signalGroup("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // left in the temporary directory
    }
  };

  let browser;
  try {
    const endpoint = await new Promise((resolve, reject) => {
      let output = "";
      const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${output}`)), 20_000);
      child.stderr.on("data", (chunk) => {
        output += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`Chromium exited with ${code}: ${output}`));
      });
    });
    browser = await chromium.connectOverCDP(endpoint, { noDefaults: true });
  } catch (error) {
    await stop();
    throw error;
  }
  const context = browser.contexts()[0];
  const byPage = new WeakMap();

  /** One DevTools protocol connection per page. */
  async function cdp(page) {
    let connection = byPage.get(page);
    if (connection === undefined) {
      connection = await context.newCDPSession(page);
      byPage.set(page, connection);
    }
    return connection;
  }

  return {
    browser,
    context,
    cdp,

    /** A foreground tab (in its own window, visible), at `url` if given. */
    async newPage(url) {
      const page = await context.newPage();
      if (url !== undefined) await page.goto(url);
      return page;
    },

    /** Freezes `page` as Chromium freezes a background tab: `freeze` fires, then nothing runs. */
    async freeze(page) {
      await (await cdp(page)).send("Page.setWebLifecycleState", { state: "frozen" });
    },

    /** Unfreezes `page` (`resume` fires); it stays hidden. */
    async resume(page) {
      await (await cdp(page)).send("Page.setWebLifecycleState", { state: "active" });
    },

    /** Crashes `page`'s renderer. `Page.crash` never answers: wait for the crash event instead. */
    async crash(page) {
      const crashed = new Promise((resolve) => page.once("crash", resolve));
      (await cdp(page)).send("Page.crash").catch(() => {});
      await crashed;
    },

    /** Disconnects, stops Chromium (SIGKILL if it lingers) and removes its profile. */
    async close() {
      await browser.close().catch(() => {});
      await stop();
    },
  };
}
