// The page starts the sync worker and shows what it reports. The lease lives in the worker: a
// dedicated worker's timers keep their schedule when the tab is hidden, where Chrome throttles
// the page's own timers to once a second, and after five minutes to once a minute.

const worker = new Worker(new URL("./sync-worker.js", import.meta.url), { type: "module" });
const messages = [];
window.example = { messages };

worker.addEventListener("message", ({ data }) => {
  // Served by the grantor itself (`--static-dir dist`): the grantor is this origin.
  if (data.type === "ready") worker.postMessage({ type: "start", grantorUrl: location.origin, batches: 3 });
  messages.push(data);
  const item = document.createElement("li");
  item.textContent = JSON.stringify(data);
  document.getElementById("log").append(item);
});
worker.addEventListener("error", (event) => messages.push({ type: "error", message: event.message }));

window.addEventListener("pagehide", () => worker.postMessage({ type: "stop" }));
