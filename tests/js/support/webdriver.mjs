// Firefox ESR (geckodriver) and WebKitGTK (WebKitWebDriver driving MiniBrowser under Xvfb),
// driven over plain W3C WebDriver HTTP: playwright-core drives neither stock browser, and plain
// HTTP keeps every command visible (no driver manager that might download a browser).
//
// A `Browser` is one WebDriver session; its pages are top-level windows of that session (one
// profile, so one origin's Web Locks, BroadcastChannel and IndexedDB). Each page is its own
// window, not a tab: "switch to window" selects a tab, which would hide the tab it replaces, and
// every command must switch to its page first. Pages answer the subset of Playwright's `Page`
// that `support/tabs.mjs` uses (`evaluate`, `waitForFunction`, `close`, `isClosed`, `on`), so the
// TabLease helpers work unchanged.
//
// Every process started here (driver, browser and its children, Xvfb) is in a process group of
// its own, killed on `close()` and, failing that, when the test process exits.

import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync, readdirSync } from "node:fs";

export const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
export const GECKODRIVER = process.env.GECKODRIVER ?? findGeckodriver();
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? "/usr/bin/WebKitWebDriver";
export const MINIBROWSER = process.env.MINIBROWSER ?? findMiniBrowser();

/** The engines these helpers drive, by the name the tests use. */
export const ENGINES = ["firefox", "webkit"];

/** What each engine's user agent says (and Chromium's does not), so no test passes in the wrong one. */
export const USER_AGENTS = {
  firefox: /^(?!.*Chrome).*\bGecko\/\d+ Firefox\/\d+/,
  webkit: /^(?!.*(Chrome|Firefox)).*AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) Version\/[\d.]+ Safari\//,
};

function findGeckodriver() {
  const onPath = spawnSync("sh", ["-c", "command -v geckodriver"], { encoding: "utf8" }).stdout.trim();
  return onPath || `${process.env.CARGO_HOME ?? `${process.env.HOME}/.cargo`}/bin/geckodriver`;
}

/** MiniBrowser is not on PATH: Debian installs it beside the WebKitGTK library. */
function findMiniBrowser() {
  const listed = spawnSync("dpkg", ["-L", "libwebkit2gtk-4.1-0"], { encoding: "utf8" }).stdout ?? "";
  return listed.split("\n").find((line) => line.endsWith("/MiniBrowser")) ?? "";
}

// Process groups still running; killed synchronously if the test process exits with them alive,
// or is interrupted or terminated (then the signal is raised again, to end the process as it would
// have ended).
const groups = new Set();
const killAll = () => {
  for (const pid of groups) killGroup(pid, "SIGKILL");
};
process.once("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAll();
    process.kill(process.pid, signal);
  });
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Spawns `command` as the leader of a new process group; `stop()` kills the whole group. */
function spawnGroup(command, args, options = {}) {
  const child = spawn(command, args, { ...options, detached: true });
  groups.add(child.pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  return {
    child,
    exited,
    stderr: () => stderr,
    async stop() {
      killGroup(child.pid, "SIGTERM");
      const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), 3_000);
      if (child.exitCode === null && child.signalCode === null) await exited;
      clearTimeout(timer);
      // The leader may exit before its children: whatever is left of the group goes too.
      killGroup(child.pid, "SIGKILL");
      groups.delete(child.pid);
    },
  };
}

/** A port the kernel just handed out on 127.0.0.1 (for drivers that want one on the command line). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts Xvfb on a display number it picks itself (`-displayfd`); resolves `{ display, stop }`. */
async function startXvfb() {
  const xvfb = spawnGroup("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  const display = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start: ${xvfb.stderr()}`)), 15_000);
    let text = "";
    xvfb.child.stdio[3].on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) {
        clearTimeout(timer);
        resolve(`:${text.trim()}`);
      }
    });
    xvfb.child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited with ${code}: ${xvfb.stderr()}`));
    });
  });
  return { display, stop: () => xvfb.stop() };
}

/** The command line and capabilities of each engine's driver. */
function driverFor(engine, port, display) {
  if (engine === "firefox") {
    return {
      command: GECKODRIVER,
      // The BiDi port too: its default (9222) would collide with a second Firefox.
      args: ["--port", String(port), "--websocket-port", "0", "--binary", FIREFOX],
      env: {},
      capabilities: {
        browserName: "firefox",
        "moz:firefoxOptions": {
          binary: FIREFOX,
          args: ["-headless"],
          prefs: {
            // A fresh profile opens no first-run or update pages that could take focus.
            "browser.shell.checkDefaultBrowser": false,
            "browser.startup.homepage_override.mstone": "ignore",
            "app.update.enabled": false,
            "datareporting.policy.dataSubmissionEnabled": false,
            "toolkit.telemetry.reportingpolicy.firstRun": false,
          },
        },
      },
    };
  }
  if (engine === "webkit") {
    if (!MINIBROWSER) throw new Error("MiniBrowser not found: install libwebkit2gtk-4.1-0 (scripts/setup)");
    return {
      command: WEBKIT_DRIVER,
      args: [`--port=${port}`],
      env: { DISPLAY: display },
      capabilities: {
        browserName: "MiniBrowser",
        "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] },
      },
    };
  }
  throw new Error(`unknown engine ${engine}`);
}

/** One WebDriver error reply, as an `Error` with the WebDriver error code. */
class WebDriverError extends Error {
  constructor(command, value) {
    super(`${command}: ${value?.error ?? "error"}: ${value?.message ?? JSON.stringify(value)}`);
    this.name = "WebDriverError";
    this.code = value?.error ?? "unknown error";
  }
}

/**
 * Starts `engine` ("firefox" or "webkit") with a fresh profile and one WebDriver session.
 * Resolves a `Browser`: `engine`, `userAgent`, `newPage(url)`, `contentProcesses()`,
 * `pauseContent(pids?)` and `resumeContent()`, `close()`.
 */
export async function startBrowser(engine) {
  const xvfb = engine === "webkit" ? await startXvfb() : null;
  let driver = null;
  try {
    const port = await freePort();
    const spec = driverFor(engine, port, xvfb?.display);
    driver = spawnGroup(spec.command, spec.args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...spec.env },
    });
    const base = `http://127.0.0.1:${port}`;
    await waitForDriver(base, driver);
    const created = await call(base, "POST", "/session", { capabilities: { alwaysMatch: spec.capabilities } }, 60_000);
    const browser = new Browser(engine, base, created.sessionId, driver, xvfb);
    await browser.init();
    return browser;
  } catch (error) {
    await driver?.stop();
    await xvfb?.stop();
    throw error;
  }
}

async function waitForDriver(base, driver) {
  const start = performance.now();
  for (;;) {
    if (driver.child.exitCode !== null) throw new Error(`driver exited: ${driver.stderr()}`);
    try {
      const status = await call(base, "GET", "/status", undefined, 2_000);
      if (status.ready !== false) return;
    } catch {
      // not listening yet
    }
    if (performance.now() - start > 20_000) throw new Error(`driver did not start: ${driver.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One WebDriver command; resolves its `value`, or rejects with a `WebDriverError`. */
async function call(base, method, path, body, timeoutMs = 30_000) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json; charset=utf-8" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WebDriverError(`${method} ${path}`, { error: `HTTP ${response.status}`, message: text.slice(0, 500) });
  }
  if (!response.ok || json.value?.error) throw new WebDriverError(`${method} ${path}`, json.value);
  return json.value;
}

// Runs a function's source in the page with its argument; resolves or rejects through WebDriver's
// asynchronous script callback, carrying thrown errors back as `{ thrown }`.
const ASYNC_WRAPPER = `
  const done = arguments[arguments.length - 1];
  const fn = eval("(" + arguments[0] + ")");
  Promise.resolve()
    .then(() => fn(arguments[1]))
    .then((value) => done({ value: value === undefined ? null : value }),
          (error) => done({ thrown: String(error && error.stack || error) }));
`;

class Browser {
  constructor(engine, base, sessionId, driver, xvfb) {
    this.engine = engine;
    this.base = base;
    this.sessionId = sessionId;
    this.driver = driver;
    this.xvfb = xvfb;
    // WebDriver has one current window per session: switching and the command after it must not
    // interleave with another page's, so commands run one at a time.
    this.queue = Promise.resolve();
    this.current = null;
    this.closed = false;
  }

  async init() {
    // The window the session starts with stays open (a session ends with its last window), unused.
    this.blank = await this.command("GET", "/window");
    this.current = this.blank;
    // Generous: a page may be in a long busy loop, and the commands after it wait for it.
    await this.command("POST", "/timeouts", { script: 120_000, pageLoad: 60_000 });
    this.userAgent = await this.command("POST", "/execute/sync", { script: "return navigator.userAgent", args: [] });
  }

  command(method, path, body, timeoutMs) {
    return call(this.base, method, `/session/${this.sessionId}${path}`, body, timeoutMs);
  }

  /** Runs `task()` after every command queued before it. */
  serialized(task) {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Makes `handle` the current window (only when it is not already). */
  async switchTo(handle) {
    if (this.current === handle) return;
    await this.command("POST", "/window", { handle });
    this.current = handle;
  }

  /**
   * Opens `url` in a new top-level window; resolves its `Page` once the document has loaded.
   * The page's `newProcesses` are the content processes that appeared while it opened: in WebKit,
   * which gives each window a web process of its own, the page's process.
   */
  newPage(url) {
    return this.serialized(async () => {
      const before = new Set(this.contentProcesses());
      const { handle } = await this.command("POST", "/window/new", { type: "window" });
      await this.switchTo(handle);
      await this.command("POST", "/url", { url });
      const page = new Page(this, handle);
      page.newProcesses = this.contentProcesses().filter((pid) => !before.has(pid));
      return page;
    });
  }

  /**
   * The process ids of this browser's web content processes (where pages run): Firefox's
   * `-contentproc` processes of type `tab`, WebKit's `WebKitWebProcess`.
   */
  contentProcesses() {
    const children = new Map();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
        if (!children.has(parent)) children.set(parent, []);
        children.get(parent).push({ pid: Number(entry), cmdline });
      } catch {
        // exited meanwhile
      }
    }
    const found = [];
    const visit = (pid) => {
      for (const child of children.get(pid) ?? []) {
        const [program = ""] = child.cmdline;
        // Firefox's fork server rewrites its children's command lines into one string.
        const line = child.cmdline.join(" ");
        const firefoxContent = /-contentproc .*-isForBrowser.* tab$/.test(line);
        const webkitContent = program.endsWith("WebKitWebProcess");
        if (firefoxContent || webkitContent) found.push(child.pid);
        visit(child.pid);
      }
    };
    visit(this.driver.child.pid);
    return found;
  }

  /**
   * Stops the web content processes `pids` (SIGSTOP; all of them by default): the pages in them,
   * their workers included, are paused as a whole, as a suspended laptop or a frozen tab would be.
   * No command may be sent to a paused page: it would wait for the process.
   */
  pauseContent(pids = this.contentProcesses()) {
    if (pids.length === 0) throw new Error(`no ${this.engine} content process found`);
    for (const pid of pids) process.kill(pid, "SIGSTOP");
    this.paused = pids;
    return pids;
  }

  /** Continues the processes `pauseContent()` stopped. */
  resumeContent() {
    for (const pid of this.paused ?? []) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // gone
      }
    }
    this.paused = null;
  }

  /** Ends the session and kills the driver, the browser and Xvfb, whatever state they are in. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    this.resumeContent();
    await this.command("DELETE", "", undefined, 10_000).catch(() => {});
    await this.driver.stop();
    await this.xvfb?.stop();
  }
}

/** One top-level window of a `Browser`, with the `Page` methods `support/tabs.mjs` uses. */
class Page {
  constructor(browser, handle) {
    this.browser = browser;
    this.handle = handle;
    this.closedAlready = false;
  }

  /** For `openTabs`: WebDriver reports no page errors as events; the fixtures keep their own. */
  on() {
    return this;
  }

  isClosed() {
    return this.closedAlready;
  }

  /** Runs `fn(arg)` in the page (its source, so it must be self-contained); resolves its result. */
  evaluate(fn, arg) {
    return this.browser.serialized(async () => {
      await this.browser.switchTo(this.handle);
      const reply = await this.browser.command(
        "POST",
        "/execute/async",
        { script: ASYNC_WRAPPER, args: [String(fn), arg ?? null] },
        130_000,
      );
      if (reply && "thrown" in reply) throw new Error(`in the page: ${reply.thrown}`);
      return reply?.value;
    });
  }

  /** Polls `fn(arg)` every `polling` ms until it is truthy, for at most `timeout` ms. */
  async waitForFunction(fn, arg, { timeout = 20_000, polling = 50 } = {}) {
    const start = performance.now();
    for (;;) {
      const value = await this.evaluate(fn, arg).catch(() => false);
      if (value) return value;
      if (performance.now() - start > timeout) throw new Error(`timed out after ${timeout} ms waiting for ${fn}`);
      await new Promise((resolve) => setTimeout(resolve, polling));
    }
  }

  /** Reloads the page (WebDriver's Refresh waits for the new document to load). */
  reload() {
    return this.browser.serialized(async () => {
      await this.browser.switchTo(this.handle);
      await this.browser.command("POST", "/refresh", {});
    });
  }

  /** Minimizes this page's window (its document becomes hidden). */
  minimize() {
    return this.browser.serialized(async () => {
      await this.browser.switchTo(this.handle);
      return this.browser.command("POST", "/window/minimize", {});
    });
  }

  /** Restores a minimized window: WebDriver's Set Window Rect restores the window first. */
  restore() {
    return this.browser.serialized(async () => {
      await this.browser.switchTo(this.handle);
      return this.browser.command("POST", "/window/rect", { width: 1000, height: 700 });
    });
  }

  /** Closes this window. */
  close() {
    if (this.closedAlready) return Promise.resolve();
    this.closedAlready = true;
    return this.browser.serialized(async () => {
      await this.browser.switchTo(this.handle);
      await this.browser.command("DELETE", "/window");
      // Commands such as New Window need a current window: the session's first one is never closed.
      this.browser.current = null;
      await this.browser.switchTo(this.browser.blank);
    });
  }
}
