// Builds and runs every example in examples/ against a real grantor, the way its README says to
// run it: Node processes, Deno (with the grantor, and with Deno KV as the grantor), a Vite app
// and a dedicated worker in Chromium (served by the grantor with --static-dir), and two
// Cloudflare Workers in workerd through Miniflare (one with its own grantor, a Durable Object).

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { build } from "vite";
import { Miniflare } from "miniflare";
import { HttpGrantor, LeaseHolder } from "tenure";
import { chromium } from "playwright-core";
import { startGrantor } from "./support/grantor-process.mjs";
import { CHROMIUM, CHROMIUM_ARGS } from "./support/browser.mjs";
import { startWorkers, workerdEntry } from "./support/workerd.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const examples = join(repo, "examples");
const DENO = join(repo, "node_modules", ".bin", "deno");
const BUN = join(repo, "node_modules", ".bin", "bun");

/** Debian's Chromium with a fresh profile, removed again by `close()`. */
async function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "tenure-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return {
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function grantorProcess(args = []) {
  const grantor = await startGrantor({ args });
  return {
    grantor,
    client: new HttpGrantor({ baseUrl: grantor.url }),
    async stop() {
      await grantor.stop();
      rmSync(dirname(grantor.db), { recursive: true, force: true });
    },
  };
}

/** Runs a program that prints JSON lines; resolves {code, events, stderr}; `kill` sends a signal. */
function runJsonLines(command, args, { env = {}, onEvent = () => {} } = {}) {
  const child = spawn(command, args, {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  const events = [];
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const event = JSON.parse(line);
    events.push(event);
    onEvent(event, child);
  });
  const done = new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, events, stderr });
    });
  });
  return { child, done };
}

const pick = (events, name) => events.filter((event) => event.event === name);

// The same example in Node and in Bun, which the README names among the runtimes.
for (const [runtime, binary] of [["Node", process.execPath], ["Bun", BUN]]) describe(`examples/node: a singleton job, in ${runtime}`, () => {
  let service;

  before(async () => {
    service = await grantorProcess();
  });

  after(async () => {
    await service?.stop();
  });

  it("runs in one instance at a time, hands over on release, and stops and releases on SIGTERM", async () => {
    const main = join(examples, "node", "main.js");
    const env = (id) => ({ GRANTOR_URL: service.grantor.url, HOLDER_ID: id, STEPS: "4", STEP_MS: "400" });
    const first = runJsonLines(binary, [main], { env: env("first") });
    // The second starts once the first holds the lease.
    while (!(await service.client.status("reports/nightly")).holder) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const second = runJsonLines(binary, [main], { env: env("second") });
    const [a, b] = await Promise.all([first.done, second.done]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);

    const tokenA = pick(a.events, "acquired")[0].token;
    const tokenB = pick(b.events, "acquired")[0].token;
    assert.ok(tokenB > tokenA, `${tokenB} > ${tokenA}`);
    for (const run of [a, b]) {
      assert.deepEqual(pick(run.events, "step").map((e) => e.accepted), [true, true, true, true]);
      assert.equal(pick(run.events, "done").length, 1);
      assert.equal(pick(run.events, "released").length, 1);
      const [stats] = pick(run.events, "stats");
      assert.ok(stats.renewals >= 1, JSON.stringify(stats)); // 1.6 s of steps on a 3 s lease
    }
    // Had the two overlapped, the first's steps after the second's first write would have been
    // refused (a smaller token); all were accepted, and the last write is the second's.
    assert.deepEqual((await service.client.fencedRead("reports/nightly")).payload, { step: 4, of: 4, by: "second" });

    // SIGTERM mid-job: the work stops and the lease is released, not left to expire.
    const stopped = runJsonLines(binary, [main], {
      env: { ...env("third"), STEPS: "50" },
      onEvent: (event, child) => event.event === "step" && event.step === 1 && child.kill("SIGTERM"),
    });
    const c = await stopped.done;
    assert.equal(c.code, 0, c.stderr);
    assert.deepEqual(pick(c.events, "stopped").map((e) => e.reason), ["SIGTERM"]);
    assert.equal(pick(c.events, "released").length, 1);
    assert.equal((await service.client.status("reports/nightly")).holder, null);
  });
});

describe("examples/deno: await using in Deno", () => {
  let service;

  before(async () => {
    service = await grantorProcess();
  });

  after(async () => {
    await service?.stop();
  });

  it("type-checks against the package's declarations", async () => {
    const { done } = runJsonLines(DENO, ["check", "--no-lock", join(examples, "deno", "main.ts")]);
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
  });

  it("writes three fenced parts across renewals and releases at scope exit", async () => {
    const { done } = runJsonLines(DENO, [
      "run",
      "--no-lock",
      "--allow-net=127.0.0.1",
      `--allow-read=${repo}`,
      join(examples, "deno", "main.ts"),
      service.grantor.url,
      "rebuilder-1",
    ]);
    const { code, events, stderr } = await done;
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      events.map((event) => event.event),
      ["acquired", "wrote", "wrote", "wrote", "status-inside", "status-after"],
    );
    const wrote = pick(events, "wrote");
    assert.deepEqual(wrote.map((e) => [e.part, e.accepted, e.renewals]), [[1, true, 1], [2, true, 2], [3, true, 3]]);
    assert.equal(pick(events, "status-inside")[0].holder, "rebuilder-1");
    assert.equal(pick(events, "status-after")[0].holder, null);
  });
});

describe("examples/deno-kv: a lease from Deno KV, with no grantor server", () => {
  let dir;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "tenure-example-deno-kv-"));
  });

  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("type-checks against the package's declarations, with Deno's own Deno.Kv", async () => {
    const { done } = runJsonLines(DENO, ["check", "--no-lock", "--unstable-kv", join(examples, "deno-kv", "main.ts")]);
    const result = await done;
    assert.equal(result.code, 0, result.stderr);
  });

  it("runs in one of two instances at a time sharing a database, and hands over on release", async () => {
    const db = join(dir, "leases.sqlite3");
    // As the README runs it, the database in a directory of its own: only it is writable.
    const run = (id, onEvent) =>
      runJsonLines(
        DENO,
        ["run", "--no-lock", "--unstable-kv", `--allow-read=${repo},${dir}`, `--allow-write=${dir}`, join(examples, "deno-kv", "main.ts"), db, id],
        { onEvent },
      );
    // The second starts once the first holds the lease, so it waits for it.
    let second;
    const first = run("worker-1", (event) => {
      if (event.event === "acquired") second = run("worker-2");
    });
    const a = await first.done;
    assert.ok(second, `the first instance acquired the lease: ${a.stderr}`);
    const b = await second.done;
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    for (const run of [a, b]) {
      assert.deepEqual(
        run.events.map((e) => e.event),
        ["campaigning", "acquired", "step", "step", "step", "done", "released"],
      );
      assert.deepEqual(pick(run.events, "step").map((e) => e.accepted), [true, true, true]);
      assert.ok(pick(run.events, "done")[0].renewals >= 1, "1.2 s of steps on a 2 s lease renews");
    }
    const [tokenA, tokenB] = [a, b].map((run) => pick(run.events, "acquired")[0].token);
    assert.ok(tokenB > tokenA, `${tokenB} > ${tokenA}`);
    // Had the two overlapped, the first's writes after the second's first would have been
    // refused (a smaller token); all were accepted. After the second, nobody holds it.
    assert.equal(pick(b.events, "released")[0].holderNow, null);
  });
});

describe("examples in Chromium, built by Vite and served by the grantor", () => {
  let browser;
  const outDirs = [];

  async function buildExample(name) {
    const outDir = mkdtempSync(join(tmpdir(), `tenure-example-${name}-`));
    outDirs.push(outDir);
    await build({ root: join(examples, name), logLevel: "error", build: { outDir, emptyOutDir: true } });
    return outDir;
  }

  before(async () => {
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("vite-app: one tab refreshes, and hands over to the other when it steps down", async () => {
    const outDir = await buildExample("vite-app");
    // The WebAssembly travels inside the script: Vite emits nothing else.
    assert.deepEqual(readdirSync(join(outDir, "assets")).filter((name) => !name.endsWith(".js")), []);
    const service = await grantorProcess(["--static-dir", outDir]);
    try {
      const errors = [];
      const open = async () => {
        const page = await browser.newPage();
        page.on("pageerror", (error) => errors.push(String(error)));
        await page.goto(`${service.grantor.url}/index.html`);
        return page;
      };
      const state = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.example)));
      const first = await open();
      await first.waitForFunction(() => window.example?.writes.length >= 2, null, { timeout: 15_000 });
      const second = await open();
      await second.waitForFunction(
        () => document.getElementById("status").textContent.startsWith("following tab-"),
        null,
        { timeout: 10_000 },
      );
      const holding = await state(first);
      assert.equal(holding.status, "refreshing");
      assert.equal((await state(second)).status, "campaigning");
      assert.equal(await second.textContent("#status"), `following ${holding.holderId}`);

      await first.click("#step-down");
      await second.waitForFunction(() => window.example.writes.length >= 1, null, { timeout: 10_000 });
      const took = await state(second);
      const left = await state(first);
      assert.equal(left.status, "stepped down");
      assert.equal(took.status, "refreshing");
      assert.ok(took.token > holding.token);
      assert.ok([...left.writes, ...took.writes].every((write) => write.accepted), JSON.stringify({ left, took }));
      assert.equal((await service.client.fencedRead("dashboard/refresh")).payload.by, took.holderId);
      assert.deepEqual(errors, []);
      await first.close();
      await second.close();
    } finally {
      await service.stop();
    }
  });

  it("dedicated-worker: the worker holds the lease, uploads three fenced batches and releases", async () => {
    const outDir = await buildExample("dedicated-worker");
    const assets = readdirSync(join(outDir, "assets"));
    assert.ok(assets.some((name) => /^sync-worker-.*\.js$/.test(name)), `worker emitted: ${assets}`);
    const service = await grantorProcess(["--static-dir", outDir]);
    try {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await page.goto(`${service.grantor.url}/index.html`);
      await page.waitForFunction(
        () => window.example.messages.some((m) => m.type === "released" || m.type === "error"),
        null,
        { timeout: 20_000 },
      );
      const messages = await page.evaluate(() => window.example.messages);
      assert.deepEqual(
        messages.map((m) => m.type),
        ["ready", "acquired", "uploaded", "uploaded", "uploaded", "stats", "released"],
        JSON.stringify(messages),
      );
      const { token } = messages[1];
      assert.deepEqual(
        messages.filter((m) => m.type === "uploaded").map((m) => [m.batch, m.token, m.accepted]),
        [[1, token, true], [2, token, true], [3, token, true]],
      );
      assert.ok(messages[5].renewals >= 3);
      assert.equal(messages[6].holder, null, "released before reporting");
      assert.equal(await page.locator("#log li").count(), 7);
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await service.stop();
    }
  });
});

/** The package as Wrangler bundles it for workerd: the `workerd` entry, the wasm compiled. */
function packageModules() {
  const pkgDir = join(repo, "pkg");
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const modules = [];
  for (const file of manifest.files) {
    if (file.endsWith(".js")) {
      modules.push({ type: "ESModule", path: `tenure/${file}`, contents: readFileSync(join(pkgDir, file), "utf8") });
    } else if (file.endsWith(".wasm")) {
      modules.push({ type: "CompiledWasm", path: `tenure/${file}`, contents: readFileSync(join(pkgDir, file)) });
    }
  }
  const entry = workerdEntry().replace(/^\.\//, "");
  modules.push({ type: "ESModule", path: "tenure", contents: `export * from "./tenure/${entry}";\n` });
  return modules;
}

describe("examples/cloudflare-worker in workerd", () => {
  let service;
  let mf;

  before(async () => {
    service = await grantorProcess();
    const source = join(examples, "cloudflare-worker", "src", "index.js");
    mf = new Miniflare({
      modules: [{ type: "ESModule", path: "index.js", contents: readFileSync(source, "utf8") }, ...packageModules()],
      modulesRoot: "/",
      compatibilityDate: "2025-07-01",
      bindings: { GRANTOR_URL: service.grantor.url },
    });
    await mf.ready;
  });

  after(async () => {
    await mf?.dispose();
    await service?.stop();
  });

  it("GET /report: one request holds the lease, writes fenced after a renewal, and releases", async () => {
    const [one, two] = await Promise.all([
      mf.dispatchFetch("http://worker.test/report").then((r) => r.json()),
      mf.dispatchFetch("http://worker.test/report").then((r) => r.json()),
    ]);
    const [won, lost] = one.acquired ? [one, two] : [two, one];
    assert.equal(won.acquired, true, JSON.stringify({ one, two }));
    assert.equal(won.accepted, true);
    assert.ok(won.renewals >= 1);
    assert.deepEqual(lost, { acquired: false, heldBy: won.holderId });
    assert.equal((await service.client.status("reports/edge")).holder, null, "released");
    assert.deepEqual((await service.client.fencedRead("reports/edge")).payload, { rows: 1200, by: won.holderId });

    const again = await (await mf.dispatchFetch("http://worker.test/report")).json();
    assert.ok(again.acquired && again.token > won.token);
  });

  it("POST /drain and the cron trigger complete every queued item exactly once", async () => {
    const images = ["a.png", "b.png", "c.png", "d.png", "e.png"];
    const { items } = await service.client.enqueue("thumbnails", images.map((image) => ({ payload: { image } })));
    const counts = await (await mf.dispatchFetch("http://worker.test/drain", { method: "POST" })).json();
    assert.deepEqual(counts, { claimed: 5, completed: 5, failed: 0, lost: 0 });
    for (const [index, { itemId }] of items.entries()) {
      const record = await service.client.queueItem("thumbnails", itemId);
      assert.equal(record.state, "done");
      assert.equal(record.result.thumbnail, images[index].replace(".png", ".thumb.png"));
      assert.equal(record.completedToken, record.claimToken);
    }

    await service.client.enqueue("thumbnails", [{ payload: { image: "f.png" } }, { payload: { image: "g.png" } }]);
    const worker = await mf.getWorker();
    await worker.scheduled({ cron: "*/5 * * * *" });
    const deadline = performance.now() + 10_000;
    while ((await service.client.queueStats("thumbnails")).done < 7 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await service.client.queueStats("thumbnails"), {
      queue: "thumbnails",
      pending: 0,
      claimed: 0,
      done: 7,
      dead: 0,
    });
    assert.equal((await (await mf.dispatchFetch("http://worker.test/nothing")).text()), "not found");
  });
});

describe("examples/cloudflare-durable-object in workerd", () => {
  const dir = join(examples, "cloudflare-durable-object");
  const apiKey = "example-key-0123456789";
  let mf;
  let base;

  before(async () => {
    // The binding and class as wrangler.toml declares them, on the backend its migration names.
    const toml = readFileSync(join(dir, "wrangler.toml"), "utf8");
    const binding = /\[\[durable_objects\.bindings\]\]\s*name = "(\w+)"\s*class_name = "(\w+)"/.exec(toml);
    assert.ok(binding, "wrangler.toml binds a Durable Object class");
    const [, name, className] = binding;
    assert.match(toml, new RegExp(`new_sqlite_classes = \\["${className}"\\]`));
    mf = await startWorkers({
      fixtureDir: join(dir, "src"),
      port: 0,
      host: "127.0.0.1",
      workers: [
        {
          name: "example",
          entry: "index.js",
          durableObjects: { [name]: { className, useSQLite: true } },
          bindings: { GRANTOR_API_KEY: apiKey },
        },
      ],
    });
    base = String(await mf.ready);
  });

  after(async () => {
    await mf?.dispose();
  });

  const report = () => mf.dispatchFetch("http://worker.test/report", { method: "POST" }).then((r) => r.json());
  const overHttp = () => new HttpGrantor({ baseUrl: new URL("/grantor", base).href, apiKey });

  it("POST /report: one request holds the lease through the binding, writes fenced after a renewal, and releases", async () => {
    const [one, two] = await Promise.all([report(), report()]);
    const [won, lost] = one.acquired ? [one, two] : [two, one];
    assert.equal(won.acquired, true, JSON.stringify({ one, two }));
    assert.equal(won.accepted, true);
    assert.ok(won.renewals >= 1);
    assert.deepEqual(lost, { acquired: false, heldBy: won.holderId });
    // The same object over HTTP: released, and the report written with the holder's token.
    const grantor = overHttp();
    assert.equal((await grantor.status("reports/daily")).holder, null, "released");
    assert.deepEqual(await grantor.fencedRead("reports/daily"), {
      payload: { rows: 1200, by: won.holderId },
      lastToken: won.token,
    });
    const again = await report();
    assert.ok(again.acquired && again.token > won.token);
  });

  it("/grantor/v1/...: only with the API key, and a holder outside Cloudflare shares the leases with /report", async () => {
    const statusWith = (headers) =>
      fetch(new URL("/grantor/v1/status", base), { method: "POST", headers, body: JSON.stringify({ resource: "reports/daily" }) });
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: apiKey }]) {
      const reply = await statusWith(headers);
      assert.equal(reply.status, 401, JSON.stringify(headers));
      assert.equal((await reply.json()).code, "unauthorized");
    }
    assert.equal((await statusWith({ authorization: `Bearer ${apiKey}` })).status, 200);

    const holder = new LeaseHolder(overHttp(), { resource: "reports/daily", holderId: "node", leaseMs: 5_000, marginMs: 1_000 });
    const held = await holder.acquire();
    assert.equal(held.acquired, true);
    try {
      assert.deepEqual(await report(), { acquired: false, heldBy: "node" });
    } finally {
      await holder.release();
    }
    const after = await report();
    assert.ok(after.acquired && after.token > held.token, JSON.stringify(after));
  });
});
