// The conformance suite against the Durable Object grantor (LeaseGrantorObject in workerd through
// Miniflare): over plain HTTP through the Worker in front of it (on the key-value and the SQLite
// storage backends), and through the namespace binding with DurableObjectGrantor.

import { HttpGrantor, DurableObjectGrantor } from "tenure";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";
import { describeConformance } from "./suite.mjs";

const options = {
  durationMs: 1_000,
  // The object expires a lease exactly at its duration, on its clock (Date.now, which workerd
  // moves on at each input or output), so a takeover waits for the next request after it.
  expiryGraceMs: 250,
  observe: true,
};

describeConformance("Durable Object grantor over HTTP", {
  async setup() {
    const objects = await startDurableObjectGrantor();
    return { grantor: new HttpGrantor({ baseUrl: objects.url("http") }), teardown: () => objects.stop() };
  },
  ...options,
});

describeConformance("Durable Object grantor over HTTP, SQLite-backed storage", {
  async setup() {
    const objects = await startDurableObjectGrantor({ useSQLite: true });
    return { grantor: new HttpGrantor({ baseUrl: objects.url("http") }), teardown: () => objects.stop() };
  },
  ...options,
});

describeConformance("Durable Object grantor through the binding", {
  async setup() {
    const objects = await startDurableObjectGrantor();
    const namespace = await objects.namespace();
    return { grantor: new DurableObjectGrantor({ namespace, name: "binding" }), teardown: () => objects.stop() };
  },
  ...options,
});
