// The conformance suite against a real redis-server (started by the test) behind the
// Upstash-style REST shim, through RedisHttpGrantor.

import { RedisHttpGrantor } from "tenure";
import { startRedis } from "../support/redis.mjs";
import { describeConformance } from "./suite.mjs";

describeConformance("Redis over HTTP through RedisHttpGrantor", {
  async setup() {
    const redis = await startRedis();
    return {
      grantor: new RedisHttpGrantor({ baseUrl: redis.url, token: redis.token }),
      teardown: () => redis.cleanup(),
    };
  },
  durationMs: 1_000,
  // Redis expires a key exactly at its PX deadline: a read after it never sees the key.
  expiryGraceMs: 250,
  observe: true,
});
