// DurableObjectGrantor inside a Worker (tests/js/fixtures/durable-object/binding-worker.js), in the
// ways that outlive one Durable Object stub: a LeaseHolder whose object is reset (ctx.abort())
// while it holds, and one grantor kept in the module and used by a later request. A stub kept by
// the grantor would fail both: workerd refuses every request through a stub whose object was reset,
// and any use of a stub from a request other than the one that made it.

import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { startDurableObjectGrantor } from "../support/durable-object.mjs";

describe("DurableObjectGrantor inside a Worker", () => {
  let objects;
  let worker;

  before(async () => {
    objects = await startDurableObjectGrantor({ workers: [{ name: "binding", entry: "binding-worker.js" }] });
    worker = await objects.worker("binding");
  });

  after(async () => {
    await objects?.stop();
  });

  const post = async (path, body) => {
    const reply = await worker.fetch(`http://binding.test${path}`, { method: "POST", body: JSON.stringify(body) });
    assert.equal(reply.status, 200, `${path}: ${reply.status}`);
    return reply.json();
  };

  it("a LeaseHolder keeps its lease when its object is evicted mid-hold", async () => {
    const report = await post("/evicted", { name: "reset", resource: "job" });
    assert.deepEqual(report.losses, []);
    assert.ok(report.renewalsAfter >= 2, `renewals after the eviction: ${report.renewalsAfter}`);
    assert.deepEqual(report.status, { holder: "evicted", token: report.token });
  });

  it("one grantor serves several requests", async () => {
    const granted = await post("/kept/grant", { name: "kept", resource: "job" });
    assert.equal(granted.granted, true);
    const renewed = await post("/kept/renew", { name: "kept", resource: "job" });
    assert.deepEqual({ renewed: renewed.renewed, token: renewed.token }, { renewed: true, token: granted.token }, JSON.stringify(renewed));
  });
});
