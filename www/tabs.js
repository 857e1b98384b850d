// The TabLease page: every tab is a TabLease named "demo-tabs", so one tab of this browser is
// active, with no server. The page only shows what the package decides: the role, the epoch, and
// what the fenced store accepts. The tabs tell each other who they are over BroadcastChannel,
// for the chart and the "active tab" figure; TabLease does not need that to elect.

import { FencedStore, TabLease, isLeaseError } from "./pkg/index.js";
import { Timeline, tokenColour } from "./timeline.js";
import { $, numberParam } from "./page.js";

const NAME = "demo-tabs";
const COUNTER_KEY = "counter";
const WRITE_EVERY_MS = 1_000;
const STORE_EVERY_MS = 500;
const PRESENCE_EVERY_MS = 1_000;
const PEER_GONE_MS = 5_000;
// How long a page that called window.close() may still run before it says the browser refused.
const CLOSE_REFUSED_AFTER_MS = 500;


function clock(wallMs = Date.now()) {
  const d = new Date(wallMs);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

function describe(error) {
  if (isLeaseError(error)) return `${error.code}: ${error.message}`;
  return String(error?.message ?? error);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Shows why the page cannot run, and returns the error to throw. */
function fatal(error) {
  $("fatal").hidden = false;
  $("fatal").textContent = `This page cannot run: ${describe(error)}`;
  return error;
}

let tab;
let store;
let freezeMs;
try {
  const params = new URLSearchParams(location.search);
  const leaseMs = numberParam(params, "leaseMs", 5_000);
  const marginMs = numberParam(params, "marginMs", 1_000);
  freezeMs = numberParam(params, "freezeMs", 2 * leaseMs);
  tab = new TabLease(NAME, { leaseMs, marginMs });
  store = new FencedStore(NAME);
} catch (error) {
  throw fatal(error);
}

const tabId = `tab-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36).slice(0, 4)}`;

const me = {
  /** Why the last hold ended, unless released; cleared when this tab is active again. */
  lostReason: null,
  released: false,
  /** Shown as the role while the main thread is about to stop for a freeze. */
  frozen: false,
  /** Wall time of the freeze's start, while this tab handles its waking. */
  frozenWall: null,
  /** The last wall time this tab read itself active. */
  lastActiveWall: null,
  writes: { accepted: 0, refused: 0, failed: 0 },
  /** The counter as last read from the store. */
  counter: null,
};
const events = [];

function log(text) {
  events.unshift({ at: Date.now(), text });
  events.length = Math.min(events.length, 8);
  $("events").replaceChildren(
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
// What the tabs tell each other: their roles, and the chart's segments.

const channel = new BroadcastChannel("tenure-demo-tabs");
const timeline = new Timeline($("timeline"), { self: tabId, pinnedRows: [], tokenName: "epoch" });
const peers = new Map();

function broadcast(message) {
  channel.postMessage({ ...message, from: tabId });
}

function putSegment(segment) {
  timeline.put(segment);
  broadcast({ type: "segment", segment });
}

channel.onmessage = ({ data }) => {
  switch (data.type) {
    case "hello":
      broadcast({ type: "sync", segments: timeline.recent() });
      break;
    case "sync":
      for (const segment of data.segments) timeline.put(segment);
      break;
    case "segment":
      timeline.put(data.segment);
      break;
    case "presence":
      peers.set(data.from, { role: data.role, epoch: data.epoch, seenAt: Date.now() });
      break;
    case "bye": {
      peers.delete(data.from);
      const open = timeline.open(data.from);
      if (open !== null) timeline.put({ ...open, end: Date.now(), reason: "tab closed" });
      break;
    }
    default:
      break;
  }
};

function role() {
  if (me.frozen) return "frozen";
  if (tab.isActive) return "active";
  if (me.released) return "released";
  if (me.lostReason !== null) return "lost";
  return "candidate";
}

function presence() {
  const shown = role();
  return { role: shown, epoch: shown === "active" ? tab.epoch : null };
}

/** The active tab as the tabs report it: this one, or the peer claiming the largest epoch. */
function activeTab() {
  if (tab.isActive) return { id: tabId, epoch: tab.epoch };
  let best = null;
  for (const [id, peer] of peers) {
    if (peer.role === "active" && (best === null || peer.epoch > best.epoch)) best = { id, epoch: peer.epoch };
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// The role.

tab.onActive = ({ epoch, signal }) => {
  me.lostReason = null;
  me.lastActiveWall = Date.now();
  putSegment({ row: tabId, token: epoch, start: Date.now(), end: null, reason: null });
  broadcast({ type: "presence", ...presence() });
  log(`active with epoch ${epoch}`);
  startWriting(signal);
};

tab.onInactive = (reason) => {
  if (reason !== "released" && reason !== "pagehide") me.lostReason = reason;
  const open = timeline.open(tabId);
  if (open !== null) {
    // A frozen tab stopped being active around when it froze, though it learns of it on waking.
    const frozen = me.frozenWall !== null;
    const end = frozen ? Math.max(open.start, me.lastActiveWall ?? me.frozenWall) : Date.now();
    putSegment({ ...open, end, reason, frozenUntil: frozen ? Date.now() : null });
  }
  broadcast({ type: "presence", ...presence() });
  log(`stopped being active (epoch ${tab.epoch}): ${reason}`);
};

function campaign() {
  tab.acquire().catch((error) => {
    if (!me.released) log(`campaign stopped: ${describe(error)}`);
  });
}

// The work the role protects: a counter in the fenced store, written only after checking.
function startWriting(signal) {
  const tick = async () => {
    if (signal.aborted) return;
    if (tab.isActive) {
      try {
        const n = ((await tab.fencedRead(COUNTER_KEY))?.value?.n ?? 0) + 1;
        const result = await tab.fencedWrite(COUNTER_KEY, { n, by: tabId });
        me.writes[result.accepted ? "accepted" : "refused"] += 1;
      } catch {
        me.writes.failed += 1;
      }
    }
    setTimeout(tick, WRITE_EVERY_MS);
  };
  tick();
}

async function pollStore() {
  try {
    me.counter = await store.read(COUNTER_KEY);
  } catch (error) {
    me.counter = { error };
  }
}

// ---------------------------------------------------------------------------------------------
// The buttons.

async function closeTab() {
  const wasActive = tab.isActive;
  const report = $("close-report");
  report.hidden = false;
  report.dataset.outcome = "closing";
  report.textContent = "Releasing…";
  me.released = true;
  $("close").disabled = true;
  await tab.release();
  log(wasActive ? `released epoch ${tab.epoch}` : "withdrew as a candidate");
  broadcast({ type: "presence", ...presence() });
  broadcast({ type: "bye" });
  window.close();
  // Still running: the browser keeps tabs open that a script did not open.
  setTimeout(() => {
    report.dataset.outcome = "released";
    report.textContent =
      `${wasActive ? "Released the role: the next candidate is active at once." : "Withdrew as a candidate."} ` +
      "This browser does not let the page close its own tab, so close it yourself, or reload it to " +
      "be a candidate again.";
  }, CLOSE_REFUSED_AFTER_MS);
}

async function freeze() {
  const heldEpoch = tab.isActive ? tab.epoch : null;
  const report = $("freeze-report");
  report.hidden = false;
  report.dataset.outcome = "frozen";
  report.textContent = `Frozen for ${seconds(freezeMs)}: this tab runs nothing, not even the answers its heartbeat worker waits for…`;
  $("freeze").disabled = true;
  me.frozen = true;
  // Let the message paint before the thread stops (a page in the background gets no frames).
  await new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
  me.frozenWall = Date.now();
  const frozenAt = performance.now();
  while (performance.now() - frozenAt < freezeMs) {
    // Busy: no timer, message or event of this tab runs until the loop ends.
  }
  const frozenMs = performance.now() - frozenAt;
  me.frozen = false;
  $("freeze").disabled = false;

  if (heldEpoch === null) {
    me.frozenWall = null;
    report.dataset.outcome = "not-active";
    report.textContent = `Woke after ${seconds(frozenMs)}. This tab was not active, so there was nothing to fence.`;
    log(`woke after a ${seconds(frozenMs)} freeze`);
    return;
  }
  // A tab that wakes and carries on without checking would do this: write with its old epoch.
  const staleWrite = store.write(COUNTER_KEY, { n: (me.counter?.value?.n ?? 0) + 1, by: tabId, unchecked: true }, heldEpoch);
  // The check it should have made: reading isActive judges the hold on this tab's clocks now.
  const active = tab.isActive;
  let written;
  try {
    written = await staleWrite;
  } catch (error) {
    written = { error };
  }
  me.frozenWall = null;
  const checked = active
    ? "tab.isActive is still true"
    : `tab.isActive is false at once (${me.lostReason ?? "lost"})`;
  let outcome;
  let fenced;
  if (written.error !== undefined) {
    outcome = "failed";
    fenced = `the unchecked write with epoch ${heldEpoch} failed (${describe(written.error)})`;
  } else if (written.accepted) {
    outcome = "accepted";
    fenced = `the write with epoch ${heldEpoch} was accepted, rightly: no other tab took over (open another tab to see it refused)`;
  } else {
    outcome = "refused";
    fenced = `the unchecked write with stale epoch ${heldEpoch} was refused: the store's newest epoch is ${written.epoch}`;
  }
  report.dataset.outcome = outcome;
  report.textContent = `Woke after ${seconds(frozenMs)} as epoch ${heldEpoch}. ${checked}; ${fenced}.`;
  log(`woke after ${seconds(frozenMs)}; stale write ${outcome}`);
}

function explainHide() {
  const button = $("hide");
  const open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(open));
  $("hide-help").hidden = !open;
}

let hidden = null;

/** A role as the hide report names it. */
function asRole(shownRole, epoch) {
  switch (shownRole) {
    case "active":
      return `the active tab (epoch ${epoch})`;
    case "lost":
      return "a tab that lost the role";
    case "released":
      return "a released tab";
    default:
      return `a ${shownRole}`;
  }
}

function onVisibilityChange() {
  const now = Date.now();
  if (document.visibilityState === "hidden") {
    hidden = { at: now, role: role(), epoch: tab.epoch };
    log(`hidden as ${asRole(hidden.role, hidden.epoch)}`);
    return;
  }
  if (hidden === null) return;
  const was = hidden;
  hidden = null;
  const current = role();
  let what;
  if (was.role === "active" && current === "active" && tab.epoch === was.epoch) {
    what = `still active with epoch ${tab.epoch}: its worker kept the heartbeat going`;
  } else if (was.role === "active") {
    what = `the role went to another tab meanwhile (${me.lostReason ?? current})`;
  } else if (current === "active") {
    what = `it became active meanwhile, with epoch ${tab.epoch}`;
  } else {
    what = `still ${asRole(current, tab.epoch)}`;
  }
  const report = $("hide-report");
  report.hidden = false;
  report.dataset.outcome = "visible-again";
  report.textContent = `Hidden for ${seconds(now - was.at)} as ${asRole(was.role, was.epoch)}; ${what}.`;
  log(`visible again after ${seconds(now - was.at)}`);
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

function render() {
  const shown = role();
  if (shown === "active") me.lastActiveWall = Date.now();
  putAttribute(document.body, "data-role", shown);
  putAttribute($("role"), "data-role", shown);
  put("role", shown);
  const epoch = tab.epoch;
  put("epoch", epoch === null ? "–" : String(epoch));
  putAttribute($("epoch"), "style", epoch === null ? "" : `color: ${tokenColour(epoch)}`);
  const active = activeTab();
  put("active-tab", active === null ? "–" : active.id === tabId ? `${active.id} (you)` : active.id);
  $("active-tab").dataset.id = active?.id ?? "";
  put("visibility", document.visibilityState);

  let detail;
  if (shown === "active") detail = `active with epoch ${epoch}; the heartbeat renews every ${seconds(tab.renewIntervalMs)}`;
  else if (shown === "lost") detail = `lost epoch ${epoch} (${me.lostReason}); a candidate again`;
  else if (shown === "released") detail = "released; not a candidate";
  else if (shown === "frozen") detail = "frozen";
  else detail = active === null ? "a candidate, waiting for the role" : `a candidate: ${active.id} is active`;
  put("role-detail", detail);

  const { accepted, refused, failed } = me.writes;
  put("writes", `${accepted} accepted, ${refused} refused${failed > 0 ? `, ${failed} failed` : ""}`);
  const counter = me.counter;
  let value;
  if (counter === null) value = "nothing written yet";
  else if (counter.error) value = `unreadable (${describe(counter.error)})`;
  else value = `${counter.value.n}, written by ${counter.value.by} with epoch ${counter.epoch}`;
  put("store-value", value);
}

function frame() {
  render();
  requestAnimationFrame(frame);
}

function renderPeers() {
  const cutoff = Date.now() - PEER_GONE_MS;
  for (const [id, peer] of peers) if (peer.seenAt < cutoff) peers.delete(id);
  const entries = [[tabId, presence()], ...peers].map(([id, peer]) => ({
    role: peer.role,
    text: `${id === tabId ? `${id} (you)` : id}: ${peer.role}${peer.role === "active" ? `, epoch ${peer.epoch}` : ""}`,
  }));
  const list = $("tabs");
  if (list.dataset.shown !== JSON.stringify(entries)) {
    list.dataset.shown = JSON.stringify(entries);
    list.replaceChildren(
      ...entries.map(({ role: peerRole, text }) => {
        const item = document.createElement("li");
        item.dataset.role = peerRole;
        item.textContent = text;
        return item;
      }),
    );
  }
  timeline.render([...peers.keys()]);
  // A hidden tab gets no animation frames; its figures are kept current from here.
  if (document.visibilityState === "hidden") render();
}

function every(ms, work) {
  const run = async () => {
    await work();
    setTimeout(run, ms);
  };
  run();
}

// ---------------------------------------------------------------------------------------------
// Start.

$("tab-id").textContent = tabId;
document.title = `tenure tabs · ${tabId}`;
$("mode").textContent = tab.mode;
$("heartbeat").textContent = tab.heartbeat;
$("lease-config").textContent =
  `leaseMs ${tab.leaseMs}, marginMs ${tab.marginMs}, heartbeat every ${seconds(tab.renewIntervalMs)}`;
$("freeze").textContent = `Freeze ${(freezeMs / 1000).toFixed(0)} s`;
$("close").addEventListener("click", () => closeTab());
$("freeze").addEventListener("click", () => freeze());
$("hide").addEventListener("click", () => explainHide());
document.addEventListener("visibilitychange", onVisibilityChange);
addEventListener("pagehide", () => broadcast({ type: "bye" }));

broadcast({ type: "hello" });
log(`a candidate for "${NAME}"`);
every(PRESENCE_EVERY_MS, () => broadcast({ type: "presence", ...presence() }));
every(STORE_EVERY_MS, pollStore);
setInterval(renderPeers, 250);
requestAnimationFrame(frame);
campaign();
