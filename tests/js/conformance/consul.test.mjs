// The conformance suite against ConsulGrantor, on the Consul fake (tests/fakes/consul.mjs) with
// Consul's own timing: TTLs of at least 10 s, invalidated at twice the TTL.

import { ConsulGrantor } from "tenure";
import { startConsulFake } from "../../fakes/consul.mjs";
import { describeConformance } from "./suite.mjs";

describeConformance("Consul (fake agent)", {
  async setup() {
    const consul = await startConsulFake({ token: "conformance-token" });
    return {
      grantor: new ConsulGrantor({ baseUrl: consul.url, token: "conformance-token" }),
      teardown: () => consul.close(),
    };
  },
  // Granted as Consul's minimum TTL, 10 s; a LeaseHolder asking for 3 s believes 3 s.
  durationMs: 3_000,
  // Consul invalidates an unrenewed session up to one more TTL after it (2 × TTL), and the
  // lock-delay is 0; 2 s more for a loaded machine.
  expiryGraceMs: 12_000,
  observe: true,
});
