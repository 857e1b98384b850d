// Entry for Node: Node's fetch cannot read file: URLs, so read the module from disk.
import { readFileSync } from "node:fs";
import { initSync } from "./glue/tenure.js";

initSync({ module: readFileSync(new URL("./glue/tenure_bg.wasm", import.meta.url)) });

export { Lease, LeaseHolder, leasedRead } from "./api.js";
export { adviseDuration } from "./advise.js";
export { HttpGrantor } from "./http-grantor.js";
export { EtcdGrantor } from "./etcd-grantor.js";
export { RedisHttpGrantor } from "./redis-http-grantor.js";
export { ConsulGrantor } from "./consul-grantor.js";
export { KubernetesLeaseGrantor } from "./kubernetes-lease-grantor.js";
export { WorkClaimer, Claim } from "./work-claimer.js";
export { LeaseError, LeaseExpiredError, isLeaseError } from "./errors.js";
// TabLease and FencedStore need IndexedDB: in Node they throw ERR_TAB_UNSUPPORTED when constructed.
export { TabLease, FencedStore } from "./tab-lease.js";
