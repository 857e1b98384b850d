// The demo: every tab is a LeaseHolder campaigning for the lease "demo" on the reference grantor,
// and a WorkClaimer working the queue "demo-jobs". The tabs' lease and claim traffic goes
// through the fault proxy that scripts/demo runs in front of the grantor (the page's port + 1,
// its control API on + 2), so "Block grantor" cuts every tab off for real. What the page shows
// about the grantor itself (status, queue counts, metrics) and the admin's revoke go straight to
// the grantor that serves the page: an observer outside the failing network.

import { HttpGrantor, LeaseHolder, WorkClaimer, isLeaseError } from "./pkg/index.js";
import { Timeline, tokenColour } from "./timeline.js";
import { $, numberParam } from "./page.js";

const RESOURCE = "demo";
const QUEUE = "demo-jobs";
const ENQUEUE_COUNT = 10;
const WRITE_EVERY_MS = 1_000;
const STATUS_EVERY_MS = 500;
const PRESENCE_EVERY_MS = 1_000;
const PEER_GONE_MS = 5_000;
const RTT_SAMPLES = 50;


function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

function clock(wallMs = Date.now()) {
  const d = new Date(wallMs);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

function describe(error) {
  if (isLeaseError(error)) return `${error.code}${error.kind ? ` (${error.kind})` : ""}: ${error.message}`;
  return String(error?.message ?? error);
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The fault proxy's control API (see tests/fault-proxy/README.md). */
class FaultControl {
  #base;

  constructor(base) {
    this.#base = base;
  }

  async #call(method, body) {
    const response = await fetch(`${this.#base}/fault`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = await response.json();
    if (!response.ok) throw new Error(`fault proxy: ${reply.error ?? response.status}`);
    return reply.fault;
  }

  /** The fault in force, or null. */
  current() {
    return this.#call("GET");
  }

  /** Refuses every connection to the grantor until `heal()`. */
  block() {
    return this.#call("PUT", { kind: "block" });
  }

  heal() {
    return this.#call("DELETE");
  }
}

/** Looks for the fault proxy where scripts/demo puts it; null when the page runs without it. */
async function findFaultProxy() {
  const port = Number(location.port || (location.protocol === "https:" ? 443 : 80));
  const control = new FaultControl(`http://${location.hostname}:${port + 2}`);
  try {
    await control.current();
    return { control, grantorUrl: `${location.protocol}//${location.hostname}:${port + 1}` };
  } catch {
    return null;
  }
}

/** Shows why the page cannot run, and returns the error to throw. */
function fatal(error) {
  $("fatal").hidden = false;
  $("fatal").textContent = `This page cannot run: ${describe(error)}`;
  return error;
}

function readConfig(params) {
  const leaseMs = numberParam(params, "leaseMs", 6_000);
  return {
    leaseMs,
    marginMs: numberParam(params, "marginMs", 1_500),
    freezeMs: numberParam(params, "freezeMs", 2 * leaseMs),
    // A tab that lost or gave up the lease waits this long before it campaigns again, so that
    // the handover visibly goes to another tab.
    rejoinMs: numberParam(params, "rejoinMs", leaseMs),
  };
}

let config;
try {
  config = readConfig(new URLSearchParams(location.search));
} catch (error) {
  throw fatal(error);
}
const { leaseMs: LEASE_MS, marginMs: MARGIN_MS, freezeMs: FREEZE_MS, rejoinMs: REJOIN_MS } = config;

const tabId = `tab-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36).slice(0, 4)}`;
const faultProxy = await findFaultProxy();
// The grantor as the tabs' network reaches it, and as an observer or admin outside it does.
const network = new HttpGrantor({ baseUrl: faultProxy?.grantorUrl ?? location.origin });
const direct = new HttpGrantor({ baseUrl: location.origin });

// ---------------------------------------------------------------------------------------------
// What this tab knows about itself.

const me = {
  /** "standby" (campaigning), "holder", "lost" or "released". */
  role: "standby",
  /** Shown as the role while the main thread is about to stop for a freeze. */
  frozen: false,
  token: null,
  reason: null,
  rejoinAt: null,
  /** The granted duration from the last grant or renewal reply; the request until one came. */
  grantedMs: LEASE_MS,
  everGranted: false,
  /** `performance.now()` at which the current (or just lost) lease runs out, from its last reading. */
  deadlineMono: null,
  /** Wall time at which the current hold stops being safe, from its last reading. */
  safeUntilWall: null,
  /** Shows the rest of a lease surrendered at the margin, which the grantor may still count. */
  marginTail: false,
  writes: { accepted: 0, rejected: 0, failed: 0 },
};
const renewRtts = [];
const events = [];

function log(text) {
  events.unshift({ at: Date.now(), text });
  events.length = Math.min(events.length, 8);
  const list = $("events");
  list.replaceChildren(
    ...events.map((event) => {
      const item = document.createElement("li");
      const time = document.createElement("time");
      time.textContent = clock(event.at);
      item.append(time, ` ${event.text}`);
      return item;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Sharing observations between tabs.

const channel = new BroadcastChannel("tenure-demo");
const timeline = new Timeline($("timeline"), { self: tabId });
const peers = new Map();
const claims = new Map();

function broadcast(message) {
  channel.postMessage({ ...message, from: tabId });
}

function putSegment(segment, share = true) {
  timeline.put(segment);
  if (share) broadcast({ type: "segment", segment });
}

function putClaim(record, share = true) {
  const known = claims.get(record.itemId);
  // An item can be claimed more than once (a claim lost during a freeze); the completion wins.
  if (known === undefined || known.status !== "completed" || record.status === "completed") {
    claims.set(record.itemId, record);
  }
  if (share) broadcast({ type: "claim", record });
  renderClaims();
}

channel.onmessage = ({ data }) => {
  switch (data.type) {
    case "hello":
      broadcast({
        type: "sync",
        segments: timeline.recent(),
        claims: [...claims.values()],
      });
      break;
    case "sync":
      for (const segment of data.segments) timeline.put(segment);
      for (const record of data.claims) putClaim(record, false);
      break;
    case "segment":
      timeline.put(data.segment);
      break;
    case "claim":
      putClaim(data.record, false);
      break;
    case "presence":
      peers.set(data.from, { role: data.role, token: data.token, seenAt: Date.now() });
      break;
    case "bye": {
      peers.delete(data.from);
      const open = timeline.open(data.from);
      if (open !== null) timeline.put({ ...open, end: Date.now(), reason: "tab closed" });
      break;
    }
    case "released":
      log(`${data.from} released token ${data.token}`);
      // A standby that waits for the old grant's expiry would idle for up to a lease: ask now.
      if (me.role === "standby") campaignAbort?.abort(POKE);
      break;
    case "revoked":
      log(`${data.from} revoked token ${data.token ?? "?"} (admin)`);
      break;
    case "fault":
      showFault(data.fault);
      break;
    default:
      break;
  }
};

// ---------------------------------------------------------------------------------------------
// The lease.

let grantSentAt = 0;
const leaseGrantor = {
  async grant(args) {
    grantSentAt = performance.now();
    const reply = await network.grant(args);
    if (reply?.granted === true && Number.isFinite(reply.durationMs)) {
      me.grantedMs = reply.durationMs;
      me.everGranted = true;
    }
    return reply;
  },
  async renew(args) {
    const sentAt = performance.now();
    const reply = await network.renew(args);
    renewRtts.push(performance.now() - sentAt);
    if (renewRtts.length > RTT_SAMPLES) renewRtts.shift();
    if (reply?.renewed === true && Number.isFinite(reply.durationMs)) me.grantedMs = reply.durationMs;
    return reply;
  },
  async release(args) {
    const reply = await network.release(args);
    if (reply?.released === true) {
      // Only now is the grant free at the grantor: tell the standbys to ask at once.
      broadcast({ type: "released", token: args.token });
    }
    return reply;
  },
};

let holder;
try {
  holder = new LeaseHolder(leaseGrantor, {
    resource: RESOURCE,
    holderId: tabId,
    leaseMs: LEASE_MS,
    marginMs: MARGIN_MS,
  });
} catch (error) {
  throw fatal(error);
}
holder.onLeaseLost = (reason) => onLost(reason);

const POKE = Object.freeze({ poke: "another tab released the lease" });
let campaignAbort = null;

async function campaign() {
  me.role = "standby";
  me.rejoinAt = null;
  for (;;) {
    const abort = new AbortController();
    campaignAbort = abort;
    let outcome;
    try {
      outcome = await holder.acquire({ wait: true, signal: abort.signal });
    } catch (error) {
      if (abort.signal.reason === POKE) continue;
      log(`campaign failed: ${describe(error)}`);
      await sleep(1_000);
      continue;
    } finally {
      campaignAbort = null;
    }
    if (outcome.acquired) {
      onAcquired(outcome.token);
      return;
    }
    log(`campaign ended without the lease (${outcome.reason}); asking again`);
    await sleep(1_000);
  }
}

function onAcquired(token) {
  const waitedMs = performance.now() - grantSentAt;
  me.role = "holder";
  me.token = token;
  me.reason = null;
  me.marginTail = false;
  me.safeUntilWall = null;
  putSegment({ row: tabId, token, start: Date.now(), end: null, reason: null });
  log(`acquired token ${token} (grant answered in ${waitedMs.toFixed(0)} ms)`);
  startWriting(token);
}

function endSegment(reason, { frozenUntil } = {}) {
  const open = timeline.open(tabId);
  if (open === null) return;
  const now = Date.now();
  // The hold ended when it stopped being safe, even if this tab only learned of it later.
  const end = me.safeUntilWall !== null && me.safeUntilWall < now ? me.safeUntilWall : now;
  putSegment({ ...open, end, reason, frozenUntil: frozenUntil ?? null });
}

function onLost(reason) {
  endSegment(reason, { frozenUntil: frozenAt === null ? null : Date.now() });
  me.role = "lost";
  me.reason = reason;
  // Surrendered at the margin on this tab's clock: the grantor may still count the rest.
  me.marginTail = reason === "margin_exhausted";
  if (!me.marginTail) me.deadlineMono = null;
  log(`lost token ${me.token}: ${reason}`);
  rejoinLater();
}

function rejoinLater() {
  me.rejoinAt = performance.now() + REJOIN_MS;
  setTimeout(campaign, REJOIN_MS);
}

async function release() {
  if (me.role !== "holder") return;
  const token = me.token;
  endSegment("released");
  me.role = "released";
  me.deadlineMono = null;
  me.marginTail = false;
  await holder.release();
  log(`released token ${token}`);
  rejoinLater();
}

// The work the lease protects: a fenced write every second, made only while safely held.
function startWriting(token) {
  let n = 0;
  const tick = async () => {
    if (me.role !== "holder" || me.token !== token) return;
    if (holder.lease.isSafelyHeld()) {
      try {
        const reply = await network.fencedWrite(RESOURCE, { by: tabId, n: ++n }, token);
        me.writes[reply.accepted ? "accepted" : "rejected"] += 1;
      } catch {
        me.writes.failed += 1;
      }
    }
    setTimeout(tick, WRITE_EVERY_MS);
  };
  tick();
}

// ---------------------------------------------------------------------------------------------
// Freeze: the main thread stuck, as in a long GC pause, a debugger or a suspended laptop.

let frozenAt = null;

async function freeze() {
  const heldToken = me.role === "holder" ? me.token : null;
  const report = $("freeze-report");
  report.hidden = false;
  report.dataset.outcome = "frozen";
  report.textContent = `Frozen for ${(FREEZE_MS / 1000).toFixed(1)} s: this tab runs nothing, not even its renewals…`;
  $("freeze").disabled = true;
  me.frozen = true;
  // Let the message paint before the thread stops.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  frozenAt = performance.now();
  while (performance.now() - frozenAt < FREEZE_MS) {
    // Busy: no timer, reply or event of this tab runs until the loop ends.
  }
  const frozenMs = performance.now() - frozenAt;
  me.frozen = false;
  $("freeze").disabled = false;

  if (heldToken === null) {
    frozenAt = null;
    report.dataset.outcome = "not-holding";
    report.textContent =
      `Woke after ${(frozenMs / 1000).toFixed(1)} s. This tab held no lease, so there was nothing to fence.`;
    log(`woke after a ${(frozenMs / 1000).toFixed(1)} s freeze`);
    return;
  }
  // A process that wakes and carries on without checking would do this: write with its old token.
  const staleWrite = network.fencedWrite(RESOURCE, { by: tabId, unchecked: true }, heldToken);
  // The check it should have made. Asking delivers the loss at once (onLeaseLost runs now).
  const safe = holder.lease.isSafelyHeld();
  frozenAt = null;
  let written;
  try {
    written = await staleWrite;
  } catch (error) {
    written = { error };
  }
  const checked = safe
    ? "holder.lease.isSafelyHeld() is still true"
    : `holder.lease.isSafelyHeld() is false at once (lost: ${me.reason})`;
  let outcome;
  let fenced;
  if (written.error !== undefined) {
    outcome = "unsent";
    fenced = `the unchecked write with token ${heldToken} did not reach the grantor (${describe(written.error)})`;
  } else if (written.accepted) {
    outcome = "accepted";
    fenced = safe
      ? `the write with token ${heldToken} was accepted, rightly: the freeze was shorter than the lease`
      : `the unchecked write with token ${heldToken} was accepted: no newer holder had written ` +
        "(open another tab to see it fenced)";
  } else {
    outcome = "rejected";
    fenced =
      `the unchecked write with stale token ${heldToken} was rejected: ` +
      `the grantor had already accepted token ${written.lastToken}`;
  }
  report.dataset.outcome = outcome;
  report.textContent =
    `Woke after ${(frozenMs / 1000).toFixed(1)} s holding token ${heldToken}. ${checked}; ${fenced}.`;
  log(`woke after ${(frozenMs / 1000).toFixed(1)} s; stale write ${outcome}`);
}

// ---------------------------------------------------------------------------------------------
// Block and revoke.

let fault = null;
// Bumped when this tab starts and ends a change, so a poll that overlapped it cannot undo it.
let faultChanges = 0;

function showFault(next) {
  fault = next;
  const blocked = fault?.kind === "block";
  $("banner").hidden = !blocked;
  const button = $("block");
  button.setAttribute("aria-pressed", String(blocked));
  button.textContent = blocked ? "Unblock grantor" : "Block grantor";
}

async function toggleBlock() {
  if (faultProxy === null) return;
  faultChanges += 1;
  try {
    const next = fault?.kind === "block" ? await faultProxy.control.heal() : await faultProxy.control.block();
    showFault(next);
    broadcast({ type: "fault", fault: next });
    log(next === null ? "grantor unblocked" : "grantor blocked: every tab's connections are refused");
  } catch (error) {
    log(`fault proxy: ${describe(error)}`);
  } finally {
    faultChanges += 1;
  }
}

async function revoke() {
  const before = grantorView?.token ?? null;
  try {
    const { revoked } = await direct.revoke(RESOURCE);
    log(revoked ? `revoked token ${before ?? "?"} (admin)` : "nothing to revoke");
    if (revoked) broadcast({ type: "revoked", token: before });
  } catch (error) {
    log(`revoke refused: ${describe(error)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The grantor's own view, polled directly.

let grantorView = null;

async function pollStatus() {
  try {
    const status = await direct.status(RESOURCE);
    grantorView = status;
    const now = Date.now();
    const open = timeline.open("grantor");
    if (open !== null && open.token !== status.token) putSegment({ ...open, end: now, reason: null });
    if (status.token !== null && (open === null || open.token !== status.token)) {
      putSegment({ row: "grantor", token: status.token, holder: status.holder, start: now, end: null, reason: null });
    }
  } catch (error) {
    grantorView = { error };
  }
}

async function pollQueue() {
  try {
    const stats = await direct.queueStats(QUEUE);
    for (const state of ["pending", "claimed", "done", "dead"]) $(`q-${state}`).textContent = String(stats[state]);
  } catch {
    // shown as the last known counts
  }
}

const METRICS = [
  ["grants_total", "grants"],
  ["grant_denials_total", "denials"],
  ["renewals_total", "renewals"],
  ["expiries_total", "expiries"],
  ["revocations_total", "revocations"],
  ['fenced_writes_total{outcome="rejected"}', "fenced rejections"],
  ["queue_completions_total", "jobs completed"],
  ["leases_held", "leases held"],
];

async function pollMetrics() {
  try {
    const response = await fetch("/metrics");
    if (!response.ok) return;
    const values = new Map();
    for (const line of (await response.text()).split("\n")) {
      const match = /^tenure_grantor_(\S+) (\S+)$/.exec(line);
      if (match) values.set(match[1], Number(match[2]));
    }
    $("metrics").replaceChildren(
      ...METRICS.map(([name, label]) => {
        const item = document.createElement("li");
        const value = document.createElement("strong");
        value.textContent = String(values.get(name) ?? "–");
        item.append(value, ` ${label}`);
        return item;
      }),
    );
  } catch {
    // the grantor is restarting; try again next time
  }
}

function every(ms, work) {
  const run = async () => {
    await work();
    setTimeout(run, ms);
  };
  run();
}

// ---------------------------------------------------------------------------------------------
// Job claims.

const claimer = new WorkClaimer(network, {
  queue: QUEUE,
  workerId: tabId,
  claimMs: LEASE_MS,
  marginMs: MARGIN_MS,
});

function startClaims() {
  claimer
    .process(
      async (item, { signal }) => {
        // The "work". It never throws: a claim that ran out is refused locally by complete().
        await sleep(300 + Math.random() * 500, signal);
        return { by: tabId };
      },
      {
        concurrency: 1,
        idleDelayMs: 200,
        idleDelayMaxMs: 1_000,
        onSettled: ({ status, item, token }) => {
          putClaim({ itemId: item.id, by: tabId, token, status, at: Date.now() });
          if (status !== "completed") log(`claim ${token} on item #${item.id} ${status}`);
        },
      },
    )
    .catch((error) => log(`claims stopped: ${describe(error)}`));
}

async function enqueue() {
  const items = Array.from({ length: ENQUEUE_COUNT }, (_, i) => ({ payload: { job: i + 1, from: tabId } }));
  try {
    const reply = await direct.enqueue(QUEUE, items);
    log(`enqueued ${reply.items.length} jobs`);
  } catch (error) {
    log(`enqueue failed: ${describe(error)}`);
  }
}

function renderClaims() {
  const rows = [...claims.values()].sort((a, b) => b.at - a.at).slice(0, 12);
  const mine = [...claims.values()].filter((r) => r.by === tabId && r.status === "completed").length;
  $("claims-mine").textContent = String(mine);
  $("claims-list").replaceChildren(
    ...rows.map((record) => {
      const row = document.createElement("tr");
      row.dataset.item = String(record.itemId);
      row.dataset.by = record.by;
      row.dataset.token = String(record.token);
      row.dataset.status = record.status;
      if (record.by === tabId) row.classList.add("self");
      const by = record.by === tabId ? `${record.by} (you)` : record.by;
      for (const text of [`#${record.itemId}`, by, String(record.token), record.status]) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Drawing.

/** Sets an element's text only when it changed, so idle frames cost no layout. */
function put(id, text) {
  const element = $(id);
  if (element.textContent !== text) element.textContent = text;
}

function putAttribute(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

function frame() {
  const now = performance.now();
  let remaining = 0;
  let zone = "none";
  if (me.role === "holder") {
    remaining = holder.lease.remainingMs();
    const safe = holder.lease.isSafelyHeld(); // may deliver a loss right here
    if (me.role === "holder") {
      me.deadlineMono = now + remaining;
      me.safeUntilWall = Date.now() + remaining - MARGIN_MS;
      zone = safe ? "safe" : "margin";
    }
  }
  if (me.role === "lost" && me.marginTail && me.deadlineMono !== null) {
    remaining = Math.max(0, me.deadlineMono - now);
    zone = remaining > 0 ? "margin" : "none";
  }

  const shown = me.frozen ? "frozen" : me.role;
  putAttribute(document.body, "data-role", shown);
  putAttribute($("role"), "data-role", shown);
  put("role", shown);
  // A standby shows no token; a tab that just lost or released its lease shows the one it had.
  const token = me.role === "standby" ? null : me.token;
  put("token", token === null ? "–" : String(token));
  putAttribute($("token"), "style", token === null ? "" : `color: ${tokenColour(token)}`);
  put("remaining", `${(remaining / 1000).toFixed(1)} s`);

  const fill = $("bar-fill");
  const share = Math.max(0, Math.min(1, remaining / me.grantedMs));
  fill.style.width = `${(share * 100).toFixed(2)}%`;
  putAttribute(fill, "data-zone", zone);
  fill.classList.toggle("amber", zone === "margin");
  putAttribute($("bar"), "aria-valuenow", String(Math.round(remaining / 100) * 100));
  putAttribute($("bar-margin"), "style", `width: ${Math.min(100, (MARGIN_MS / me.grantedMs) * 100)}%`);

  let detail;
  if (me.role === "holder") {
    detail = zone === "margin"
      ? "inside the margin: stopping"
      : `renewing every ${(holder.renewIntervalMs / 1000).toFixed(1)} s`;
  } else if (me.role === "lost" && zone === "margin") {
    detail = "surrendered at the margin; the grantor may still count the rest";
  } else if (me.role === "lost" || me.role === "released") {
    const left = Math.max(0, (me.rejoinAt ?? now) - now);
    const what = me.role === "lost" ? `lost (${me.reason})` : "released";
    detail = `${what}; campaigning again in ${(left / 1000).toFixed(1)} s`;
  } else {
    detail = grantorView?.holder ? `waiting: ${grantorView.holder} holds it` : "asking the grantor…";
  }
  put("bar-detail", detail);

  if (renewRtts.length > 0) {
    const sorted = [...renewRtts].sort((a, b) => a - b);
    put("rtt", `${renewRtts.at(-1).toFixed(1)} ms`);
    put(
      "rtt-detail",
      `p50 ${percentile(sorted, 50).toFixed(1)} · p95 ${percentile(sorted, 95).toFixed(1)} ms (last ${sorted.length})`,
    );
  }
  put("failures", String(holder.consecutiveFailures));
  put("granted", me.everGranted ? `${(me.grantedMs / 1000).toFixed(1)} s` : "–");
  const { accepted, rejected, failed } = me.writes;
  put("writes", `${accepted} accepted, ${rejected} rejected${failed > 0 ? `, ${failed} unsent` : ""}`);
  const release = $("release");
  if (release.disabled !== (me.role !== "holder")) release.disabled = me.role !== "holder";

  let status;
  if (grantorView === null) status = "asking…";
  else if (grantorView.error) status = `unreachable (${describe(grantorView.error)})`;
  else if (grantorView.holder === null) status = "nobody holds it";
  else {
    const left = (grantorView.expiresInMs / 1000).toFixed(1);
    status = `${grantorView.holder} holds token ${grantorView.token}, ${left} s left`;
  }
  put("grantor-status", status);

  requestAnimationFrame(frame);
}

function renderPeers() {
  const cutoff = Date.now() - PEER_GONE_MS;
  for (const [id, peer] of peers) if (peer.seenAt < cutoff) peers.delete(id);
  const entries = [[tabId, { role: me.role, token: me.token }], ...peers].map(([id, peer]) => ({
    role: peer.role,
    text: `${id === tabId ? `${id} (you)` : id}: ${peer.role}${peer.role === "holder" ? `, token ${peer.token}` : ""}`,
  }));
  const list = $("tabs");
  if (list.dataset.shown !== JSON.stringify(entries)) {
    list.dataset.shown = JSON.stringify(entries);
    list.replaceChildren(
      ...entries.map(({ role, text }) => {
        const item = document.createElement("li");
        item.dataset.role = role;
        item.textContent = text;
        return item;
      }),
    );
  }
  timeline.render([...peers.keys()]);
}

// ---------------------------------------------------------------------------------------------
// Start.

$("tab-id").textContent = tabId;
document.title = `tenure demo · ${tabId}`;
$("lease-config").textContent =
  `leaseMs ${LEASE_MS}, marginMs ${MARGIN_MS}, renewed every ${(holder.renewIntervalMs / 1000).toFixed(1)} s`;
$("freeze").textContent = `Freeze ${(FREEZE_MS / 1000).toFixed(0)} s`;
if (faultProxy === null) {
  $("block").disabled = true;
  $("block").title = "Start the page with scripts/demo to put the fault proxy in front of the grantor";
  $("network-note").textContent = "No fault proxy found next to this page: the tabs talk to the grantor directly.";
} else {
  $("network-note").textContent = `Lease and claim traffic goes through the fault proxy at ${faultProxy.grantorUrl}.`;
}

$("release").addEventListener("click", () => release());
$("freeze").addEventListener("click", () => freeze());
$("block").addEventListener("click", () => toggleBlock());
$("revoke").addEventListener("click", () => revoke());
$("enqueue").addEventListener("click", () => enqueue());
addEventListener("pagehide", () => {
  broadcast({ type: "bye" });
  if (me.role === "holder") holder.release();
});

broadcast({ type: "hello" });
log(`campaigning for the lease "${RESOURCE}"`);
every(PRESENCE_EVERY_MS, () =>
  broadcast({ type: "presence", role: me.role, token: me.role === "holder" ? me.token : null }),
);
every(STATUS_EVERY_MS, pollStatus);
every(1_000, pollQueue);
every(2_000, pollMetrics);
if (faultProxy !== null) {
  every(1_000, async () => {
    const asked = faultChanges;
    const current = await faultProxy.control.current().catch(() => fault);
    if (asked === faultChanges) showFault(current);
  });
}
setInterval(renderPeers, 250);
requestAnimationFrame(frame);
campaign();
startClaims();
