// The demo: a LeaseHolder acquiring and renewing against the reference grantor that serves
// this page. "Block grantor" makes every call fail as a network partition would.
import { HttpGrantor, LeaseHolder } from "./pkg/index.js";

const params = new URLSearchParams(location.search);
const LEASE_MS = Number(params.get("leaseMs") ?? 6_000);
const MARGIN_MS = Number(params.get("marginMs") ?? 1_000);

const http = new HttpGrantor({ baseUrl: location.origin });
let blocked = false;
const unreachable = () => Promise.reject(new TypeError("grantor unreachable (blocked in the demo)"));
const grantor = {
  grant: (args) => (blocked ? unreachable() : http.grant(args)),
  renew: (args) => (blocked ? unreachable() : http.renew(args)),
  release: (args) => (blocked ? unreachable() : http.release(args)),
};

const holderId = `tab-${Math.random().toString(36).slice(2, 8)}`;
const holder = new LeaseHolder(grantor, {
  resource: "demo",
  holderId,
  leaseMs: LEASE_MS,
  marginMs: MARGIN_MS,
});

const $ = (id) => document.getElementById(id);
$("bar-margin").style.width = `${(MARGIN_MS / LEASE_MS) * 100}%`;
$("grantor-note").textContent = `This tab is ${holderId}. Open more tabs: one holds, the others wait.`;

let lastEvent = "–";
holder.onLeaseLost = (reason) => {
  lastEvent = `lost: ${reason}`;
};

async function acquire() {
  lastEvent = "acquiring…";
  lastEvent = "waiting for the lease…";
  const result = await holder.acquire({ wait: true });
  lastEvent = result.acquired ? `acquired token ${result.token}` : `denied: ${result.reason}`;
}

$("block").addEventListener("click", () => {
  blocked = !blocked;
  $("block").setAttribute("aria-pressed", String(blocked));
  $("block").textContent = blocked ? "Unblock grantor" : "Block grantor";
});
$("revoke").addEventListener("click", async () => {
  const { revoked } = await http.revoke("demo");
  lastEvent = revoked ? "revoked by admin" : "nothing to revoke";
});
$("release").addEventListener("click", async () => {
  await holder.release().catch(() => {});
  lastEvent = "released";
});
$("acquire").addEventListener("click", () => acquire().catch((e) => (lastEvent = String(e))));

function render() {
  const remaining = holder.lease.remainingMs();
  const safe = holder.lease.isSafelyHeld();
  $("role").textContent = safe ? "holder" : remaining > 0 ? "inside margin" : "not holding";
  document.body.dataset.role = safe ? "holder" : "waiting";
  $("token").textContent = holder.lease.token ?? "–";
  $("remaining").textContent = `${(remaining / 1000).toFixed(2)} s`;
  const fill = $("bar-fill");
  fill.style.width = `${(remaining / LEASE_MS) * 100}%`;
  fill.classList.toggle("amber", remaining > 0 && !safe);
  $("failures").textContent = String(holder.consecutiveFailures);
  $("event").textContent = lastEvent;
  requestAnimationFrame(render);
}

requestAnimationFrame(render);
acquire();
