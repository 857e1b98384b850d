// In Node, TabLease and FencedStore are exported but need IndexedDB: constructing one fails with
// a clear LeaseError, after the configuration is checked like anywhere else. The same from
// "tenure/tabs", whose module leaves out the holder: global mode is refused there, naming it.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TabLease, FencedStore, isLeaseError } from "tenure";
import * as tabs from "tenure/tabs";

function throwsCode(make, code, field) {
  assert.throws(make, (error) => {
    assert.ok(isLeaseError(error), String(error));
    assert.equal(error.code, code);
    if (field !== undefined) assert.equal(error.field, field);
    return true;
  });
}

describe("TabLease outside a browser", () => {
  it("fails with ERR_TAB_UNSUPPORTED naming what is missing", () => {
    for (const make of [() => new TabLease("editor"), () => new FencedStore("editor")]) {
      assert.throws(make, (error) => {
        assert.ok(isLeaseError(error));
        assert.equal(error.code, "ERR_TAB_UNSUPPORTED");
        assert.deepEqual(error.missing, ["indexedDB"]);
        return true;
      });
    }
  });

  it("checks the configuration first, naming the field", () => {
    throwsCode(() => new TabLease(""), "ERR_LEASE_CONFIG", "name");
    throwsCode(() => new TabLease("x".repeat(201)), "ERR_LEASE_CONFIG", "name");
    throwsCode(() => new TabLease("e", { leaseMs: 1_000, marginMs: 1_000 }), "ERR_LEASE_CONFIG", "marginMs");
    throwsCode(
      () => new TabLease("e", { leaseMs: 1_000, marginMs: 100, renewIntervalMs: 950 }),
      "ERR_LEASE_CONFIG",
      "renewIntervalMs",
    );
    throwsCode(() => new TabLease("e", { heartbeat: "timer" }), "ERR_LEASE_CONFIG", "heartbeat");
    throwsCode(() => new TabLease("e", { heartbeat: "worker" }), "ERR_LEASE_CONFIG", "heartbeat");
    throwsCode(() => new TabLease("e", { global: { resource: "r" } }), "ERR_LEASE_CONFIG", "global.grantor");
    const grantor = { grant: () => ({ granted: false }), renew: () => ({ renewed: false }) };
    throwsCode(
      () => new TabLease("e", { global: { grantor, leaseMs: 1_000, marginMs: 100 } }),
      "ERR_LEASE_CONFIG",
      "global.resource",
    );
    throwsCode(
      () => new TabLease("e", { global: { grantor, resource: "r", leaseMs: 100, marginMs: 200 } }),
      "ERR_LEASE_CONFIG",
      "global.marginMs",
    );
  });

  it("from tenure/tabs: the same checks, and global mode refused for the main entry's", () => {
    assert.notEqual(tabs.TabLease, TabLease, "a module of its own");
    for (const make of [() => new tabs.TabLease("editor"), () => new tabs.FencedStore("editor")]) {
      assert.throws(make, (error) => {
        assert.ok(tabs.isLeaseError(error) && isLeaseError(error));
        assert.ok(error instanceof tabs.LeaseError);
        assert.equal(error.code, "ERR_TAB_UNSUPPORTED");
        assert.deepEqual(error.missing, ["indexedDB"]);
        return true;
      });
    }
    throwsCode(() => new tabs.TabLease(""), "ERR_LEASE_CONFIG", "name");
    throwsCode(() => new tabs.TabLease("e", { leaseMs: 1_000, marginMs: 1_000 }), "ERR_LEASE_CONFIG", "marginMs");
    const grantor = { grant: () => ({ granted: false }), renew: () => ({ renewed: false }) };
    assert.throws(
      () => new tabs.TabLease("e", { global: { grantor, resource: "r", leaseMs: 1_000, marginMs: 100 } }),
      (error) => error.code === "ERR_LEASE_CONFIG" && error.field === "global" && /import TabLease from "tenure"/.test(error.message),
    );
  });
});
