// What a benchmarked server spends per operation, measured from outside it: CPU time from
// /proc/<pid>/stat, and sync calls (fsync, fdatasync, sync_file_range, msync) counted by strace.
// Used by bench/table.mjs (around `target/release/loadgen` runs) and bench/bullmq.mjs (around its
// counted window). Linux only. Figures, not pass/fail.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, normally 100). */
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
export const STRACE_BIN = process.env.TENURE_STRACE_BIN ?? "/usr/bin/strace";
/** The calls counted as syncs: what makes data durable, or asks the kernel to write it back. */
export const SYNC_CALLS = ["fsync", "fdatasync", "sync_file_range", "msync"];

/**
 * `/proc/<pid>/stat` parsed: `{comm, ppid, ticks}` (ticks: utime + stime, this process's own
 * threads, not its reaped children), or null once the process is gone. `comm` may hold spaces
 * and parentheses, so the fields are counted from the last `)`.
 */
export function procStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  const comm = text.slice(text.indexOf("(") + 1, close);
  // After ")": state(3) ppid(4) … utime(14) stime(15), so index 0 here is field 3.
  const fields = text.slice(close + 2).split(" ");
  return { comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** Every process now running: pid → `procStat`. One pass over /proc. */
function allProcesses() {
  const table = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (stat !== null) table.set(Number(name), stat);
  }
  return table;
}

/** `root` and every process descended from it (children found through the ppid field of every /proc/PID/stat). */
export function processTree(root) {
  const table = allProcesses();
  const children = new Map();
  for (const [pid, { ppid }] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const tree = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop();
    if (!table.has(pid)) continue;
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The one child of this process whose name (`comm`, at most 15 characters) is `comm`. */
export function childPid(comm) {
  const found = [];
  for (const [pid, stat] of allProcesses()) if (stat.ppid === process.pid && stat.comm === comm) found.push(pid);
  if (found.length !== 1) throw new Error(`expected one child process named ${comm}, found ${found.length}`);
  return found[0];
}

/**
 * The postmaster of the PostgreSQL server listening on `port` (bench's own throwaway cluster):
 * the `postgres` process started with `-p <port>`, checked against the first line of its data
 * directory's postmaster.pid.
 */
export function postmasterPid(port) {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    if (!argv[0].endsWith("/postgres")) continue;
    const p = argv.indexOf("-p");
    const d = argv.indexOf("-D");
    if (p === -1 || d === -1 || argv[p + 1] !== String(port)) continue;
    const recorded = Number(readFileSync(`${argv[d + 1]}/postmaster.pid`, "utf8").split("\n")[0]);
    if (recorded !== Number(name)) throw new Error(`postmaster.pid names ${recorded}, not ${name}`);
    return recorded;
  }
  throw new Error(`no postmaster listening on port ${port}`);
}

/**
 * A server to measure: `pids()` lists its processes at the moment of asking (one pid, or a
 * process tree). `cpuSnapshot(server)` reads them all; `cpuUsBetween(before, after)` is the CPU
 * time, in µs, the server used between two snapshots: the difference for every process in both,
 * plus the whole CPU time of processes started in between. Processes that exited in between
 * (a PostgreSQL backend whose connection closed, an autovacuum worker) are lost: what they used
 * is not counted.
 */
export const singleProcess = (pid) => ({ pids: () => [pid] });
export const processTreeOf = (root) => ({ pids: () => processTree(root) });

export function cpuSnapshot(server) {
  const snapshot = new Map();
  for (const pid of server.pids()) {
    const stat = procStat(pid);
    if (stat !== null) snapshot.set(pid, stat.ticks);
  }
  return snapshot;
}

export function cpuUsBetween(before, after) {
  let ticks = 0;
  for (const [pid, end] of after) ticks += end - (before.get(pid) ?? 0);
  return (ticks * 1e6) / CLK_TCK;
}

/**
 * Attaches strace (`-f`: every thread, and children started later) to every pid of `pids`,
 * logging each sync call with its wall-clock time (`-ttt`); resolves, once strace reports every
 * process attached, `{stop(fromMs, toMs)}`: `stop` detaches and resolves `{calls: {fsync,
 * fdatasync, …}, total}`, the calls made between the two times (ms since the epoch, as
 * `performance.timeOrigin + performance.now()`), so that a count can cover exactly a load
 * generator's counted window. Tracing stops each traced thread at every system call, so the
 * servers run slower while traced: use a run of its own, not a throughput run.
 */
export async function traceSyncs(pids) {
  const dir = mkdtempSync(join(tmpdir(), "tenure-strace-"));
  const out = join(dir, "syncs.txt");
  const args = ["-f", "-ttt", "-o", out, "-e", `trace=${SYNC_CALLS.join(",")}`, ...pids.flatMap((pid) => ["-p", String(pid)])];
  const strace = spawn(STRACE_BIN, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  strace.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => {
    strace.once("error", (error) => resolve({ error }));
    strace.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const detach = async () => {
    if (strace.exitCode === null && strace.signalCode === null) strace.kill("SIGINT");
    await exited;
  };
  try {
    const deadline = Date.now() + 10_000;
    while ((stderr.match(/ attached/g) ?? []).length < pids.length) {
      if (strace.exitCode !== null || strace.signalCode !== null) throw new Error(`strace exited before attaching:\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`strace did not attach within 10 s:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } catch (error) {
    await detach();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    async stop(fromMs, toMs) {
      await detach();
      try {
        const calls = Object.fromEntries(SYNC_CALLS.map((name) => [name, 0]));
        // "PID 1764639000.123456 fdatasync(7) = 0", or "... fdatasync(7 <unfinished ...>" when
        // another thread logs in between (its "<... fdatasync resumed>" line is not a new call).
        for (const line of readFileSync(out, "utf8").split("\n")) {
          const match = /^(?:\d+\s+)?(\d+\.\d+)\s+(\w+)\(/.exec(line);
          if (match === null || !(match[2] in calls)) continue;
          const at = Number(match[1]) * 1000;
          if (at >= fromMs && at <= toMs) calls[match[2]] += 1;
        }
        const total = SYNC_CALLS.reduce((sum, name) => sum + calls[name], 0);
        return { calls, total };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Now, in ms since the epoch, to µs: comparable with strace's `-ttt` times. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** µs shown to a sensible precision: 0.42, 4.2, 42. */
export function formatUs(us) {
  if (!Number.isFinite(us)) return "?";
  return us < 1 ? us.toFixed(2) : us < 100 ? us.toFixed(1) : us.toFixed(0);
}

/** Syncs per operation, with the counts behind it: "0.98 (6,970 fdatasync + 12 fsync in 7,114 ops)". */
export function formatSyncs({ calls, total }, ops) {
  const ratio = total / ops;
  const shown = ratio > 0 && ratio < 0.01 ? ratio.toPrecision(2) : ratio.toFixed(2);
  const made = SYNC_CALLS.filter((name) => calls[name] > 0).map((name) => `${calls[name].toLocaleString("en-US")} ${name}`);
  return `${shown} (${made.length === 0 ? "no sync calls" : made.join(" + ")} in ${ops.toLocaleString("en-US")} ops)`;
}

const sleepUntil = (atMs) => new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - epochMs())));

/**
 * Runs `target/release/loadgen` (`bin`) with `args` to the end and resolves its JSON figures
 * (`ops`, `opsPerSecond`, `p50Ms`, `generatorCpuUsPerOp`, …) plus, measured over its counted
 * window only (it prints "N s warm-up, M s counted" once its connections are set up; the window
 * starts that warm-up later), never over setup or warm-up:
 * - `serverCpuUsPerOp`: for each of `servers` (see `singleProcess`, `processTreeOf`), µs of its
 *   CPU time per counted operation;
 * - with `trace` (a list of pids), `syncs`: `{calls, total}`, the sync calls those processes made
 *   in the window (`traceSyncs`, attached during the warm-up: give it one of a second or two).
 */
export async function measureLoadgen(bin, args, { servers = [], trace = null, cwd } = {}) {
  const child = spawn(bin, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let windowed = null;
  const countedWindow = async (warmupMs, countedMs) => {
    const startsAt = epochMs() + warmupMs;
    const tracer = trace === null ? null : await traceSyncs(trace);
    try {
      if (epochMs() > startsAt) throw new Error(`strace attached after loadgen's warm-up ended: give it a longer --warmup-seconds`);
      await sleepUntil(startsAt);
      const before = servers.map(cpuSnapshot);
      await sleepUntil(startsAt + countedMs);
      const after = servers.map(cpuSnapshot);
      return { cpuUs: servers.map((_, i) => cpuUsBetween(before[i], after[i])), tracer, startsAt, endsAt: startsAt + countedMs };
    } catch (error) {
      await tracer?.stop(0, 0);
      throw error;
    }
  };
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    if (windowed === null) {
      const match = /([\d.]+) s warm-up, ([\d.]+) s counted/.exec(stderr);
      if (match !== null) {
        windowed = countedWindow(Number(match[1]) * 1000, Number(match[2]) * 1000);
        // Awaited below once loadgen exits; never an unhandled rejection meanwhile.
        windowed.catch(() => {});
      }
    }
  });
  const { code, signal, error } = await new Promise((resolve) => {
    child.once("error", (error) => resolve({ error }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const window = await windowed?.catch((failure) => ({ failure }));
  if (window?.tracer) window.syncs = await window.tracer.stop(window.startsAt, window.endsAt);
  const command = `${bin} ${args.join(" ")}`;
  if (error !== undefined) throw new Error(`${command}: ${error.message}`);
  if (code !== 0) throw new Error(`${command}: exited with ${code ?? signal}\n${stderr}`);
  if (window === undefined) throw new Error(`${command}: printed no counted window:\n${stderr}`);
  if (window.failure !== undefined) throw window.failure;
  const figures = JSON.parse(stdout.trim().split("\n").at(-1));
  figures.serverCpuUsPerOp = window.cpuUs.map((us) => us / figures.ops);
  if (window.syncs !== undefined) figures.syncs = window.syncs;
  return figures;
}
