// Fuzzes the grantor adapters' reply parsing: each conversation of the checked-in corpus
// (fuzz/corpus/js/*.json, real replies recorded by record-corpus.mjs) is replayed to the same
// call through a fetch that answers from the recording, with one to three replies mutated by a
// seeded, JSON-aware mutator (values swapped for edge values and other types, keys dropped,
// duplicated or named __proto__, numbers turned to strings and back, bytes flipped, invalid
// UTF-8, truncation, other statuses). Every outcome must hold to these rules:
//
// - the call resolves or rejects; a rejection is a LeaseError (never a TypeError, RangeError or
//   anything else that escaped the parser);
// - a grant or renewal carries a token in 1..2^53-1 and a positive whole duration, and that token
//   is one the replies actually stated, in the form the server writes it (a create revision, a
//   counter, a LockIndex, leaseTransitions + 1, a token field) — so a malformed reply never
//   becomes a grant;
// - what an adapter resolves, handed to a LeaseHolder's core, is a lease only when the rules
//   above hold.
//
//   node fuzz/js/fuzz-adapters.mjs [--seconds N] [--seed N] [--adapter NAME]...

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  ConsulGrantor,
  EtcdGrantor,
  HttpGrantor,
  KubernetesLeaseGrantor,
  LeaseHolder,
  RedisHttpGrantor,
  isLeaseError,
} from "tenure";

const corpusDir = join(dirname(fileURLToPath(import.meta.url)), "..", "corpus", "js");
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** The conversations of the corpus, by adapter name. */
export function loadCorpus() {
  const corpus = new Map();
  for (const file of readdirSync(corpusDir).filter((f) => f.endsWith(".json")).sort()) {
    corpus.set(file.replace(/\.json$/, ""), JSON.parse(readFileSync(join(corpusDir, file), "utf8")));
  }
  return corpus;
}

/** SplitMix64 on BigInt-free 32-bit halves: deterministic for a seed, fast enough here. */
export class Random {
  #state;

  constructor(seed) {
    this.#state = (Number(seed) >>> 0) ^ 0x9e3779b9;
  }

  /** A 32-bit unsigned integer. */
  next() {
    // mulberry32
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in 0..n-1. */
  below(n) {
    return this.next() % n;
  }

  pick(list) {
    return list[this.below(list.length)];
  }
}

/** Values that sit at the edges of what a reply field may hold. */
const EDGE_VALUES = [
  null, true, false, 0, -0, 1, -1, 1.5, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e21, 1e300,
  -1e300, "", "0", "00", "01", "1", "-1", "+1", " 1", "1 ", "1e3", "0x10", "1.0", "9007199254740991", "9007199254740992",
  "9223372036854775807", "9223372036854775808", "-9223372036854775809", "NaN", "Infinity", "alpha", "1:alpha",
  "9007199254740993:alpha", "0:alpha", "01:alpha", "AAAA", "====", "YWxwaGE=", "YWxwaGE", "\u0000", "\ud800", [], {},
  [1], { ID: "1" }, "5s", "10s", "0s", "-5s", "1h", "1e309s", "99999999999h",
];

/** Raw text spliced in as it is: what no JSON encoder would produce. */
const RAW_WORDS = [
  "{", "}", "[", "]", ",", ":", '"', "\\", "null", "1e400", "-1e400", "9007199254740993", "NaN", "Infinity",
  '"__proto__":{"granted":true,"token":7},', '"__proto__":{"succeeded":true},', "\u2028", "\ufeff",
];

function mutateValue(random, value, depth = 0) {
  if (depth < 6 && value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length > 0 && random.below(4) !== 0) {
      const key = random.pick(keys);
      const copy = Array.isArray(value) ? [...value] : { ...value };
      copy[key] = mutateValue(random, value[key], depth + 1);
      return copy;
    }
    const copy = Array.isArray(value) ? [...value] : { ...value };
    switch (random.below(5)) {
      case 0:
        if (keys.length > 0) {
          if (Array.isArray(copy)) copy.splice(Number(random.pick(keys)), 1);
          else delete copy[random.pick(keys)];
        }
        return copy;
      case 1:
        if (Array.isArray(copy)) copy.push(random.pick(EDGE_VALUES));
        else Object.defineProperty(copy, "__proto__", { value: { granted: true, renewed: true, token: 7, succeeded: true }, enumerable: true });
        return copy;
      case 2:
        if (Array.isArray(copy) && copy.length > 0) copy.push(copy[0]);
        return copy;
      case 3:
        return random.pick(EDGE_VALUES);
      default:
        return Array.isArray(value) ? {} : [value];
    }
  }
  switch (random.below(4)) {
    case 0:
      return typeof value === "string" && /^-?[0-9]+$/.test(value) ? Number(value) : String(value);
    case 1:
      return typeof value === "number" ? value + random.pick([-1, 1, 2 ** 53]) : random.pick(EDGE_VALUES);
    default:
      return random.pick(EDGE_VALUES);
  }
}

const encoder = new TextEncoder();

/** A mutated reply body as bytes: structural (through JSON) or textual (raw). */
function mutateBody(random, body) {
  let text = body;
  if (random.below(3) !== 0) {
    try {
      text = JSON.stringify(mutateValue(random, JSON.parse(body)));
      if (random.below(4) === 0) {
        // A duplicate key: the same name again, later in the object, with another value.
        const match = /"([A-Za-z_]+)":/.exec(text.slice(random.below(Math.max(1, text.length))));
        const at = text.lastIndexOf("}");
        if (match !== null && at > 0) {
          text = `${text.slice(0, at)},"${match[1]}":${JSON.stringify(random.pick(EDGE_VALUES))}${text.slice(at)}`;
        }
      }
    } catch {
      text = body;
    }
  }
  let bytes = encoder.encode(text ?? "");
  const textual = random.below(3) === 0 ? 1 + random.below(3) : 0;
  for (let n = 0; n < textual; n += 1) {
    const at = random.below(bytes.length + 1);
    let insert = new Uint8Array(0);
    let cut = 0;
    switch (random.below(5)) {
      case 0:
        insert = encoder.encode(random.pick(RAW_WORDS));
        break;
      case 1:
        insert = Uint8Array.of(random.pick([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xf4]), random.below(256));
        break;
      case 2:
        cut = 1 + random.below(8);
        break;
      case 3:
        bytes = bytes.slice(0, at);
        continue;
      default:
        insert = Uint8Array.of(random.below(256));
        cut = 1;
    }
    const next = new Uint8Array(at + insert.length + Math.max(0, bytes.length - at - cut));
    next.set(bytes.subarray(0, at), 0);
    next.set(insert, at);
    next.set(bytes.subarray(Math.min(bytes.length, at + cut)), at + insert.length);
    bytes = next;
  }
  return bytes;
}

/** One to three exchanges of a conversation mutated: body, and sometimes the status. */
export function mutateConversation(random, conversation) {
  const exchanges = conversation.exchanges.map((e) => ({ ...e, bytes: encoder.encode(e.body) }));
  const n = 1 + random.below(Math.min(3, exchanges.length));
  for (let i = 0; i < n; i += 1) {
    const target = exchanges[random.below(exchanges.length)];
    if (random.below(8) === 0) target.status = random.pick([200, 201, 204, 302, 400, 404, 409, 429, 500, 503]);
    else target.bytes = mutateBody(random, new TextDecoder().decode(target.bytes));
  }
  return exchanges;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A fetch answering from `exchanges` (the setup's first, as recorded): each request gets the
 * first unused exchange with its method and path, else the next unused one, else a 503.
 */
function replayingFetch(setup, exchanges) {
  const queue = [...setup.map((e) => ({ ...e, bytes: encoder.encode(e.body) })), ...exchanges];
  return async (url, init) => {
    const { pathname, search } = new URL(url);
    const method = init?.method ?? "GET";
    let index = queue.findIndex((e) => e.method === method && e.path === pathname + search);
    if (index < 0) index = queue.findIndex((e) => e.method === method && e.path.split("?")[0] === pathname);
    if (index < 0) index = 0;
    const [exchange] = queue.splice(index, 1);
    if (exchange === undefined) return new Response("{}", { status: 503 });
    const status = exchange.status;
    return new Response(NULL_BODY_STATUSES.has(status) ? null : exchange.bytes, {
      status,
      headers: exchange.headers,
    });
  };
}

/** Builds the adapter a conversation was recorded with, on `fetch`. */
function adapterFor(name, fetch) {
  const baseUrl = "http://127.0.0.1:9";
  switch (name) {
    case "etcd":
      return new EtcdGrantor({ baseUrl, fetch });
    case "redis":
      return new RedisHttpGrantor({ baseUrl, token: "t", fetch });
    case "consul":
      return new ConsulGrantor({ baseUrl, token: "corpus-token", fetch });
    case "kubernetes":
      return new KubernetesLeaseGrantor({ baseUrl, token: "corpus-token", namespace: "fuzz", fetch });
    case "http":
      return new HttpGrantor({ baseUrl, fetch });
    default:
      throw new Error(`no adapter ${name}`);
  }
}

/** How a reply states token `t`, per adapter, in the form its server writes it. */
function tokenStatements(name, token, args) {
  switch (name) {
    case "etcd":
      return [`"create_revision":"${token}"`];
    case "redis":
      return [`"${token}:${args.holder}"`];
    case "consul":
      return [`"LockIndex":${token}`];
    case "kubernetes":
      return [`"leaseTransitions":${token - 1}`];
    default:
      return [`"token":${token}`];
  }
}

/**
 * Whether one of `texts` states `token` for this call. A Lease that omits `leaseTransitions` has
 * 0 there (the API leaves zero values out), so it states token 1 for the holder it names.
 */
function stated(name, token, args, texts) {
  const statements = tokenStatements(name, token, args);
  if (texts.some((t) => statements.some((s) => t.includes(s)))) return true;
  if (name !== "kubernetes" || token !== 1) return false;
  return texts.some((t) => {
    try {
      const spec = JSON.parse(t)?.spec;
      return spec?.holderIdentity === args.holder && spec.leaseTransitions === undefined;
    } catch {
      return false;
    }
  });
}

/** Why `outcome` of `call` breaks a rule, or null. */
function judge(name, conversation, exchanges, outcome) {
  const { call, args } = conversation;
  if (outcome.error !== undefined) {
    const error = outcome.error;
    if (!isLeaseError(error)) return `threw ${error?.name ?? typeof error}: ${error?.message ?? error}`;
    if (error.code !== "ERR_GRANTOR") return `threw ${error.code}`;
    return null;
  }
  const value = outcome.value;
  if (typeof value !== "object" || value === null) {
    // HttpGrantor passes the reply through for the core to judge; the adapters must not.
    return name === "http" ? null : `resolved ${typeof value}`;
  }
  const flag = call === "grant" ? "granted" : "renewed";
  if (value[flag] !== true) return null;
  const { token, durationMs } = value;
  if (name === "http") {
    // Judged by the core below; HttpGrantor itself only parses.
    return null;
  }
  if (!(Number.isSafeInteger(token) && token >= 1 && token <= MAX_SAFE)) return `${flag} with token ${token}`;
  if (!(Number.isSafeInteger(durationMs) && durationMs >= 1)) return `${flag} with durationMs ${durationMs}`;
  if (call === "renew" && token !== args.token) return `renewed with token ${token}, not ${args.token}`;
  if (call === "grant") {
    const texts = exchanges.map((e) => new TextDecoder().decode(e.bytes));
    if (!stated(name, token, args, texts)) {
      return `granted token ${token}, which no reply stated as ${tokenStatements(name, token, args)}`;
    }
  }
  return null;
}

/** Hands a grant `reply` to a LeaseHolder's core as the grantor's answer; why it is wrong, or null. */
async function judgeByCore(name, conversation, exchanges, reply) {
  const { args } = conversation;
  let lease = null;
  const grantor = { grant: () => reply, renew: () => new Promise(() => {}) };
  const holder = new LeaseHolder(grantor, {
    resource: "r",
    holderId: "h",
    leaseMs: 4_000,
    marginMs: 1_000,
    renewIntervalMs: 1_000,
  });
  try {
    const result = await holder.acquire();
    if (result.acquired) lease = holder.lease.token;
  } finally {
    holder.surrender("judged");
  }
  if (lease === null) return null;
  if (!(Number.isSafeInteger(lease) && lease >= 0)) return `the core holds token ${lease}`;
  const texts = exchanges.map((e) => new TextDecoder().decode(e.bytes));
  if (!stated(name, lease, args, texts)) return `the core holds token ${lease}, which no reply stated`;
  if (lease === 0 && name !== "http") return "the core holds token 0";
  return null;
}

/**
 * A deliberately broken HttpGrantor for the fuzzer's self-check: it reads a token given as a
 * string with parseInt, as a careless client might. The fuzzer must find that within its budget.
 */
function looseHttpGrantor(fetch) {
  const inner = new HttpGrantor({ baseUrl: "http://127.0.0.1:9", fetch });
  return {
    async grant(args) {
      const reply = await inner.grant(args);
      if (typeof reply?.token === "string") reply.token = Number.parseInt(reply.token, 10);
      return reply;
    },
    renew: (args) => inner.renew(args),
  };
}

/**
 * Runs the fuzzer. Options: `seed`, `seconds` or `iterations` (whichever ends first),
 * `adapters` (names; all by default), `mutant` ("loose-http-token": fuzz the broken client
 * above instead, to prove the rules catch it). Resolves `{execs, labels, failures}` per adapter.
 */
export async function fuzzAdapters({ seed = 1, seconds = 10, iterations = Infinity, adapters, mutant } = {}) {
  const corpus = loadCorpus();
  const names = adapters ?? [...corpus.keys()];
  const random = new Random(seed);
  const report = {};
  const deadline = performance.now() + seconds * 1000;
  const budget = Math.min(iterations, Number.MAX_SAFE_INTEGER);
  for (const name of names) {
    const conversations = corpus.get(name);
    if (conversations === undefined) throw new Error(`no corpus for ${name}`);
    const entry = { execs: 0, labels: {}, failures: [] };
    report[name] = entry;
    const adapterDeadline = performance.now() + (deadline - performance.now()) / (names.length - names.indexOf(name));
    while (entry.execs < budget / names.length && performance.now() < adapterDeadline && entry.failures.length < 5) {
      const conversation = random.pick(conversations);
      const exchanges = entry.execs < conversations.length
        ? conversations[entry.execs].exchanges.map((e) => ({ ...e, bytes: encoder.encode(e.body) }))
        : mutateConversation(random, conversation);
      const target = entry.execs < conversations.length ? conversations[entry.execs] : conversation;
      entry.execs += 1;
      const fetch = replayingFetch(target.setup ?? [], exchanges);
      const grantor = mutant === "loose-http-token" ? looseHttpGrantor(fetch) : adapterFor(name, fetch);
      let outcome;
      try {
        for (const [call, args] of target.before ?? []) await grantor[call](args).catch(() => {});
        outcome = { value: await grantor[target.call]({ ...target.args }) };
      } catch (error) {
        outcome = { error };
      }
      let problem = judge(name, target, exchanges, outcome);
      if (problem === null && outcome.error === undefined && target.call === "grant") {
        problem = await judgeByCore(name, target, exchanges, outcome.value);
      }
      const flag = outcome.value?.[target.call === "grant" ? "granted" : "renewed"];
      const label =
        outcome.error !== undefined
          ? `${target.call} ${outcome.error?.kind ?? outcome.error?.code ?? outcome.error?.name}`
          : `${target.call} ${flag === true || flag === false ? flag : "other"}`;
      entry.labels[label] = (entry.labels[label] ?? 0) + 1;
      if (problem !== null) {
        entry.failures.push({
          problem,
          call: target.call,
          replies: exchanges.map((e) => ({ path: e.path, status: e.status, body: new TextDecoder().decode(e.bytes) })),
        });
      }
    }
  }
  return report;
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "30" },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
      adapter: { type: "string", multiple: true },
    },
  });
  const report = await fuzzAdapters({ seed: Number(values.seed), seconds: Number(values.seconds), adapters: values.adapter });
  console.log(`adapter reply fuzzing: seed ${values.seed}, ${values.seconds} s`);
  console.log(`${"adapter".padEnd(12)} ${"execs".padStart(8)} ${"outcomes".padStart(9)}  failures`);
  let failed = false;
  for (const [name, entry] of Object.entries(report)) {
    console.log(`${name.padEnd(12)} ${String(entry.execs).padStart(8)} ${String(Object.keys(entry.labels).length).padStart(9)}  ${entry.failures.length}`);
    for (const failure of entry.failures) {
      failed = true;
      console.log(`  ${failure.call}: ${failure.problem}`);
      for (const reply of failure.replies) console.log(`    ${reply.status} ${reply.path} ${reply.body.slice(0, 300)}`);
    }
  }
  if (failed) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
