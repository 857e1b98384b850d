// Entry for browsers, workers, bundlers, Node, Deno and Bun (and, built by scripts/build, the
// CommonJS entry): the core travels inline (inline-core.js) and is compiled on first use, so
// importing does no work.

export { Lease, LeaseHolder, leasedRead } from "./api.js";
export { adviseDuration } from "./advise.js";
export { HttpGrantor } from "./http-grantor.js";
export { DurableObjectGrantor } from "./durable-object-grantor.js";
export { observe, Observation } from "./observe.js";
export { EtcdGrantor } from "./etcd-grantor.js";
export { RedisHttpGrantor } from "./redis-http-grantor.js";
export { ConsulGrantor } from "./consul-grantor.js";
export { KubernetesLeaseGrantor } from "./kubernetes-lease-grantor.js";
export { WorkClaimer, Claim } from "./work-claimer.js";
export { LeaseError, LeaseExpiredError, isLeaseError } from "./errors.js";
// TabLease and FencedStore need IndexedDB: where it is missing (Node, Bun) they throw
// ERR_TAB_UNSUPPORTED when constructed.
export { TabLease, FencedStore } from "./tab-lease.js";
