// Benchmark: the cost of `isSafelyHeld()` against the cost of the two clock reads it must make,
// and against the design's pure-JS Lease; plus the package's size. Figures, not pass/fail.

import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Lease } from "tenure";

// The design's Lease, verbatim in behaviour: the baseline a user would otherwise write.
class DesignLease {
  constructor(durationMs, safetyMarginMs) {
    this.durationMs = durationMs;
    this.safetyMarginMs = safetyMarginMs;
    this.acquiredAt = null;
    this.token = null;
  }
  grant(token) {
    this.acquiredAt = performance.now();
    this.token = token;
  }
  remainingMs() {
    if (this.acquiredAt === null) return 0;
    const elapsed = performance.now() - this.acquiredAt;
    return Math.max(0, this.durationMs - elapsed);
  }
  isSafelyHeld() {
    return this.remainingMs() > this.safetyMarginMs;
  }
}

const ITERATIONS = 2_000_000;
const ROUNDS = 7;

/** Median ns/op over ROUNDS rounds of ITERATIONS calls; `sink` defeats dead-code elimination. */
function measure(fn) {
  let sink = 0;
  const samples = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i += 1) if (fn()) sink += 1;
    samples.push(Number(process.hrtime.bigint() - start) / ITERATIONS);
  }
  samples.sort((a, b) => a - b);
  return { nsPerOp: samples[ROUNDS >> 1], sink };
}

const lease = new Lease(60_000, 1_000);
lease.grant(1);
const design = new DesignLease(60_000, 1_000);
design.grant(1);

// Interleave the three so drift on a noisy machine hits all of them alike; warm up first.
for (let i = 0; i < 3; i += 1) {
  measure(() => lease.isSafelyHeld());
  measure(() => design.isSafelyHeld());
  measure(() => performance.now() + Date.now() > 0);
}
const clocks = measure(() => performance.now() + Date.now() > 0).nsPerOp;
const ours = measure(() => lease.isSafelyHeld()).nsPerOp;
const theirs = measure(() => design.isSafelyHeld()).nsPerOp;

const pkg = (path) => readFileSync(fileURLToPath(new URL(`../pkg/${path}`, import.meta.url)));
const gz = (buffer) => gzipSync(buffer, { level: 9 }).length;
const wasm = pkg("glue/tenure_bg.wasm");
// What `import { Lease, LeaseHolder } from "tenure"` needs, and everything the package ships.
const coreJs = Buffer.concat(["glue/tenure.js", "api.js", "errors.js", "index.js"].map(pkg));
const shipped = JSON.parse(pkg("package.json")).files.filter((f) => f.endsWith(".js"));
const allJs = Buffer.concat(shipped.map(pkg));

const row = (name, value, note = "") => console.log(`| ${name} | ${value} | ${note} |`);
console.log(`node ${process.version}, ${ITERATIONS} calls x ${ROUNDS} rounds, median\n`);
console.log("| figure | value | note |");
console.log("| --- | --- | --- |");
row("performance.now() + Date.now()", `${clocks.toFixed(1)} ns/op`, "baseline: the reads a safe check needs");
row("tenure Lease.isSafelyHeld()", `${ours.toFixed(1)} ns/op`, "both clocks, wasm core");
row("design's JS Lease.isSafelyHeld()", `${theirs.toFixed(1)} ns/op`, "monotonic clock only (unsafe in sleep)");
row("tenure / clock reads", `${(ours / clocks).toFixed(2)}x`, "goal <= 1.15");
row("tenure / design's JS Lease", `${(ours / theirs).toFixed(2)}x`, "");
row("wasm (gzip -9)", `${(gz(wasm) / 1024).toFixed(1)} KiB`, `${(wasm.length / 1024).toFixed(1)} KiB raw`);
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
row("JS glue + Lease/LeaseHolder API (gzip -9)", kib(gz(coreJs)), `${kib(coreJs.length)} raw`);
row("wasm + that JS (gzip -9)", kib(gz(wasm) + gz(coreJs)), "goal <= 20 KB");
row("all shipped JS (gzip -9)", kib(gz(allJs)), `${shipped.length} files, ${kib(allJs.length)} raw`);
row("wasm + all shipped JS (gzip -9)", kib(gz(wasm) + gz(allJs)), "every feature");
