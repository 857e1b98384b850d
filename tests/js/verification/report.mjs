#!/usr/bin/env node
// Prints the figures the verification suites wrote (to $TENURE_FIGURES_DIR, by default
// <tmpdir>/tenure-figures) as Markdown tables: fault kind × runtime, then the design's tests
// (against the reference grantor, then the Durable Object grantor), the hidden tab and the
// grantor faults.
//
//   node --test --test-concurrency=1 tests/js/verification/ && node tests/js/verification/report.mjs

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIGURES_DIR, LEASE_MS, MARGIN_MS } from "../support/verification.mjs";

function load(suite) {
  const file = join(FIGURES_DIR, `${suite}.json`);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8"));
}

const ms = (value) => (value === null || value === undefined ? "–" : `${value > 0 ? "+" : ""}${value}`);
const verdict = (entry) => (entry === undefined ? "not run" : entry.pass ? "pass" : "**FAIL**");

function table(headers, rows) {
  const lines = [`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

const out = [];
const node = load("faults-node");
const chromium = load("faults-chromium");
if (node || chromium) {
  const names = [];
  for (const entry of [...(node?.entries ?? []), ...(chromium?.entries ?? [])]) {
    if (!names.includes(entry.fault)) names.push(entry.fault);
  }
  const find = (log, name) => log?.entries.find((e) => e.fault === name);
  out.push("### Fault kinds × runtime");
  out.push("");
  out.push(
    "Surrender latency: when the loss was delivered, minus the margin deadline (the send time of " +
      "the last renewal the holder accepted + leaseMs − marginMs), in ms; negative is early. " +
      "_timer_: a holder nobody queries (its own expiry timer); _query_: a holder its application " +
      "checks every few ms. _slack_: the grantor's expiry minus the queried holder's surrender. " +
      `Lease ${LEASE_MS} ms, margin ${MARGIN_MS} ms.`,
  );
  out.push("");
  out.push(
    table(
      ["fault", "loss", "Node", "timer", "query", "slack", "Chromium", "timer", "query", "slack"],
      names.map((name) => {
        const n = find(node, name);
        const c = find(chromium, name);
        return [
          name,
          (n ?? c)?.reason ?? "–",
          verdict(n),
          ms(n?.timerLatencyMs),
          ms(n?.queriedLatencyMs),
          n?.grantorSlackMs ?? "–",
          verdict(c),
          ms(c?.timerLatencyMs),
          ms(c?.queriedLatencyMs),
          c?.grantorSlackMs ?? "–",
        ];
      }),
    ),
  );
  out.push("");
  out.push(
    table(
      ["fault", "runtime", "replacement granted after fault on", "re-acquired after heal"],
      [...(node?.entries ?? []), ...(chromium?.entries ?? [])].map((e) => [
        e.fault,
        e.runtime,
        e.replacementAfterFaultMs ?? "–",
        e.recoveredAfterHealMs ?? "–",
      ]),
    ),
  );
  out.push("");
}

for (const [suite, title] of [
  ["design", "The design's verification tests"],
  ["design-durable-object", "The design's verification tests, Durable Object grantor in workerd (holders in Node)"],
]) {
  const design = load(suite);
  if (!design) continue;
  out.push(`### ${title}`);
  out.push("");
  out.push(
    table(
      ["test", "runtime", "result", "figures"],
      design.entries.map((e) => {
        const { test, runtime, pass, failure, ...rest } = e;
        const figures = Object.entries(rest)
          .map(([key, value]) => `${key} ${value}`)
          .join(", ");
        return [test, runtime, verdict(e), figures || "–"];
      }),
    ),
  );
  out.push("");
}

for (const [suite, title] of [
  ["hidden-tab", "Hidden tab, timers late (Chromium)"],
  ["grantor-faults", "Grantor faults (Node)"],
]) {
  const log = load(suite);
  if (!log) continue;
  out.push(`### ${title}`);
  out.push("");
  out.push(
    table(
      ["case", "result", "figures"],
      log.entries.map((e) => {
        const { case: name, pass, failure, ...rest } = e;
        const figures = Object.entries(rest)
          .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join("/") : value}`)
          .join(", ");
        return [name, verdict(e) + (failure ? `: ${failure.split("\n")[0]}` : ""), figures];
      }),
    ),
  );
  out.push("");
}

if (out.length === 0) {
  console.error(`no figures in ${FIGURES_DIR}: run node --test tests/js/verification/ first`);
  process.exit(1);
}
console.log(out.join("\n"));
