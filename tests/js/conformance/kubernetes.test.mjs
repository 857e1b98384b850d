// The conformance suite against KubernetesLeaseGrantor, on the Kubernetes API fake
// (tests/fakes/kubernetes.mjs).

import { KubernetesLeaseGrantor } from "tenure";
import { startKubernetesFake } from "../../fakes/kubernetes.mjs";
import { describeConformance } from "./suite.mjs";

describeConformance("Kubernetes Lease (fake API server)", {
  async setup() {
    const apiServer = await startKubernetesFake({ token: "conformance-token" });
    return {
      grantor: new KubernetesLeaseGrantor({
        baseUrl: apiServer.url,
        token: "conformance-token",
        namespace: "tenure-test",
      }),
      teardown: () => apiServer.close(),
    };
  },
  // leaseDurationSeconds is whole seconds: 2 s.
  durationMs: 2_000,
  // A takeover comes leaseDurationSeconds after this process first saw the holder's last write,
  // which is after the holder sent it; a campaign's poll interval and a loaded machine add a bit.
  expiryGraceMs: 1_500,
  observe: true,
});
