// Debian's Chromium through playwright-core: never a downloaded browser.

import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

// Profiles are removed when their browser closes, and any left open when the test process ends.
const profiles = new Set();
process.once("exit", () => {
  for (const profile of profiles) rmSync(profile, { recursive: true, force: true });
});

/** A fresh Chromium with an empty profile. */
export async function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "tenure-chromium-"));
  profiles.add(profile);
  const removeProfile = () => {
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    profiles.delete(profile);
  };
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const close = context.close.bind(context);
  context.close = async (...args) => {
    await close(...args);
    removeProfile();
  };
  return context;
}
