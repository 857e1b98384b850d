// Benchmark: the reference grantor under slow-HTTP attack. A release grantor on a fresh SQLite
// file; `loadgen paced-renew` keeps 50 holders renewing every 1,000 ms (a renewal answered more
// than 1,000 ms late counts as a lost lease) while `slowhttptest` holds 2,000 connections open
// against the same grantor, one mode after another, each with its own paced run:
//
// - slow headers (`-H`, Slowloris): POST /v1/renew whose headers never finish;
// - slow body (`-B`, R-U-Dead-Yet): POST /v1/renew whose body trickles in;
// - slow read (`-X`): GET /metrics (a reply large enough to be read slowly; a refused POST's is
//   not) read a few bytes at a time through a tiny receive window.
//
// A run with no attack comes first, as the baseline. Each attack opens its connections (500 per
// second) before the paced run starts, and lasts past its end. Renewal latency p50/p99/max and
// leases lost come from loadgen's JSON. Figures, not pass/fail.
//
// `measureSlowHttp(options)` is used by bench/table.mjs; run alone
// (`node bench/slow-http.mjs [--seconds 20] [--connections 2000]`) it prints one JSON line per run.
// Needs `cargo build --release -p tenure-grantor -p tenure-loadgen`.

import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { argument } from "./args.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
// The grantor as deployed, unless TENURE_GRANTOR_BIN names another; set before the helper that
// reads it is loaded.
process.env.TENURE_GRANTOR_BIN ??= join(repo, "target", "release", "tenure-grantor");
const { startGrantor } = await import("../tests/js/support/grantor-process.mjs");
export const LOADGEN_BIN = process.env.TENURE_LOADGEN_BIN ?? join(repo, "target", "release", "loadgen");
const SLOWHTTPTEST_BIN = process.env.TENURE_SLOWHTTPTEST_BIN ?? "slowhttptest";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The attacks, in the order they run: slowhttptest's mode flag and what it is asked for. */
export const ATTACKS = [
  { mode: "-H", name: "slow headers (Slowloris)", path: "/v1/renew", args: ["-t", "POST", "-i", "5", "-x", "24"] },
  { mode: "-B", name: "slow body (R-U-Dead-Yet)", path: "/v1/renew", args: ["-t", "POST", "-i", "5", "-s", "8192", "-x", "10"] },
  { mode: "-X", name: "slow read", path: "/metrics", args: ["-k", "3", "-n", "1", "-w", "1", "-y", "64", "-z", "5"] },
];

/**
 * Runs `command args` to the end; resolves its stdout, rejects with its stderr if it fails. With
 * a raised file-descriptor limit: thousands of connections need thousands of descriptors.
 */
function runWide(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", 'ulimit -n "$(ulimit -Hn)"; exec "$@"', "bash", command, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${stderr}`));
    });
  });
}

/** Starts `slowhttptest` against `url`; resolves when it has finished, with what it printed last. */
function startAttack(attack, url, { connections, rate, seconds }) {
  const args = [
    attack.mode,
    "-c", String(connections),
    "-r", String(rate),
    "-l", String(seconds),
    "-p", "3",
    "-u", `${url}${attack.path}`,
    ...attack.args,
  ];
  return runWide(SLOWHTTPTEST_BIN, args).then((colored) => {
    const out = colored.replace(/\x1b\[[0-9;]*m/g, "");
    // Its own probe's last verdict: whether a fresh request still got an answer in 3 s.
    const verdicts = [...out.matchAll(/service available:\s+(\w+)/gi)].map((m) => m[1]);
    const connected = [...out.matchAll(/connected:\s+(\d+)/gi)].map((m) => Number(m[1]));
    return { connections, probe: verdicts.at(-1) ?? "unknown", connectedMax: Math.max(0, ...connected) };
  });
}

/** One `loadgen paced-renew` run against `url`; resolves its JSON. */
async function pacedRenew(url, { holders, seconds }) {
  const out = await runWide(LOADGEN_BIN, [
    "paced-renew",
    "--url", url,
    "--holders", String(holders),
    "--interval-ms", "1000",
    "--margin-ms", "1000",
    "--duration-ms", "10000",
    "--seconds", String(seconds),
  ]);
  return JSON.parse(out.trim().split("\n").at(-1));
}

/**
 * The baseline and one run per attack, all on one grantor: resolves `[{run, attack?, ...loadgen's
 * paced-renew JSON}]` (or `{run, attack?, error}` for a paced run that failed), `attack` being slowhttptest's own view (`probe`: whether its fresh
 * request was answered at the end; `connectedMax`: the most connections its status reports, a few
 * seconds apart, saw open).
 */
export async function measureSlowHttp({ seconds = 20, connections = 2000, rate = 500, holders = 50 } = {}) {
  const grantor = await startGrantor();
  const results = [];
  try {
    // A paced run that cannot finish (loadgen stops at a connection the server closed, say) is
    // reported as `{run, error}` and the next run goes on.
    const paced = () => pacedRenew(grantor.url, { holders, seconds }).catch((error) => ({ error: error.message.trim() }));
    results.push({ run: "no attack", ...(await paced()) });
    for (const attack of ATTACKS) {
      const rampSeconds = Math.ceil(connections / rate) + 1;
      const attacking = startAttack(attack, grantor.url, { connections, rate, seconds: rampSeconds + seconds + 3 });
      await sleep(rampSeconds * 1000);
      const figures = await paced();
      // Waited for either way, so that one attack never overlaps the next.
      const seen = await attacking.catch((error) => ({ connections, probe: "unknown", connectedMax: 0, error: error.message }));
      results.push({ run: attack.name, ...figures, attack: seen });
    }
  } finally {
    await grantor.stop();
  }
  return results;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = await measureSlowHttp({
    seconds: argument("seconds", 20),
    connections: argument("connections", 2000),
  });
  for (const run of runs) console.log(JSON.stringify(run));
}
