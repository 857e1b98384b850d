// Points the conformance suite at any grantor speaking the tenure protocol:
//
//   TENURE_GRANTOR_URL=http://127.0.0.1:8080 node --test tests/js/conformance/against-url.mjs
//
// Optional: TENURE_GRANTOR_HEADERS (JSON object, e.g. an authorization header),
// TENURE_CONFORMANCE_DURATION_MS (default 1000), TENURE_CONFORMANCE_GRACE_MS (default 500).

import { HttpGrantor } from "tenure";
import { describeConformance } from "./suite.mjs";

const baseUrl = process.env.TENURE_GRANTOR_URL;
if (!baseUrl) throw new Error("set TENURE_GRANTOR_URL to the grantor's base URL");

describeConformance(baseUrl, {
  setup: async () => ({
    grantor: new HttpGrantor({
      baseUrl,
      headers: JSON.parse(process.env.TENURE_GRANTOR_HEADERS ?? "{}"),
    }),
    teardown: async () => {},
  }),
  durationMs: Number(process.env.TENURE_CONFORMANCE_DURATION_MS ?? 1_000),
  expiryGraceMs: Number(process.env.TENURE_CONFORMANCE_GRACE_MS ?? 500),
});
