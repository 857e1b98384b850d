// One tab at a time refreshes a shared dashboard. Every tab campaigns for the lease; the holder
// writes a refresh through the grantor's fenced resource each second with its token, so a tab
// that froze past its lease cannot overwrite a newer holder's refresh. "Step down" releases, and
// a waiting tab takes over with a larger token.

import { HttpGrantor, LeaseHolder } from "tenure";

// Served by the grantor itself (`tenure-grantor serve --static-dir dist`), the grantor is this
// page's origin; set VITE_GRANTOR_URL at build time to use another (allowed by --cors-origin).
const grantor = new HttpGrantor({ baseUrl: import.meta.env.VITE_GRANTOR_URL ?? location.origin });
const resource = "dashboard/refresh";
const holderId = `tab-${crypto.randomUUID().slice(0, 8)}`;
const holder = new LeaseHolder(grantor, { resource, holderId, leaseMs: 3_000, marginMs: 600 });

// What the page shows, also readable as `window.example` (the example's test reads it).
const state = { holderId, status: "campaigning", token: null, writes: [], lost: null };
window.example = state;
const $ = (id) => document.getElementById(id);

function render() {
  $("status").textContent = state.status;
  $("token").textContent = state.token ?? "-";
  $("renewals").textContent = holder.stats().renewals;
  $("writes").textContent = state.writes.length;
  $("step-down").disabled = state.status !== "refreshing";
}

holder.onLeaseLost = (reason) => {
  state.lost = reason;
  state.status = `lost (${reason})`;
  render();
};

async function refreshWhileHeld(token, signal) {
  while (!signal.aborted) {
    const payload = { refreshedAt: new Date().toISOString(), by: holderId };
    const { accepted } = await grantor.fencedWrite(resource, payload, token, { signal }).catch(() => ({ accepted: false }));
    if (signal.aborted) break;
    state.writes.push({ token, accepted });
    render();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

$("step-down").addEventListener("click", async () => {
  await holder.release();
  state.status = "stepped down";
  render();
});

async function main() {
  render();
  const following = setInterval(async () => {
    const { holder: current } = await grantor.status(resource).catch(() => ({ holder: "unknown" }));
    if (state.status === "campaigning") $("status").textContent = `following ${current ?? "nobody"}`;
  }, 1_000);
  const { acquired, token } = await holder.acquire({ wait: true });
  clearInterval(following);
  if (!acquired) return;
  state.status = "refreshing";
  state.token = token;
  render();
  await refreshWhileHeld(token, holder.signal);
  render();
}

main();
