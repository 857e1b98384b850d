// Every fault kind of the fault proxy, in Node: holders reach the real grantor through the proxy
// (in this process), a competitor reaches it directly, and each case checks that no two holders
// safely hold at once, no stale write is accepted, the holder surrenders by its margin deadline,
// and it recovers once the fault heals.

import { describe, it, before, after } from "node:test";
import * as tenure from "tenure";
import { startGrantor } from "../support/grantor-process.mjs";
import { startFaultProxy } from "../../fault-proxy/proxy.mjs";
import { faultCase, warmUp } from "../fixtures/verification-scenarios.js";
import {
  FAULT_CASES,
  LATE_MS,
  RECOVERY_MS,
  checkFaultCase,
  faultFigures,
  figureLog,
  reachingTheFault,
} from "../support/verification.mjs";

describe("fault kinds, in Node", () => {
  let grantor;
  let proxy;
  const figures = figureLog("faults-node");

  before(async () => {
    grantor = await startGrantor();
    proxy = await startFaultProxy({ target: grantor.url });
    await warmUp({ tenure, grantorUrl: grantor.url, proxyUrl: proxy.url, tag: "node" });
  });

  after(async () => {
    await proxy?.close();
    await grantor?.stop();
    figures.write();
  });

  for (const expected of FAULT_CASES) {
    it(`${expected.name}: safe throughout, surrenders by the margin, recovers after the heal`, async (t) => {
      const run = (attempt) =>
        faultCase({
          tenure,
          grantorUrl: grantor.url,
          proxyUrl: proxy.url,
          control: proxy,
          fault: expected.fault,
          tag: `node/${expected.name}/${attempt}`,
        });
      const result = await reachingTheFault(run, { note: (text) => t.diagnostic(text) });
      const entry = { runtime: "node", ...faultFigures(result, expected) };
      t.diagnostic(JSON.stringify(entry));
      await figures.record(entry, () =>
        checkFaultCase(result, expected, { lateMs: LATE_MS, recoveryMs: RECOVERY_MS.node }),
      );
    });
  }
});
