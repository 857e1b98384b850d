// Shared by the TabLease suites: open fixture tabs, read their state, wait for conditions.

import assert from "node:assert/strict";
import { createServer, request as httpRequest } from "node:http";
import { serveStatic } from "./static-server.mjs";

/** The fixture page's URL for a TabLease `name` with `params` (numbers or strings). */
export function tabUrl(server, params, page = "tab.html") {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return `${server.url}/tests/js/fixtures/tabs/${page}?${query}`;
}

/** Opens `count` tabs at `url` with `open(url)`, collecting page errors into `errors`. */
export async function openTabs(open, url, count, errors = []) {
  const pages = [];
  for (let i = 0; i < count; i += 1) {
    const page = await open(url);
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.waitForFunction(() => window.ready === true, null, { timeout: 20_000, polling: 50 });
    pages.push(page);
  }
  return pages;
}

/** Each page's `snapshot()`, or null for a closed or crashed page. */
export function snapshots(pages) {
  return Promise.all(
    pages.map((page) => (page.isClosed() ? null : page.evaluate(() => window.snapshot()).catch(() => null))),
  );
}

/** Polls `probe()` every 50 ms until it returns a truthy value; returns it, or fails after `maxMs`. */
export async function until(probe, maxMs, what) {
  const start = performance.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() - start > maxMs) assert.fail(`timed out after ${maxMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until exactly one of `pages` is active; returns its index and snapshots. */
export async function oneActive(pages, maxMs = 10_000) {
  return until(
    async () => {
      const states = await snapshots(pages);
      const active = states.flatMap((state, index) => (state?.active ? [index] : []));
      return active.length === 1 ? { index: active[0], states } : null;
    },
    maxMs,
    "exactly one active tab",
  );
}

/** Asserts that at most one page is active, at `samples` moments `everyMs` apart. */
export async function assertExclusive(pages, { samples, everyMs, exactlyOne = true }) {
  for (let i = 0; i < samples; i += 1) {
    const states = await snapshots(pages);
    const active = states.filter((state) => state?.active);
    if (exactlyOne) assert.equal(active.length, 1, `sample ${i}: ${active.length} active tabs`);
    else assert.ok(active.length <= 1, `sample ${i}: ${active.length} active tabs`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Serves `root` like serveStatic but revalidating (`no-cache`) instead of `no-store`: a page
 * loaded with `no-store` never enters the back/forward cache.
 */
export async function serveCacheable(root) {
  const upstream = await serveStatic(root);
  const server = createServer((request, response) => {
    const forward = httpRequest(`${upstream.url}${request.url}`, { method: request.method }, (reply) => {
      const headers = { ...reply.headers, "cache-control": "no-cache" };
      response.writeHead(reply.statusCode, headers);
      reply.pipe(response);
    });
    forward.on("error", () => response.writeHead(502).end());
    request.pipe(forward);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      await upstream.close();
    },
  };
}

/**
 * Forwards HTTP to `target`, recording each request's method, path and JSON body: to count
 * what tabs send a grantor.
 */
export async function recordingProxy(target) {
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      let json = null;
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        // not JSON (a preflight)
      }
      requests.push({ at: Date.now(), method: request.method, path: request.url, body: json });
      const forward = httpRequest(
        `${target}${request.url}`,
        { method: request.method, headers: request.headers },
        (reply) => {
          response.writeHead(reply.statusCode, reply.headers);
          reply.pipe(response);
        },
      );
      forward.on("error", () => response.writeHead(502).end());
      forward.end(body);
    });
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
