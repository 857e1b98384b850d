// Debian's Chromium started by the tests themselves and driven over the raw DevTools protocol, for
// the cases that need a page's lifecycle: freezing (`Page.setWebLifecycleState`) and hiding it
// behind another tab.
//
// Why not playwright-core here: a page Playwright is attached to is never frozen (the command
// succeeds and nothing happens: no `freeze` event, timers keep running) and never becomes hidden
// when another tab comes to the front, whether Playwright launched the browser or connected to it
// over CDP. With only this client attached, both work, so the tests that need them use it, and
// every such test asserts the page really saw its `freeze` or `visibilitychange` event.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { CHROMIUM, CHROMIUM_ARGS } from "./browser.mjs";

// Node 20 has no global WebSocket without a flag; playwright-core ships `ws`.
const WebSocketClass =
  globalThis.WebSocket ?? createRequire(import.meta.url)("playwright-core/lib/utilsBundle").ws;

function connect(url) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocketClass(url);
    let nextId = 0;
    const pending = new Map();
    const listeners = new Set();
    socket.addEventListener("error", (event) => reject(event.error ?? new Error("CDP socket error")));
    socket.addEventListener("close", () => {
      for (const { reject: fail, method } of pending.values()) {
        fail(new Error(`CDP connection closed during ${method}`));
      }
      pending.clear();
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data));
      if (message.id !== undefined) {
        const waiter = pending.get(message.id);
        if (waiter === undefined) return;
        pending.delete(message.id);
        if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
        else waiter.resolve(message.result);
      } else {
        for (const listener of listeners) listener(message);
      }
    });
    socket.addEventListener("open", () =>
      resolve({
        send(method, params = {}, sessionId) {
          const id = ++nextId;
          return new Promise((done, fail) => {
            pending.set(id, { resolve: done, reject: fail, method });
            socket.send(JSON.stringify({ id, method, params, sessionId }));
          });
        },
        /** Sends without waiting for a reply (some commands, like `Page.crash`, never answer). */
        post(method, params = {}, sessionId) {
          socket.send(JSON.stringify({ id: ++nextId, method, params, sessionId }));
        },
        on(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        close() {
          socket.close();
        },
      }),
    );
  });
}

/**
 * Starts Chromium with DevTools on an ephemeral 127.0.0.1 port and a fresh profile. Resolves
 * `{ newPage(url, {initScript}), close() }`.
 */
export async function startCdpChromium() {
  const profile = mkdtempSync(join(tmpdir(), "tenure-cdp-chromium-"));
  const child = spawn(
    CHROMIUM,
    [
      ...CHROMIUM_ARGS,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let stderr = "";
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${stderr}`)), 20_000);
    createInterface({ input: child.stderr }).on("line", (line) => {
      stderr += `${line}\n`;
      const match = /DevTools listening on (ws:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited with ${code}: ${stderr}`));
    });
  }).catch((error) => {
    child.kill("SIGKILL");
    rmSync(profile, { recursive: true, force: true });
    throw error;
  });
  const cdp = await connect(endpoint);

  const stop = async () => {
    try {
      await Promise.race([cdp.send("Browser.close"), new Promise((r) => setTimeout(r, 3_000))]);
    } catch {
      // already gone
    }
    cdp.close();
    const late = setTimeout(() => child.kill("SIGKILL"), 3_000);
    if (child.exitCode === null && child.signalCode === null) await exited;
    clearTimeout(late);
    rmSync(profile, { recursive: true, force: true });
  };

  return {
    /**
     * Opens `url` in a new tab (which comes to the front, hiding the others) after installing
     * `initScript`, if any, to run before the page's own scripts.
     */
    async newPage(url, { initScript } = {}) {
      const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
      const send = (method, params) => cdp.send(method, params, sessionId);
      const loaded = new Promise((resolve) => {
        const off = cdp.on((message) => {
          if (message.sessionId === sessionId && message.method === "Page.loadEventFired") {
            off();
            resolve();
          }
        });
      });
      await send("Page.enable");
      await send("Runtime.enable");
      if (initScript !== undefined) {
        await send("Page.addScriptToEvaluateOnNewDocument", { source: initScript });
      }
      await send("Page.navigate", { url });
      await loaded;
      const errors = [];
      cdp.on((message) => {
        if (message.sessionId === sessionId && message.method === "Runtime.exceptionThrown") {
          errors.push(message.params.exceptionDetails?.exception?.description ?? "exception");
        }
      });
      return {
        targetId,
        errors,
        send,
        post: (method, params) => cdp.post(method, params, sessionId),
        /** Runs `fn(arg)` in the page (awaiting a returned promise); resolves its JSON value. */
        async evaluate(fn, arg) {
          const expression = `(${fn.toString()})(${arg === undefined ? "" : JSON.stringify(arg)})`;
          const reply = await send("Runtime.evaluate", {
            expression,
            awaitPromise: true,
            returnByValue: true,
          });
          if (reply.exceptionDetails) {
            const details = reply.exceptionDetails;
            throw new Error(`in page: ${details.exception?.description ?? details.text}`);
          }
          return reply.result.value;
        },
        /** Waits until `fn()` is truthy in the page. */
        async waitFor(fn, maxMs = 20_000) {
          const start = performance.now();
          while (!(await this.evaluate(fn))) {
            if (performance.now() - start > maxMs) throw new Error(`timed out waiting for ${fn}`);
            await new Promise((r) => setTimeout(r, 50));
          }
        },
        /** Brings this tab to the front. */
        activate: () => cdp.send("Target.activateTarget", { targetId }),
        close: () => cdp.send("Target.closeTarget", { targetId }),
      };
    },
    close: stop,
  };
}
