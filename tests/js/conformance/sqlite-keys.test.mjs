// The conformance suite against the reference grantor on SQLite with API keys required, over an
// HttpGrantor with an `apiKey` confined to a namespace: every lease the suite takes lies in it, and
// each grant's secret travels with its renewals, releases and writes without the suite knowing.

import { HttpGrantor } from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { describeConformance } from "./suite.mjs";

const API_KEY = "conformance-key-0123456789abcdef";

/** Prefixes every resource with the key's namespace, so the suite's names need not know it. */
function inNamespace(grantor, prefix) {
  const named = (args) => ({ ...args, resource: prefix + args.resource });
  return {
    grant: (args) => grantor.grant(named(args)),
    renew: (args) => grantor.renew(named(args)),
    release: (args) => grantor.release(named(args)),
    fencedWrite: (resource, payload, token, options) => grantor.fencedWrite(prefix + resource, payload, token, options),
    observe: (resource, options) => grantor.observe(prefix + resource, options),
  };
}

describeConformance("reference grantor on SQLite, API keys required", {
  async setup() {
    const keys = JSON.stringify({ id: "conformance", secret: API_KEY, namespaces: ["conformance/"] });
    const grantorProcess = await startGrantor({ env: { TENURE_GRANTOR_KEYS: keys } });
    // Without the key nothing is served: the suite below runs against a grantor that checks.
    const anonymous = new HttpGrantor({ baseUrl: grantorProcess.url });
    const refused = await anonymous
      .grant({ resource: "conformance/probe", holder: "p", durationMs: 1_000, requestId: "probe" })
      .then(
        () => null,
        (error) => error,
      );
    if (refused?.grantorCode !== "unauthorized") {
      await grantorProcess.stop();
      throw new Error(`a grant without a key was not refused: ${refused}`);
    }
    return {
      grantor: inNamespace(new HttpGrantor({ baseUrl: grantorProcess.url, apiKey: API_KEY }), "conformance/"),
      teardown: () => grantorProcess.stop(),
    };
  },
  durationMs: 1_000,
  expiryGraceMs: 250,
  observe: true,
});
