// The conformance suite against a real etcd (3.4, started by the test), through EtcdGrantor and
// etcd's JSON gateway.

import { EtcdGrantor } from "tenure";
import { startEtcd } from "../support/etcd.mjs";
import { describeConformance } from "./suite.mjs";

describeConformance("etcd through EtcdGrantor", {
  async setup() {
    const etcd = await startEtcd();
    return { grantor: new EtcdGrantor({ baseUrl: etcd.url }), teardown: () => etcd.cleanup() };
  },
  // etcd's leases are whole seconds, at least 2 s with the default election timeout.
  durationMs: 2_000,
  // etcd's leader deletes expired leases in a sweep every 500 ms, and the revocation is a raft
  // commit; on a loaded machine that lands well within a second and a half.
  expiryGraceMs: 1_500,
  observe: true,
});
